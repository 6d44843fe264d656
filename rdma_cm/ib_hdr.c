// SPDX-License-Identifier: GPL-2.0
/*
 * The rdma_cm header of IB CM requests (layout in ib.h), service ids of
 * rdma_cm port spaces, and which listener address takes a request.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "cma_priv.h"
#include "ib.h"

static_assert(sizeof(struct cma_ib_hdr) == CMA_IB_HDR_LEN);

static int cma_ib_hdr_put_ip(union cma_ib_hdr_ip *ip,
			     const struct sockaddr *sa)
{
	memset(ip, 0, sizeof(*ip));
	switch (sa->sa_family) {
	case AF_INET:
		ip->ip4.addr = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
		return 4;
	case AF_INET6:
		ip->ip6 = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return 6;
	}
	return -EAFNOSUPPORT;
}

int cma_ib_hdr_encode(struct cma_ib_hdr *hdr, const struct sockaddr *src,
		      const struct sockaddr *dst)
{
	int v;

	if (src->sa_family != dst->sa_family)
		return -EINVAL;
	v = cma_ib_hdr_put_ip(&hdr->src, src);
	if (v < 0)
		return v;
	cma_ib_hdr_put_ip(&hdr->dst, dst);
	hdr->version = CMA_IB_HDR_VERSION;
	hdr->ip_version = v << 4;
	hdr->port = cma_port(src);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_hdr_encode);

u8 cma_ib_hdr_len(struct rdma_id_private *id_priv)
{
	return cma_src_addr(id_priv)->sa_family == AF_IB ? 0 : CMA_IB_HDR_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_hdr_len);

/*
 * The private data of a REQ or SIDR_REQ: the rdma_cm header of @id_priv's
 * addresses (none for AF_IB: only its version byte, over the consumer's
 * first), then the consumer's data. A kmalloc'ed
 * buffer of *@len bytes (the caller frees it), NULL when that is 0, or an
 * ERR_PTR.
 */
u8 *cma_ib_req_pdata(struct rdma_id_private *id_priv,
		     const struct rdma_conn_param *conn_param, u8 *len)
{
	u8 hdr_len = cma_ib_hdr_len(id_priv);
	u8 *pd;
	int ret;

	*len = hdr_len + conn_param->private_data_len;
	if (!*len)
		return NULL;
	pd = kzalloc(*len, GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	if (hdr_len) {
		ret = cma_ib_hdr_encode((struct cma_ib_hdr *)pd,
					cma_src_addr(id_priv),
					cma_dst_addr(id_priv));
		if (ret) {
			kfree(pd);
			return ERR_PTR(ret);
		}
	}
	if (conn_param->private_data_len)
		memcpy(pd + hdr_len, conn_param->private_data,
		       conn_param->private_data_len);
	/*
	 * As in-tree, whose header writer always stamps the version: an AF_IB
	 * request's first byte of private data goes out as 0.
	 */
	if (!hdr_len)
		pd[0] = CMA_IB_HDR_VERSION;
	return pd;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_req_pdata);

static void cma_ib_hdr_get_ip(struct sockaddr_storage *ss, int v,
			      const union cma_ib_hdr_ip *ip, __be16 port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (v == 4) {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = ip->ip4.addr;
		s4->sin_port = port;
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = ip->ip6;
		s6->sin6_port = port;
	}
}

int cma_ib_hdr_parse(const void *pd, size_t len, __be64 sid,
		     struct sockaddr_storage *local,
		     struct sockaddr_storage *remote)
{
	struct cma_ib_hdr hdr;
	int v;

	if (!pd || len < CMA_IB_HDR_LEN)
		return -EINVAL;
	memcpy(&hdr, pd, sizeof(hdr));
	if (hdr.version != CMA_IB_HDR_VERSION)
		return -EINVAL;
	/* As in-tree: no IP version is a request of an AF_IB id. */
	v = hdr.ip_version >> 4;
	if (v != 4 && v != 6)
		return -EAFNOSUPPORT;
	cma_ib_hdr_get_ip(local, v, &hdr.dst, cma_ib_sid_port(sid));
	cma_ib_hdr_get_ip(remote, v, &hdr.src, hdr.port);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_hdr_parse);

__be64 cma_ib_service_id(enum rdma_ucm_port_space ps, __be16 port)
{
	return cpu_to_be64(((u64)ps << 16) | be16_to_cpu(port));
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_service_id);

enum rdma_ucm_port_space cma_ib_sid_ps(__be64 sid)
{
	return (be64_to_cpu(sid) >> 16) & 0xffff;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_sid_ps);

__be16 cma_ib_sid_port(__be64 sid)
{
	return cpu_to_be16(be64_to_cpu(sid) & 0xffff);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_sid_port);

bool cma_ib_listen_match(const struct sockaddr *listen, bool afonly,
			 const struct sockaddr *dst)
{
	const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)listen;
	const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dst;

	/* As in-tree, an AF_IB listener takes every request of its port. */
	if (listen->sa_family == AF_IB)
		return true;
	if (dst->sa_family == AF_IB)
		return false;
	if (cma_any_addr(listen)) {
		if (listen->sa_family == dst->sa_family)
			return true;
		return listen->sa_family == AF_INET6 && !afonly &&
		       dst->sa_family == AF_INET;
	}
	if (listen->sa_family != dst->sa_family)
		return false;
	if (listen->sa_family == AF_INET)
		return ((const struct sockaddr_in *)listen)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)dst)->sin_addr.s_addr;
	if (listen->sa_family == AF_INET6)
		return ipv6_addr_equal(&l6->sin6_addr, &d6->sin6_addr);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_listen_match);
