// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: the port mapper's netlink messages (RDMA_NL_IWCM).
 *
 * The wire format is the one rdma-core's iwpmd speaks
 * (include/uapi/rdma/rdma_netlink.h): a netlink header of type
 * RDMA_NL_GET_TYPE(RDMA_NL_IWCM, op), then attributes. Addresses travel as
 * whole struct sockaddr_storage (128 bytes), the REG_PID strings as
 * zero-padded fixed-size fields, numbers in host order. iwpmd refuses a
 * message with any attribute of its operation missing, so every request
 * carries them all; the FLAGS attributes exist from ABI version 4 on.
 *
 * No state here: encoders return a new skb (or an ERR_PTR), the decoder
 * reads a message iwpmd sent and refuses anything malformed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "iwpm.h"

#define IWPM_ADDR_LEN	sizeof(struct sockaddr_storage)

/*
 * The address as it goes on the wire: the family's own part of @in, the
 * rest zero, so no stale bytes of a caller's buffer reach userspace.
 */
static void iwpm_addr_wire(struct sockaddr_storage *out,
			   const struct sockaddr_storage *in)
{
	memset(out, 0, sizeof(*out));
	if (!in)
		return;
	if (in->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)in;
		struct sockaddr_in *d = (void *)out;

		d->sin_family = AF_INET;
		d->sin_port = s->sin_port;
		d->sin_addr = s->sin_addr;
	} else if (in->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)in;
		struct sockaddr_in6 *d = (void *)out;

		d->sin6_family = AF_INET6;
		d->sin6_port = s->sin6_port;
		d->sin6_addr = s->sin6_addr;
		d->sin6_scope_id = s->sin6_scope_id;
	}
}

static int iwpm_put_addr(struct sk_buff *skb, int type,
			 const struct sockaddr_storage *addr)
{
	struct sockaddr_storage wire;

	iwpm_addr_wire(&wire, addr);
	return nla_put(skb, type, sizeof(wire), &wire);
}

/* A fixed-size, zero-padded string field (truncated to size - 1). */
static int iwpm_put_fixed(struct sk_buff *skb, int type, const char *s,
			  size_t size)
{
	char buf[IWPM_DEVNAME_LEN] = {};

	if (size > sizeof(buf))
		return -EINVAL;
	strscpy(buf, s ? s : "", size);
	return nla_put(skb, type, size, buf);
}

/* A new request message: header only, NLM_F_REQUEST, pid 0. */
static struct sk_buff *iwpm_new(unsigned int op, u32 seq, u16 flags,
				struct nlmsghdr **nlh)
{
	struct sk_buff *skb;

	skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*nlh = nlmsg_put(skb, 0, seq, RDMA_NL_GET_TYPE(RDMA_NL_IWCM, op), 0,
			 flags);
	if (!*nlh) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* Finish @skb, or free it when @err says a put failed. */
static struct sk_buff *iwpm_done(struct sk_buff *skb, struct nlmsghdr *nlh,
				 int err)
{
	if (err) {
		nlmsg_free(skb);
		return ERR_PTR(err < 0 ? err : -EMSGSIZE);
	}
	nlmsg_end(skb, nlh);
	return skb;
}

struct sk_buff *iwpm_msg_reg_pid(u32 seq, const struct iwpm_msg_req *r)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int err;

	skb = iwpm_new(RDMA_NL_IWPM_REG_PID, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = nla_put_u32(skb, IWPM_NLA_REG_PID_SEQ, r->echo_seq) ?:
	      iwpm_put_fixed(skb, IWPM_NLA_REG_IF_NAME, r->ifname,
			     IWPM_IFNAME_LEN) ?:
	      iwpm_put_fixed(skb, IWPM_NLA_REG_IBDEV_NAME, r->devname,
			     IWPM_DEVNAME_LEN) ?:
	      iwpm_put_fixed(skb, IWPM_NLA_REG_ULIB_NAME, IWPM_ULIB_NAME,
			     IWPM_ULIBNAME_LEN);
	return iwpm_done(skb, nlh, err);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_reg_pid);

/* ABI 3 has no FLAGS attribute: a request that needs flags cannot go. */
static int iwpm_put_flags(struct sk_buff *skb, int type,
			  const struct iwpm_msg_req *r)
{
	if (r->abi < IWPM_UABI_VERSION_MIN || r->abi > IWPM_UABI_VERSION)
		return -EINVAL;
	if (r->abi == IWPM_UABI_VERSION_MIN)
		return r->flags ? -EINVAL : 0;
	return nla_put_u32(skb, type, r->flags);
}

struct sk_buff *iwpm_msg_add_mapping(u32 seq, const struct iwpm_msg_req *r)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int err;

	skb = iwpm_new(RDMA_NL_IWPM_ADD_MAPPING, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = nla_put_u32(skb, IWPM_NLA_MANAGE_MAPPING_SEQ, r->echo_seq) ?:
	      iwpm_put_addr(skb, IWPM_NLA_MANAGE_ADDR, r->local) ?:
	      iwpm_put_flags(skb, IWPM_NLA_MANAGE_FLAGS, r);
	return iwpm_done(skb, nlh, err);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_add_mapping);

struct sk_buff *iwpm_msg_query_mapping(u32 seq, const struct iwpm_msg_req *r)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int err;

	skb = iwpm_new(RDMA_NL_IWPM_QUERY_MAPPING, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = nla_put_u32(skb, IWPM_NLA_QUERY_MAPPING_SEQ, r->echo_seq) ?:
	      iwpm_put_addr(skb, IWPM_NLA_QUERY_LOCAL_ADDR, r->local) ?:
	      iwpm_put_addr(skb, IWPM_NLA_QUERY_REMOTE_ADDR, r->remote) ?:
	      iwpm_put_flags(skb, IWPM_NLA_QUERY_FLAGS, r);
	return iwpm_done(skb, nlh, err);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_query_mapping);

struct sk_buff *iwpm_msg_remove_mapping(u32 seq, const struct iwpm_msg_req *r)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;
	int err;

	skb = iwpm_new(RDMA_NL_IWPM_REMOVE_MAPPING, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = nla_put_u32(skb, IWPM_NLA_MANAGE_MAPPING_SEQ, r->echo_seq) ?:
	      iwpm_put_addr(skb, IWPM_NLA_MANAGE_ADDR, r->local);
	return iwpm_done(skb, nlh, err);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_remove_mapping);

struct sk_buff *iwpm_msg_hello(u32 seq, u16 abi)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = iwpm_new(RDMA_NL_IWPM_HELLO, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	return iwpm_done(skb, nlh,
			 nla_put_u16(skb, IWPM_NLA_HELLO_ABI_VERSION, abi));
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_hello);

struct sk_buff *iwpm_msg_mapinfo_num(u32 seq, u32 count)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = iwpm_new(RDMA_NL_IWPM_MAPINFO_NUM, seq, NLM_F_REQUEST, &nlh);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	return iwpm_done(skb, nlh,
			 nla_put_u32(skb, IWPM_NLA_MAPINFO_SEQ, 0) ?:
			 nla_put_u32(skb, IWPM_NLA_MAPINFO_SEND_NUM, count));
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_mapinfo_num);

int iwpm_msg_put_mapinfo(struct sk_buff *skb, u16 abi,
			 const struct sockaddr_storage *local,
			 const struct sockaddr_storage *mapped, u32 flags)
{
	struct iwpm_msg_req r = { .abi = abi, .flags = flags };
	struct nlmsghdr *nlh;
	int err;

	nlh = nlmsg_put(skb, 0, 0,
			RDMA_NL_GET_TYPE(RDMA_NL_IWCM, RDMA_NL_IWPM_MAPINFO), 0,
			NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	err = iwpm_put_addr(skb, IWPM_NLA_MAPINFO_LOCAL_ADDR, local) ?:
	      iwpm_put_addr(skb, IWPM_NLA_MAPINFO_MAPPED_ADDR, mapped) ?:
	      iwpm_put_flags(skb, IWPM_NLA_MAPINFO_FLAGS, &r);
	if (err) {
		nlmsg_cancel(skb, nlh);
		return err;
	}
	nlmsg_end(skb, nlh);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_put_mapinfo);

int iwpm_msg_put_done(struct sk_buff *skb)
{
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(skb, 0, 0, NLMSG_DONE, 0, NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	nlmsg_end(skb, nlh);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_put_done);

/* ---- decoding ---- */

#define IWPM_POL_ADDR	NLA_POLICY_EXACT_LEN(sizeof(struct sockaddr_storage))
#define IWPM_POL_NAME	{ .type = NLA_NUL_STRING, .len = IWPM_ULIBNAME_LEN - 1 }

static const struct nla_policy iwpm_pol_reg[IWPM_NLA_RREG_PID_MAX] = {
	[IWPM_NLA_RREG_PID_SEQ]		= { .type = NLA_U32 },
	[IWPM_NLA_RREG_IBDEV_NAME]	= IWPM_POL_NAME,
	[IWPM_NLA_RREG_ULIB_NAME]	= IWPM_POL_NAME,
	[IWPM_NLA_RREG_ULIB_VER]	= { .type = NLA_U16 },
	[IWPM_NLA_RREG_PID_ERR]		= { .type = NLA_U16 },
};

static const struct nla_policy iwpm_pol_add[IWPM_NLA_RMANAGE_MAPPING_MAX] = {
	[IWPM_NLA_RMANAGE_MAPPING_SEQ]	= { .type = NLA_U32 },
	[IWPM_NLA_RMANAGE_ADDR]		= IWPM_POL_ADDR,
	[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR] = IWPM_POL_ADDR,
	[IWPM_NLA_RMANAGE_MAPPING_ERR]	= { .type = NLA_U16 },
};

/* QUERY_MAPPING answers and REMOTE_INFO notices share one layout. */
static const struct nla_policy iwpm_pol_query[IWPM_NLA_RQUERY_MAPPING_MAX] = {
	[IWPM_NLA_RQUERY_MAPPING_SEQ]	= { .type = NLA_U32 },
	[IWPM_NLA_RQUERY_LOCAL_ADDR]	= IWPM_POL_ADDR,
	[IWPM_NLA_RQUERY_REMOTE_ADDR]	= IWPM_POL_ADDR,
	[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR] = IWPM_POL_ADDR,
	[IWPM_NLA_RQUERY_MAPPED_REM_ADDR] = IWPM_POL_ADDR,
	[IWPM_NLA_RQUERY_MAPPING_ERR]	= { .type = NLA_U16 },
};

static const struct nla_policy iwpm_pol_err[IWPM_NLA_ERR_MAX] = {
	[IWPM_NLA_ERR_SEQ]		= { .type = NLA_U32 },
	[IWPM_NLA_ERR_CODE]		= { .type = NLA_U16 },
};

static const struct nla_policy iwpm_pol_mapinfo[IWPM_NLA_MAPINFO_REQ_MAX] = {
	[IWPM_NLA_MAPINFO_ULIB_NAME]	= IWPM_POL_NAME,
	[IWPM_NLA_MAPINFO_ULIB_VER]	= { .type = NLA_U16 },
};

static const struct nla_policy iwpm_pol_num[IWPM_NLA_MAPINFO_NUM_MAX] = {
	[IWPM_NLA_MAPINFO_SEQ]		= { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_SEND_NUM]	= { .type = NLA_U32 },
	[IWPM_NLA_MAPINFO_ACK_NUM]	= { .type = NLA_U32 },
};

static const struct nla_policy iwpm_pol_hello[IWPM_NLA_HELLO_MAX] = {
	[IWPM_NLA_HELLO_ABI_VERSION]	= { .type = NLA_U16 },
};

struct iwpm_op_spec {
	const struct nla_policy *policy;
	unsigned int max;		/* the uapi *_MAX: attributes 1..max-1 */
};

static const struct iwpm_op_spec iwpm_specs[RDMA_NL_IWPM_NUM_OPS] = {
	[RDMA_NL_IWPM_REG_PID]	     = { iwpm_pol_reg, IWPM_NLA_RREG_PID_MAX },
	[RDMA_NL_IWPM_ADD_MAPPING]   = { iwpm_pol_add,
					 IWPM_NLA_RMANAGE_MAPPING_MAX },
	[RDMA_NL_IWPM_QUERY_MAPPING] = { iwpm_pol_query,
					 IWPM_NLA_RQUERY_MAPPING_MAX },
	[RDMA_NL_IWPM_REMOTE_INFO]   = { iwpm_pol_query,
					 IWPM_NLA_RQUERY_MAPPING_MAX },
	[RDMA_NL_IWPM_HANDLE_ERR]    = { iwpm_pol_err, IWPM_NLA_ERR_MAX },
	[RDMA_NL_IWPM_MAPINFO]	     = { iwpm_pol_mapinfo,
					 IWPM_NLA_MAPINFO_REQ_MAX },
	[RDMA_NL_IWPM_MAPINFO_NUM]   = { iwpm_pol_num, IWPM_NLA_MAPINFO_NUM_MAX },
	[RDMA_NL_IWPM_HELLO]	     = { iwpm_pol_hello, IWPM_NLA_HELLO_MAX },
};

#define IWPM_MAX_ATTRS	IWPM_NLA_RQUERY_MAPPING_MAX

static bool iwpm_family_ok(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET || a->ss_family == AF_INET6;
}

/* Both addresses valid and of one family. */
static bool iwpm_pair_ok(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	return iwpm_family_ok(a) && a->ss_family == b->ss_family;
}

static const struct sockaddr_storage *iwpm_nla_addr(const struct nlattr *a)
{
	return nla_data(a);
}

int iwpm_msg_parse(const struct nlmsghdr *nlh, unsigned int op,
		   struct iwpm_msg_resp *out)
{
	struct nlattr *tb[IWPM_MAX_ATTRS];
	const struct iwpm_op_spec *spec;
	unsigned int i;
	int err;

	memset(out, 0, sizeof(*out));
	if (op >= ARRAY_SIZE(iwpm_specs) || !iwpm_specs[op].policy)
		return -EINVAL;
	spec = &iwpm_specs[op];
	if (nlh->nlmsg_len < NLMSG_HDRLEN)
		return -EINVAL;
	err = nlmsg_parse(nlh, 0, tb, spec->max - 1, spec->policy, NULL);
	if (err)
		return -EINVAL;
	for (i = 1; i < spec->max; i++)
		if (!tb[i])
			return -EINVAL;

	switch (op) {
	case RDMA_NL_IWPM_REG_PID:
		out->seq = nla_get_u32(tb[IWPM_NLA_RREG_PID_SEQ]);
		out->dev_name = nla_data(tb[IWPM_NLA_RREG_IBDEV_NAME]);
		out->ulib_name = nla_data(tb[IWPM_NLA_RREG_ULIB_NAME]);
		out->abi = nla_get_u16(tb[IWPM_NLA_RREG_ULIB_VER]);
		out->err = nla_get_u16(tb[IWPM_NLA_RREG_PID_ERR]);
		break;
	case RDMA_NL_IWPM_ADD_MAPPING:
		out->seq = nla_get_u32(tb[IWPM_NLA_RMANAGE_MAPPING_SEQ]);
		out->local = iwpm_nla_addr(tb[IWPM_NLA_RMANAGE_ADDR]);
		out->mapped_local =
			iwpm_nla_addr(tb[IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR]);
		out->err = nla_get_u16(tb[IWPM_NLA_RMANAGE_MAPPING_ERR]);
		if (!iwpm_pair_ok(out->local, out->mapped_local))
			return -EINVAL;
		break;
	case RDMA_NL_IWPM_QUERY_MAPPING:
	case RDMA_NL_IWPM_REMOTE_INFO:
		out->seq = nla_get_u32(tb[IWPM_NLA_RQUERY_MAPPING_SEQ]);
		out->local = iwpm_nla_addr(tb[IWPM_NLA_RQUERY_LOCAL_ADDR]);
		out->remote = iwpm_nla_addr(tb[IWPM_NLA_RQUERY_REMOTE_ADDR]);
		out->mapped_local =
			iwpm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_LOC_ADDR]);
		out->mapped_remote =
			iwpm_nla_addr(tb[IWPM_NLA_RQUERY_MAPPED_REM_ADDR]);
		out->err = nla_get_u16(tb[IWPM_NLA_RQUERY_MAPPING_ERR]);
		if (!iwpm_pair_ok(out->local, out->mapped_local) ||
		    !iwpm_pair_ok(out->remote, out->mapped_remote))
			return -EINVAL;
		break;
	case RDMA_NL_IWPM_HANDLE_ERR:
		out->seq = nla_get_u32(tb[IWPM_NLA_ERR_SEQ]);
		out->err = nla_get_u16(tb[IWPM_NLA_ERR_CODE]);
		break;
	case RDMA_NL_IWPM_MAPINFO:
		out->ulib_name = nla_data(tb[IWPM_NLA_MAPINFO_ULIB_NAME]);
		out->abi = nla_get_u16(tb[IWPM_NLA_MAPINFO_ULIB_VER]);
		break;
	case RDMA_NL_IWPM_MAPINFO_NUM:
		out->seq = nla_get_u32(tb[IWPM_NLA_MAPINFO_SEQ]);
		out->send_num = nla_get_u32(tb[IWPM_NLA_MAPINFO_SEND_NUM]);
		out->ack_num = nla_get_u32(tb[IWPM_NLA_MAPINFO_ACK_NUM]);
		break;
	case RDMA_NL_IWPM_HELLO:
		out->abi = nla_get_u16(tb[IWPM_NLA_HELLO_ABI_VERSION]);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_msg_parse);

bool iwpm_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a;
		const struct sockaddr_in6 *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       ipv6_addr_equal(&x->sin6_addr, &y->sin6_addr);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_addr_equal);

bool iwpm_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return !((const struct sockaddr_in *)a)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_addr_any);
