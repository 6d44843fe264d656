// SPDX-License-Identifier: GPL-2.0
/*
 * Socket address helpers of the connection manager. Pure functions of their
 * arguments: no locks, any context.
 *
 * Naming differs from in-tree cma.c, where cma_any_addr() is "zero or
 * loopback" and cma_zero_addr() is "the any address": here cma_any_addr()
 * is the wildcard alone, cma_loopback_addr() the loopback range, and
 * cma_zero_addr() also accepts an AF_UNSPEC (unset) address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cma_priv.h"

#include <linux/in.h>
#include <linux/in6.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>
#include <rdma/ib.h>

/* The wildcard address of its family: 0.0.0.0, ::, or the zero AF_IB one. */
bool cma_any_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	case AF_IB:
		return ib_addr_any(&((const struct sockaddr_ib *)addr)->sib_addr);
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_any_addr);

/* 127.0.0.0/8, ::1, or the AF_IB loopback address. */
bool cma_loopback_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_loopback(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_loopback(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	case AF_IB:
		return ib_addr_loopback(&((const struct sockaddr_ib *)addr)->sib_addr);
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_loopback_addr);

/* Unset (sa_family 0) or the wildcard address of its family. */
bool cma_zero_addr(const struct sockaddr *addr)
{
	return addr->sa_family == AF_UNSPEC || cma_any_addr(addr);
}
EXPORT_SYMBOL_IF_KUNIT(cma_zero_addr);

/*
 * 0 when @a and @b are the same address of the same family, ports ignored.
 * An IPv6 address that needs a scope (link-local) also needs the same
 * sin6_scope_id. Two addresses of one family this file does not know are
 * equal (e.g. two unset ones). Otherwise nonzero.
 */
int cma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->sa_family != b->sa_family)
		return 1;

	switch (a->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr !=
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		if (!ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr))
			return 1;
		if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&a6->sin6_addr)))
			return a6->sin6_scope_id != b6->sin6_scope_id;
		return 0;
	case AF_IB:
		return memcmp(&((const struct sockaddr_ib *)a)->sib_addr,
			      &((const struct sockaddr_ib *)b)->sib_addr,
			      sizeof(struct ib_addr)) ? 1 : 0;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_cmp);

/*
 * The port, network order. For AF_IB, the port bits of the service id (its
 * low 16 bits, as far as the mask selects them); 0 for unknown families.
 */
__be16 cma_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)addr;

	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		return htons((u16)(be64_to_cpu(sib->sib_sid) &
				   be64_to_cpu(sib->sib_sid_mask)));
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_port);

/*
 * Set the port (network order). For AF_IB it replaces the low 16 bits of
 * the service id, keeps the port space above them and makes the whole id
 * significant. A no-op for unknown families.
 */
void cma_set_port(struct sockaddr *addr, __be16 port)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)addr;
	u64 sid;

	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = port;
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = port;
		break;
	case AF_IB:
		sid = be64_to_cpu(sib->sib_sid) & ~(u64)U16_MAX;
		sib->sib_sid = cpu_to_be64(sid | ntohs(port));
		sib->sib_sid_mask = cpu_to_be64(U64_MAX);
		break;
	default:
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_port);

/* sizeof the sockaddr of @addr's family; 0 for unknown families. */
int cma_addr_len(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_len);
