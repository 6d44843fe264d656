// SPDX-License-Identifier: GPL-2.0
/*
 * afib: AF_IB (struct sockaddr_ib) through librdmacm, for tests/e2e/softib-cm.sh.
 * Every id is an RDMA_PS_IB id; GIDs are given as IPv6-style text.
 *
 *   afib -s -g GID [-p PORT] [-k N] [-T SECS]
 *	server: bind to GID with service id 0x13F0000|PORT (the IB port
 *	space), listen; answer one CONNECT_REQUEST with N bytes of pattern
 *	private data (default 20), wait for DISCONNECTED; exit 0.
 *   afib -c -g DGID [-b SGID] [-p PORT] [-P N] [-I] [-T SECS]
 *	client: resolve DGID (from SGID, or unbound), resolve the route (or
 *	with -I: take the path a second id resolved and give it to this one
 *	with rdma_set_option(RDMA_OPTION_IB_PATH), i.e. rdma_set_ib_path()),
 *	connect with N bytes of pattern (default 60), disconnect.
 *   afib -e -g GID -G OTHERGID
 *	argument checks: bind and resolve calls, one line each.
 *
 * Output lines: "event NAME status N [pdata LEN HEX]" ("helper event ..."
 * for -I's second id), "TAG src|dst ..." (a
 * sockaddr as QUERY_ADDR gave it), "TAG gids ..." (QUERY_GID), "TAG path
 * ..." (QUERY_PATH), "TAG dev NAME port N", "check NAME ok|ERRNAME".
 * Service ids are printed in full except an ephemeral port (bound to 0),
 * printed as "eph". Pattern byte i is (i + 1) & 0xff. Exit: 0 done, 1 a
 * call or the connection failed, 2 usage, 3 the deadline.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/sa.h>
#include <rdma/rdma_cma.h>
#include <infiniband/ib.h>

#ifndef RDMA_IB_IP_PS_IB
#define RDMA_IB_IP_PS_MASK	0xFFFFFFFFFFFF0000ULL
#define RDMA_IB_IP_PS_TCP	0x0000000001060000ULL
#define RDMA_IB_IP_PS_UDP	0x0000000001110000ULL
#define RDMA_IB_IP_PS_IB	0x00000000013F0000ULL
#endif

static struct rdma_event_channel *chan;
static const char *ev_tag = "";	/* printed before "event" */
static int deadline_s = 20;
static time_t t_end;

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static int failed(const char *call)
{
	printf("error %s %s\n", call, errname(errno));
	return 1;
}

static void gid_str(const void *gid, char *buf)
{
	inet_ntop(AF_INET6, gid, buf, INET6_ADDRSTRLEN);
}

static void sib_set(struct sockaddr_ib *sib, const char *gid, uint64_t sid,
		    uint64_t mask)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_pkey = htons(0xffff);
	if (gid && inet_pton(AF_INET6, gid, &sib->sib_addr) != 1) {
		fprintf(stderr, "bad GID %s\n", gid);
		exit(2);
	}
	sib->sib_sid = htobe64(sid);
	sib->sib_sid_mask = htobe64(mask);
}

static void print_addr(const char *tag, const char *which, struct sockaddr *sa,
		       int eph)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)sa;
	char g[INET6_ADDRSTRLEN];
	uint64_t sid;

	if (sa->sa_family != AF_IB) {
		printf("%s %s family %d\n", tag, which, sa->sa_family);
		return;
	}
	gid_str(&sib->sib_addr, g);
	sid = be64toh(sib->sib_sid);
	if (eph && (sid & 0xffff))
		printf("%s %s ib gid %s pkey 0x%04x flow 0x%x sid 0x%012llx/eph mask 0x%016llx scope %llu\n",
		       tag, which, g, ntohs(sib->sib_pkey),
		       ntohl(sib->sib_flowinfo), (unsigned long long)(sid >> 16),
		       (unsigned long long)be64toh(sib->sib_sid_mask),
		       (unsigned long long)sib->sib_scope_id);
	else
		printf("%s %s ib gid %s pkey 0x%04x flow 0x%x sid 0x%016llx mask 0x%016llx scope %llu\n",
		       tag, which, g, ntohs(sib->sib_pkey),
		       ntohl(sib->sib_flowinfo), (unsigned long long)sid,
		       (unsigned long long)be64toh(sib->sib_sid_mask),
		       (unsigned long long)sib->sib_scope_id);
}

/* What librdmacm learnt from QUERY_ADDR, QUERY_GID and QUERY_PATH. */
static void print_id(const char *tag, struct rdma_cm_id *id, int src_eph)
{
	struct rdma_ib_addr *ib = &id->route.addr.addr.ibaddr;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	print_addr(tag, "src", rdma_get_local_addr(id), src_eph);
	print_addr(tag, "dst", rdma_get_peer_addr(id), 0);
	printf("%s dev %s port %u\n", tag,
	       id->verbs ? ibv_get_device_name(id->verbs->device) : "-",
	       id->port_num);
	gid_str(&ib->sgid, s);
	gid_str(&ib->dgid, d);
	printf("%s gids sgid %s dgid %s\n", tag, s, d);
	for (int i = 0; i < id->route.num_paths; i++) {
		struct ibv_sa_path_rec *p = &id->route.path_rec[i];

		gid_str(&p->sgid, s);
		gid_str(&p->dgid, d);
		printf("%s path %d sgid %s dgid %s slid %u dlid %u pkey 0x%04x sl %u mtu %u rate %u plt %u tclass %u hop %u flow 0x%x reversible %d\n",
		       tag, i, s, d, ntohs(p->slid), ntohs(p->dlid),
		       ntohs(p->pkey), p->sl, p->mtu, p->rate,
		       p->packet_life_time, p->traffic_class, p->hop_limit,
		       be32toh(p->flow_label), p->reversible);
	}
}

static void pattern(uint8_t *buf, int len)
{
	for (int i = 0; i < len; i++)
		buf[i] = (i + 1) & 0xff;
}

static const char *ename(enum rdma_cm_event_type ev)
{
	const char *s = rdma_event_str(ev);

	return strncmp(s, "RDMA_CM_EVENT_", 14) ? s : s + 14;
}

/* The next event (of any id), printed; NULL after the deadline. */
static struct rdma_cm_event *next_event(void)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	int left = (int)(t_end - time(NULL));

	if (left <= 0 || poll(&pfd, 1, left * 1000) <= 0)
		return NULL;
	if (rdma_get_cm_event(chan, &ev))
		return NULL;
	printf("%sevent %s status %d", ev_tag, ename(ev->event), ev->status);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	    ev->event == RDMA_CM_EVENT_REJECTED) {
		const uint8_t *p = ev->param.conn.private_data;
		int len = p ? ev->param.conn.private_data_len : 0;

		printf(" pdata %d%s", len, len ? " " : "");
		for (int i = 0; i < len; i++)
			printf("%02x", p[i]);
	}
	printf("\n");
	fflush(stdout);
	return ev;
}

/* Wait for @want (on any id); 0, 1 on another event, 3 at the deadline. */
static int expect(enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev = next_event();

	if (!ev)
		return 3;
	if (ev->event != want) {
		rdma_ack_cm_event(ev);
		return 1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static struct rdma_cm_id *new_id(enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(chan, &id, NULL, ps)) {
		failed("create_id");
		exit(1);
	}
	(void)qpt;
	return id;
}

static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return rdma_create_qp(id, NULL, &attr) ? failed("create_qp") : 0;
}

static int server(const char *gid, unsigned int port, int accept_len)
{
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *lid, *cid;
	struct sockaddr_ib sib;
	uint8_t pd[196];
	int ret;

	lid = new_id(RDMA_PS_IB, IBV_QPT_RC);
	sib_set(&sib, gid, RDMA_IB_IP_PS_IB | port, ~0ULL);
	if (rdma_bind_addr(lid, (struct sockaddr *)&sib))
		return failed("bind");
	if (rdma_listen(lid, 4))
		return failed("listen");
	print_id("listener", lid, 0);
	printf("listening\n");
	fflush(stdout);
	ret = expect(RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	if (ret)
		return ret;
	cid = ev->id;
	print_id("request", cid, 0);
	if (make_qp(cid))
		return 1;
	pattern(pd, accept_len);
	cp.private_data = pd;
	cp.private_data_len = accept_len;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	if (rdma_accept(cid, &cp))
		return failed("accept");
	rdma_ack_cm_event(ev);
	ret = expect(RDMA_CM_EVENT_ESTABLISHED, NULL);
	if (!ret)
		ret = expect(RDMA_CM_EVENT_DISCONNECTED, NULL);
	if (ret)
		return ret;
	rdma_disconnect(cid);
	rdma_destroy_qp(cid);
	rdma_destroy_id(cid);
	rdma_destroy_id(lid);
	return 0;
}

/* The wire form of @p, as rdma_set_option(RDMA_OPTION_IB_PATH) takes it. */
static void pack_path(const struct ibv_sa_path_rec *p, struct ibv_path_data *d)
{
	memset(d, 0, sizeof(*d));
	d->flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY |
		   IBV_PATH_FLAG_BIDIRECTIONAL;
	d->path.dgid = p->dgid;
	d->path.sgid = p->sgid;
	d->path.dlid = p->dlid;
	d->path.slid = p->slid;
	d->path.flowlabel_hoplimit = htobe32(be32toh(p->flow_label) << 8 |
					     p->hop_limit);
	d->path.tclass = p->traffic_class;
	d->path.reversible_numpath = (p->reversible ? 0x80 : 0) | 1;
	d->path.pkey = p->pkey;
	d->path.qosclass_sl = htobe16(p->sl & 0xf);
	d->path.mtu = 2 << 6 | p->mtu;
	d->path.rate = 2 << 6 | p->rate;
	d->path.packetlifetime = 2 << 6 | p->packet_life_time;
}

static int resolve(struct rdma_cm_id *id, const char *sgid, const char *dgid,
		   unsigned int port)
{
	struct sockaddr_ib src, dst;

	sib_set(&dst, dgid, RDMA_IB_IP_PS_IB | port, ~0ULL);
	if (sgid)
		sib_set(&src, sgid, 0, 0);
	if (rdma_resolve_addr(id, sgid ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst, 2000))
		return failed("resolve_addr");
	return expect(RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
}

static int client(const char *sgid, const char *dgid, unsigned int port,
		  int pd_len, int set_path)
{
	struct rdma_conn_param cp = {};
	struct rdma_cm_id *id, *helper;
	struct ibv_path_data path;
	uint8_t pd[92];
	int ret;

	id = new_id(RDMA_PS_IB, IBV_QPT_RC);
	ret = resolve(id, sgid, dgid, port);
	if (ret)
		return ret;
	print_id("resolved", id, 1);
	if (set_path) {
		helper = new_id(RDMA_PS_IB, IBV_QPT_RC);
		ev_tag = "helper ";
		ret = resolve(helper, sgid, dgid, port);
		if (ret)
			return ret;
		if (rdma_resolve_route(helper, 2000))
			return failed("resolve_route");
		ret = expect(RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
		if (ret)
			return ret;
		if (helper->route.num_paths < 1)
			return failed("helper_path");
		pack_path(&helper->route.path_rec[0], &path);
		rdma_destroy_id(helper);
		ev_tag = "";
		if (rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				    &path, sizeof(path)))
			return failed("set_ib_path");
	} else if (rdma_resolve_route(id, 2000)) {
		return failed("resolve_route");
	}
	ret = expect(RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	if (ret)
		return ret;
	print_id("routed", id, 1);
	if (make_qp(id))
		return 1;
	pattern(pd, pd_len);
	cp.private_data = pd;
	cp.private_data_len = pd_len;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 3;
	if (rdma_connect(id, &cp))
		return failed("connect");
	ret = expect(RDMA_CM_EVENT_ESTABLISHED, NULL);
	if (ret)
		return ret;
	print_id("connected", id, 1);
	if (rdma_disconnect(id))
		return failed("disconnect");
	ret = expect(RDMA_CM_EVENT_DISCONNECTED, NULL);
	if (ret)
		return ret;
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return 0;
}

static void check_bind(const char *name, enum rdma_port_space ps,
		       const char *gid, uint64_t sid, uint64_t mask)
{
	struct rdma_cm_id *id = new_id(ps, IBV_QPT_RC);
	struct sockaddr_ib sib;

	sib_set(&sib, gid, sid, mask);
	if (rdma_bind_addr(id, (struct sockaddr *)&sib)) {
		printf("check %s %s\n", name, errname(errno));
	} else {
		printf("check %s ok\n", name);
		print_addr(name, "src", rdma_get_local_addr(id), !(sid & 0xffff));
		printf("%s dev %s port %u\n", name,
		       id->verbs ? ibv_get_device_name(id->verbs->device) : "-",
		       id->port_num);
	}
	rdma_destroy_id(id);
}

static void check_resolve(const char *name, struct sockaddr *src,
			  struct sockaddr *dst)
{
	struct rdma_cm_id *id = new_id(RDMA_PS_IB, IBV_QPT_RC);
	int ret;

	if (rdma_resolve_addr(id, src, dst, 2000)) {
		printf("check %s %s\n", name, errname(errno));
	} else {
		ret = expect(RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
		printf("check %s %s\n", name, ret ? "no-event" : "ok");
		if (!ret)
			print_id(name, id, 1);
	}
	rdma_destroy_id(id);
}

static int checks(const char *gid, const char *other)
{
	struct sockaddr_ib sib, dst;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *a, *b;
	char bad[INET6_ADDRSTRLEN];
	struct in6_addr g;

	/* librdmacm's own probe (ucma_set_af_ib_support). */
	check_bind("probe", RDMA_PS_IB, NULL, RDMA_IB_IP_PS_TCP,
		   RDMA_IB_IP_PS_MASK);
	check_bind("ib-any-mask0", RDMA_PS_IB, NULL, 0, 0);
	check_bind("tcp-any-mask0", RDMA_PS_TCP, NULL, 0, 0);
	check_bind("udp-sid-udp", RDMA_PS_UDP, NULL, RDMA_IB_IP_PS_UDP | 5000,
		   ~0ULL);
	check_bind("tcp-sid-ib", RDMA_PS_TCP, NULL, RDMA_IB_IP_PS_IB | 5000,
		   ~0ULL);
	check_bind("ipoib-sid-ib", RDMA_PS_IPOIB, NULL, RDMA_IB_IP_PS_IB,
		   RDMA_IB_IP_PS_MASK);
	check_bind("ib-sid-other", RDMA_PS_IB, NULL, 0x0000000002000000ULL,
		   RDMA_IB_IP_PS_MASK);
	check_bind("ib-port-low", RDMA_PS_IB, NULL, RDMA_IB_IP_PS_IB | 0x1234,
		   0xffff);
	check_bind("gid", RDMA_PS_IB, gid, RDMA_IB_IP_PS_IB | 5001, ~0ULL);
	check_bind("loopback-gid", RDMA_PS_IB, "::1", RDMA_IB_IP_PS_IB | 5002,
		   ~0ULL);
	inet_pton(AF_INET6, gid, &g);
	g.s6_addr[15] ^= 0x5a;
	inet_ntop(AF_INET6, &g, bad, sizeof(bad));
	check_bind("unknown-gid", RDMA_PS_IB, bad, RDMA_IB_IP_PS_IB | 5003,
		   ~0ULL);

	/* One port of one space twice. */
	a = new_id(RDMA_PS_IB, IBV_QPT_RC);
	b = new_id(RDMA_PS_IB, IBV_QPT_RC);
	sib_set(&sib, gid, RDMA_IB_IP_PS_IB | 5004, ~0ULL);
	printf("check twice-1 %s\n", rdma_bind_addr(a, (struct sockaddr *)&sib) ?
	       errname(errno) : "ok");
	printf("check twice-2 %s\n", rdma_bind_addr(b, (struct sockaddr *)&sib) ?
	       errname(errno) : "ok");
	rdma_destroy_id(b);
	rdma_destroy_id(a);

	sib_set(&dst, other, RDMA_IB_IP_PS_IB | 5005, ~0ULL);
	check_resolve("resolve-unbound", NULL, (struct sockaddr *)&dst);
	sib_set(&sib, gid, 0, 0);
	check_resolve("resolve-bound", (struct sockaddr *)&sib,
		      (struct sockaddr *)&dst);
	dst.sib_pkey = htons(0x1234);
	check_resolve("resolve-no-pkey", NULL, (struct sockaddr *)&dst);
	sib_set(&dst, other, RDMA_IB_IP_PS_IB | 5005, ~0ULL);
	check_resolve("resolve-ip-src", (struct sockaddr *)&sin,
		      (struct sockaddr *)&dst);
	sib_set(&dst, NULL, RDMA_IB_IP_PS_IB | 5006, ~0ULL);
	check_resolve("resolve-zero-gid", NULL, (struct sockaddr *)&dst);
	return 0;
}

int main(int argc, char **argv)
{
	const char *gid = NULL, *other = NULL, *src = NULL;
	int mode = 0, c, accept_len = 20, pd_len = 60, set_path = 0;
	unsigned int port = 0x4321;

	while ((c = getopt(argc, argv, "scg:G:b:p:k:P:IT:e")) != -1) {
		switch (c) {
		case 's': case 'c': case 'e': mode = c; break;
		case 'g': gid = optarg; break;
		case 'G': other = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = strtoul(optarg, NULL, 0); break;
		case 'k': accept_len = atoi(optarg); break;
		case 'P': pd_len = atoi(optarg); break;
		case 'I': set_path = 1; break;
		case 'T': deadline_s = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!mode || !gid || (mode == 'e' && !other) || accept_len < 0 ||
	    accept_len > 196 || pd_len < 0 || pd_len > 92)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_end = time(NULL) + deadline_s;
	chan = rdma_create_event_channel();
	if (!chan)
		return failed("create_event_channel");
	if (mode == 's')
		return server(gid, port, accept_len);
	if (mode == 'c')
		return client(src, gid, port, pd_len, set_path);
	return checks(gid, other);
}
