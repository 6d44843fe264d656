// SPDX-License-Identifier: GPL-2.0
/*
 * ucma_fuzz: a hostile user of rdma_ucm's write() ABI. Several threads share
 * a few /dev/infiniband/rdma_cm files and a table of ids and joins, and draw
 * commands at random from the whole ucma command set: create, bind,
 * resolve, listen, connect, accept, reject, disconnect, set_option, query,
 * init_qp_attr, notify, join (IP and generic), leave, migrate, get_event,
 * destroy, and closing a file under the other threads. Ids go stale, land
 * on other files, get destroyed twice: every error is an answer, only the
 * kernel's own health (the VM's splat scan, no hang, no id left) judges.
 * A "chain" op drives a real connection (resolve, route, connect) over an
 * RDMA device between two local addresses on a file of its own, against
 * listeners that the other threads serve (a CONNECT_REQUEST is mostly
 * accepted), so connections come and go in the mix.
 *
 * Two patterns are left out because they are stock rdma_ucm's own
 * use-after-free, whatever CM is below it (tests/progs/ucma_unreported.c,
 * docs/ucma-review.md): destroying or migrating an id rdma_ucm has made
 * for a connect request that GET_EVENT has not reported yet, and migrating
 * a listener whose connect requests are still queued. So DESTROY_ID and
 * MIGRATE_ID name only ids this program learned (CREATE_ID's answer or a
 * reported CONNECT_REQUEST) on the file that still holds them, claimed so
 * that no other thread destroys or moves the same id meanwhile (a number
 * freed is soon reused for the next request's id); MIGRATE_ID never moves
 * an id LISTEN was tried on; and every op holds its own reference of the
 * file it writes to, so that a reopen cannot free the ids under it. Every
 * other command still takes stale and random ids.
 *
 *   ucma_fuzz -s SEED -n OPS -t THREADS -a ADDR [-a ADDR...] [-m MIN_EST]
 *             [-1]  (never join a group the id has joined already)
 *
 * Each thread draws from its own generator, seeded from SEED and its index:
 * the draws are fixed by the seed, the interleaving is not. It prints one
 * line per op kind (tried, ok), the totals, and exits 0 when every thread
 * ran its OPS and at least MIN_EST connections were made (a chain's REP
 * came and its RTU went); 1
 * otherwise. On SIGTERM or SIGALRM (the test's deadline: a hang) it
 * prints each thread's last ops, then exits 3.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_cma_abi.h>

#include "ucma_raw.h"

#define NFILES		3
#define NSLOTS		64
#define NMC		32
#define NADDRS		4
#define RING		32
#define PORT0		7471	/* ports PORT0..PORT0+3 */

enum op {
	OP_CREATE, OP_DESTROY, OP_BIND, OP_RESOLVE_IP, OP_RESOLVE_ADDR,
	OP_RESOLVE_ROUTE, OP_LISTEN, OP_CONNECT, OP_ACCEPT, OP_REJECT,
	OP_DISCONNECT, OP_SET_OPTION, OP_QUERY, OP_QUERY_ROUTE,
	OP_INIT_QP_ATTR, OP_NOTIFY, OP_JOIN_IP, OP_JOIN, OP_LEAVE,
	OP_MIGRATE, OP_GET_EVENT, OP_REOPEN, OP_CHAIN, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"create", "destroy", "bind", "resolve_ip", "resolve_addr",
	"resolve_route", "listen", "connect", "accept", "reject",
	"disconnect", "set_option", "query", "query_route",
	"init_qp_attr", "notify", "join_ip", "join", "leave",
	"migrate", "get_event", "reopen", "chain",
};

/* Relative weights of the draws. */
static const int op_weight[OP_COUNT] = {
	[OP_CREATE] = 10, [OP_DESTROY] = 6, [OP_BIND] = 8,
	[OP_RESOLVE_IP] = 3, [OP_RESOLVE_ADDR] = 6, [OP_RESOLVE_ROUTE] = 5,
	[OP_LISTEN] = 5, [OP_CONNECT] = 5, [OP_ACCEPT] = 4, [OP_REJECT] = 3,
	[OP_DISCONNECT] = 4, [OP_SET_OPTION] = 5, [OP_QUERY] = 4,
	[OP_QUERY_ROUTE] = 2, [OP_INIT_QP_ATTR] = 3, [OP_NOTIFY] = 2,
	[OP_JOIN_IP] = 4, [OP_JOIN] = 4, [OP_LEAVE] = 5, [OP_MIGRATE] = 4,
	[OP_GET_EVENT] = 14, [OP_REOPEN] = 1, [OP_CHAIN] = 3,
};

/*
 * The shared tables, under table_lock. A slot or join names an id by file
 * index and rdma_ucm id; whatever another thread did to it since (destroy,
 * migrate, its file closed) is for the kernel to answer.
 */
struct slot {
	int used, file;
	unsigned int gen;	/* file_gen[file] when the id was learned */
	uint32_t id;
	uint32_t joined;	/* bit g: group g joined (for -1) */
	int busy;		/* claimed by a DESTROY_ID or MIGRATE_ID */
	int listener;		/* LISTEN was tried on it: never migrated */
};
struct join_ent {
	int used, file, slot;
	uint32_t id;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int files[NFILES];
static unsigned int file_gen[NFILES];	/* bumped by each reopen */
static struct slot slots[NSLOTS];
static struct join_ent joins[NMC];
static struct sockaddr_storage addrs[NADDRS + 1];	/* + one that is nobody */
static int naddrs;
static int no_dup_join;
static long ops_per_thread;
static atomic_long tried[OP_COUNT], ok[OP_COUNT];
static atomic_long established, connected, conn_requests, ran;
/* Where each chain ended: 0 address, 1 route, 2 REP, 3 RTU, 4 made. */
static atomic_long chain_end[5];
static int last_chain_err, last_chain_ev;

struct thread {
	pthread_t t;
	int index;
	uint64_t rng;
	long done;
	char ring[RING][96];
	unsigned int ring_pos;
};
static struct thread *threads;
static int nthreads;

/* splitmix64 */
static uint64_t rnd(struct thread *th)
{
	uint64_t z = (th->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(struct thread *th, unsigned int n)
{
	return n ? rnd(th) % n : 0;
}

static void note(struct thread *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct thread *th, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(th->ring[th->ring_pos++ % RING], sizeof(th->ring[0]), fmt, ap);
	va_end(ap);
}

/*
 * A reference of file @i (a dup: a reopen meanwhile cannot release the file
 * and the ids on it) and its generation. Called under table_lock.
 */
static int file_ref_locked(int i, unsigned int *gen)
{
	if (gen)
		*gen = file_gen[i];
	return dup(files[i]);
}

static int file_ref(int i, unsigned int *gen)
{
	int fd;

	pthread_mutex_lock(&table_lock);
	fd = file_ref_locked(i, gen);
	pthread_mutex_unlock(&table_lock);
	return fd;
}

/* Slot @s names a live id: learned on the file that is still open. */
static int slot_live(int s)
{
	return s >= 0 && slots[s].used && slots[s].gen == file_gen[slots[s].file];
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* A local address (or, 1 in 8 draws, the one nobody has) with a port. */
static struct sockaddr_storage pick_addr(struct thread *th, int any_port)
{
	struct sockaddr_storage ss = addrs[below(th, 8) ? below(th, naddrs) : (unsigned int)naddrs];

	set_port(&ss, any_port && below(th, 3) == 0 ? 0 : PORT0 + below(th, 4));
	return ss;
}

static struct sockaddr_storage pick_group(struct thread *th, int *g)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

	*g = below(th, 2);
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(0xef120900 + 1 + *g);	/* 239.18.9.1/2 */
	return ss;
}

/* A random slot (or a free one with @want_free); -1 when none. */
static int pick_slot(struct thread *th, int want_free)
{
	int i, start = below(th, NSLOTS);

	for (i = 0; i < NSLOTS; i++) {
		int s = (start + i) % NSLOTS;

		if (slots[s].used != want_free)
			return s;
	}
	return -1;
}

/*
 * A live slot, neither claimed nor (for @migrate) a listener, claimed for
 * the caller; -1 when none. Under table_lock.
 */
static int claim_slot(struct thread *th, int migrate)
{
	int i, start = below(th, NSLOTS);

	for (i = 0; i < NSLOTS; i++) {
		int s = (start + i) % NSLOTS;

		/*
		 * A listener is never migrated, and destroyed one time in
		 * four it is drawn, so that the chains find listeners.
		 */
		if (slot_live(s) && !slots[s].busy &&
		    !(slots[s].listener && (migrate || below(th, 4)))) {
			slots[s].busy = 1;
			return s;
		}
	}
	return -1;
}

/* LISTEN is about to be tried on @id of @file: never migrate it. */
static void mark_listener(int file, uint32_t id)
{
	int i;

	pthread_mutex_lock(&table_lock);
	for (i = 0; i < NSLOTS; i++)
		if (slots[i].used && slots[i].file == file && slots[i].id == id)
			slots[i].listener = 1;
	pthread_mutex_unlock(&table_lock);
}

/* @id learned on file @file of generation @gen (gone when it was reopened). */
static void add_slot(int file, unsigned int gen, uint32_t id, int listener)
{
	int i;

	pthread_mutex_lock(&table_lock);
	for (i = 0; i < NSLOTS && gen == file_gen[file]; i++) {
		if (!slots[i].used) {
			slots[i] = (struct slot){ .used = 1, .file = file, .gen = gen,
						  .id = id, .listener = listener };
			break;
		}
	}
	pthread_mutex_unlock(&table_lock);
	/* A full table leaves the id to its file's close. */
}

static int create_id(int fd, uint16_t ps, uint8_t qp_type, uint32_t *id)
{
	struct ucma_abi_create_id_resp resp = {};
	struct ucma_abi_create_id c;
	int ret;

	CMD_INIT(c, UCMA_CMD_CREATE_ID, sizeof(resp));
	c.uid = 1;
	c.response = (uintptr_t)&resp;
	c.ps = ps;
	c.qp_type = qp_type;
	ret = ucma_write(fd, &c, sizeof(c));
	*id = resp.id;
	return ret;
}

static void fill_conn(struct thread *th, struct ucma_abi_conn_param *p)
{
	unsigned int i;

	p->qp_num = rnd(th) & 0xffffff;
	p->private_data_len = below(th, 4) ? below(th, 57) : below(th, 256);
	for (i = 0; i < p->private_data_len; i++)
		p->private_data[i] = rnd(th);
	p->responder_resources = below(th, 20);
	p->initiator_depth = below(th, 20);
	p->retry_count = below(th, 8);
	p->rnr_retry_count = below(th, 8);
	p->srq = below(th, 2);
	p->valid = below(th, 4) != 0;
}

/* What librdmacm sends by default: for the connections that must succeed. */
static void sane_conn(struct thread *th, struct ucma_abi_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->qp_num = 0x100 + below(th, 0x1000);
	p->private_data_len = below(th, 33);
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->valid = 1;
}

/*
 * ACCEPT @id: with fuzzed parameters (@sane 0), ones that should work (1),
 * or none (2: the active side's ACCEPT after the REP, which sends the RTU,
 * as librdmacm's rdma_connect() does).
 */
static int accept_id(struct thread *th, int fd, uint32_t id, int sane)
{
	struct ucma_abi_accept c;

	CMD_INIT(c, UCMA_CMD_ACCEPT, 0);
	c.uid = 2;
	if (sane == 2) {
		/* conn_param.valid 0 */
	} else if (sane) {
		sane_conn(th, &c.conn_param);
	} else {
		fill_conn(th, &c.conn_param);
		c.conn_param.valid = 1;
	}
	c.id = id;
	return ucma_write(fd, &c, sizeof(c));
}

static int reject_id(struct thread *th, int fd, uint32_t id)
{
	struct ucma_abi_reject c;

	CMD_INIT(c, UCMA_CMD_REJECT, 0);
	c.id = id;
	c.private_data_len = below(th, 60);
	c.reason = below(th, 3);
	return ucma_write(fd, &c, sizeof(c));
}

/* One event of @fd, if any: a CONNECT_REQUEST is mostly accepted at once. */
static int get_event(struct thread *th, int file, struct ucma_abi_event_resp *ev)
{
	struct ucma_abi_get_event c;
	unsigned int gen;
	int fd = file_ref(file, &gen), ret;

	if (fd < 0)
		return -errno;
	CMD_INIT(c, UCMA_CMD_GET_EVENT, sizeof(*ev));
	c.response = (uintptr_t)ev;
	ret = ucma_write(fd, &c, sizeof(c));
	if (ret)
		goto out;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		atomic_fetch_add(&established, 1);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		atomic_fetch_add(&conn_requests, 1);
		if (below(th, 10) < 7)
			accept_id(th, fd, ev->id, 1);
		else if (below(th, 3) < 2)
			reject_id(th, fd, ev->id);
		add_slot(file, gen, ev->id, 0);
	}
out:
	close(fd);
	return ret;
}

/* Wait up to @ms for an event of @fd of kind @want (others are dropped). */
static int wait_event(int fd, unsigned int want, int ms, struct ucma_abi_event_resp *ev)
{
	struct timespec t0, t;
	struct ucma_abi_get_event c;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - ((t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -ETIMEDOUT;
		CMD_INIT(c, UCMA_CMD_GET_EVENT, sizeof(*ev));
		c.response = (uintptr_t)ev;
		if (ucma_write(fd, &c, sizeof(c)))
			continue;
		if (ev->event == want)
			return 0;
		if (ev->event == RDMA_CM_EVENT_ADDR_ERROR ||
		    ev->event == RDMA_CM_EVENT_ROUTE_ERROR ||
		    ev->event == RDMA_CM_EVENT_REJECTED ||
		    ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		    ev->event == RDMA_CM_EVENT_CONNECT_ERROR)
			return -ECONNREFUSED;
	}
}

/*
 * A real connection from a file of its own: resolve a listener's address
 * (one of ours, on a port the others listen on), its route, connect, and
 * its REP and send the RTU; then disconnect, or leave it to the file's close.
 */
static int chain(struct thread *th)
{
	struct ucma_abi_event_resp ev;
	struct ucma_abi_resolve_addr ra;
	struct ucma_abi_resolve_route rr;
	struct ucma_abi_connect cc;
	struct ucma_abi_disconnect dc;
	struct sockaddr_storage dst;
	int fd, ret, stage = 0;
	uint32_t id;

	fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = create_id(fd, RDMA_PS_TCP, IBV_QPT_RC, &id);
	if (ret)
		goto out;
	dst = addrs[below(th, naddrs)];
	set_port(&dst, PORT0);
	CMD_INIT(ra, UCMA_CMD_RESOLVE_ADDR, 0);
	ra.id = id;
	ra.timeout_ms = 2000;
	ra.dst_size = ucma_addr_len(&dst);
	memcpy(&ra.dst_addr, &dst, ra.dst_size);
	ret = ucma_write(fd, &ra, sizeof(ra));
	if (!ret)
		ret = wait_event(fd, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, &ev);
	if (ret)
		goto out;
	stage = 1;
	CMD_INIT(rr, UCMA_CMD_RESOLVE_ROUTE, 0);
	rr.id = id;
	rr.timeout_ms = 2000;
	ret = ucma_write(fd, &rr, sizeof(rr));
	if (!ret)
		ret = wait_event(fd, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, &ev);
	if (ret)
		goto out;
	stage = 2;
	CMD_INIT(cc, UCMA_CMD_CONNECT, 0);
	sane_conn(th, &cc.conn_param);
	cc.conn_param.retry_count = 2;
	cc.id = id;
	ret = ucma_write(fd, &cc, sizeof(cc));
	/*
	 * An id without a kernel QP gets CONNECT_RESPONSE for the REP; its
	 * ACCEPT sends the RTU (what librdmacm's rdma_connect() does), and
	 * the listener's side sees ESTABLISHED.
	 */
	if (!ret)
		ret = wait_event(fd, RDMA_CM_EVENT_CONNECT_RESPONSE, 5000, &ev);
	if (ret) {
		last_chain_err = ret;
		last_chain_ev = ev.event;
		goto out;
	}
	stage = 3;
	if (!ret)
		ret = accept_id(th, fd, id, 2);
	if (ret)
		goto out;
	stage = 4;
	atomic_fetch_add(&connected, 1);
	if (below(th, 2)) {
		CMD_INIT(dc, UCMA_CMD_DISCONNECT, 0);
		dc.id = id;
		ucma_write(fd, &dc, sizeof(dc));
	}
out:
	atomic_fetch_add(&chain_end[stage], 1);
	close(fd);
	return ret;
}

static int do_op(struct thread *th, enum op op)
{
	struct ucma_abi_event_resp ev;
	struct ucma_abi_create_id_resp cresp;
	struct sockaddr_storage a;
	int s, file, fd, g, ret = -ENOENT, claimed;
	unsigned int gen;
	uint32_t id;

	claimed = op == OP_DESTROY || op == OP_MIGRATE;
	pthread_mutex_lock(&table_lock);
	s = claimed ? claim_slot(th, op == OP_MIGRATE) : pick_slot(th, 0);
	if (claimed && s < 0) {
		pthread_mutex_unlock(&table_lock);
		note(th, "%s: no id to claim", op_names[op]);
		return -ENOENT;
	}
	file = s >= 0 ? slots[s].file : (int)below(th, NFILES);
	id = s >= 0 ? slots[s].id : rnd(th) % 256;
	fd = file_ref_locked(file, &gen);
	pthread_mutex_unlock(&table_lock);
	if (fd < 0) {
		ret = -errno;
		goto out_noted;
	}
	/*
	 * Now and then a random id: rdma_ucm must refuse what is not there
	 * (not for DESTROY_ID and MIGRATE_ID: see the top of this file).
	 */
	if (!claimed && below(th, 16) == 0)
		id = rnd(th) % 512;

	switch (op) {
	case OP_CREATE: {
		static const uint16_t ps[] = { RDMA_PS_TCP, RDMA_PS_UDP,
					       RDMA_PS_IB, RDMA_PS_IPOIB, 0x7777 };
		uint8_t qpt = below(th, 2) ? IBV_QPT_RC : IBV_QPT_UD;

		file = below(th, NFILES);
		close(fd);
		fd = file_ref(file, &gen);
		ret = fd < 0 ? -errno : create_id(fd, ps[below(th, 5)], qpt, &id);
		if (!ret)
			add_slot(file, gen, id, 0);
		note(th, "create file %d -> id %u (%d)", file, id, ret);
		goto out_noted;
	}
	case OP_DESTROY:
		ret = ucma_destroy_id(fd, id);
		if (!ret) {
			pthread_mutex_lock(&table_lock);
			slots[s].used = 0;
			pthread_mutex_unlock(&table_lock);
		}
		break;
	case OP_BIND: {
		struct ucma_abi_bind c;

		CMD_INIT(c, UCMA_CMD_BIND, 0);
		a = pick_addr(th, 1);
		c.id = id;
		c.addr_size = below(th, 16) ? ucma_addr_len(&a) : below(th, 200);
		memcpy(&c.addr, &a, sizeof(a));
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_RESOLVE_IP: {
		struct ucma_abi_resolve_ip c;

		CMD_INIT(c, UCMA_CMD_RESOLVE_IP, 0);
		a = pick_addr(th, 0);
		memcpy(&c.dst_addr, &a, sizeof(struct sockaddr_in));
		c.id = id;
		c.timeout_ms = 100 + below(th, 1900);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_RESOLVE_ADDR: {
		struct ucma_abi_resolve_addr c;

		CMD_INIT(c, UCMA_CMD_RESOLVE_ADDR, 0);
		a = pick_addr(th, 0);
		c.id = id;
		c.timeout_ms = 100 + below(th, 1900);
		c.dst_size = ucma_addr_len(&a);
		memcpy(&c.dst_addr, &a, sizeof(a));
		if (below(th, 3) == 0) {
			struct sockaddr_storage src = pick_addr(th, 1);

			c.src_size = ucma_addr_len(&src);
			memcpy(&c.src_addr, &src, sizeof(src));
		}
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_RESOLVE_ROUTE: {
		struct ucma_abi_resolve_route c;

		CMD_INIT(c, UCMA_CMD_RESOLVE_ROUTE, 0);
		c.id = id;
		c.timeout_ms = 100 + below(th, 1900);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_LISTEN: {
		struct ucma_abi_listen c;

		/*
		 * One in three: a new listener on a real address at the port
		 * the chains connect to, so that connections keep happening.
		 */
		if (below(th, 3) == 0) {
			struct ucma_abi_bind b;

			file = below(th, NFILES);
			close(fd);
			fd = file_ref(file, &gen);
			ret = fd < 0 ? -errno : create_id(fd, RDMA_PS_TCP, IBV_QPT_RC, &id);
			if (ret)
				break;
			add_slot(file, gen, id, 1);
			CMD_INIT(b, UCMA_CMD_BIND, 0);
			a = addrs[below(th, naddrs)];
			set_port(&a, PORT0);
			b.id = id;
			b.addr_size = ucma_addr_len(&a);
			memcpy(&b.addr, &a, sizeof(a));
			ret = ucma_write(fd, &b, sizeof(b));
			if (ret)
				break;
		}
		mark_listener(file, id);
		CMD_INIT(c, UCMA_CMD_LISTEN, 0);
		c.id = id;
		c.backlog = below(th, 4) ? below(th, 16) : rnd(th);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_CONNECT: {
		struct ucma_abi_connect c;

		CMD_INIT(c, UCMA_CMD_CONNECT, 0);
		fill_conn(th, &c.conn_param);
		c.id = id;
		c.ece.vendor_id = below(th, 4) ? 0 : rnd(th);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_ACCEPT:
		ret = accept_id(th, fd, id, 0);
		break;
	case OP_REJECT:
		ret = reject_id(th, fd, id);
		break;
	case OP_DISCONNECT: {
		struct ucma_abi_disconnect c;

		CMD_INIT(c, UCMA_CMD_DISCONNECT, 0);
		c.id = id;
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_SET_OPTION: {
		struct ucma_abi_set_option c;
		uint8_t buf[256];
		unsigned int i;

		for (i = 0; i < sizeof(buf); i++)
			buf[i] = rnd(th);
		CMD_INIT(c, UCMA_CMD_SET_OPTION, 0);
		c.id = id;
		c.optval = (uintptr_t)buf;
		c.level = below(th, 4) ? RDMA_OPTION_ID : RDMA_OPTION_IB;
		c.optname = below(th, 5);
		c.optlen = below(th, 3) ? (c.optname == 0 || c.optname == 3 ? 1 : 4) :
					  below(th, 257);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_QUERY: {
		uint8_t resp[1024];
		struct ucma_abi_query c;

		CMD_INIT(c, UCMA_CMD_QUERY, sizeof(resp));
		c.response = (uintptr_t)resp;
		c.id = id;
		c.option = below(th, 4);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_QUERY_ROUTE: {
		struct ucma_abi_query_route_resp resp;
		struct ucma_abi_query c;

		CMD_INIT(c, UCMA_CMD_QUERY_ROUTE, sizeof(resp));
		c.response = (uintptr_t)&resp;
		c.id = id;
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_INIT_QP_ATTR: {
		uint8_t resp[512];
		struct ucma_abi_init_qp_attr c;

		CMD_INIT(c, UCMA_CMD_INIT_QP_ATTR, sizeof(struct ib_uverbs_qp_attr));
		c.response = (uintptr_t)resp;
		c.id = id;
		c.qp_state = below(th, 8);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_NOTIFY: {
		struct ucma_abi_notify c;

		CMD_INIT(c, UCMA_CMD_NOTIFY, 0);
		c.id = id;
		c.event = below(th, 20);
		ret = ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_JOIN_IP:
	case OP_JOIN: {
		struct sockaddr_storage grp = pick_group(th, &g);

		if (no_dup_join) {
			/* The slot's own id, never a random one: its mark counts. */
			if (s < 0)
				break;
			pthread_mutex_lock(&table_lock);
			ret = slots[s].joined & (1u << g) ? -EALREADY : 0;
			id = slots[s].id;
			pthread_mutex_unlock(&table_lock);
			if (ret)
				break;
		}
		if (op == OP_JOIN_IP) {
			struct ucma_abi_join_ip_mcast c;

			CMD_INIT(c, UCMA_CMD_JOIN_IP_MCAST, sizeof(cresp));
			c.response = (uintptr_t)&cresp;
			c.uid = 3;
			memcpy(&c.addr, &grp, sizeof(struct sockaddr_in));
			c.id = id;
			ret = ucma_write(fd, &c, sizeof(c));
		} else {
			struct ucma_abi_join_mcast c;

			CMD_INIT(c, UCMA_CMD_JOIN_MCAST, sizeof(cresp));
			c.response = (uintptr_t)&cresp;
			c.uid = 4;
			c.id = id;
			c.addr_size = below(th, 16) ? ucma_addr_len(&grp) : below(th, 200);
			c.join_flags = below(th, 3);
			memcpy(&c.addr, &grp, sizeof(grp));
			ret = ucma_write(fd, &c, sizeof(c));
		}
		if (!ret) {
			int i;

			pthread_mutex_lock(&table_lock);
			if (s >= 0)
				slots[s].joined |= 1u << g;
			for (i = 0; i < NMC; i++) {
				if (!joins[i].used) {
					joins[i] = (struct join_ent){ 1, file, s, cresp.id };
					break;
				}
			}
			pthread_mutex_unlock(&table_lock);
		}
		break;
	}
	case OP_LEAVE: {
		struct ucma_abi_destroy_id_resp resp;
		struct ucma_abi_destroy_id c;
		int m = below(th, NMC);

		pthread_mutex_lock(&table_lock);
		if (joins[m].used) {
			file = joins[m].file;
			id = joins[m].id;
			joins[m].used = 0;
			/*
			 * The id's mark stays: with -1 (the stock run), a group
			 * an id joined once is never joined by it again.
			 */
		}
		pthread_mutex_unlock(&table_lock);
		CMD_INIT(c, UCMA_CMD_LEAVE_MCAST, sizeof(resp));
		c.response = (uintptr_t)&resp;
		c.id = id;
		close(fd);
		fd = file_ref(file, NULL);
		ret = fd < 0 ? -errno : ucma_write(fd, &c, sizeof(c));
		break;
	}
	case OP_MIGRATE: {
		struct ucma_abi_migrate_resp resp;
		struct ucma_abi_migrate_id c;
		int to = below(th, NFILES), tofd;
		unsigned int togen;

		tofd = file_ref(to, &togen);
		if (tofd < 0) {
			ret = -errno;
			break;
		}
		CMD_INIT(c, UCMA_CMD_MIGRATE_ID, sizeof(resp));
		c.response = (uintptr_t)&resp;
		c.id = id;
		c.fd = fd;
		ret = ucma_write(tofd, &c, sizeof(c));
		close(tofd);
		if (!ret) {
			pthread_mutex_lock(&table_lock);
			slots[s].file = to;
			slots[s].gen = togen;
			pthread_mutex_unlock(&table_lock);
		}
		note(th, "migrate id %u file %d -> %d (%d)", id, file, to, ret);
		goto out_noted;
	}
	case OP_GET_EVENT:
		ret = get_event(th, below(th, NFILES), &ev);
		break;
	case OP_REOPEN: {
		/*
		 * Close a file under the others: every id on it is destroyed
		 * by rdma_ucm. The slot numbers stay; their ids are stale.
		 */
		int i = below(th, NFILES), nfd, old, k;

		nfd = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (nfd < 0) {
			ret = -errno;
			break;
		}
		pthread_mutex_lock(&table_lock);
		old = files[i];
		files[i] = nfd;
		file_gen[i]++;
		/* A claimed slot is its claimant's to free. */
		for (k = 0; k < NSLOTS; k++)
			if (slots[k].used && slots[k].file == i && !slots[k].busy)
				slots[k].used = 0;
		pthread_mutex_unlock(&table_lock);
		/* The ids go when the last reference (an op's) is closed. */
		ret = close(old) ? -errno : 0;
		note(th, "reopen file %d (%d -> %d)", i, old, nfd);
		goto out_noted;
	}
	case OP_CHAIN:
		ret = chain(th);
		break;
	default:
		break;
	}
	note(th, "%s file %d id %u (%d)", op_names[op], file, id, ret);
out_noted:
	if (claimed) {
		pthread_mutex_lock(&table_lock);
		slots[s].busy = 0;
		if (!slot_live(s))
			slots[s].used = 0;
		pthread_mutex_unlock(&table_lock);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static void *thread_main(void *arg)
{
	struct thread *th = arg;
	int total = 0, i;

	for (i = 0; i < OP_COUNT; i++)
		total += op_weight[i];
	for (th->done = 0; th->done < ops_per_thread; th->done++) {
		int r = below(th, total);
		enum op op;

		for (op = 0; op < OP_COUNT && r >= op_weight[op]; op++)
			r -= op_weight[op];
		atomic_fetch_add(&tried[op], 1);
		if (!do_op(th, op))
			atomic_fetch_add(&ok[op], 1);
		atomic_fetch_add(&ran, 1);
	}
	return NULL;
}

/* The deadline (a hang): each thread's last ops, for the reproducer. */
static void on_deadline(int sig)
{
	int i, j;

	(void)sig;
	fprintf(stderr, "ucma_fuzz: deadline after %ld ops; last ops:\n", atomic_load(&ran));
	for (i = 0; i < nthreads; i++) {
		struct thread *th = &threads[i];

		fprintf(stderr, " thread %d (op %ld):\n", i, th->done);
		for (j = 0; j < RING; j++) {
			const char *l = th->ring[(th->ring_pos + j) % RING];

			if (*l)
				fprintf(stderr, "  %s\n", l);
		}
	}
	_exit(3);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long min_est = 0, total = 0;
	int c, i;

	nthreads = 4;
	ops_per_thread = 1000;
	while ((c = getopt(argc, argv, "s:n:t:a:m:1")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': ops_per_thread = atol(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'm': min_est = atol(optarg); break;
		case '1': no_dup_join = 1; break;
		case 'a':
			if (naddrs == NADDRS || ucma_parse_addr(optarg, &addrs[naddrs])) {
				fprintf(stderr, "ucma_fuzz: bad or too many -a\n");
				return 2;
			}
			naddrs++;
			break;
		default:
			fprintf(stderr, "usage: ucma_fuzz -s SEED -n OPS -t THREADS -a ADDR... [-m MIN_EST] [-1]\n");
			return 2;
		}
	}
	if (!naddrs || nthreads < 1 || nthreads > 16 || ops_per_thread < 1) {
		fprintf(stderr, "ucma_fuzz: need -a, 1..16 threads, OPS > 0\n");
		return 2;
	}
	/* The address nobody has: the first one's family, 198.18.4.99 or ::99. */
	addrs[naddrs] = addrs[0];
	if (addrs[0].ss_family == AF_INET)
		((struct sockaddr_in *)&addrs[naddrs])->sin_addr.s_addr = htonl(0xc6120463);
	else
		((struct sockaddr_in6 *)&addrs[naddrs])->sin6_addr.s6_addr[15] = 0x99;

	for (i = 0; i < NFILES; i++) {
		files[i] = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (files[i] < 0) {
			perror("ucma_fuzz: open /dev/infiniband/rdma_cm");
			return 2;
		}
	}
	threads = calloc(nthreads, sizeof(*threads));
	if (!threads)
		return 2;
	signal(SIGTERM, on_deadline);
	signal(SIGALRM, on_deadline);
	printf("ucma_fuzz: seed %llu, %d threads x %ld ops, uid %d%s\n", seed,
	       nthreads, ops_per_thread, (int)getuid(), no_dup_join ? ", no second join of a group by one id" : "");
	fflush(stdout);
	for (i = 0; i < nthreads; i++) {
		threads[i].index = i;
		threads[i].rng = seed * 0x100000001b3ULL + i;
		if (pthread_create(&threads[i].t, NULL, thread_main, &threads[i]))
			return 2;
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i].t, NULL);
	for (i = 0; i < NFILES; i++)
		close(files[i]);

	for (i = 0; i < OP_COUNT; i++) {
		printf("op %-13s tried %5ld ok %5ld\n", op_names[i],
		       atomic_load(&tried[i]), atomic_load(&ok[i]));
		total += atomic_load(&tried[i]);
	}
	printf("ops %ld of %ld, connect requests %ld, connected (active) %ld, established (passive) %ld\n",
	       total, nthreads * ops_per_thread, atomic_load(&conn_requests),
	       atomic_load(&connected), atomic_load(&established));
	printf("chains ended at: address %ld, route %ld, REP %ld (last %d, event %d), RTU %ld, made %ld\n",
	       atomic_load(&chain_end[0]), atomic_load(&chain_end[1]),
	       atomic_load(&chain_end[2]), last_chain_err, last_chain_ev,
	       atomic_load(&chain_end[3]), atomic_load(&chain_end[4]));
	if (total != nthreads * ops_per_thread) {
		printf("FAIL: ran %ld ops of %ld\n", total, nthreads * ops_per_thread);
		return 1;
	}
	if (atomic_load(&connected) < min_est) {
		printf("FAIL: %ld connections made, %ld wanted\n",
		       atomic_load(&connected), min_est);
		return 1;
	}
	return 0;
}
