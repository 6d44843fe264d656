/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs that speak rdma_ucm's write() ABI directly
 * (mc_leave.c, ucma_fuzz.c, ucma_unreported.c) share: a command's header,
 * the write and destroy every one of them makes, and numeric addresses.
 */
#ifndef ORCM_UCMA_RAW_H
#define ORCM_UCMA_RAW_H

#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <rdma/rdma_cma_abi.h>

/* Zero command @c, and set its opcode and in/out sizes. */
#define CMD_INIT(c, op, resp_size) do {					\
		memset(&(c), 0, sizeof(c));				\
		(c).cmd = (op);						\
		(c).in = sizeof(c) - sizeof(struct ucma_abi_cmd_hdr);	\
		(c).out = (resp_size);					\
	} while (0)

/* Write command @cmd of @len bytes: 0, or -errno. */
static inline int ucma_write(int fd, void *cmd, size_t len)
{
	return write(fd, cmd, len) == (ssize_t)len ? 0 : -errno;
}

/* DESTROY_ID @id on @fd: 0, or -errno. */
static inline int ucma_destroy_id(int fd, uint32_t id)
{
	struct ucma_abi_destroy_id_resp resp;
	struct ucma_abi_destroy_id c;

	CMD_INIT(c, UCMA_CMD_DESTROY_ID, sizeof(resp));
	c.response = (uintptr_t)&resp;
	c.id = id;
	return ucma_write(fd, &c, sizeof(c));
}

/* A numeric IPv4 or IPv6 address into @ss; -1 when it does not parse. */
static inline int ucma_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;

	if (getaddrinfo(s, NULL, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* The length of @ss's address for its family. */
static inline socklen_t ucma_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

#endif
