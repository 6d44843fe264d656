// SPDX-License-Identifier: GPL-2.0
/*
 * ucma_unreported: two deterministic sequences of rdma_ucm's write() ABI,
 * run by any local user, that leave a CONNECT_REQUEST event queued on a
 * file while rdma_ucm frees the context that event names. Found by
 * ucma_fuzz (issue 41); they are stock rdma_ucm's, whatever CM is below
 * it: rdma_ucm makes the new connection's context visible by id as soon as
 * it queues the event, and its cleanup of a listener's unreported events
 * reads that context again.
 *
 *   destroy: a listener on file A gets a connect request; before A's
 *            GET_EVENT the user destroys the new id by number (ids are
 *            small and dense: every number but the listener's on A),
 *            then closes A.
 *   migrate: the same request pending; the listener migrates to file C,
 *            file A (which still holds the new id) is closed, then C.
 *   safe:    the request reported by GET_EVENT first, then the same
 *            destroy, migrate and closes: must be clean on every stack.
 *
 *   ucma_unreported -m destroy|migrate|safe -a LISTEN_ADDR -b CONNECT_FROM
 *
 * Exits 0 after the last close (a kernel with KASAN has reported by then
 * in the first two modes), 1 when a step fails, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_cma_abi.h>

#include "ucma_raw.h"

#define PORT	7480

static int cm_open(void)
{
	int fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("ucma_unreported: open /dev/infiniband/rdma_cm");
		exit(1);
	}
	return fd;
}

static uint32_t create_id(int fd)
{
	struct ucma_abi_create_id_resp resp = {};
	struct ucma_abi_create_id c;

	CMD_INIT(c, UCMA_CMD_CREATE_ID, sizeof(resp));
	c.uid = 1;	/* rdma_ucm queues no event for an id of uid 0 */
	c.response = (uintptr_t)&resp;
	c.ps = RDMA_PS_TCP;
	c.qp_type = IBV_QPT_RC;
	if (ucma_write(fd, &c, sizeof(c))) {
		perror("ucma_unreported: CREATE_ID");
		exit(1);
	}
	return resp.id;
}

/* The next event of @fd, waiting up to 5 s. */
static int next_event(int fd, struct ucma_abi_event_resp *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct ucma_abi_get_event c;

	int ret;

	memset(ev, 0xff, sizeof(*ev));
	ret = poll(&p, 1, 5000);
	if (ret != 1) {
		fprintf(stderr, "ucma_unreported: poll %d\n", ret);
		return -ETIMEDOUT;
	}
	CMD_INIT(c, UCMA_CMD_GET_EVENT, sizeof(*ev));
	c.response = (uintptr_t)ev;
	ret = ucma_write(fd, &c, sizeof(c));
	if (ret)
		fprintf(stderr, "ucma_unreported: GET_EVENT %d\n", ret);
	return ret;
}

/* The next event of @fd, waiting up to 5 s; it must be @want. */
static void expect_event(int fd, unsigned int want, struct ucma_abi_event_resp *ev)
{
	if (next_event(fd, ev) || ev->event != want) {
		fprintf(stderr, "ucma_unreported: event %u, wanted %u\n", ev->event, want);
		exit(1);
	}
}

static void step(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "ucma_unreported: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage la = {}, from = {};
	struct ucma_abi_event_resp ev;
	struct ucma_abi_resolve_addr ra;
	struct ucma_abi_resolve_route rr;
	struct ucma_abi_connect cc;
	struct ucma_abi_migrate_resp mresp;
	struct ucma_abi_migrate_id mc;
	struct ucma_abi_listen lc;
	struct ucma_abi_bind bc;
	const char *mode = NULL;
	int a, b, c, opt, tries, found = 0;
	uint32_t lid, cid, id;

	while ((opt = getopt(argc, argv, "m:a:b:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'a' && !ucma_parse_addr(optarg, &la))
			continue;
		else if (opt == 'b' && !ucma_parse_addr(optarg, &from))
			continue;
		else
			mode = NULL;
	}
	if (!mode || !la.ss_family || !from.ss_family ||
	    (strcmp(mode, "destroy") && strcmp(mode, "migrate") && strcmp(mode, "safe"))) {
		fprintf(stderr, "usage: ucma_unreported -m destroy|migrate|safe -a LISTEN_ADDR -b CONNECT_FROM\n");
		return 2;
	}
	((struct sockaddr_in *)&la)->sin_port = htons(PORT);

	a = cm_open();
	b = cm_open();
	c = cm_open();
	lid = create_id(a);
	CMD_INIT(bc, UCMA_CMD_BIND, 0);
	bc.id = lid;
	bc.addr_size = ucma_addr_len(&la);
	memcpy(&bc.addr, &la, sizeof(la));
	step(ucma_write(a, &bc, sizeof(bc)), "BIND");
	CMD_INIT(lc, UCMA_CMD_LISTEN, 0);
	lc.id = lid;
	lc.backlog = 4;
	step(ucma_write(a, &lc, sizeof(lc)), "LISTEN");

	cid = create_id(b);
	CMD_INIT(ra, UCMA_CMD_RESOLVE_ADDR, 0);
	ra.id = cid;
	ra.timeout_ms = 2000;
	ra.src_size = ucma_addr_len(&from);
	memcpy(&ra.src_addr, &from, sizeof(from));
	ra.dst_size = ucma_addr_len(&la);
	memcpy(&ra.dst_addr, &la, sizeof(la));
	/* A new rxe port may take a few seconds to carry ARP. */
	for (tries = 0;; tries++) {
		step(ucma_write(b, &ra, sizeof(ra)), "RESOLVE_ADDR");
		if (!next_event(b, &ev) && ev.event == RDMA_CM_EVENT_ADDR_RESOLVED)
			break;
		if (tries == 10) {
			fprintf(stderr, "ucma_unreported: address not resolved in 10 tries (event %u)\n",
				ev.event);
			return 1;
		}
		sleep(1);
		ucma_destroy_id(b, cid);
		cid = create_id(b);
		ra.id = cid;
	}
	CMD_INIT(rr, UCMA_CMD_RESOLVE_ROUTE, 0);
	rr.id = cid;
	rr.timeout_ms = 2000;
	step(ucma_write(b, &rr, sizeof(rr)), "RESOLVE_ROUTE");
	expect_event(b, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	CMD_INIT(cc, UCMA_CMD_CONNECT, 0);
	cc.id = cid;
	cc.conn_param.qp_num = 0x1234;
	cc.conn_param.responder_resources = 1;
	cc.conn_param.initiator_depth = 1;
	cc.conn_param.retry_count = 7;
	cc.conn_param.rnr_retry_count = 7;
	cc.conn_param.valid = 1;
	step(ucma_write(b, &cc, sizeof(cc)), "CONNECT");

	/* The request is queued on A once A polls readable. */
	{
		struct pollfd p = { .fd = a, .events = POLLIN };

		if (poll(&p, 1, 5000) != 1) {
			fprintf(stderr, "ucma_unreported: no connect request in 5 s\n");
			return 1;
		}
	}
	if (!strcmp(mode, "safe")) {
		expect_event(a, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
		printf("request reported: new id %u\n", ev.id);
	}

	if (strcmp(mode, "migrate")) {
		/* Every number but the listener's: the new id is the one on A. */
		for (id = 0; id < 4096 && !found; id++)
			if (id != lid && !ucma_destroy_id(a, id))
				found = 1;
		if (!found) {
			fprintf(stderr, "ucma_unreported: no id of A's but the listener's\n");
			return 1;
		}
		printf("destroyed id %u on A before or after its request was reported\n", id - 1);
	}
	if (strcmp(mode, "destroy")) {
		CMD_INIT(mc, UCMA_CMD_MIGRATE_ID, sizeof(mresp));
		mc.response = (uintptr_t)&mresp;
		mc.id = lid;
		mc.fd = a;
		step(ucma_write(c, &mc, sizeof(mc)), "MIGRATE_ID");
		printf("listener %u migrated from A to C\n", lid);
	}
	close(b);
	close(a);
	close(c);
	printf("closed every file\n");
	return 0;
}
