// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the iWARP port mapper of openrdma-cm iw_cm.ko:
 *  - the netlink messages to iwpmd, compared byte for byte with buffers
 *    laid out here by hand from the uapi (rdma_netlink.h) and from what
 *    rdma-core's iwpmd parses (every attribute present, 128-byte
 *    sockaddr_storage addresses, fixed-size REG_PID strings, FLAGS from
 *    ABI 4 on);
 *  - the decoder of iwpmd's messages: good ones, and malformed ones
 *    (missing, short, long or unterminated attributes, bad families,
 *    truncated messages), each refused;
 *  - the remote-info table (consumed once, bounded) and kernel-mode host
 *    port reservations (the host cannot bind a held port; shared by equal
 *    addresses; released with the last user);
 *  - the per-id hooks in kernel mode (listener keeps its port, held; a
 *    taken port fails a listen and moves an active id; a non-local
 *    address, IW_F_NO_PORT_MAP and mode off leave the id unmapped).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "iw_cm/iwcm.h"
#include "iw_cm/iwpm.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define BUF_MAX	640
#define SS_LEN	128

/* ---- a hand-made message ---- */

struct raw {
	u8 b[BUF_MAX];
	unsigned int len;
};

static void raw_u16(struct raw *r, u16 v)
{
	memcpy(r->b + r->len, &v, 2);
	r->len += 2;
}

static void raw_u32(struct raw *r, u32 v)
{
	memcpy(r->b + r->len, &v, 4);
	r->len += 4;
}

/* nlmsghdr: length patched by raw_end(). */
static void raw_hdr(struct raw *r, u16 type, u16 flags, u32 seq)
{
	memset(r, 0, sizeof(*r));
	raw_u32(r, 0);
	raw_u16(r, type);
	raw_u16(r, flags);
	raw_u32(r, seq);
	raw_u32(r, 0);		/* pid: the kernel */
}

static void raw_attr(struct raw *r, u16 type, const void *data, u16 len)
{
	raw_u16(r, 4 + len);
	raw_u16(r, type);
	memcpy(r->b + r->len, data, len);
	r->len += ALIGN(len, 4);
}

static void raw_attr_u32(struct raw *r, u16 type, u32 v)
{
	raw_attr(r, type, &v, 4);
}

static void raw_attr_u16(struct raw *r, u16 type, u16 v)
{
	raw_attr(r, type, &v, 2);
}

static struct raw *new_raw(struct kunit *test)
{
	struct raw *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

static void raw_end(struct raw *r)
{
	u32 len = r->len;

	memcpy(r->b, &len, 4);
}

/* The 128 bytes iwpmd reads for ip:port (family in host order). */
static void wire_ss(u8 *ss, int family, const u8 *ip, u16 port)
{
	u16 fam = family;
	__be16 p = htons(port);

	memset(ss, 0, SS_LEN);
	memcpy(ss, &fam, 2);
	memcpy(ss + 2, &p, 2);
	if (family == AF_INET)
		memcpy(ss + 4, ip, 4);
	else
		memcpy(ss + 8, ip, 16);	/* after sin6_flowinfo */
}

static const u8 ip4_a[4] = { 198, 18, 8, 1 };
static const u8 ip4_b[4] = { 198, 18, 8, 2 };
static const u8 ip6_a[16] = { 0xfd, 0, 1, 0x98, 0, 0x18, 0, 8, [15] = 1 };
static const u8 ip6_b[16] = { 0xfd, 0, 1, 0x98, 0, 0x18, 0, 8, [15] = 2 };

/* A kernel sockaddr for ip:port with junk where the family has padding. */
static void kern_ss(struct sockaddr_storage *ss, int family, const u8 *ip,
		    u16 port)
{
	memset(ss, 0xa5, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		memcpy(&s->sin_addr, ip, 4);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		s->sin6_flowinfo = 0;
		s->sin6_scope_id = 0;
		memcpy(&s->sin6_addr, ip, 16);
	}
}

static void expect_skb(struct kunit *test, struct sk_buff *skb,
		       const struct raw *want)
{
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(skb));
	KUNIT_EXPECT_EQ(test, skb->len, want->len);
	if (skb->len == want->len)
		KUNIT_EXPECT_MEMEQ(test, skb->data, want->b, want->len);
	kfree_skb(skb);
}

#define T(op)	RDMA_NL_GET_TYPE(RDMA_NL_IWCM, op)

/* ---- encoding, parameterised over ABI version and address family ---- */

struct enc_case {
	const char *name;
	u16 abi;
	int family;
};

static const struct enc_case enc_cases[] = {
	{ "abi4-ipv4", 4, AF_INET },
	{ "abi4-ipv6", 4, AF_INET6 },
	{ "abi3-ipv4", 3, AF_INET },
	{ "abi3-ipv6", 3, AF_INET6 },
};

static void enc_desc(const struct enc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(enc, enc_cases, enc_desc);

static const u8 *ip_a(int f) { return f == AF_INET ? ip4_a : ip6_a; }
static const u8 *ip_b(int f) { return f == AF_INET ? ip4_b : ip6_b; }

/*
 * A request as iwpmd expects it: the echo sequence attribute (type 1 in
 * each layout), the address(es) (types 2 and 3), FLAGS after them when
 * @flags >= 0.
 */
static void want_req(struct raw *want, unsigned int op, u32 seq,
		     const u8 *local, const u8 *remote, long flags)
{
	u16 type = 2;

	raw_hdr(want, T(op), NLM_F_REQUEST, seq);
	raw_attr_u32(want, 1, 0x01020304);
	raw_attr(want, type++, local, SS_LEN);
	if (remote)
		raw_attr(want, type++, remote, SS_LEN);
	if (flags >= 0)
		raw_attr_u32(want, type, flags);
	raw_end(want);
}

static void iwpm_enc_add_query_remove(struct kunit *test)
{
	const struct enc_case *c = test->param_value;
	struct sockaddr_storage local, remote;
	struct iwpm_msg_req r = {};
	u8 wl[SS_LEN], wr[SS_LEN];
	struct raw *want = new_raw(test);

	kern_ss(&local, c->family, ip_a(c->family), 7300);
	kern_ss(&remote, c->family, ip_b(c->family), 40000);
	wire_ss(wl, c->family, ip_a(c->family), 7300);
	wire_ss(wr, c->family, ip_b(c->family), 40000);
	r.abi = c->abi;
	r.echo_seq = 0x01020304;
	r.local = &local;
	r.remote = &remote;

	/* ADD_MAPPING: SEQ, ADDR, then FLAGS from ABI 4 on. */
	want_req(want, RDMA_NL_IWPM_ADD_MAPPING, 77, wl, NULL,
		 c->abi > 3 ? 0 : -1);
	expect_skb(test, iwpm_msg_add_mapping(77, &r), want);
	/* QUERY_MAPPING: SEQ, LOCAL, REMOTE, then FLAGS from ABI 4 on. */
	want_req(want, RDMA_NL_IWPM_QUERY_MAPPING, 78, wl, wr,
		 c->abi > 3 ? 0 : -1);
	expect_skb(test, iwpm_msg_query_mapping(78, &r), want);
	/* REMOVE_MAPPING: SEQ, ADDR, never FLAGS. */
	want_req(want, RDMA_NL_IWPM_REMOVE_MAPPING, 79, wl, NULL, -1);
	expect_skb(test, iwpm_msg_remove_mapping(79, &r), want);

	/* Flags need ABI 4; an unknown ABI sends nothing. */
	r.flags = IWPM_FLAGS_NO_PORT_MAP;
	if (c->abi == 3) {
		KUNIT_EXPECT_EQ(test, PTR_ERR(iwpm_msg_add_mapping(80, &r)),
				-EINVAL);
	} else {
		want_req(want, RDMA_NL_IWPM_ADD_MAPPING, 80, wl, NULL, 1);
		expect_skb(test, iwpm_msg_add_mapping(80, &r), want);
	}
	r.abi = 5;
	KUNIT_EXPECT_EQ(test, PTR_ERR(iwpm_msg_query_mapping(81, &r)), -EINVAL);
}

static void iwpm_enc_mapinfo(struct kunit *test)
{
	const struct enc_case *c = test->param_value;
	struct sockaddr_storage local, mapped;
	u8 wl[SS_LEN], wm[SS_LEN];
	struct sk_buff *skb;
	struct raw *want = new_raw(test);

	kern_ss(&local, c->family, ip_a(c->family), 7300);
	kern_ss(&mapped, c->family, ip_a(c->family), 45678);
	wire_ss(wl, c->family, ip_a(c->family), 7300);
	wire_ss(wm, c->family, ip_a(c->family), 45678);

	/* One MAPINFO record (NLM_F_MULTI), then NLMSG_DONE. */
	raw_hdr(want, T(RDMA_NL_IWPM_MAPINFO), NLM_F_MULTI, 0);
	raw_attr(want, IWPM_NLA_MAPINFO_LOCAL_ADDR, wl, SS_LEN);
	raw_attr(want, IWPM_NLA_MAPINFO_MAPPED_ADDR, wm, SS_LEN);
	if (c->abi > 3)
		raw_attr_u32(want, IWPM_NLA_MAPINFO_FLAGS, 0);
	raw_end(want);
	{
		u32 first = want->len;
		u32 done_len = 16;
		u16 done_type = NLMSG_DONE, multi = NLM_F_MULTI;

		memcpy(want->b + first, &done_len, 4);
		memcpy(want->b + first + 4, &done_type, 2);
		memcpy(want->b + first + 6, &multi, 2);
		memset(want->b + first + 8, 0, 8);
		want->len += 16;
	}
	skb = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, iwpm_msg_put_mapinfo(skb, c->abi, &local, &mapped,
						   0), 0);
	KUNIT_EXPECT_EQ(test, iwpm_msg_put_done(skb), 0);
	expect_skb(test, skb, want);
}

static void iwpm_enc_reg_hello_num(struct kunit *test)
{
	struct iwpm_msg_req r = { .echo_seq = 9, .ifname = "nP",
				  .devname = "nullrnic0" };
	char ifn[IWPM_IFNAME_LEN] = "nP", dev[IWPM_DEVNAME_LEN] = "nullrnic0";
	char lib[IWPM_ULIBNAME_LEN] = "iWarpPortMapperUser";
	struct raw *want = new_raw(test);

	raw_hdr(want, T(RDMA_NL_IWPM_REG_PID), NLM_F_REQUEST, 5);
	raw_attr_u32(want, IWPM_NLA_REG_PID_SEQ, 9);
	raw_attr(want, IWPM_NLA_REG_IF_NAME, ifn, sizeof(ifn));
	raw_attr(want, IWPM_NLA_REG_IBDEV_NAME, dev, sizeof(dev));
	raw_attr(want, IWPM_NLA_REG_ULIB_NAME, lib, sizeof(lib));
	raw_end(want);
	KUNIT_EXPECT_EQ(test, want->len, 16u + 8 + 20 + 36 + 36);
	expect_skb(test, iwpm_msg_reg_pid(5, &r), want);

	/* Too long a name is cut, still NUL-terminated in its 16 bytes. */
	r.ifname = "an-interface-name-too-long";
	memcpy(ifn, "an-interface-na", 15);
	ifn[15] = 0;
	raw_hdr(want, T(RDMA_NL_IWPM_REG_PID), NLM_F_REQUEST, 6);
	raw_attr_u32(want, IWPM_NLA_REG_PID_SEQ, 9);
	raw_attr(want, IWPM_NLA_REG_IF_NAME, ifn, sizeof(ifn));
	raw_attr(want, IWPM_NLA_REG_IBDEV_NAME, dev, sizeof(dev));
	raw_attr(want, IWPM_NLA_REG_ULIB_NAME, lib, sizeof(lib));
	raw_end(want);
	expect_skb(test, iwpm_msg_reg_pid(6, &r), want);

	raw_hdr(want, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 7);
	raw_attr_u16(want, IWPM_NLA_HELLO_ABI_VERSION, 4);
	raw_end(want);
	expect_skb(test, iwpm_msg_hello(7, 4), want);

	raw_hdr(want, T(RDMA_NL_IWPM_MAPINFO_NUM), NLM_F_REQUEST, 8);
	raw_attr_u32(want, IWPM_NLA_MAPINFO_SEQ, 0);
	raw_attr_u32(want, IWPM_NLA_MAPINFO_SEND_NUM, 3);
	raw_end(want);
	expect_skb(test, iwpm_msg_mapinfo_num(8, 3), want);
}

/* ---- decoding ---- */

/* A good QUERY_MAPPING answer, as iwpmd's send_conn_info_nlmsg() makes it. */
static void good_query(struct raw *m, int family, u16 err)
{
	u8 l[SS_LEN], r[SS_LEN], ml[SS_LEN], mr[SS_LEN];

	wire_ss(l, family, ip_a(family), 7300);
	wire_ss(r, family, ip_b(family), 7301);
	wire_ss(ml, family, ip_a(family), 41000);
	wire_ss(mr, family, ip_b(family), 42000);
	raw_hdr(m, T(RDMA_NL_IWPM_QUERY_MAPPING), NLM_F_REQUEST, 3);
	raw_attr_u32(m, IWPM_NLA_RQUERY_MAPPING_SEQ, 1234);
	raw_attr(m, IWPM_NLA_RQUERY_LOCAL_ADDR, l, SS_LEN);
	raw_attr(m, IWPM_NLA_RQUERY_REMOTE_ADDR, r, SS_LEN);
	raw_attr(m, IWPM_NLA_RQUERY_MAPPED_LOC_ADDR, ml, SS_LEN);
	raw_attr(m, IWPM_NLA_RQUERY_MAPPED_REM_ADDR, mr, SS_LEN);
	raw_attr_u16(m, IWPM_NLA_RQUERY_MAPPING_ERR, err);
	raw_end(m);
}

static u16 port_of(const struct sockaddr_storage *ss)
{
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void iwpm_dec_good(struct kunit *test)
{
	const struct enc_case *c = test->param_value;
	struct iwpm_msg_resp m;
	char dev[] = "nullrnic0", lib[] = "iWarpPortMapperUser";
	u8 l[SS_LEN], ml[SS_LEN];
	struct raw *raw = new_raw(test);

	good_query(raw, c->family, 0);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_QUERY_MAPPING, &m), 0);
	KUNIT_EXPECT_EQ(test, m.seq, 1234u);
	KUNIT_EXPECT_EQ(test, m.err, 0);
	KUNIT_EXPECT_EQ(test, m.local->ss_family, c->family);
	KUNIT_EXPECT_EQ(test, port_of(m.local), 7300);
	KUNIT_EXPECT_EQ(test, port_of(m.remote), 7301);
	KUNIT_EXPECT_EQ(test, port_of(m.mapped_local), 41000);
	KUNIT_EXPECT_EQ(test, port_of(m.mapped_remote), 42000);
	/* REMOTE_INFO has the same layout. */
	KUNIT_EXPECT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_REMOTE_INFO, &m), 0);

	wire_ss(l, c->family, ip_a(c->family), 7300);
	wire_ss(ml, c->family, ip_a(c->family), 41000);
	raw_hdr(raw, T(RDMA_NL_IWPM_ADD_MAPPING), NLM_F_REQUEST, 4);
	raw_attr_u32(raw, IWPM_NLA_RMANAGE_MAPPING_SEQ, 55);
	raw_attr(raw, IWPM_NLA_RMANAGE_ADDR, l, SS_LEN);
	raw_attr(raw, IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR, ml, SS_LEN);
	raw_attr_u16(raw, IWPM_NLA_RMANAGE_MAPPING_ERR, 0);
	raw_end(raw);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_ADD_MAPPING, &m), 0);
	KUNIT_EXPECT_EQ(test, m.seq, 55u);
	KUNIT_EXPECT_EQ(test, port_of(m.mapped_local), 41000);

	/* REG_PID answer: strings as nla_put_string() puts them. */
	raw_hdr(raw, T(RDMA_NL_IWPM_REG_PID), NLM_F_REQUEST, 1);
	raw_attr_u32(raw, IWPM_NLA_RREG_PID_SEQ, 56);
	raw_attr(raw, IWPM_NLA_RREG_IBDEV_NAME, dev, sizeof(dev));
	raw_attr(raw, IWPM_NLA_RREG_ULIB_NAME, lib, sizeof(lib));
	raw_attr_u16(raw, IWPM_NLA_RREG_ULIB_VER, c->abi);
	raw_attr_u16(raw, IWPM_NLA_RREG_PID_ERR, 0);
	raw_end(raw);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_REG_PID, &m), 0);
	KUNIT_EXPECT_STREQ(test, m.dev_name, "nullrnic0");
	KUNIT_EXPECT_STREQ(test, m.ulib_name, IWPM_ULIB_NAME);
	KUNIT_EXPECT_EQ(test, m.abi, c->abi);

	raw_hdr(raw, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 0);
	raw_attr_u16(raw, IWPM_NLA_HELLO_ABI_VERSION, c->abi);
	raw_end(raw);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b, RDMA_NL_IWPM_HELLO,
					     &m), 0);
	KUNIT_EXPECT_EQ(test, m.abi, c->abi);

	raw_hdr(raw, T(RDMA_NL_IWPM_HANDLE_ERR), NLM_F_REQUEST, 2);
	raw_attr_u32(raw, IWPM_NLA_ERR_SEQ, 57);
	raw_attr_u16(raw, IWPM_NLA_ERR_CODE, 3);
	raw_end(raw);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_HANDLE_ERR, &m), 0);
	KUNIT_EXPECT_EQ(test, m.seq, 57u);
	KUNIT_EXPECT_EQ(test, m.err, 3);

	raw_hdr(raw, T(RDMA_NL_IWPM_MAPINFO_NUM), NLM_F_REQUEST, 2);
	raw_attr_u32(raw, IWPM_NLA_MAPINFO_SEQ, 1);
	raw_attr_u32(raw, IWPM_NLA_MAPINFO_SEND_NUM, 4);
	raw_attr_u32(raw, IWPM_NLA_MAPINFO_ACK_NUM, 3);
	raw_end(raw);
	KUNIT_ASSERT_EQ(test, iwpm_msg_parse((void *)raw->b,
					     RDMA_NL_IWPM_MAPINFO_NUM, &m), 0);
	KUNIT_EXPECT_EQ(test, m.send_num, 4u);
	KUNIT_EXPECT_EQ(test, m.ack_num, 3u);
}

/* Malformed messages: each refused. */
struct bad_case {
	const char *name;
	void (*make)(struct raw *m);
	unsigned int op;
};

static void bad_missing_err(struct raw *m)
{
	good_query(m, AF_INET, 0);
	m->len -= 8;		/* drop the trailing ERR attribute */
	raw_end(m);
}

static void bad_short_addr(struct raw *m)
{
	u8 l[SS_LEN] = {};

	raw_hdr(m, T(RDMA_NL_IWPM_ADD_MAPPING), NLM_F_REQUEST, 1);
	raw_attr_u32(m, IWPM_NLA_RMANAGE_MAPPING_SEQ, 1);
	wire_ss(l, AF_INET, ip4_a, 1);
	raw_attr(m, IWPM_NLA_RMANAGE_ADDR, l, SS_LEN - 4);
	raw_attr(m, IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR, l, SS_LEN);
	raw_attr_u16(m, IWPM_NLA_RMANAGE_MAPPING_ERR, 0);
	raw_end(m);
}

static void bad_wide_u16(struct raw *m)
{
	raw_hdr(m, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 0);
	raw_attr_u32(m, IWPM_NLA_HELLO_ABI_VERSION, 4);
	raw_end(m);
}

static void bad_unterminated(struct raw *m)
{
	char lib[IWPM_ULIBNAME_LEN + 8];

	memset(lib, 'x', sizeof(lib));
	raw_hdr(m, T(RDMA_NL_IWPM_MAPINFO), NLM_F_REQUEST, 1);
	raw_attr(m, IWPM_NLA_MAPINFO_ULIB_NAME, lib, sizeof(lib));
	raw_attr_u16(m, IWPM_NLA_MAPINFO_ULIB_VER, 4);
	raw_end(m);
}

static void bad_family(struct raw *m)
{
	good_query(m, AF_INET, 0);
	/* LOCAL_ADDR's family (first attribute data after SEQ) -> AF_UNIX. */
	m->b[16 + 8 + 4] = AF_UNIX;
	m->b[16 + 8 + 5] = 0;
}

static void bad_mixed_family(struct raw *m)
{
	u8 l[SS_LEN], ml[SS_LEN];

	raw_hdr(m, T(RDMA_NL_IWPM_ADD_MAPPING), NLM_F_REQUEST, 1);
	raw_attr_u32(m, IWPM_NLA_RMANAGE_MAPPING_SEQ, 1);
	wire_ss(l, AF_INET, ip4_a, 1);
	wire_ss(ml, AF_INET6, ip6_a, 2);
	raw_attr(m, IWPM_NLA_RMANAGE_ADDR, l, SS_LEN);
	raw_attr(m, IWPM_NLA_RMANAGE_MAPPED_LOC_ADDR, ml, SS_LEN);
	raw_attr_u16(m, IWPM_NLA_RMANAGE_MAPPING_ERR, 0);
	raw_end(m);
}

static void bad_truncated(struct raw *m)
{
	good_query(m, AF_INET6, 0);
	/* The message ends inside its last address attribute. */
	m->len -= 8 + 64;
	raw_end(m);
}

static void bad_extra_type(struct raw *m)
{
	raw_hdr(m, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 0);
	raw_attr_u16(m, IWPM_NLA_HELLO_ABI_VERSION, 4);
	raw_attr_u16(m, IWPM_NLA_HELLO_MAX + 3, 4);
	raw_end(m);
}

static void bad_attr_overrun(struct raw *m)
{
	u16 huge = 600;

	raw_hdr(m, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 0);
	raw_attr_u16(m, IWPM_NLA_HELLO_ABI_VERSION, 4);
	memcpy(m->b + 16, &huge, 2);	/* nla_len beyond the message */
	raw_end(m);
}

static void bad_short_hdr(struct raw *m)
{
	raw_hdr(m, T(RDMA_NL_IWPM_HELLO), NLM_F_REQUEST, 0);
	m->len = 8;
	raw_end(m);
}

static void bad_no_attrs(struct raw *m)
{
	raw_hdr(m, T(RDMA_NL_IWPM_REG_PID), NLM_F_REQUEST, 0);
	raw_end(m);
}

static void bad_good_but_op(struct raw *m)
{
	good_query(m, AF_INET, 0);
}

static const struct bad_case bad_cases[] = {
	{ "missing-attr", bad_missing_err, RDMA_NL_IWPM_QUERY_MAPPING },
	{ "short-addr", bad_short_addr, RDMA_NL_IWPM_ADD_MAPPING },
	{ "u16-of-4-bytes", bad_wide_u16, RDMA_NL_IWPM_HELLO },
	{ "unterminated-string", bad_unterminated, RDMA_NL_IWPM_MAPINFO },
	{ "af-unix", bad_family, RDMA_NL_IWPM_QUERY_MAPPING },
	{ "mixed-families", bad_mixed_family, RDMA_NL_IWPM_ADD_MAPPING },
	{ "truncated", bad_truncated, RDMA_NL_IWPM_QUERY_MAPPING },
	{ "unknown-attr-type", bad_extra_type, RDMA_NL_IWPM_HELLO },
	{ "attr-overrun", bad_attr_overrun, RDMA_NL_IWPM_HELLO },
	{ "short-header", bad_short_hdr, RDMA_NL_IWPM_HELLO },
	{ "no-attrs", bad_no_attrs, RDMA_NL_IWPM_REG_PID },
	{ "op-out-of-range", bad_good_but_op, RDMA_NL_IWPM_NUM_OPS },
	{ "op-remove-not-an-answer", bad_good_but_op,
	  RDMA_NL_IWPM_REMOVE_MAPPING },
};

static void bad_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_desc);

static void iwpm_dec_bad(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct iwpm_msg_resp m;
	struct raw *raw;

	raw = kunit_kzalloc(test, sizeof(*raw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, raw);
	c->make(raw);
	KUNIT_EXPECT_EQ(test, iwpm_msg_parse((void *)raw->b, c->op, &m),
			-EINVAL);
}

/* ---- remote info ---- */

static void set4(struct sockaddr_storage *ss, const u8 *ip, u16 port)
{
	kern_ss(ss, AF_INET, ip, port);
	memset(((struct sockaddr_in *)ss)->sin_zero, 0, 8);
}

static void iwpm_remote_info_once(struct kunit *test)
{
	struct sockaddr_storage ml, mr, r, got;

	set4(&ml, ip4_b, 41000);
	set4(&mr, ip4_a, 42000);
	set4(&r, ip4_a, 7301);
	KUNIT_EXPECT_FALSE(test, iwpm_remote_info_take(&ml, &mr, &got));
	iwpm_remote_info_add(&ml, &mr, &r);
	set4(&got, ip4_b, 1);
	/* Another listener port does not match. */
	set4(&ml, ip4_b, 41001);
	KUNIT_EXPECT_FALSE(test, iwpm_remote_info_take(&ml, &mr, &got));
	set4(&ml, ip4_b, 41000);
	KUNIT_ASSERT_TRUE(test, iwpm_remote_info_take(&ml, &mr, &got));
	KUNIT_EXPECT_TRUE(test, iwpm_addr_equal(&got, &r));
	/* Consumed. */
	KUNIT_EXPECT_FALSE(test, iwpm_remote_info_take(&ml, &mr, &got));
}

static void iwpm_remote_info_bounded(struct kunit *test)
{
	struct sockaddr_storage ml, mr, r, got;
	int i;

	set4(&ml, ip4_b, 50000);
	set4(&r, ip4_a, 7301);
	for (i = 0; i <= 1024; i++) {
		set4(&mr, ip4_a, 1000 + i);
		iwpm_remote_info_add(&ml, &mr, &r);
	}
	/* The oldest went to make room; the rest are there, once. */
	set4(&mr, ip4_a, 1000);
	KUNIT_EXPECT_FALSE(test, iwpm_remote_info_take(&ml, &mr, &got));
	for (i = 1; i <= 1024; i++) {
		set4(&mr, ip4_a, 1000 + i);
		KUNIT_EXPECT_TRUE(test, iwpm_remote_info_take(&ml, &mr, &got));
	}
}

/* ---- kernel-mode reservations ---- */

static int try_bind(const struct sockaddr_storage *ss)
{
	struct socket *sock;
	int err;

	err = sock_create_kern(&init_net, ss->ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (err)
		return err;
	err = kernel_bind(sock, (struct sockaddr *)ss,
			  ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						    : sizeof(struct sockaddr_in));
	sock_release(sock);
	return err;
}

static void iwpm_resv_holds(struct kunit *test)
{
	static const u8 lo[4] = { 127, 0, 0, 1 };
	struct sockaddr_storage req, bound, bound2, any;
	struct iwpm_resv *a, *b;
	u16 port;

	set4(&req, lo, 0);
	a = iwpm_resv_get(&init_net, &req, true, &bound);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	port = port_of(&bound);
	KUNIT_EXPECT_NE(test, port, 0);
	/* The host cannot take it, on the address or the wildcard. */
	KUNIT_EXPECT_EQ(test, try_bind(&bound), -EADDRINUSE);
	memset(&any, 0, sizeof(any));
	any.ss_family = AF_INET;
	((struct sockaddr_in *)&any)->sin_port = htons(port);
	KUNIT_EXPECT_EQ(test, try_bind(&any), -EADDRINUSE);

	/* The same address again shares the reservation. */
	b = iwpm_resv_get(&init_net, &bound, false, &bound2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_TRUE(test, iwpm_addr_equal(&bound, &bound2));
	iwpm_resv_put(b);
	KUNIT_EXPECT_EQ(test, try_bind(&bound), -EADDRINUSE);
	iwpm_resv_put(a);
	KUNIT_EXPECT_EQ(test, try_bind(&bound), 0);
}

static void iwpm_resv_conflicts(struct kunit *test)
{
	static const u8 lo[4] = { 127, 0, 0, 1 };
	static const u8 nowhere[4] = { 192, 0, 2, 77 };
	struct sockaddr_storage req, bound, bound2;
	struct iwpm_resv *a, *b;

	set4(&req, lo, 0);
	a = iwpm_resv_get(&init_net, &req, true, &bound);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	/* Its port, asked for on the wildcard: taken (a listener fails). */
	req = bound;
	((struct sockaddr_in *)&req)->sin_addr.s_addr = 0;
	b = iwpm_resv_get(&init_net, &req, false, &bound2);
	KUNIT_EXPECT_EQ(test, PTR_ERR(b), -EADDRINUSE);
	/* ... unless another port will do (an active id). */
	b = iwpm_resv_get(&init_net, &req, true, &bound2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_EXPECT_NE(test, port_of(&bound2), port_of(&bound));
	iwpm_resv_put(b);
	iwpm_resv_put(a);
	/* Not a local address. */
	set4(&req, nowhere, 7000);
	KUNIT_EXPECT_EQ(test, PTR_ERR(iwpm_resv_get(&init_net, &req, true,
						    &bound)), -EADDRNOTAVAIL);
	req.ss_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, PTR_ERR(iwpm_resv_get(&init_net, &req, true,
						    &bound)), -EAFNOSUPPORT);
}

/* ---- the per-id hooks, kernel mode ---- */

struct hook_ctx {
	struct ib_device dev;		/* unregistered: never seen by ib_core */
	struct iwcm_id_priv a, b;
	int old_mode;
};

static void hook_restore(void *arg)
{
	struct hook_ctx *h = arg;

	iwpm_unmap(&h->a);
	iwpm_unmap(&h->b);
	iwpm_test_set_mode(h->old_mode);
}

static struct hook_ctx *hook_setup(struct kunit *test, int mode)
{
	struct hook_ctx *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->a.id.device = &h->dev;
	h->b.id.device = &h->dev;
	h->old_mode = iwpm_test_set_mode(mode);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hook_restore, h),
			0);
	return h;
}

static void lo_ss(struct sockaddr_storage *ss, u16 port)
{
	static const u8 lo[4] = { 127, 0, 0, 1 };

	set4(ss, lo, port);
}

/* A free port on 127.0.0.1, found by the host. */
static u16 free_port(struct kunit *test)
{
	struct sockaddr_storage want, bound;
	struct iwpm_resv *r;

	lo_ss(&want, 0);
	r = iwpm_resv_get(&init_net, &want, true, &bound);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r));
	iwpm_resv_put(r);
	return port_of(&bound);
}

static void iwpm_hook_kernel_listen(struct kunit *test)
{
	struct hook_ctx *h = hook_setup(test, IWPM_MODE_KERNEL);
	u16 port = free_port(test);

	lo_ss(&h->a.id.local_addr, port);
	KUNIT_ASSERT_EQ(test, iwpm_map_listen(&h->a), 0);
	KUNIT_EXPECT_TRUE(test, h->a.id.mapped);
	KUNIT_EXPECT_NOT_NULL(test, h->a.pm);
	/* A listener keeps its own port, now a host port. */
	KUNIT_EXPECT_TRUE(test, iwpm_addr_equal(&h->a.id.m_local_addr,
						&h->a.id.local_addr));
	KUNIT_EXPECT_EQ(test, try_bind(&h->a.id.local_addr), -EADDRINUSE);
	/* A second listener on the address (another device) shares it. */
	lo_ss(&h->b.id.local_addr, port);
	KUNIT_ASSERT_EQ(test, iwpm_map_listen(&h->b), 0);
	iwpm_unmap(&h->a);
	KUNIT_EXPECT_NULL(test, h->a.pm);
	KUNIT_EXPECT_EQ(test, try_bind(&h->b.id.local_addr), -EADDRINUSE);
	iwpm_unmap(&h->b);
	iwpm_unmap(&h->b);	/* idempotent */
	KUNIT_EXPECT_EQ(test, try_bind(&h->b.id.local_addr), 0);
}

static void iwpm_hook_kernel_taken(struct kunit *test)
{
	struct hook_ctx *h = hook_setup(test, IWPM_MODE_KERNEL);
	struct sockaddr_storage held;
	struct socket *host;
	int len;

	/* A host socket holds a port on 127.0.0.1. */
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &host), 0);
	lo_ss(&held, 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(host, (struct sockaddr *)&held,
					  sizeof(struct sockaddr_in)), 0);
	len = kernel_getsockname(host, (struct sockaddr *)&held);
	KUNIT_ASSERT_GT(test, len, 0);
	/* A listener there fails; an active id gets another port. */
	h->a.id.local_addr = held;
	KUNIT_EXPECT_EQ(test, iwpm_map_listen(&h->a), -EADDRINUSE);
	KUNIT_EXPECT_FALSE(test, h->a.id.mapped);
	KUNIT_EXPECT_NULL(test, h->a.pm);
	h->b.id.local_addr = held;
	lo_ss(&h->b.id.remote_addr, 7300);
	KUNIT_EXPECT_EQ(test, iwpm_map_connect(&h->b), 0);
	KUNIT_EXPECT_TRUE(test, h->b.id.mapped);
	KUNIT_EXPECT_NE(test, port_of(&h->b.id.m_local_addr), port_of(&held));
	KUNIT_EXPECT_TRUE(test, iwpm_addr_equal(&h->b.id.m_remote_addr,
						&h->b.id.remote_addr));
	sock_release(host);
}

static void iwpm_hook_unmapped(struct kunit *test)
{
	static const u8 nowhere[4] = { 192, 0, 2, 77 };
	struct hook_ctx *h = hook_setup(test, IWPM_MODE_KERNEL);

	/* Not a local address: left unmapped, not an error. */
	set4(&h->a.id.local_addr, nowhere, 7000);
	KUNIT_EXPECT_EQ(test, iwpm_map_listen(&h->a), 0);
	KUNIT_EXPECT_FALSE(test, h->a.id.mapped);
	KUNIT_EXPECT_NULL(test, h->a.pm);
	KUNIT_EXPECT_TRUE(test, iwpm_addr_equal(&h->a.id.m_local_addr,
						&h->a.id.local_addr));
	/* IW_F_NO_PORT_MAP: never mapped, whatever the mode. */
	h->dev.iw_driver_flags = IW_F_NO_PORT_MAP;
	lo_ss(&h->b.id.local_addr, free_port(test));
	KUNIT_EXPECT_EQ(test, iwpm_map_listen(&h->b), 0);
	KUNIT_EXPECT_FALSE(test, h->b.id.mapped);
	KUNIT_EXPECT_EQ(test, try_bind(&h->b.id.local_addr), 0);
	/* Mode off: the same. */
	h->dev.iw_driver_flags = 0;
	iwpm_test_set_mode(IWPM_MODE_OFF);
	KUNIT_EXPECT_EQ(test, iwpm_map_listen(&h->b), 0);
	KUNIT_EXPECT_FALSE(test, h->b.id.mapped);
	KUNIT_EXPECT_EQ(test, try_bind(&h->b.id.local_addr), 0);
}

static struct kunit_case iwpm_cases[] = {
	KUNIT_CASE_PARAM(iwpm_enc_add_query_remove, enc_gen_params),
	KUNIT_CASE_PARAM(iwpm_enc_mapinfo, enc_gen_params),
	KUNIT_CASE(iwpm_enc_reg_hello_num),
	KUNIT_CASE_PARAM(iwpm_dec_good, enc_gen_params),
	KUNIT_CASE_PARAM(iwpm_dec_bad, bad_gen_params),
	KUNIT_CASE(iwpm_remote_info_once),
	KUNIT_CASE(iwpm_remote_info_bounded),
	KUNIT_CASE(iwpm_resv_holds),
	KUNIT_CASE(iwpm_resv_conflicts),
	KUNIT_CASE(iwpm_hook_kernel_listen),
	KUNIT_CASE(iwpm_hook_kernel_taken),
	KUNIT_CASE(iwpm_hook_unmapped),
	{}
};

static struct kunit_suite iwpm_suite = {
	.name = "iw_pm",
	.test_cases = iwpm_cases,
};

kunit_test_suite(iwpm_suite);

MODULE_DESCRIPTION("KUnit tests for the iWARP port mapper of openrdma-cm iw_cm");
MODULE_LICENSE("GPL");
