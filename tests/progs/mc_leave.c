// SPDX-License-Identifier: GPL-2.0
/*
 * mc_leave: one UD id joins one multicast group twice through rdma_ucm's
 * write() ABI (librdmacm cannot: it leaves by address and always takes its
 * first join), leaves the SECOND join by its rdma_ucm id, then waits for the
 * remaining join's events while the test flaps the port.
 *
 *   mc_leave BIND_ADDR GROUP READY_FILE SECONDS
 *
 * Each join carries its own uid (1 and 2). rdma_ucm frees the second join's
 * object when LEAVE_MCAST returns; the CM must have left that very join,
 * so that every later event of the group carries uid 1. A CM that left the
 * first join instead (in-tree: rdma_leave_multicast() takes the first join
 * of the address) keeps delivering to the freed object: KASAN's
 * slab-use-after-free in ucma_create_uevent, or an event with a uid that
 * is not 1.
 *
 * After both MULTICAST_JOIN events and the leave, the program creates
 * READY_FILE and reads events for up to SECONDS: exit 0 when a
 * MULTICAST_ERROR of uid 1 came (the SA reports the port's flap to its
 * members) and no event named another uid, 1 on an event of another uid,
 * 3 when no MULTICAST_ERROR came, 2 on a setup error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_cma_abi.h>

#include "ucma_raw.h"

static int fd;

static void die(const char *what)
{
	fprintf(stderr, "mc_leave: %s: %s\n", what, strerror(errno));
	exit(2);
}

static __u32 join(__u32 id, const struct sockaddr_storage *group, __u64 uid)
{
	struct ucma_abi_create_id_resp resp;
	struct ucma_abi_join_mcast c;

	CMD_INIT(c, UCMA_CMD_JOIN_MCAST, sizeof(resp));
	c.response = (uintptr_t)&resp;
	c.uid = uid;
	c.id = id;
	c.addr_size = ucma_addr_len(group);
	c.join_flags = 0;	/* RDMA_MC_JOIN_FLAG_FULLMEMBER */
	memcpy(&c.addr, group, c.addr_size);
	if (write(fd, &c, sizeof(c)) != sizeof(c))
		die("JOIN_MCAST");
	return resp.id;
}

static void leave(__u32 mc_id)
{
	struct ucma_abi_destroy_id_resp resp;
	struct ucma_abi_destroy_id c;

	CMD_INIT(c, UCMA_CMD_LEAVE_MCAST, sizeof(resp));
	c.response = (uintptr_t)&resp;
	c.id = mc_id;
	if (write(fd, &c, sizeof(c)) != sizeof(c))
		die("LEAVE_MCAST");
}

/* The next event, or 0 when none came within @ms. */
static int get_event(struct ucma_abi_event_resp *ev, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct ucma_abi_get_event c;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	CMD_INIT(c, UCMA_CMD_GET_EVENT, sizeof(*ev));
	c.response = (uintptr_t)ev;
	if (write(fd, &c, sizeof(c)) != sizeof(c))
		die("GET_EVENT");
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage bind_addr = {}, group = {};
	struct ucma_abi_create_id_resp cresp;
	struct ucma_abi_destroy_id_resp dresp;
	struct ucma_abi_event_resp ev;
	struct ucma_abi_create_id cc;
	struct ucma_abi_destroy_id dc;
	struct ucma_abi_bind bc;
	int joined = 0, errors = 0, bad = 0, n;
	__u32 id, mc1, mc2;
	time_t end;

	if (argc != 5 || ucma_parse_addr(argv[1], &bind_addr) || ucma_parse_addr(argv[2], &group)) {
		fprintf(stderr, "usage: mc_leave BIND_ADDR GROUP READY_FILE SECONDS\n");
		return 2;
	}
	fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/infiniband/rdma_cm");

	CMD_INIT(cc, UCMA_CMD_CREATE_ID, sizeof(cresp));
	cc.uid = 100;
	cc.response = (uintptr_t)&cresp;
	cc.ps = RDMA_PS_UDP;
	cc.qp_type = IBV_QPT_UD;
	if (write(fd, &cc, sizeof(cc)) != sizeof(cc))
		die("CREATE_ID");
	id = cresp.id;

	CMD_INIT(bc, UCMA_CMD_BIND, 0);
	bc.id = id;
	bc.addr_size = ucma_addr_len(&bind_addr);
	memcpy(&bc.addr, &bind_addr, bc.addr_size);
	if (write(fd, &bc, sizeof(bc)) != sizeof(bc))
		die("BIND");

	mc1 = join(id, &group, 1);
	mc2 = join(id, &group, 2);
	while (joined < 2 && get_event(&ev, 20000)) {
		printf("event %u uid %llu status %d\n", ev.event,
		       (unsigned long long)ev.uid, (int)ev.status);
		if (ev.event != RDMA_CM_EVENT_MULTICAST_JOIN)
			die("an event other than MULTICAST_JOIN before the leave");
		joined++;
	}
	if (joined < 2) {
		fprintf(stderr, "mc_leave: %d of 2 MULTICAST_JOIN events\n", joined);
		return 2;
	}
	leave(mc2);
	printf("left the second join\n");
	fflush(stdout);
	if (close(open(argv[3], O_CREAT | O_WRONLY, 0644)))
		die("READY_FILE");

	end = time(NULL) + atoi(argv[4]);
	while (time(NULL) < end) {
		n = get_event(&ev, 500);
		if (!n)
			continue;
		printf("event %u uid %llu status %d\n", ev.event,
		       (unsigned long long)ev.uid, (int)ev.status);
		fflush(stdout);
		if (ev.uid != 1 && ev.uid != 100)
			bad++;
		/* The first error of uid 1: 3 s more for any stray event. */
		if (ev.event == RDMA_CM_EVENT_MULTICAST_ERROR && ev.uid == 1 &&
		    !errors++ && time(NULL) + 3 < end)
			end = time(NULL) + 3;
	}
	leave(mc1);

	CMD_INIT(dc, UCMA_CMD_DESTROY_ID, sizeof(dresp));
	dc.response = (uintptr_t)&dresp;
	dc.id = id;
	if (write(fd, &dc, sizeof(dc)) != sizeof(dc))
		die("DESTROY_ID");
	close(fd);
	printf("multicast errors of uid 1: %d, events of another uid: %d\n", errors, bad);
	if (bad)
		return 1;
	return errors ? 0 : 3;
}
