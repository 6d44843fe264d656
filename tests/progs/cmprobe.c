// SPDX-License-Identifier: GPL-2.0
/*
 * cmprobe: a small RDMA CM scenario driver for the end-to-end tests.
 *
 *   cmprobe -s -b ADDR [-p PORT] [-R] [-B BACKLOG] [-D MS] [-j N | -k N | -x]
 *              [-L] [-E] [-n COUNT] [-T SECS]
 *	server: bind (with RDMA_OPTION_ID_REUSEADDR if -R), listen with
 *	BACKLOG (0: rdma_ucm's maximum), wait MS before reading the first event
 *	(-D), then answer each CONNECT_REQUEST: reject with N bytes of pattern
 *	private data (-j N), accept with N bytes (-k N, the default is -k 0),
 *	or never answer (-x, with -n 0); -L: an accept that fails with
 *	ECONNRESET or EPIPE (the peer went away first) prints "accept lost
 *	ERRNONAME" and is no error; -E: an rdma_accept() that fails because
 *	the peer has gone (a fuzzer's connection: ECONNRESET, ECONNABORTED,
 *	EINVAL, ENOTCONN) is reported as "accept-failed ERRNONAME" and the
 *	server goes on. Exits 0 once COUNT requests were
 *	answered and the accepted connections were disconnected by the peer
 *	(COUNT 0: serve until the deadline, then exit 0, dropping a request
 *	that cannot be answered); exits 1 on a
 *	DEVICE_REMOVAL of the listener.
 *
 *   cmprobe -c -a ADDR [-b SRC [-S SPORT]] [-R] [-p PORT] [-P N] [-r MS]
 *              [-G FILE] [-W MS] [-H MS] [-T SECS]
 *	client: resolve the address and the route (timeout MS each) from SRC
 *	(port SPORT; -R: RDMA_OPTION_ID_REUSEADDR first); -G: then wait until
 *	FILE exists (polled every 10 ms, up to the deadline: exit 3); connect with N bytes
 *	of pattern private data, and wait MS (-W) before reading the answer
 *	(librdmacm sends the IB CM's RTU only then); after ESTABLISHED, keep
 *	the connection MS
 *	(-H; an event such as the peer's DISCONNECTED ends it early: that is
 *	the result), disconnect and wait for DISCONNECTED.
 *
 *   cmprobe -t hold|close|garbage -b ADDR [-p PORT] [-T SECS]
 *	a plain TCP peer in place of an RDMA one: accept every connection and
 *	keep it open without a word (hold), close it at once (close), or answer
 *	with 20 bytes that are no MPA reply (garbage: a wrong key, no private
 *	data). Runs until the deadline.
 *
 * Addresses are numeric IPv4 or IPv6 (fe80::1%ifname for a scope id).
 * Pattern byte i is (i + 1) & 0xff. Stock siw 6.12 sends at most 251 bytes
 * of private data in an MPA reply correctly (its u8 length wraps with the
 * 4-byte MPA v2 header), so the tests stay at or below that.
 *
 * Output, one line each, for the tests to match:
 *	listening ADDR port PORT
 *	event NAME status N pdata LEN [HEX]		every CM event
 *	error CALL ERRNONAME				a failing call
 *	result NAME status N | result error CALL ERRNONAME	client: the outcome
 * Exit status: 0 done (client: ESTABLISHED and disconnected), 1 the
 * connection failed or a call failed, 2 usage, 3 the deadline (-T, default
 * 20 s) passed while waiting for an event.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define MAX_CONNS 64
#define ADDR_STR_LEN (NI_MAXHOST + NI_MAXSERV + 8)

static struct {
	char mode;		/* 's', 'c' or 't' */
	const char *addr, *bind, *tcp;
	const char *port, *sport, *go;
	int reuse, backlog, delay_ms, reject_len, accept_len, ignore, count;
	int lost_ok, tolerant;
	int pdata_len, resolve_ms, wait_ms, hold_ms, deadline_s;
} opt = {
	.port = "7400", .sport = "0", .resolve_ms = 2000, .deadline_s = 20, .reject_len = -1,
};

static struct rdma_event_channel *chan;
static struct rdma_cm_id *conns[MAX_CONNS];
static uint64_t deadline_ms;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* A failing call: print it and return 1 (the exit status). */
static int call_failed(const char *call, int e)
{
	out("error %s %s", call, errname(e));
	return 1;
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

static void print_event(const struct rdma_cm_event *ev)
{
	const uint8_t *p = ev->param.conn.private_data;
	int len = p ? ev->param.conn.private_data_len : 0;
	char hex[2 * 256 + 1] = "";

	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ||
	    ev->event == RDMA_CM_EVENT_ADDR_ERROR ||
	    ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED ||
	    ev->event == RDMA_CM_EVENT_ROUTE_ERROR)
		len = 0;	/* no conn param in these */
	for (int i = 0; i < len && i < 256; i++)
		sprintf(hex + 2 * i, "%02x", p[i]);
	out("event %s status %d pdata %d%s%s", ename(ev->event), ev->status,
	    len, len ? " " : "", hex);
}

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t n)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, sa->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
			host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%s port %s", host, serv);
	return buf;
}

/* Numeric ADDR (+ the port) into *res; freeaddrinfo() it. */
static int get_addr(const char *addr, const char *port, int passive,
		    struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			    (passive ? AI_PASSIVE : 0),
		.ai_socktype = SOCK_STREAM,
	};
	int ret = getaddrinfo(addr, port, &hints, res);

	if (ret) {
		fprintf(stderr, "cmprobe: %s: %s\n", addr, gai_strerror(ret));
		return -1;
	}
	return 0;
}

/*
 * The next CM event into *ev (acked by the caller). 0, or 3 when the
 * deadline passed, 1 when the channel failed.
 */
static int next_event(struct rdma_cm_event **ev)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };

	*ev = NULL;
	for (;;) {
		int64_t left = (int64_t)(deadline_ms - now_ms());
		int ret;

		if (left <= 0) {
			out("deadline: no event within %d s", opt.deadline_s);
			return 3;
		}
		ret = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (ret < 0 && errno != EINTR)
			return call_failed("poll", errno);
		if (ret <= 0)
			continue;
		if (rdma_get_cm_event(chan, ev))
			return call_failed("rdma_get_cm_event", errno);
		return 0;
	}
}

static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (rdma_create_qp(id, NULL, &attr))
		return call_failed("rdma_create_qp", errno);
	return 0;
}

static void drop_id(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static int conn_add(struct rdma_cm_id *id)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		if (!conns[i]) {
			conns[i] = id;
			return 0;
		}
	}
	return -1;
}

static int conn_del(struct rdma_cm_id *id)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		if (conns[i] == id) {
			conns[i] = NULL;
			return 0;
		}
	}
	return -1;
}

static int conns_live(void)
{
	int n = 0;

	for (int i = 0; i < MAX_CONNS; i++)
		n += !!conns[i];
	return n;
}

/* Answer one connection request on the new id @id. */
static int answer(struct rdma_cm_id *id)
{
	uint8_t pdata[256];
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
	};
	int ret;

	if (opt.ignore) {
		out("ignore");
		if (conn_add(id))
			return call_failed("conn_add", ENOSPC);
		return 0;
	}
	if (opt.reject_len >= 0) {
		pattern(pdata, opt.reject_len);
		out("reject pdata %d", opt.reject_len);
		if (rdma_reject(id, opt.reject_len ? pdata : NULL, opt.reject_len))
			ret = call_failed("rdma_reject", errno);
		else
			ret = 0;
		rdma_destroy_id(id);
		return ret;
	}
	ret = make_qp(id);
	if (!ret) {
		pattern(pdata, opt.accept_len);
		param.private_data = opt.accept_len ? pdata : NULL;
		param.private_data_len = opt.accept_len;
		out("accept pdata %d", opt.accept_len);
		if (rdma_accept(id, &param)) {
			int e = errno;

			if (opt.lost_ok && (e == ECONNRESET || e == EPIPE)) {
				/* -L: the peer went away before the answer. */
				out("accept lost %s", errname(e));
				drop_id(id);
				return 0;
			}
			if (opt.tolerant && (e == ECONNRESET || e == ECONNABORTED ||
					     e == EINVAL || e == ENOTCONN)) {
				/* -E: a fuzzer's connection, gone. */
				out("accept-failed %s", errname(e));
				drop_id(id);
				return 0;
			}
			ret = call_failed("rdma_accept", e);
		}
	}
	if (ret || conn_add(id)) {
		drop_id(id);
		return ret ? ret : call_failed("conn_add", ENOSPC);
	}
	return 0;
}

static int run_server(void)
{
	struct rdma_cm_id *listen_id;
	struct addrinfo *ai;
	int answered = 0, ret, one = 1;
	char buf[ADDR_STR_LEN];

	if (get_addr(opt.bind, opt.port, 1, &ai))
		return 2;
	if (rdma_create_id(chan, &listen_id, NULL, RDMA_PS_TCP)) {
		freeaddrinfo(ai);
		return call_failed("rdma_create_id", errno);
	}
	ret = 0;
	if (opt.reuse && rdma_set_option(listen_id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_REUSEADDR,
					 &one, sizeof(one)))
		ret = call_failed("rdma_set_option", errno);
	else if (rdma_bind_addr(listen_id, ai->ai_addr))
		ret = call_failed("rdma_bind_addr", errno);
	else if (rdma_listen(listen_id, opt.backlog))
		ret = call_failed("rdma_listen", errno);
	freeaddrinfo(ai);
	if (ret) {
		rdma_destroy_id(listen_id);
		return ret;
	}
	out("listening %s", addr_str(rdma_get_local_addr(listen_id), buf,
				     sizeof(buf)));
	if (opt.delay_ms)
		usleep(opt.delay_ms * 1000);

	while (!opt.count || answered < opt.count || conns_live()) {
		struct rdma_cm_event e, *ev;
		struct rdma_cm_id *id;

		ret = next_event(&ev);
		if (ret == 3 && !opt.count)
			ret = 0;	/* serve until the deadline: done */
		if (ret || !ev)
			break;
		e = *ev;
		id = ev->id;
		print_event(ev);
		if (e.event == RDMA_CM_EVENT_CONNECT_REQUEST)
			out("peer %s", addr_str(rdma_get_peer_addr(id), buf,
						sizeof(buf)));
		rdma_ack_cm_event(ev);

		switch (e.event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			answered++;
			ret = answer(id);
			/*
			 * Serving until the deadline (-n 0): a request that
			 * cannot be answered (the peer gave up, no memory)
			 * is dropped, the server goes on.
			 */
			if (!opt.count)
				ret = 0;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			if (id != listen_id && !conn_del(id))
				drop_id(id);
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			if (id == listen_id) {
				ret = 1;
			} else if (!conn_del(id)) {
				drop_id(id);
			}
			break;
		default:
			break;
		}
		if (ret)
			break;
	}
	for (int i = 0; i < MAX_CONNS; i++) {
		if (conns[i]) {
			drop_id(conns[i]);
			conns[i] = NULL;
		}
	}
	rdma_destroy_id(listen_id);
	out("server done: %d requests", answered);
	return ret;
}

/* -G: wait until @path exists, up to the deadline (3 once it passed). */
static int wait_for_file(const char *path)
{
	while (access(path, F_OK)) {
		if (now_ms() >= deadline_ms) {
			out("result error deadline");
			return 3;
		}
		usleep(10000);
	}
	return 0;
}

/*
 * Wait for the event that must follow a call; prints it. 0 when it is @want,
 * else 1 (or 3 on the deadline). The event is returned in *got.
 */
static int expect(enum rdma_cm_event_type want, struct rdma_cm_event *got)
{
	struct rdma_cm_event *ev;
	int ret = next_event(&ev);

	if (ret) {
		if (ret == 3)
			out("result deadline");
		return ret;
	}
	*got = *ev;
	print_event(ev);
	rdma_ack_cm_event(ev);
	if (got->event != want) {
		out("result %s status %d", ename(got->event), got->status);
		return 1;
	}
	return 0;
}

/*
 * Keep a connection for @ms: 0, or 1 when an event ended it first (printed,
 * e.g. DISCONNECTED when the peer went away).
 */
static int hold(int ms)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	ret = next_event(&ev);
	if (ret)
		return ret;
	print_event(ev);
	out("result %s status %d", ename(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	return 1;
}

static int client_failed(const char *call, int e)
{
	call_failed(call, e);
	out("result error %s %s", call, errname(e));
	return 1;
}

static int run_client(void)
{
	struct addrinfo *dst, *src = NULL;
	struct rdma_cm_id *id;
	struct rdma_cm_event ev;
	uint8_t pdata[256];
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	char buf[ADDR_STR_LEN];
	int ret, one = 1;

	if (get_addr(opt.addr, opt.port, 0, &dst))
		return 2;
	if (opt.bind && get_addr(opt.bind, opt.sport, 1, &src)) {
		freeaddrinfo(dst);
		return 2;
	}
	if (rdma_create_id(chan, &id, NULL, RDMA_PS_TCP)) {
		ret = client_failed("rdma_create_id", errno);
		goto out_addr;
	}
	if (opt.reuse && rdma_set_option(id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_REUSEADDR,
					 &one, sizeof(one))) {
		ret = client_failed("rdma_set_option", errno);
		goto out_id;
	}
	if (rdma_resolve_addr(id, src ? src->ai_addr : NULL, dst->ai_addr,
			      opt.resolve_ms)) {
		ret = client_failed("rdma_resolve_addr", errno);
		goto out_id;
	}
	ret = expect(RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	if (ret)
		goto out_id;
	if (rdma_resolve_route(id, opt.resolve_ms)) {
		ret = client_failed("rdma_resolve_route", errno);
		goto out_id;
	}
	ret = expect(RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	if (ret)
		goto out_id;
	out("route %s on %s", addr_str(rdma_get_local_addr(id), buf,
				       sizeof(buf)),
	    ibv_get_device_name(id->verbs->device));
	ret = make_qp(id);
	if (ret) {
		out("result error rdma_create_qp");
		goto out_id;
	}
	if (opt.go) {
		ret = wait_for_file(opt.go);
		if (ret)
			goto out_id;
	}
	pattern(pdata, opt.pdata_len);
	param.private_data = opt.pdata_len ? pdata : NULL;
	param.private_data_len = opt.pdata_len;
	if (rdma_connect(id, &param)) {
		ret = client_failed("rdma_connect", errno);
		goto out_id;
	}
	if (opt.wait_ms)
		usleep(opt.wait_ms * 1000);
	ret = expect(RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret)
		goto out_id;
	if (opt.hold_ms) {
		ret = hold(opt.hold_ms);
		if (ret)
			goto out_id;
	}
	if (rdma_disconnect(id)) {
		ret = client_failed("rdma_disconnect", errno);
		goto out_id;
	}
	ret = expect(RDMA_CM_EVENT_DISCONNECTED, &ev);
	if (!ret)
		out("result ESTABLISHED status 0");
out_id:
	drop_id(id);
out_addr:
	if (src)
		freeaddrinfo(src);
	freeaddrinfo(dst);
	return ret;
}

/* A TCP peer that speaks no MPA, until the deadline. */
static int run_tcp(void)
{
	/*
	 * An MPA-sized frame with a wrong key and pd_len 0. (A malformed reply
	 * with a nonzero pd_len makes stock siw 6.12 copy private data from a
	 * NULL buffer: a kernel crash on the connecting side.)
	 */
	static const char junk[20] = "XXXXXXXXXXXXXXXX\0\0\0";
	struct addrinfo *ai;
	int fd, one = 1, kept[MAX_CONNS], nkept = 0, ret = 0;
	char buf[ADDR_STR_LEN];

	if (strcmp(opt.tcp, "hold") && strcmp(opt.tcp, "close") &&
	    strcmp(opt.tcp, "garbage"))
		return 2;
	if (get_addr(opt.bind, opt.port, 1, &ai))
		return 2;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		ret = call_failed("tcp socket/bind/listen", errno);
		goto out;
	}
	out("listening %s (tcp %s)", addr_str(ai->ai_addr, buf, sizeof(buf)),
	    opt.tcp);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = (int64_t)(deadline_ms - now_ms());
		int c;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		out("tcp connection: %s", opt.tcp);
		if (!strcmp(opt.tcp, "close") || nkept == MAX_CONNS) {
			close(c);
			continue;
		}
		if (!strcmp(opt.tcp, "garbage") &&
		    write(c, junk, sizeof(junk)) != sizeof(junk))
			out("error write %s", errname(errno));
		kept[nkept++] = c;
	}
	while (nkept)
		close(kept[--nkept]);
out:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cmprobe -s -b ADDR [-p PORT] [-R] [-B BACKLOG] [-D MS] [-j N|-k N|-x] [-L] [-n COUNT] [-T SECS]\n"
		"       cmprobe -c -a ADDR [-b SRC [-S SPORT]] [-R] [-p PORT] [-P N] [-r MS] [-G FILE] [-W MS] [-H MS] [-T SECS]\n"
		"       cmprobe -t hold|close|garbage -b ADDR [-p PORT] [-T SECS]\n"
		"(see the head of tests/progs/cmprobe.c)\n");
	exit(2);
}

static int num(const char *s, int max)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < 0 || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	int c, ret;

	while ((c = getopt(argc, argv, "sct:a:b:p:S:RB:D:j:k:LxEn:P:r:G:W:H:T:")) != -1) {
		switch (c) {
		case 's':
		case 'c':
			opt.mode = c;
			break;
		case 't':
			opt.mode = 't';
			opt.tcp = optarg;
			break;
		case 'a':
			opt.addr = optarg;
			break;
		case 'b':
			opt.bind = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'S':
			opt.sport = optarg;
			break;
		case 'R':
			opt.reuse = 1;
			break;
		case 'B':
			opt.backlog = num(optarg, 1 << 20);
			break;
		case 'D':
			opt.delay_ms = num(optarg, 600000);
			break;
		case 'j':
			opt.reject_len = num(optarg, 255);
			break;
		case 'k':
			opt.accept_len = num(optarg, 255);
			break;
		case 'L':
			opt.lost_ok = 1;
			break;
		case 'E':
			opt.tolerant = 1;
			break;
		case 'x':
			opt.ignore = 1;
			break;
		case 'n':
			opt.count = num(optarg, 1 << 20);
			break;
		case 'P':
			opt.pdata_len = num(optarg, 255);
			break;
		case 'r':
			opt.resolve_ms = num(optarg, 600000);
			break;
		case 'G':
			opt.go = optarg;
			break;
		case 'W':
			opt.wait_ms = num(optarg, 600000);
			break;
		case 'H':
			opt.hold_ms = num(optarg, 600000);
			break;
		case 'T':
			opt.deadline_s = num(optarg, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.mode ||
	    (opt.mode == 'c' && !opt.addr) || (opt.mode != 'c' && !opt.bind))
		usage();
	deadline_ms = now_ms() + opt.deadline_s * 1000ULL;
	if (opt.mode == 't')
		return run_tcp();

	chan = rdma_create_event_channel();
	if (!chan)
		return call_failed("rdma_create_event_channel", errno);
	ret = opt.mode == 's' ? run_server() : run_client();
	rdma_destroy_event_channel(chan);
	return ret;
}
