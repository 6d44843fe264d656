// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for openrdma-cm ib_cm.ko: the wire format of every CM MAD
 * (built and parsed back, field by field; byte positions of key fields),
 * the parser's refusal of malformed and truncated MADs, the receive path
 * fed bad input (dropped and counted, no crash), service id matching,
 * listeners shared by ib_cm_insert_listen() on a device of the test's own,
 * the reject reason strings and the timeouts derived from IBA times; the
 * per-port message counters of sysfs (sent, retried, received, duplicates).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>

#include "ib_cm/cm_priv.h"
#include "mock_rnic_ops.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* ---- wire format: build, parse back, compare ---- */

static void fill_pd(u8 *pd, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		pd[i] = seed + i * 7;
}

static void fill_path(struct cm_path_info *p, u8 seed)
{
	p->local_lid = cpu_to_be16(0x1200 + seed);
	p->remote_lid = cpu_to_be16(0x3400 + seed);
	memset(p->local_gid.raw, 0xa0 + seed, 16);
	memset(p->remote_gid.raw, 0xb0 + seed, 16);
	p->flow_label = 0xabcde;		/* 20 bits */
	p->packet_rate = 0x2a;			/* 6 bits */
	p->traffic_class = 0x5c;
	p->hop_limit = 0x40 + seed;
	p->sl = 0xb;				/* 4 bits */
	p->subnet_local = 1;
	p->local_ack_timeout = 0x13;		/* 5 bits */
}

static void case_req(struct cm_msg *m)
{
	struct cm_req_info *r = &m->req;

	m->attr_id = CM_REQ_ATTR_ID;
	m->attr_mod = cpu_to_be32(0x11223344);	/* ECE attr_mod */
	r->local_comm_id = cpu_to_be32(0xdeadbeef);
	r->vendor_id = 0x123456;
	r->service_id = cpu_to_be64(0x0000000001060abcULL);
	r->local_ca_guid = cpu_to_be64(0x0002c90300a1b2c3ULL);
	r->local_qkey = 0x80010000;
	r->local_qpn = 0xabcdef;
	r->responder_resources = 0x10;
	r->local_eecn = 0x654321;
	r->initiator_depth = 0x08;
	r->remote_eecn = 0x111111;
	r->remote_cm_response_timeout = 20;
	r->transport_type = CM_TRANSPORT_UC;
	r->flow_control = 1;
	r->starting_psn = 0x7fedcb;
	r->local_cm_response_timeout = 19;
	r->retry_count = 7;
	r->pkey = 0xffff;
	r->path_mtu = IB_MTU_4096;
	r->rdc_exists = 1;
	r->rnr_retry_count = 6;
	r->max_cm_retries = 15;
	r->srq = 1;
	r->ext_transport_type = 0;
	fill_path(&r->primary, 1);
	fill_path(&r->alternate, 2);
	fill_pd(r->private_data, sizeof(r->private_data), 3);
}

static void case_req_xrc(struct cm_msg *m)
{
	case_req(m);
	m->req.transport_type = CM_TRANSPORT_EXT;
	m->req.ext_transport_type = CM_EXT_TRANSPORT_XRC;
	m->req.path_mtu = IB_MTU_256;
	m->req.srq = 0;
}

static void case_mra(struct cm_msg *m)
{
	m->attr_id = CM_MRA_ATTR_ID;
	m->mra.local_comm_id = cpu_to_be32(0x01020304);
	m->mra.remote_comm_id = cpu_to_be32(0x05060708);
	m->mra.msg_mraed = CM_MSG_REP;
	m->mra.service_timeout = 0x18;
	fill_pd(m->mra.private_data, sizeof(m->mra.private_data), 9);
}

static void case_rej(struct cm_msg *m)
{
	m->attr_id = CM_REJ_ATTR_ID;
	m->rej.local_comm_id = cpu_to_be32(0x0a0b0c0d);
	m->rej.remote_comm_id = cpu_to_be32(0x0e0f1011);
	m->rej.msg_rejected = CM_MSG_REQ;
	m->rej.ari_length = IB_CM_REJ_ARI_LENGTH;
	m->rej.reason = IB_CM_REJ_CONSUMER_DEFINED;
	fill_pd(m->rej.ari, sizeof(m->rej.ari), 4);
	fill_pd(m->rej.private_data, sizeof(m->rej.private_data), 5);
}

static void case_rep(struct cm_msg *m)
{
	struct cm_rep_info *r = &m->rep;

	m->attr_id = CM_REP_ATTR_ID;
	m->attr_mod = cpu_to_be32(0x55667788);
	r->local_comm_id = cpu_to_be32(0x1);
	r->remote_comm_id = cpu_to_be32(0xffffffff);
	r->local_qkey = 0x12345678;
	r->local_qpn = 0x00fffe;
	r->local_eecn = 0x123456;
	r->starting_psn = 0xfedcba;
	r->vendor_id = 0xa1b2c3;
	r->responder_resources = 0x80;
	r->initiator_depth = 0x7f;
	r->target_ack_delay = 0x1f;
	r->failover_accepted = 2;
	r->flow_control = 1;
	r->rnr_retry_count = 7;
	r->srq = 1;
	r->local_ca_guid = cpu_to_be64(0x1122334455667788ULL);
	fill_pd(r->private_data, sizeof(r->private_data), 6);
}

static void case_disc(struct cm_msg *m, __be16 attr, size_t pd_len)
{
	m->attr_id = attr;
	m->disc.local_comm_id = cpu_to_be32(0x31323334);
	m->disc.remote_comm_id = cpu_to_be32(0x41424344);
	if (attr == CM_DREQ_ATTR_ID)
		m->disc.remote_qpn = 0x00c0de;
	fill_pd(m->disc.private_data, pd_len, 7);
}

static void case_rtu(struct cm_msg *m)
{
	case_disc(m, CM_RTU_ATTR_ID, IB_CM_RTU_PRIVATE_DATA_SIZE);
}

static void case_dreq(struct cm_msg *m)
{
	case_disc(m, CM_DREQ_ATTR_ID, IB_CM_DREQ_PRIVATE_DATA_SIZE);
}

static void case_drep(struct cm_msg *m)
{
	case_disc(m, CM_DREP_ATTR_ID, IB_CM_DREP_PRIVATE_DATA_SIZE);
}

static void case_sidr_req(struct cm_msg *m)
{
	m->attr_id = CM_SIDR_REQ_ATTR_ID;
	m->sidr_req.request_id = cpu_to_be32(0x99887766);
	m->sidr_req.pkey = 0x8001;
	m->sidr_req.service_id = cpu_to_be64(0x0000000001111234ULL);
	fill_pd(m->sidr_req.private_data, sizeof(m->sidr_req.private_data), 8);
}

static void case_sidr_rep(struct cm_msg *m)
{
	struct cm_sidr_rep_info *r = &m->sidr_rep;

	m->attr_id = CM_SIDR_REP_ATTR_ID;
	r->request_id = cpu_to_be32(0x99887766);
	r->status = IB_SIDR_REJECT;
	r->info_length = IB_CM_SIDR_REP_INFO_LENGTH;
	r->vendor_id = 0xcafe42;
	r->qpn = 0x000123;
	r->service_id = cpu_to_be64(0x0000000001111234ULL);
	r->qkey = 0x01234567;
	fill_pd(r->info, sizeof(r->info), 10);
	fill_pd(r->private_data, sizeof(r->private_data), 11);
}

static void case_lap(struct cm_msg *m)
{
	m->attr_id = CM_LAP_ATTR_ID;
	m->lap.local_comm_id = cpu_to_be32(0x10203040);
	m->lap.remote_comm_id = cpu_to_be32(0x50607080);
	m->lap.remote_qpn = 0x00abcd;
	m->lap.remote_cm_response_timeout = 0x15;	/* 5 bits */
	fill_path(&m->lap.alternate, 5);
	fill_pd(m->lap.private_data, sizeof(m->lap.private_data), 14);
}

static void case_apr(struct cm_msg *m)
{
	m->attr_id = CM_APR_ATTR_ID;
	m->apr.local_comm_id = cpu_to_be32(0x10203040);
	m->apr.remote_comm_id = cpu_to_be32(0x50607080);
	m->apr.info_length = 5;
	m->apr.status = IB_CM_APR_UNSUPPORTED;
	fill_pd(m->apr.info, sizeof(m->apr.info), 12);
	fill_pd(m->apr.private_data, sizeof(m->apr.private_data), 13);
}

struct rt_case {
	const char *name;
	void (*fill)(struct cm_msg *m);
};

static const struct rt_case rt_cases[] = {
	{ "REQ", case_req }, { "REQ-XRC", case_req_xrc }, { "MRA", case_mra },
	{ "REJ", case_rej }, { "REP", case_rep }, { "RTU", case_rtu },
	{ "DREQ", case_dreq }, { "DREP", case_drep },
	{ "SIDR_REQ", case_sidr_req }, { "SIDR_REP", case_sidr_rep },
	{ "LAP", case_lap }, { "APR", case_apr },
};

static void rt_desc(const struct rt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt, rt_cases, rt_desc);

static struct cm_msg *new_msg(struct kunit *test)
{
	struct cm_msg *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	return m;
}

static void *new_mad(struct kunit *test)
{
	void *mad = kunit_kzalloc(test, CM_MAD_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mad);
	return mad;
}

/* Every type: build, parse back, the same message; the MAD header right. */
static void ibcm_msg_round_trip(struct kunit *test)
{
	const struct rt_case *c = test->param_value;
	struct cm_msg *in = new_msg(test), *out = new_msg(test);
	struct ib_mad_hdr *hdr = new_mad(test);

	c->fill(in);
	in->tid = cpu_to_be64(0x0123456789abcdefULL);
	cm_msg_build(hdr, in);
	KUNIT_EXPECT_EQ(test, hdr->base_version, IB_MGMT_BASE_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->mgmt_class, IB_MGMT_CLASS_CM);
	KUNIT_EXPECT_EQ(test, hdr->class_version, CM_CLASS_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->method, IB_MGMT_METHOD_SEND);
	KUNIT_EXPECT_EQ(test, hdr->attr_id, in->attr_id);
	KUNIT_EXPECT_EQ(test, hdr->tid, in->tid);
	KUNIT_ASSERT_EQ(test, cm_msg_parse(hdr, CM_MAD_SIZE, out), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, sizeof(*in));
}

/* REQ field by field, and the byte positions IBTA gives some of them. */
static void ibcm_msg_req_fields(struct kunit *test)
{
	struct cm_msg *in = new_msg(test), *out = new_msg(test);
	const struct cm_req_info *a = &in->req, *b = &out->req;
	u8 *mad = new_mad(test);

	case_req(in);
	cm_msg_build(mad, in);
	KUNIT_ASSERT_EQ(test, cm_msg_parse(mad, CM_MAD_SIZE, out), 0);
	KUNIT_EXPECT_EQ(test, b->local_comm_id, a->local_comm_id);
	KUNIT_EXPECT_EQ(test, b->vendor_id, a->vendor_id);
	KUNIT_EXPECT_EQ(test, b->service_id, a->service_id);
	KUNIT_EXPECT_EQ(test, b->local_ca_guid, a->local_ca_guid);
	KUNIT_EXPECT_EQ(test, b->local_qkey, a->local_qkey);
	KUNIT_EXPECT_EQ(test, b->local_qpn, a->local_qpn);
	KUNIT_EXPECT_EQ(test, b->responder_resources, a->responder_resources);
	KUNIT_EXPECT_EQ(test, b->initiator_depth, a->initiator_depth);
	KUNIT_EXPECT_EQ(test, b->remote_cm_response_timeout,
			a->remote_cm_response_timeout);
	KUNIT_EXPECT_EQ(test, b->transport_type, a->transport_type);
	KUNIT_EXPECT_EQ(test, b->flow_control, a->flow_control);
	KUNIT_EXPECT_EQ(test, b->starting_psn, a->starting_psn);
	KUNIT_EXPECT_EQ(test, b->local_cm_response_timeout,
			a->local_cm_response_timeout);
	KUNIT_EXPECT_EQ(test, b->retry_count, a->retry_count);
	KUNIT_EXPECT_EQ(test, b->pkey, a->pkey);
	KUNIT_EXPECT_EQ(test, b->path_mtu, a->path_mtu);
	KUNIT_EXPECT_EQ(test, b->rnr_retry_count, a->rnr_retry_count);
	KUNIT_EXPECT_EQ(test, b->max_cm_retries, a->max_cm_retries);
	KUNIT_EXPECT_EQ(test, b->srq, a->srq);
	KUNIT_EXPECT_EQ(test, b->primary.local_lid, a->primary.local_lid);
	KUNIT_EXPECT_EQ(test, b->primary.remote_lid, a->primary.remote_lid);
	KUNIT_EXPECT_MEMEQ(test, &b->primary.local_gid, &a->primary.local_gid,
			   16);
	KUNIT_EXPECT_MEMEQ(test, &b->primary.remote_gid,
			   &a->primary.remote_gid, 16);
	KUNIT_EXPECT_EQ(test, b->primary.flow_label, a->primary.flow_label);
	KUNIT_EXPECT_EQ(test, b->primary.packet_rate, a->primary.packet_rate);
	KUNIT_EXPECT_EQ(test, b->primary.traffic_class,
			a->primary.traffic_class);
	KUNIT_EXPECT_EQ(test, b->primary.hop_limit, a->primary.hop_limit);
	KUNIT_EXPECT_EQ(test, b->primary.sl, a->primary.sl);
	KUNIT_EXPECT_EQ(test, b->primary.local_ack_timeout,
			a->primary.local_ack_timeout);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out->attr_mod), 0x11223344U);
	KUNIT_EXPECT_MEMEQ(test, b->private_data, a->private_data,
			   IB_CM_REQ_PRIVATE_DATA_SIZE);

	/* IBTA table 106 (offsets after the 24-byte MAD header). */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(mad + 24), 0xdeadbeefU);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(mad + 24 + 8),
			0x0000000001060abcULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(mad + 24 + 32) >> 8,
			0xabcdefU);
	KUNIT_EXPECT_EQ(test, mad[24 + 35], 0x10);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(mad + 24 + 48), 0xffff);
	KUNIT_EXPECT_EQ(test, mad[24 + 50] >> 4, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, mad[24 + 56], 0xa1);	/* primary local GID */
	KUNIT_EXPECT_EQ(test, mad[24 + 140], 3);	/* private data */
}

/* REP: the ECE vendor id split in three bytes, the comm ids, PSN. */
static void ibcm_msg_rep_fields(struct kunit *test)
{
	struct cm_msg *in = new_msg(test), *out = new_msg(test);
	u8 *mad = new_mad(test);

	case_rep(in);
	cm_msg_build(mad, in);
	KUNIT_ASSERT_EQ(test, cm_msg_parse(mad, CM_MAD_SIZE, out), 0);
	KUNIT_EXPECT_EQ(test, out->rep.vendor_id, 0xa1b2c3U);
	KUNIT_EXPECT_EQ(test, mad[24 + 15], 0xa1);
	KUNIT_EXPECT_EQ(test, mad[24 + 19], 0xb2);
	KUNIT_EXPECT_EQ(test, mad[24 + 23], 0xc3);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(mad + 24 + 20) >> 8,
			0xfedcbaU);
	KUNIT_EXPECT_EQ(test, out->rep.local_comm_id, in->rep.local_comm_id);
	KUNIT_EXPECT_EQ(test, out->rep.remote_comm_id, in->rep.remote_comm_id);
	KUNIT_EXPECT_EQ(test, out->rep.failover_accepted, 2);
	KUNIT_EXPECT_EQ(test, out->rep.target_ack_delay, 0x1f);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out->attr_mod), 0x55667788U);
}

/* ---- malformed MADs: refused, with the reason ---- */

struct bad_case {
	const char *name;
	void (*fill)(struct cm_msg *m);
	void (*spoil)(u8 *mad);
	size_t len;
	int want;
};

static void spoil_none(u8 *mad) { }
static void spoil_base(u8 *mad) { mad[0] = 2; }
static void spoil_class(u8 *mad) { mad[1] = IB_MGMT_CLASS_SUBN_ADM; }
static void spoil_version(u8 *mad) { mad[2] = 1; }
static void spoil_method(u8 *mad) { mad[3] = IB_MGMT_METHOD_GET; }
static void spoil_attr(u8 *mad) { put_unaligned_be16(0x0030, mad + 16); }
static void spoil_req_rd(u8 *mad) { mad[24 + 43] = (mad[24 + 43] & ~0x06) | 0x04; }
static void spoil_req_mtu0(u8 *mad) { mad[24 + 50] &= 0x0f; }
static void spoil_req_mtu7(u8 *mad) { mad[24 + 50] = (mad[24 + 50] & 0x0f) | 0x70; }
static void spoil_req_ext(u8 *mad) { mad[24 + 43] |= 0x06; mad[24 + 51] &= ~0x07; }
static void spoil_req_comm0(u8 *mad) { memset(mad + 24, 0, 4); }
static void spoil_rej_ari(u8 *mad) { mad[24 + 9] = 73 << 1; }
static void spoil_rej_msg(u8 *mad) { mad[24 + 8] |= 0xc0; }
static void spoil_rej_reason0(u8 *mad) { memset(mad + 24 + 10, 0, 2); }
static void spoil_mra_msg(u8 *mad) { mad[24 + 8] |= 0xc0; }
static void spoil_sidr_info(u8 *mad) { mad[24 + 5] = 73; }
static void spoil_sidr_status(u8 *mad) { mad[24 + 4] = 6; }
static void spoil_apr_info(u8 *mad) { mad[24 + 8] = 73; }
static void spoil_rep_comm0(u8 *mad) { memset(mad + 24 + 4, 0, 4); }
static void spoil_dreq_comm0(u8 *mad) { memset(mad + 24, 0, 4); }

static const struct bad_case bad_cases[] = {
	{ "truncated-255", case_req, spoil_none, 255, -EMSGSIZE },
	{ "truncated-24", case_rep, spoil_none, 24, -EMSGSIZE },
	{ "empty", case_rtu, spoil_none, 0, -EMSGSIZE },
	{ "base-version", case_req, spoil_base, 256, -EPROTONOSUPPORT },
	{ "class", case_req, spoil_class, 256, -EPROTONOSUPPORT },
	{ "class-version", case_rep, spoil_version, 256, -EPROTONOSUPPORT },
	{ "method", case_dreq, spoil_method, 256, -EPROTONOSUPPORT },
	{ "unknown-attr", case_rtu, spoil_attr, 256, -ENOMSG },
	{ "req-rd-transport", case_req, spoil_req_rd, 256, -EPROTONOSUPPORT },
	{ "req-ext-not-xrc", case_req, spoil_req_ext, 256, -EPROTONOSUPPORT },
	/* In-tree takes these: tests/parity/deviations, kunit:ib_cm_kunit:req-mtu. */
	{ "req-mtu-0", case_req, spoil_req_mtu0, 256, -EINVAL },
	{ "req-mtu-7", case_req, spoil_req_mtu7, 256, -EINVAL },
	{ "req-comm-id-0", case_req, spoil_req_comm0, 256, 0 },	/* taken, as in-tree */
	{ "rej-ari-73", case_rej, spoil_rej_ari, 256, -EINVAL },
	{ "rej-msg-3", case_rej, spoil_rej_msg, 256, -EINVAL },
	{ "rej-reason-0", case_rej, spoil_rej_reason0, 256, 0 },	/* taken */
	{ "mra-msg-3", case_mra, spoil_mra_msg, 256, -EINVAL },
	{ "sidr-rep-info-73", case_sidr_rep, spoil_sidr_info, 256, -EINVAL },
	{ "sidr-rep-status-6", case_sidr_rep, spoil_sidr_status, 256, -EINVAL },
	{ "apr-info-73", case_apr, spoil_apr_info, 256, -EINVAL },
	{ "rep-comm-id-0", case_rep, spoil_rep_comm0, 256, 0 },	/* taken, as in-tree */
	{ "dreq-comm-id-0", case_dreq, spoil_dreq_comm0, 256, 0 },	/* taken, as in-tree */
};

static void bad_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_desc);

static void ibcm_msg_malformed(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct cm_msg *in = new_msg(test), *out = new_msg(test);
	u8 *mad = new_mad(test);

	c->fill(in);
	cm_msg_build(mad, in);
	KUNIT_ASSERT_EQ(test, cm_msg_parse(mad, CM_MAD_SIZE, out), 0);
	c->spoil(mad);
	KUNIT_EXPECT_EQ(test, cm_msg_parse(mad, c->len, out), c->want);
}

static void ibcm_msg_null(struct kunit *test)
{
	struct cm_msg *out = new_msg(test);

	KUNIT_EXPECT_EQ(test, cm_msg_parse(NULL, CM_MAD_SIZE, out), -EMSGSIZE);
}

/* ---- a device of the test's own, without MAD agents ---- */

struct fake_dev {
	struct ib_device ib;
	struct cm_device *cm;
	struct cm_port port;
};

static void fake_dev_release(void *data)
{
	struct fake_dev *fd = data;

	cm_test_del_device(fd->cm);
}

static struct fake_dev *fake_dev_add(struct kunit *test)
{
	struct fake_dev *fd = kunit_kzalloc(test, sizeof(*fd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fd);
	fd->cm = kunit_kzalloc(test, struct_size(fd->cm, port, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fd->cm);
	fd->cm->ib_dev = &fd->ib;
	fd->cm->num_ports = 1;
	fd->cm->port[0] = &fd->port;
	fd->port.cm_dev = fd->cm;
	fd->port.port_num = 1;
	spin_lock_init(&fd->port.agent_lock);	/* agent NULL: nothing sent */
	cm_pace_port_init(&fd->port);
	cm_test_add_device(fd->cm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_dev_release,
							fd), 0);
	return fd;
}

static int nop_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	return 0;
}

static int other_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	return 0;
}

static void destroy_id_action(void *id)
{
	ib_destroy_cm_id(id);
}

static struct ib_cm_id *test_create_id(struct kunit *test,
				       struct fake_dev *fd)
{
	struct ib_cm_id *id = ib_create_cm_id(&fd->ib, nop_handler, test);

	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							destroy_id_action, id),
			0);
	return id;
}

/* ---- the receive path fed bad input: dropped and counted ---- */

struct inject_case {
	const char *name;
	void (*fill)(struct cm_msg *m);
	void (*spoil)(u8 *mad);
	size_t len;
	enum cm_counter counter;
};

static const struct inject_case inject_cases[] = {
	{ "truncated", case_rep, spoil_none, 200, CM_CNT_RX_MALFORMED },
	{ "bad-class-version", case_req, spoil_version, 256,
	  CM_CNT_RX_MALFORMED },
	{ "rej-bad-ari", case_rej, spoil_rej_ari, 256, CM_CNT_RX_MALFORMED },
	{ "unknown-attr", case_drep, spoil_attr, 256, CM_CNT_RX_UNKNOWN_ATTR },
	{ "rep-unknown-comm-id", case_rep, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "rtu-unknown-comm-id", case_rtu, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "dreq-unknown-comm-id", case_dreq, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "drep-unknown-comm-id", case_drep, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "mra-unknown-comm-id", case_mra, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "rej-unknown-comm-id", case_rej, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "sidr-rep-unknown-id", case_sidr_rep, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "lap-unknown-comm-id", case_lap, spoil_none, 256,
	  CM_CNT_RX_UNKNOWN_ID },
	{ "apr-dropped", case_apr, spoil_none, 256, CM_CNT_RX_LAP_APR },
	{ "req-no-listener", case_req, spoil_none, 256,
	  CM_CNT_RX_NO_LISTENER },
	{ "sidr-req-no-listener", case_sidr_req, spoil_none, 256,
	  CM_CNT_RX_NO_LISTENER },
};

static void inject_desc(const struct inject_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(inject, inject_cases, inject_desc);

static void ibcm_recv_bad_input(struct kunit *test)
{
	const struct inject_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_msg *in = new_msg(test);
	long before, rx, ids;
	u8 *mad = new_mad(test);

	c->fill(in);
	cm_msg_build(mad, in);
	c->spoil(mad);
	before = cm_counter_read(c->counter);
	rx = cm_counter_read(CM_CNT_RX);
	ids = cm_ids_live();
	cm_recv_buf(&fd->port, NULL, mad, c->len);
	KUNIT_EXPECT_EQ(test, cm_counter_read(c->counter), before + 1);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX), rx + 1);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids);	/* no id made or lost */
}

/* A REP naming a live id but in the wrong state: dropped, counted. */
static void ibcm_recv_rep_wrong_state(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct ib_cm_id *id = test_create_id(test, fd);
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);
	long before = cm_counter_read(CM_CNT_RX_BAD_STATE);

	case_rep(in);
	in->rep.remote_comm_id = id->local_id;	/* an idle id */
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_BAD_STATE), before + 1);
	KUNIT_EXPECT_EQ(test, id->state, IB_CM_IDLE);
}

/* ---- ids and listeners on the test's device ---- */

static void ibcm_create_no_cm_device(struct kunit *test)
{
	struct ib_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_cm_id(dev, nop_handler, NULL)),
			-ENODEV);
}

static void ibcm_listen(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct ib_cm_id *a = test_create_id(test, fd);
	struct ib_cm_id *b = test_create_id(test, fd);
	struct ib_cm_id *c = test_create_id(test, fd);
	__be64 sid = cpu_to_be64(0x0000000001060000ULL | 4791);
	__be64 sid2 = cpu_to_be64(0x0000000001060000ULL | 4792);

	KUNIT_EXPECT_EQ(test, ib_cm_listen(a, sid), 0);
	KUNIT_EXPECT_EQ(test, a->state, IB_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, a->service_id, sid);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(b, sid), -EBUSY);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(a, sid2), -EINVAL);
	/* The assigned range is the CM's own to give out. */
	KUNIT_EXPECT_EQ(test, ib_cm_listen(b, IB_CM_ASSIGN_SERVICE_ID |
					   cpu_to_be64(5)), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(b, IB_CM_ASSIGN_SERVICE_ID), 0);
	KUNIT_EXPECT_EQ(test, b->service_id & IB_SERVICE_ID_AGN_MASK,
			IB_CM_ASSIGN_SERVICE_ID);
	KUNIT_EXPECT_EQ(test, ib_cm_listen(c, IB_CM_ASSIGN_SERVICE_ID), 0);
	KUNIT_EXPECT_NE(test, b->service_id, c->service_id);
}

static void ibcm_insert_listen_shared(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	__be64 sid = cpu_to_be64(0x0000000001060000ULL | 18515);
	struct ib_cm_id *l1, *l2, *l3;
	long ids = cm_ids_live();

	l1 = ib_cm_insert_listen(&fd->ib, nop_handler, sid);
	KUNIT_ASSERT_FALSE(test, IS_ERR(l1));
	l2 = ib_cm_insert_listen(&fd->ib, nop_handler, sid);
	KUNIT_EXPECT_PTR_EQ(test, l1, l2);	/* one listener, shared */
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids + 1);
	l3 = ib_cm_insert_listen(&fd->ib, other_handler, sid);
	KUNIT_EXPECT_EQ(test, PTR_ERR(l3), -EINVAL);
	ib_destroy_cm_id(l1);			/* one user left */
	KUNIT_EXPECT_EQ(test, l2->state, IB_CM_LISTEN);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids + 1);
	ib_destroy_cm_id(l2);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids);
	/* Gone: the service id is free again. */
	l1 = ib_cm_insert_listen(&fd->ib, other_handler, sid);
	KUNIT_ASSERT_FALSE(test, IS_ERR(l1));
	ib_destroy_cm_id(l1);
}

/* Calls that need a connection fail cleanly on an idle id. */
static void ibcm_idle_id_calls(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct ib_cm_id *id = test_create_id(test, fd);
	struct ib_cm_rep_param rep = {};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int mask;

	KUNIT_EXPECT_EQ(test, ib_send_cm_rep(id, &rep), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rtu(id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_dreq(id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_drep(id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED,
					     NULL, 0, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(id, 20, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_init_qp_attr(id, &attr, &mask), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(id, IB_EVENT_COMM_EST), -EINVAL);
	/* Oversized private data is refused before any state is looked at. */
	KUNIT_EXPECT_EQ(test, ib_send_cm_rtu(id, &rep, 225), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED,
					     &rep, 73, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, id->state, IB_CM_IDLE);
}

/* ---- QP attributes, timeouts, MRA, notify: ids put in a state by hand ---- */

#define REC_MAX 8

struct rec_ctx {
	spinlock_t lock;		/* the fields below */
	int n;
	enum ib_cm_event_type type[REC_MAX];
	enum ib_wc_status status[REC_MAX];
	int ret;			/* what the handler returns */
	struct completion got;
};

static int rec_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct rec_ctx *ctx = id->context;

	spin_lock(&ctx->lock);
	if (ctx->n < REC_MAX) {
		ctx->type[ctx->n] = ev->event;
		ctx->status[ctx->n] = ev->param.send_status;
		ctx->n++;
	}
	spin_unlock(&ctx->lock);
	complete(&ctx->got);
	return ctx->ret;
}

static struct rec_ctx *rec_new(struct kunit *test)
{
	struct rec_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	spin_lock_init(&ctx->lock);
	init_completion(&ctx->got);
	return ctx;
}

/* An id on the test's device, as if a connection had been set up. */
static struct cm_id_priv *conn_id(struct kunit *test, struct fake_dev *fd,
				  struct rec_ctx *ctx, bool cleanup)
{
	struct ib_cm_id *id = ib_create_cm_id(&fd->ib, rec_handler, ctx);
	struct cm_id_priv *priv;

	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	if (cleanup)
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test,
							  destroy_id_action,
							  id), 0);
	priv = to_priv(id);
	priv->port = &fd->port;
	priv->has_av = true;		/* a zeroed address vector */
	priv->pkey_index = 3;
	priv->qp_type = IB_QPT_RC;
	priv->responder_resources = 4;
	priv->initiator_depth = 2;
	priv->path_mtu = IB_MTU_1024;
	priv->remote_qpn = 0x123;
	priv->rq_psn = 0x111;
	priv->sq_psn = 0x222;
	priv->local_ack_timeout = 17;
	priv->retry_count = 7;
	priv->rnr_retry_count = 6;
	return priv;
}

static void set_state(struct cm_id_priv *priv, enum ib_cm_state state)
{
	spin_lock(&priv->lock);
	priv->id.state = state;
	spin_unlock(&priv->lock);
}

static void ibcm_qp_attr_rc(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);
	struct ib_qp_attr attr = {};
	int mask = 0;

	set_state(priv, IB_CM_ESTABLISHED);
	attr.qp_state = IB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			IB_QP_PKEY_INDEX | IB_QP_PORT);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags, IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC);
	KUNIT_EXPECT_EQ(test, attr.pkey_index, 3);
	KUNIT_EXPECT_EQ(test, attr.port_num, 1);

	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x123);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0x111);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 4);

	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x222);
	KUNIT_EXPECT_EQ(test, attr.timeout, 17);
	KUNIT_EXPECT_EQ(test, attr.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 2);

	attr.qp_state = IB_QPS_SQD;
	KUNIT_EXPECT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask),
			-EINVAL);
	/* Before the REP there is no remote QP to point at. */
	set_state(priv, IB_CM_REQ_SENT);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask),
			-EINVAL);
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	set_state(priv, IB_CM_IDLE);
}

/* ---- alternate paths (lap.c) ---- */

/* The LAP's alternate path where IBTA puts it (after the 24-byte header). */
static void ibcm_msg_lap_fields(struct kunit *test)
{
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test), *a = mad + 24;

	case_lap(in);
	cm_msg_build(mad, in);
	KUNIT_EXPECT_EQ(test, a[15] >> 3, 0x15);	/* response timeout */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 20), 0x1205);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 22), 0x3405);
	KUNIT_EXPECT_EQ(test, a[24], 0xa5);		/* local port GID */
	KUNIT_EXPECT_EQ(test, a[40], 0xb5);		/* remote port GID */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 56) >> 12, 0xabcde);
	KUNIT_EXPECT_EQ(test, a[59], 0x5c);		/* traffic class */
	KUNIT_EXPECT_EQ(test, a[60], 0x45);		/* hop limit */
	KUNIT_EXPECT_EQ(test, a[61] & 0x3f, 0x2a);	/* packet rate */
	KUNIT_EXPECT_EQ(test, a[62] >> 4, 0xb);	/* SL */
	KUNIT_EXPECT_EQ(test, (a[62] >> 3) & 1, 1);	/* subnet local */
	KUNIT_EXPECT_EQ(test, a[63] >> 3, 0x13);	/* local ACK timeout */
	KUNIT_EXPECT_MEMEQ(test, a + 64, in->lap.private_data,
			   IB_CM_LAP_PRIVATE_DATA_SIZE);
}

/* cm_ack_timeout(): 2^(plt+1) + 2^ack_delay as a power of two, rounded up. */
static const struct ack_case {
	u8 delay, plt, want;
} ack_cases[] = {
	{ 0, 0, 2 }, { 15, 0, 15 }, { 15, 13, 16 }, { 15, 14, 16 },
	{ 10, 4, 10 }, { 10, 8, 11 }, { 3, 10, 11 }, { 3, 1, 4 },
	{ 0, 30, 31 }, { 20, 31, 31 }, { 31, 0, 31 },
};

static void ack_desc(const struct ack_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "delay-%u-plt-%u", c->delay,
		 c->plt);
}

KUNIT_ARRAY_PARAM(ack, ack_cases, ack_desc);

static void ibcm_ack_timeout(struct kunit *test)
{
	const struct ack_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cm_ack_timeout(c->delay, c->plt), c->want);
}

/* A REQ's (or LAP's) alternate path as its receiver makes a record of it. */
static void ibcm_path_from_alt(struct kunit *test)
{
	struct cm_path_info pi = {};
	struct sa_path_rec p;

	fill_path(&pi, 2);
	cm_path_from_alt_info(&p, &pi, 0x8001, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, p.rec_type, SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(sa_path_get_slid(&p)), 0x3402);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(sa_path_get_dlid(&p)), 0x1202);
	KUNIT_EXPECT_MEMEQ(test, p.sgid.raw, pi.remote_gid.raw, 16);
	KUNIT_EXPECT_MEMEQ(test, p.dgid.raw, pi.local_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p.flow_label), 0xabcde);
	KUNIT_EXPECT_EQ(test, p.hop_limit, 0x42);
	KUNIT_EXPECT_EQ(test, p.traffic_class, 0x5c);
	KUNIT_EXPECT_EQ(test, p.sl, 0xb);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p.pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, p.mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, p.rate, 0x2a);
	KUNIT_EXPECT_EQ(test, p.packet_life_time, 0x12);
	KUNIT_EXPECT_EQ(test, p.reversible, 1);
	pi.local_ack_timeout = 0;
	cm_path_from_alt_info(&p, &pi, 0xffff, IB_MTU_256);
	KUNIT_EXPECT_EQ(test, p.packet_life_time, 0);
}

/* Give @priv an alternate path (as cm_alt_load() would: no MAD AH here). */
static void give_alt(struct kunit *test, struct cm_id_priv *priv,
		     struct fake_dev *fd)
{
	struct cm_old_av *spare = kzalloc(sizeof(*spare), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, spare);
	spin_lock(&priv->lock);
	priv->alt.spare = spare;	/* the id frees it */
	priv->alt.valid = true;
	priv->alt.av.port = &fd->port;
	priv->alt.av.pkey_index = 5;
	priv->alt.ack_timeout = 19;
	priv->alt.av.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&priv->alt.av.ah_attr, 7);
	rdma_ah_set_sl(&priv->alt.av.ah_attr, 3);
	rdma_ah_set_port_num(&priv->alt.av.ah_attr, 1);
	spin_unlock(&priv->lock);
}

/*
 * The alternate path in the QP attributes (RTR: IB_QP_ALT_PATH; RTS: the
 * migration state re-armed); IB_EVENT_PATH_MIG: the id takes it, after
 * which RTS is RTS to RTS (alternate path and migration state only), as
 * in-tree; refused before establishment and while a LAP is pending.
 */
static void ibcm_alt_migrate(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);
	struct ib_qp_attr attr = {};
	int mask = 0;

	set_state(priv, IB_CM_REP_SENT);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_PATH_MIG),
			-EINVAL);
	/* No alternate path: RTR and RTS as before. */
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_FALSE(test, mask & IB_QP_ALT_PATH);
	give_alt(test, priv, fd);
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_TRUE(test, mask & IB_QP_ALT_PATH);
	KUNIT_EXPECT_EQ(test, attr.alt_port_num, 1);
	KUNIT_EXPECT_EQ(test, attr.alt_pkey_index, 5);
	KUNIT_EXPECT_EQ(test, attr.alt_timeout, 19);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&attr.alt_ah_attr), 7);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_TRUE(test, mask & IB_QP_STATE);
	KUNIT_EXPECT_TRUE(test, mask & IB_QP_PATH_MIG_STATE);
	KUNIT_EXPECT_EQ(test, attr.path_mig_state, IB_MIG_REARM);
	KUNIT_EXPECT_EQ(test, attr.timeout, 17);

	set_state(priv, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_PATH_MIG), 0);
	KUNIT_EXPECT_EQ(test, priv->id.lap_state, IB_CM_LAP_IDLE);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&attr.ah_attr), 7);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&attr.ah_attr), 3);
	attr.qp_state = IB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.pkey_index, 5);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE);
	/* Again: nothing changes; with a LAP pending: refused. */
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_PATH_MIG), 0);
	KUNIT_EXPECT_EQ(test, priv->local_ack_timeout, 19);
	spin_lock(&priv->lock);
	priv->id.lap_state = IB_CM_LAP_RCVD;
	spin_unlock(&priv->lock);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_PATH_MIG),
			-EINVAL);
	set_state(priv, IB_CM_IDLE);
}

/* An MRA answers a LAP only while one is pending (state ESTABLISHED). */
static void ibcm_mra_lap(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);

	set_state(priv, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, 10, NULL, 0), -EINVAL);
	spin_lock(&priv->lock);
	priv->id.lap_state = IB_CM_LAP_RCVD;
	spin_unlock(&priv->lock);
	/* Delayed: kept for a duplicate of the LAP, nothing sent now. */
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id,
					     10 | IB_CM_MRA_FLAG_DELAY,
					     NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, priv->id.lap_state, IB_CM_MRA_LAP_SENT);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_ESTABLISHED);
	/* Kept apart: the id's last reply (an RTU, say) stays as it was. */
	KUNIT_EXPECT_NOT_NULL(test, priv->lap_mra);
	KUNIT_EXPECT_NULL(test, priv->last_mad);
	KUNIT_EXPECT_FALSE(test, priv->mra_delayed);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, 10, NULL, 0), -EINVAL);
	set_state(priv, IB_CM_IDLE);
}

static void ibcm_qp_attr_uc(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);
	struct ib_qp_attr attr = {};
	int mask = 0;

	priv->qp_type = IB_QPT_UC;
	set_state(priv, IB_CM_REQ_RCVD);	/* passive, before its REP */
	attr.qp_state = IB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags, IB_ACCESS_REMOTE_WRITE);
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_cm_init_qp_attr(&priv->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE | IB_QP_SQ_PSN);
	set_state(priv, IB_CM_IDLE);
}

static void wait_events(struct kunit *test, struct rec_ctx *ctx, int n)
{
	while (READ_ONCE(ctx->n) < n)
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->got, HZ),
				0);
}

/* Out of retries: REQ_ERROR, the id idle; a timeout in another state: none. */
static void ibcm_req_timeout(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *priv = conn_id(test, fd, ctx, true);

	set_state(priv, IB_CM_ESTABLISHED);
	cm_send_timeout(priv, IB_CM_REQ_SENT, CM_REQ_ATTR_ID);	/* stale */
	set_state(priv, IB_CM_MRA_REQ_RCVD);	/* the REQ was MRAed */
	cm_send_timeout(priv, IB_CM_MRA_REQ_RCVD, CM_REQ_ATTR_ID);
	wait_events(test, ctx, 1);
	cm_test_flush();
	KUNIT_EXPECT_EQ(test, ctx->n, 1);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_REQ_ERROR);
	KUNIT_EXPECT_EQ(test, ctx->status[0], IB_WC_RESP_TIMEOUT_ERR);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_IDLE);
}

/* A DREQ out of retries: DREQ_ERROR, timewait, then TIMEWAIT_EXIT. */
static void ibcm_dreq_timeout_timewait(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *priv = conn_id(test, fd, ctx, true);

	priv->packet_life_time = 0;
	priv->local_ack_timeout = 0;		/* timewait of 1 ms */
	set_state(priv, IB_CM_DREQ_SENT);
	cm_send_timeout(priv, IB_CM_DREQ_SENT, CM_DREQ_ATTR_ID);
	wait_events(test, ctx, 2);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_DREQ_ERROR);
	KUNIT_EXPECT_EQ(test, ctx->type[1], IB_CM_TIMEWAIT_EXIT);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_IDLE);
}

/*
 * A remote QP belongs to a live connection only: while an id holds
 * (QPN, CA GUID), a new connection to that remote QP is stale; once the
 * id enters timewait it gives the QP up, as in-tree (cm_enter_timewait's
 * cm_remove_remote), so a peer that reuses the QPN can connect again.
 */
static void ibcm_timewait_frees_remote_qp(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *old = conn_id(test, fd, ctx, true);
	struct cm_id_priv *new = conn_id(test, fd, rec_new(test), true);
	struct cm_id_priv *cur;

	old->remote_ca_guid = cpu_to_be64(0x0200aabbccddeeffULL);
	new->remote_ca_guid = old->remote_ca_guid;
	KUNIT_ASSERT_NULL(test, cm_insert_remote_qpn(old));
	set_state(old, IB_CM_ESTABLISHED);
	cur = cm_insert_remote_qpn(new);
	KUNIT_EXPECT_PTR_EQ(test, cur, old);
	if (cur)
		cm_put(cur);

	/* Out of DREQ retries: timewait (about 1 s with these timeouts). */
	set_state(old, IB_CM_DREQ_SENT);
	cm_send_timeout(old, IB_CM_DREQ_SENT, CM_DREQ_ATTR_ID);
	wait_events(test, ctx, 1);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_DREQ_ERROR);
	KUNIT_EXPECT_EQ(test, old->id.state, IB_CM_TIMEWAIT);
	cur = cm_insert_remote_qpn(new);
	KUNIT_EXPECT_NULL(test, cur);
	if (cur)
		cm_put(cur);
	set_state(new, IB_CM_IDLE);
}

/* A handler that returns non-zero has its id destroyed after it returns. */
static void ibcm_handler_destroys(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	long ids = cm_ids_live();
	struct cm_id_priv *priv = conn_id(test, fd, ctx, false);
	int i;

	ctx->ret = -ECONNRESET;
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids + 1);
	set_state(priv, IB_CM_SIDR_REQ_SENT);
	cm_send_timeout(priv, IB_CM_SIDR_REQ_SENT, CM_SIDR_REQ_ATTR_ID);
	wait_events(test, ctx, 1);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_SIDR_REQ_ERROR);
	for (i = 0; i < 100 && cm_ids_live() != ids; i++)
		usleep_range(10000, 20000);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids);
}

/* MRA with IB_CM_MRA_FLAG_DELAY: the state moves, nothing is sent yet. */
static void ibcm_mra_delayed(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);
	u8 pd[IB_CM_MRA_PRIVATE_DATA_SIZE + 1] = {};
	long tx = cm_counter_read(CM_CNT_TX);

	set_state(priv, IB_CM_REQ_RCVD);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, IB_CM_MRA_FLAG_DELAY |
					     24, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_MRA_REQ_SENT);
	KUNIT_EXPECT_TRUE(test, priv->mra_delayed);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, 24, NULL, 0), -EINVAL);
	set_state(priv, IB_CM_REP_RCVD);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, IB_CM_MRA_FLAG_DELAY |
					     24, pd, sizeof(pd) - 1), 0);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_MRA_REP_SENT);
	KUNIT_EXPECT_EQ(test, ib_send_cm_mra(&priv->id, 24, pd, sizeof(pd)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_TX), tx);
	set_state(priv, IB_CM_IDLE);
}

/*
 * The REP repeated while our delayed MRA for it waits (rdma_cm asks for one
 * on every REP, as in-tree): a duplicate, answered with the kept MRA; the
 * id stays in MRA_REP_SENT and no second REP_RECEIVED is delivered. The
 * same REP from another remote id is no duplicate.
 */
static void ibcm_dup_rep_after_delayed_mra(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *priv = conn_id(test, fd, ctx, true);
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);
	long dup = cm_counter_read(CM_CNT_RX_DUPLICATE);
	long bad = cm_counter_read(CM_CNT_RX_BAD_STATE);

	priv->id.remote_id = cpu_to_be32(0x5151);
	set_state(priv, IB_CM_REP_RCVD);
	KUNIT_ASSERT_EQ(test, ib_send_cm_mra(&priv->id, IB_CM_MRA_FLAG_DELAY |
					     24, NULL, 0), 0);
	KUNIT_EXPECT_TRUE(test, priv->mra_delayed);
	case_rep(in);
	in->rep.remote_comm_id = priv->id.local_id;
	in->rep.local_comm_id = priv->id.remote_id;
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_DUPLICATE), dup + 1);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_MRA_REP_SENT);

	in->rep.local_comm_id = cpu_to_be32(0x5252);
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_DUPLICATE), dup + 1);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_BAD_STATE), bad + 1);
	msleep(50);		/* an event, if one were queued, is delivered */
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->n), 0);
	set_state(priv, IB_CM_IDLE);
}

/*
 * Whose REJ is it? An id with remote comm id 0x5151 (or none yet) gets a REJ
 * naming its local comm id; whether the REJ is taken depends on what it
 * rejects and on the comm id it carries, as in-tree (cm_acquire_rejected_id):
 * a REJ of a REQ only while we know no remote id, any other only with the
 * remote comm id we know. A spoofed REJ (local comm id 0, or a wrong one)
 * must leave an established connection and one being set up alone.
 */
struct rej_case {
	const char *name;
	enum ib_cm_state state;
	u32 remote_id;			/* ours, 0: none yet */
	u8 msg_rejected;
	u32 rej_local_id;		/* the REJ's LocalCommID */
	u16 reason;
	bool taken;
};

static const struct rej_case rej_cases[] = {
	{ "est-spoof-id0-stale", IB_CM_ESTABLISHED, 0x5151, CM_MSG_OTHER, 0,
	  IB_CM_REJ_STALE_CONN, false },
	{ "est-spoof-id0-as-req", IB_CM_ESTABLISHED, 0x5151, CM_MSG_REQ, 0,
	  IB_CM_REJ_STALE_CONN, false },
	{ "est-wrong-id", IB_CM_ESTABLISHED, 0x5151, CM_MSG_OTHER, 0x5152,
	  IB_CM_REJ_STALE_CONN, false },
	{ "est-right-id-stale", IB_CM_ESTABLISHED, 0x5151, CM_MSG_OTHER,
	  0x5151, IB_CM_REJ_STALE_CONN, true },
	{ "req-rcvd-spoof-id0", IB_CM_REQ_RCVD, 0x5151, CM_MSG_OTHER, 0,
	  IB_CM_REJ_CONSUMER_DEFINED, false },
	{ "mra-req-sent-spoof-id0", IB_CM_MRA_REQ_SENT, 0x5151, CM_MSG_REQ, 0,
	  IB_CM_REJ_CONSUMER_DEFINED, false },
	{ "rep-sent-spoof-id0", IB_CM_REP_SENT, 0x5151, CM_MSG_REP, 0,
	  IB_CM_REJ_CONSUMER_DEFINED, false },
	{ "rep-sent-right-id", IB_CM_REP_SENT, 0x5151, CM_MSG_REP, 0x5151,
	  IB_CM_REJ_CONSUMER_DEFINED, true },
	{ "mra-rep-rcvd-spoof-id0", IB_CM_MRA_REP_RCVD, 0x5151, CM_MSG_OTHER,
	  0, IB_CM_REJ_INVALID_SERVICE_ID, false },
	{ "req-sent-of-req", IB_CM_REQ_SENT, 0, CM_MSG_REQ, 0x6161,
	  IB_CM_REJ_INVALID_SERVICE_ID, true },
	{ "req-sent-of-req-id0", IB_CM_REQ_SENT, 0, CM_MSG_REQ, 0,
	  IB_CM_REJ_STALE_CONN, true },
	{ "mra-req-rcvd-of-req", IB_CM_MRA_REQ_RCVD, 0, CM_MSG_REQ, 0x6161,
	  IB_CM_REJ_CONSUMER_DEFINED, true },
};

static void rej_desc(const struct rej_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rej, rej_cases, rej_desc);

static void ibcm_recv_rej_whose(struct kunit *test)
{
	const struct rej_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *priv = conn_id(test, fd, ctx, true);
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);
	long bad = cm_counter_read(CM_CNT_RX_BAD_STATE);

	priv->id.remote_id = cpu_to_be32(c->remote_id);
	set_state(priv, c->state);
	in->attr_id = CM_REJ_ATTR_ID;
	in->rej.local_comm_id = cpu_to_be32(c->rej_local_id);
	in->rej.remote_comm_id = priv->id.local_id;
	in->rej.msg_rejected = c->msg_rejected;
	in->rej.reason = c->reason;
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	if (c->taken) {
		wait_events(test, ctx, 1);
		KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_REJ_RECEIVED);
		KUNIT_EXPECT_NE(test, priv->id.state, c->state);
	} else {
		KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_BAD_STATE),
				bad + 1);
		cm_test_flush();
		KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->n), 0);
		KUNIT_EXPECT_EQ(test, priv->id.state, c->state);
	}
	set_state(priv, IB_CM_IDLE);
}

/* ib_cm_notify(COMM_EST) before the RTU: USER_ESTABLISHED, from the work. */
static void ibcm_notify_established(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ctx = rec_new(test);
	struct cm_id_priv *priv = conn_id(test, fd, ctx, true);

	set_state(priv, IB_CM_REP_SENT);
	/* Not established yet: no migration (ibcm_alt_migrate). */
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_PATH_MIG),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_COMM_EST), 0);
	wait_events(test, ctx, 1);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_USER_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ib_cm_notify(&priv->id, IB_EVENT_COMM_EST),
			-EISCONN);
	set_state(priv, IB_CM_IDLE);
}

/* A handler that blocks until the test lets it go. */
struct block_ctx {
	struct completion entered, release;
	struct ib_cm_id *victim;	/* destroyed from the handler, if set */
	bool returned;
};

static int block_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct block_ctx *b = id->context;

	complete(&b->entered);
	if (b->victim) {
		ib_destroy_cm_id(b->victim);	/* another id's: allowed */
		b->victim = NULL;
	} else {
		wait_for_completion(&b->release);
	}
	WRITE_ONCE(b->returned, true);
	return 0;
}

static struct block_ctx *block_new(struct kunit *test)
{
	struct block_ctx *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	init_completion(&b->entered);
	init_completion(&b->release);
	return b;
}

static struct cm_id_priv *block_id(struct kunit *test, struct fake_dev *fd,
				   struct block_ctx *b)
{
	struct ib_cm_id *id = ib_create_cm_id(&fd->ib, block_handler, b);

	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	to_priv(id)->port = &fd->port;
	return to_priv(id);
}

static int destroy_thread(void *data)
{
	ib_destroy_cm_id(data);
	return 0;
}

/*
 * A handler of the id at @b blocks; @destroy (a thread) destroys the id
 * meanwhile, which must wait for the handler, then return.
 */
static void destroy_during_handler(struct kunit *test, struct block_ctx *b,
				   struct cm_id_priv *priv,
				   int (*destroy)(void *id))
{
	struct task_struct *t;
	long ids = cm_ids_live();
	int i;

	set_state(priv, IB_CM_REQ_SENT);
	cm_send_timeout(priv, IB_CM_REQ_SENT, CM_REQ_ATTR_ID);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&b->entered, HZ), 0);
	t = kthread_run(destroy, &priv->id, "ibcm_kunit_destroy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(100);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids);	/* still there */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(b->returned));
	complete(&b->release);
	for (i = 0; i < 2000 && cm_ids_live() != ids - 1; i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids - 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(b->returned));
}

/* ib_destroy_cm_id() returns only after the handler in flight returned. */
static void ibcm_destroy_waits_for_handler(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct block_ctx *b = block_new(test);

	destroy_during_handler(test, b, block_id(test, fd, b), destroy_thread);
}

/* One id's handler destroys another id: no deadlock, both gone. */
static void ibcm_destroy_from_other_handler(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct block_ctx *b = block_new(test);
	struct cm_id_priv *a = block_id(test, fd, b);
	struct ib_cm_id *victim = ib_create_cm_id(&fd->ib, nop_handler, NULL);
	long ids;

	KUNIT_ASSERT_FALSE(test, IS_ERR(victim));
	ids = cm_ids_live();
	b->victim = victim;
	set_state(a, IB_CM_REQ_SENT);
	cm_send_timeout(a, IB_CM_REQ_SENT, CM_REQ_ATTR_ID);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&b->entered, HZ), 0);
	cm_test_flush();
	KUNIT_EXPECT_TRUE(test, READ_ONCE(b->returned));
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids - 1);
	ib_destroy_cm_id(&a->id);
	KUNIT_EXPECT_EQ(test, cm_ids_live(), ids - 2);
}

#ifdef CONFIG_PROVE_LOCKING
/* A lock of the caller's: ib_core's client_data_rwsem, RTNL, ... */
static struct lock_class_key ibcm_kunit_outer_key;
static struct lockdep_map ibcm_kunit_outer =
	STATIC_LOCKDEP_MAP_INIT("ibcm_kunit_outer", &ibcm_kunit_outer_key);

/* A handler that takes it (as rdma_cm's listen handler takes its own). */
static int outer_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	lock_map_acquire(&ibcm_kunit_outer);
	lock_map_release(&ibcm_kunit_outer);
	return 0;
}

static int destroy_outer_thread(void *data)
{
	lock_map_acquire(&ibcm_kunit_outer);
	ib_destroy_cm_id(data);
	lock_map_release(&ibcm_kunit_outer);
	return 0;
}

/*
 * ib_destroy_cm_id() waits for the handler in flight without flushing the
 * id's work item. The work items of all ids are one lockdep class, so a
 * flush would make every lock the destroying caller holds depend on every
 * handler, and handlers take locks: IPoIB-CM destroys its ids from a
 * workqueue that it destroys under RTNL, rdma_cm's listen handler takes
 * ib_core's client_data_rwsem, and ipoib_add_one() registers its netdev
 * (RTNL) under that rwsem: lockdep reported that cycle when IPoIB went
 * back from connected to datagram mode.
 */
static void ibcm_destroy_no_flush(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct block_ctx *b = block_new(test);
	struct ib_cm_id *other;

	if (!debug_locks)
		kunit_skip(test, "lockdep is off already");
	/* One id's handler takes the outer lock: work -> outer. */
	other = ib_create_cm_id(&fd->ib, outer_handler, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	to_priv(other)->port = &fd->port;
	set_state(to_priv(other), IB_CM_REQ_SENT);
	cm_send_timeout(to_priv(other), IB_CM_REQ_SENT, CM_REQ_ATTR_ID);
	cm_test_flush();
	ib_destroy_cm_id(other);
	/* Another id is destroyed under the outer lock, its handler running. */
	destroy_during_handler(test, b, block_id(test, fd, b),
			       destroy_outer_thread);
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep found a cycle: destroy flushed the work");
}
#else
static void ibcm_destroy_no_flush(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
}
#endif

/* ---- the passive side's path record, from a REQ and the completion ---- */

struct path_case {
	const char *name;
	bool roce;
	enum ib_gid_type gid_type;
	enum sa_path_rec_type want;
};

static const struct path_case path_cases[] = {
	{ "roce-v2", true, IB_GID_TYPE_ROCE_UDP_ENCAP, SA_PATH_REC_TYPE_ROCE_V2 },
	{ "roce-v1", true, IB_GID_TYPE_ROCE, SA_PATH_REC_TYPE_ROCE_V1 },
	{ "ib", false, IB_GID_TYPE_IB, SA_PATH_REC_TYPE_IB },
};

static void path_desc(const struct path_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(path, path_cases, path_desc);

static void ibcm_path_from_req(struct kunit *test)
{
	const struct path_case *c = test->param_value;
	static const u8 mac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct sa_path_rec *path = kunit_kzalloc(test, sizeof(*path),
						 GFP_KERNEL);
	struct ib_gid_attr *gattr = kunit_kzalloc(test, sizeof(*gattr),
						  GFP_KERNEL);
	struct rdma_ah_attr *ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	struct cm_msg *m = new_msg(test);
	const struct cm_req_info *r = &m->req;

	KUNIT_ASSERT_NOT_NULL(test, path);
	KUNIT_ASSERT_NOT_NULL(test, gattr);
	KUNIT_ASSERT_NOT_NULL(test, ah);
	case_req(m);
	gattr->gid_type = c->gid_type;
	ah->type = c->roce ? RDMA_AH_ATTR_TYPE_ROCE : RDMA_AH_ATTR_TYPE_IB;
	ah->grh.sgid_attr = gattr;
	memcpy(ah->roce.dmac, mac, ETH_ALEN);

	cm_path_from_req(path, r, ah, c->roce);
	KUNIT_EXPECT_EQ(test, path->rec_type, c->want);
	/* Seen from the passive side: the REQ's remote GID is our SGID. */
	KUNIT_EXPECT_MEMEQ(test, &path->sgid, &r->primary.remote_gid, 16);
	KUNIT_EXPECT_MEMEQ(test, &path->dgid, &r->primary.local_gid, 16);
	KUNIT_EXPECT_EQ(test, path->service_id, r->service_id);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path->pkey), r->pkey);
	KUNIT_EXPECT_EQ(test, path->mtu, r->path_mtu);
	KUNIT_EXPECT_EQ(test, path->rate, r->primary.packet_rate);
	KUNIT_EXPECT_EQ(test, path->traffic_class, r->primary.traffic_class);
	KUNIT_EXPECT_EQ(test, path->hop_limit, r->primary.hop_limit);
	KUNIT_EXPECT_EQ(test, path->sl, r->primary.sl);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(path->flow_label),
			r->primary.flow_label);
	/* The ACK timeout is about twice the life time: one less. */
	KUNIT_EXPECT_EQ(test, path->packet_life_time,
			r->primary.local_ack_timeout - 1);
	KUNIT_EXPECT_EQ(test, path->reversible, 1);
	if (c->roce) {
		KUNIT_EXPECT_MEMEQ(test, sa_path_get_dmac(path), mac, ETH_ALEN);
		KUNIT_EXPECT_TRUE(test, path->roce.route_resolved);
	} else {
		KUNIT_EXPECT_EQ(test, be32_to_cpu(sa_path_get_slid(path)),
				(u32)be16_to_cpu(r->primary.remote_lid));
		KUNIT_EXPECT_EQ(test, be32_to_cpu(sa_path_get_dlid(path)),
				(u32)be16_to_cpu(r->primary.local_lid));
	}
}

/* ---- service ids, reject strings, timeouts ---- */

struct svc_case {
	const char *name;
	u64 want, mask, got;
	bool match;
};

static const struct svc_case svc_cases[] = {
	{ "exact", 0x1060abc, ~0ULL, 0x1060abc, true },
	{ "exact-miss", 0x1060abc, ~0ULL, 0x1060abd, false },
	{ "cma-mask", 0x1000000, 0xffffffffff000000ULL, 0x1060abc, true },
	{ "cma-mask-miss", 0x1000000, 0xffffffffff000000ULL, 0x2060abc, false },
	{ "sdp-mask", 0x10000, 0xffffffffffff0000ULL, 0x1ffff, true },
	{ "sdp-mask-miss", 0x10000, 0xffffffffffff0000ULL, 0x20000, false },
	{ "any", 0, 0, 0xdeadbeefcafeULL, true },
};

static void svc_desc(const struct svc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(svc, svc_cases, svc_desc);

static void ibcm_service_match(struct kunit *test)
{
	const struct svc_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, cm_service_match(cpu_to_be64(c->want),
					       cpu_to_be64(c->mask),
					       cpu_to_be64(c->got)), c->match);
}

static void ibcm_reject_msgs(struct kunit *test)
{
	int r;

	for (r = IB_CM_REJ_NO_QP; r <= IB_CM_REJ_INVALID_ALT_FLOW_LABEL; r++) {
		KUNIT_EXPECT_NOT_NULL(test, ibcm_reject_msg(r));
		KUNIT_EXPECT_STRNEQ(test, ibcm_reject_msg(r),
				    "unrecognized reason");
	}
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(IB_CM_REJ_CONSUMER_DEFINED),
			   "consumer defined");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(IB_CM_REJ_STALE_CONN),
			   "stale conn");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED),
			   "vendor option is not supported");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(34), "unrecognized reason");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(0), "unrecognized reason");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(-1), "unrecognized reason");
	KUNIT_EXPECT_STREQ(test, ibcm_reject_msg(1000), "unrecognized reason");
}

static void ibcm_timeouts(struct kunit *test)
{
	struct cm_id_priv *priv;

	/* 4.096 us * 2^t, in ms, at least 1. */
	KUNIT_EXPECT_EQ(test, cm_time_ms(0), 1U);
	KUNIT_EXPECT_EQ(test, cm_time_ms(8), 1U);
	KUNIT_EXPECT_EQ(test, cm_time_ms(9), 2U);
	KUNIT_EXPECT_EQ(test, cm_time_ms(16), 256U);
	KUNIT_EXPECT_EQ(test, cm_time_ms(20), 4096U);
	KUNIT_EXPECT_EQ(test, cm_time_ms(31), 1U << 23);
	KUNIT_EXPECT_EQ(test, cm_time_ms(40), 1U << 23);	/* clamped */
	/* rdma_cm over RoCE: life time 16, response timeout 20. */
	KUNIT_EXPECT_EQ(test, cm_msg_timeout_ms(16, 20), 2 * 256U + 4096U);
	/* An MRA's service timeout replaces the response timeout. */
	KUNIT_EXPECT_EQ(test, cm_msg_timeout_ms(16, 24), 2 * 256U + 65536U);
	KUNIT_EXPECT_EQ(test, cm_msg_timeout_ms(0, 0), 3U);

	/*
	 * A REP's or DREQ's wait: the active side's as its REQ's, the passive
	 * side's only the CM response timeout the REQ gave (in-tree's
	 * cm_req_handler()), whatever the packet life time.
	 */
	priv = kunit_kzalloc(test, sizeof(*priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, priv);
	priv->packet_life_time = 16;
	priv->remote_cm_response_timeout = 20;
	KUNIT_EXPECT_EQ(test, cm_wait_ms(priv), 2 * 256U + 4096U);
	priv->passive = true;
	KUNIT_EXPECT_EQ(test, cm_wait_ms(priv), 4096U);
	priv->packet_life_time = 20;
	KUNIT_EXPECT_EQ(test, cm_wait_ms(priv), 4096U);
}

/* ---- the per-port message counters (sysfs cm_tx_msgs/ ... ) ---- */

static long msgs(struct fake_dev *fd, enum cm_msg_group g, __be16 attr_id)
{
	return atomic_long_read(&fd->port.msgs[g][be16_to_cpu(attr_id) -
						  CM_MSG_FIRST_ATTR]);
}

/*
 * Every CM message received is counted once, under its own type, whatever
 * the receive path does with it; nothing is counted as sent.
 */
static void ibcm_count_rx(struct kunit *test)
{
	const struct rt_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);
	unsigned int i, want;

	c->fill(in);
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	want = be16_to_cpu(in->attr_id) - CM_MSG_FIRST_ATTR;
	for (i = 0; i < CM_MSG_TYPES; i++) {
		KUNIT_EXPECT_EQ(test, atomic_long_read(&fd->port.msgs[CM_GRP_RX][i]),
				i == want ? 1 : 0);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&fd->port.msgs[CM_GRP_TX][i]),
				0);
	}
}

/* An attribute that is no CM message is counted nowhere. */
static void ibcm_count_rx_unknown_attr(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);
	unsigned int g, i;

	case_drep(in);
	cm_msg_build(mad, in);
	spoil_attr(mad);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	for (g = 0; g < CM_GRP_MAX; g++)
		for (i = 0; i < CM_MSG_TYPES; i++)
			KUNIT_EXPECT_EQ(test,
					atomic_long_read(&fd->port.msgs[g][i]), 0);
}

struct sent_case {
	const char *name;
	__be16 attr_id;
	bool by_id;		/* context[0]: the id that sent it */
	bool again;		/* sent again for a duplicate */
	int retries;		/* the MAD layer's resends */
	long tx, tx_retries;
};

static const struct sent_case sent_cases[] = {
	{ "req-first-try", CM_REQ_ATTR_ID, true, false, 0, 1, 0 },
	{ "req-2-resends", CM_REQ_ATTR_ID, true, false, 2, 3, 2 },
	{ "dreq-1-resend", CM_DREQ_ATTR_ID, true, false, 1, 2, 1 },
	{ "sidr-rep", CM_SIDR_REP_ATTR_ID, true, false, 0, 1, 0 },
	{ "rtu-again", CM_RTU_ATTR_ID, true, true, 0, 2, 1 },
	{ "mra-again", CM_MRA_ATTR_ID, true, true, 0, 2, 1 },
	{ "drep-reply-no-id", CM_DREP_ATTR_ID, false, false, 0, 2, 1 },
	{ "apr-reply-no-id", CM_APR_ATTR_ID, false, false, 0, 1, 0 },
	{ "sidr-rep-reply-no-id", CM_SIDR_REP_ATTR_ID, false, false, 0, 1, 0 },
	{ "rej-reply-no-id", CM_REJ_ATTR_ID, false, false, 0, 1, 0 },
	{ "rej-by-id", CM_REJ_ATTR_ID, true, false, 0, 1, 0 },
};

static void sent_desc(const struct sent_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sent, sent_cases, sent_desc);

/*
 * A completed send counts once plus once per resend; what we send again for
 * a duplicate, and a DREP owned by no id (to a DREQ for a connection gone),
 * counts as one send and one retry more, as the in-tree CM counts them;
 * other replies owned by no id (REJ, the SIDR_REP "unsupported", APR) once.
 */
static void ibcm_count_sent(struct kunit *test)
{
	const struct sent_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_add(test);
	struct ib_mad_send_buf buf = {};
	struct ib_mad_hdr *hdr = new_mad(test);
	unsigned int i;

	hdr->attr_id = c->attr_id;
	buf.mad = hdr;
	buf.retries = c->retries;
	buf.context[0] = c->by_id ? test : NULL;
	buf.context[1] = (void *)((uintptr_t)IB_CM_ESTABLISHED |
				  (c->again ? CM_SEND_RESEND : 0));
	cm_count_sent(&fd->port, &buf);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_TX, c->attr_id), c->tx);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_TX_RETRIES, c->attr_id),
			c->tx_retries);
	for (i = 0; i < CM_MSG_TYPES; i++)
		KUNIT_EXPECT_EQ(test, atomic_long_read(&fd->port.msgs[CM_GRP_RX][i]),
				0);
	/* Counted again: the counters add up. */
	cm_count_sent(&fd->port, &buf);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_TX, c->attr_id), 2 * c->tx);
}

/* ---- a MAD through a source GID entry that left the GID table ---- */

/*
 * A RoCE device of the test's own on a netdev of its own: ib_core keeps its
 * GID table (the netdev's default GID at index 0). It has no QP or CQ, so
 * ib_mad and ib_cm do not open its port.
 */
struct roce_mock {
	struct ib_device	ibdev;
	bool			registered;
};

static int roce_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr, struct ib_udata *udata)
{
	memset(attr, 0, sizeof(*attr));
	return 0;
}

static int roce_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 8;
	imm->pkey_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int roce_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	int ret = mock_rnic_query_port(ibdev, port, attr);

	attr->gid_tbl_len = 8;
	return ret;
}

static int roce_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			  struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int roce_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int roce_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int roce_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

struct roce_pd {
	struct ib_pd ibpd;
};

struct roce_cq {
	struct ib_cq ibcq;
};

struct roce_qp {
	struct ib_qp ibqp;
};

static const struct ib_device_ops roce_mock_ops = {
	.owner = THIS_MODULE,
	MOCK_RNIC_VERB_OPS,
	.query_port = roce_query_port,
	.get_port_immutable = roce_port_immutable,
	.query_device = roce_query_device,
	.create_qp = roce_create_qp,
	.modify_qp = roce_modify_qp,
	.destroy_qp = roce_destroy_qp,
	.create_cq = roce_create_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, roce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, roce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, roce_qp, ibqp),
};

static void roce_mock_release(void *arg)
{
	struct roce_mock *mock = arg;

	if (mock->registered)
		ib_unregister_device(&mock->ibdev);
	ib_dealloc_device(&mock->ibdev);
}

static netdev_tx_t roce_ndev_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops roce_ndev_ops = {
	.ndo_start_xmit = roce_ndev_xmit,
	.ndo_set_mac_address = eth_mac_addr,
};

static void roce_ndev_release(void *ndev)
{
	unregister_netdev(ndev);
	free_netdev(ndev);
}

/* The GID entry at @idx of @dev's port 1 once valid (within 2 s), held. */
static const struct ib_gid_attr *roce_wait_gid(struct kunit *test,
					       struct ib_device *dev, int idx)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < 100; i++) {
		attr = rdma_get_gid_attr(dev, 1, idx);
		if (!IS_ERR(attr))
			return attr;
		msleep(20);
	}
	KUNIT_FAIL_AND_ABORT(test, "no GID at index %d", idx);
	return NULL;
}

/* A RoCE device (the mock) on a registered, open netdev. */
struct roce_rig {
	struct net_device *ndev;
	struct roce_mock *mock;
};

static void roce_rig_add(struct kunit *test, struct roce_rig *rig)
{
	struct net_device *ndev;
	struct roce_mock *mock;
	int ret;

	ndev = alloc_netdev(0, "orcmg%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->netdev_ops = &roce_ndev_ops;
	ndev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	eth_hw_addr_random(ndev);
	if (register_netdev(ndev)) {
		free_netdev(ndev);
		KUNIT_FAIL_AND_ABORT(test, "register_netdev");
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   roce_ndev_release,
							   ndev));
	rtnl_lock();
	ret = dev_open(ndev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);

	mock = ib_alloc_device(roce_mock, ibdev);
	KUNIT_ASSERT_NOT_NULL(test, mock);
	mock->ibdev.node_type = RDMA_NODE_IB_CA;
	mock->ibdev.phys_port_cnt = 1;
	mock->ibdev.num_comp_vectors = 1;
	ib_set_device_ops(&mock->ibdev, &roce_mock_ops);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   roce_mock_release,
							   mock));
	KUNIT_ASSERT_EQ(test, 0, ib_device_set_netdev(&mock->ibdev, ndev, 1));
	KUNIT_ASSERT_EQ(test, 0, ib_register_device(&mock->ibdev, "orcmg%d",
						    NULL));
	mock->registered = true;
	rig->ndev = ndev;
	rig->mock = mock;
}

/*
 * A RoCE GID whose netdev is down: a MAD through it is refused (rxe would
 * fail it and leave QP1 in error for good), up again it goes. IB (no GID
 * attribute here) never is.
 */
static void ibcm_netdev_down(struct kunit *test)
{
	const struct ib_gid_attr *attr;
	struct roce_rig rig;
	int ret;

	KUNIT_EXPECT_FALSE(test, cm_ah_netdev_down(NULL));
	roce_rig_add(test, &rig);
	attr = roce_wait_gid(test, &rig.mock->ibdev, 0);
	KUNIT_EXPECT_FALSE(test, cm_ah_netdev_down(attr));
	rtnl_lock();
	dev_close(rig.ndev);
	rtnl_unlock();
	/* Its entry may go with the link (then cm_av_sgid_gone() refuses). */
	if (cm_gid_entry_gone(attr))
		KUNIT_EXPECT_TRUE(test, cm_av_sgid_gone(attr));
	else
		KUNIT_EXPECT_TRUE(test, cm_ah_netdev_down(attr));
	rtnl_lock();
	ret = dev_open(rig.ndev, NULL);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, cm_ah_netdev_down(attr));
	rdma_put_gid_attr(attr);
}

/* Give @rig's netdev a new MAC; wait until @attr's entry left the table. */
static void roce_rig_new_mac(struct kunit *test, struct roce_rig *rig,
			     const struct ib_gid_attr *attr)
{
	struct sockaddr sa;
	int i, ret;

	eth_random_addr(sa.sa_data);
	sa.sa_family = rig->ndev->type;
	rtnl_lock();
	ret = dev_set_mac_address(rig->ndev, &sa, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < 100 && !cm_av_sgid_gone(attr); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, cm_av_sgid_gone(attr));
}

/* Run before the id's destroy: a fake send is never handed to ib_mad. */
static void forget_msg_action(void *arg)
{
	struct cm_id_priv *priv = arg;

	spin_lock(&priv->lock);
	priv->msg = NULL;
	priv->id.state = IB_CM_IDLE;
	spin_unlock(&priv->lock);
}

/* A connection's id whose address vector holds @attr (as after a REQ). */
static struct cm_id_priv *roce_conn_id(struct kunit *test, struct fake_dev *fd,
				       const struct ib_gid_attr *attr)
{
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);

	rdma_hold_gid_attr(attr);
	priv->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	priv->ah_attr.ah_flags = IB_AH_GRH;
	priv->ah_attr.grh.sgid_attr = attr;
	priv->ah_attr.grh.sgid_index = attr->index;
	return priv;
}

/*
 * A bond's MAC change makes ib_core delete every GID of the netdev and add
 * them again; an entry an id still holds stays, pending deletion, and the
 * new one lands elsewhere. A connection's address vector made before names
 * the old entry: a DREQ sent through it is refused (rxe would fail it and
 * leave QP1 in error, ending every later MAD of the port) and the id enters
 * timewait, as in-tree, where ib_core refuses the per-MAD AH. Unlike
 * in-tree, DREQ_ERROR then follows, with no memory needed, as for a DREQ
 * lost on the wire: a consumer waiting for its disconnect to end (rdma_cm's
 * DISCONNECTED) hears of it, and TIMEWAIT_EXIT follows that. A DREQ that
 * cannot be allocated goes the same way (faults-rxe e2e). Before the
 * change of MAC the same id's DREQ goes to the port (here: no agent).
 */
static void ibcm_dreq_sgid_gone(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	const struct ib_gid_attr *attr;
	struct cm_id_priv *priv;
	struct rec_ctx *ctx;
	struct roce_rig rig;
	int ret;

	roce_rig_add(test, &rig);
	attr = roce_wait_gid(test, &rig.mock->ibdev, 0);
	KUNIT_EXPECT_FALSE(test, cm_av_sgid_gone(attr));
	priv = roce_conn_id(test, fd, attr);
	/* Never used as an AH: refused, or no agent to send it. */
	priv->mad_ah = ERR_PTR(-EINVAL);

	roce_rig_new_mac(test, &rig, attr);
	rdma_put_gid_attr(attr);

	priv->packet_life_time = 0;
	priv->local_ack_timeout = 0;		/* timewait of 1 ms */
	set_state(priv, IB_CM_ESTABLISHED);
	ret = ib_send_cm_dreq(&priv->id, NULL, 0);
	priv->mad_ah = NULL;
	KUNIT_EXPECT_EQ(test, ret, -ENETUNREACH);
	ctx = priv->id.context;
	wait_events(test, ctx, 2);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_DREQ_ERROR);
	KUNIT_EXPECT_EQ(test, ctx->status[0], IB_WC_RESP_TIMEOUT_ERR);
	KUNIT_EXPECT_EQ(test, ctx->type[1], IB_CM_TIMEWAIT_EXIT);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_IDLE);
}

/*
 * A DREQ already waiting for its DREP when the MAC changes: ib_mad would
 * resend it through its AH, which names the old entry. After the GID
 * change it is stale (on the id's own device only, until its cancel
 * marked it); the flush of the cancel then ends it as a timeout:
 * DREQ_ERROR and timewait, as the refused DREQ above.
 */
static void ibcm_waiting_dreq_sgid_gone(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct fake_dev *other = fake_dev_add(test);
	struct ib_mad_send_buf buf = {};	/* never handed to ib_mad */
	const struct ib_gid_attr *attr;
	enum ib_cm_state state;
	struct cm_id_priv *priv;
	struct roce_rig rig;
	struct rec_ctx *ctx;
	bool stale;

	roce_rig_add(test, &rig);
	attr = roce_wait_gid(test, &rig.mock->ibdev, 0);
	priv = roce_conn_id(test, fd, attr);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   forget_msg_action,
							   priv));
	ctx = priv->id.context;
	priv->packet_life_time = 0;
	priv->local_ack_timeout = 0;		/* timewait of 1 ms */
	spin_lock(&priv->lock);
	priv->id.state = IB_CM_DREQ_SENT;
	priv->msg = &buf;
	stale = cm_send_is_stale(priv, fd->cm);
	spin_unlock(&priv->lock);
	KUNIT_EXPECT_FALSE(test, stale);	/* the entry is still there */

	roce_rig_new_mac(test, &rig, attr);
	rdma_put_gid_attr(attr);
	spin_lock(&priv->lock);
	KUNIT_EXPECT_FALSE(test, cm_send_is_stale(priv, other->cm));
	KUNIT_EXPECT_TRUE(test, cm_send_is_stale(priv, fd->cm));
	priv->msg_stale = true;		/* as once its cancel succeeded */
	KUNIT_EXPECT_FALSE(test, cm_send_is_stale(priv, fd->cm));
	spin_unlock(&priv->lock);

	state = IB_CM_DREQ_SENT;
	KUNIT_EXPECT_TRUE(test, cm_send_done_timed_out(priv, &buf,
						       IB_WC_WR_FLUSH_ERR,
						       &state));
	KUNIT_EXPECT_NULL(test, priv->msg);
	KUNIT_EXPECT_FALSE(test, priv->msg_stale);
	cm_send_timeout(priv, state, CM_DREQ_ATTR_ID);
	wait_events(test, ctx, 2);
	KUNIT_EXPECT_EQ(test, ctx->type[0], IB_CM_DREQ_ERROR);
	KUNIT_EXPECT_EQ(test, ctx->type[1], IB_CM_TIMEWAIT_EXIT);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_IDLE);
}

static void put_gid_action(void *attr)
{
	rdma_put_gid_attr(attr);
}

static void doom_reap_action(void *dev)
{
	cm_doom_reap(dev, true);
}

/*
 * A netdev's new MAC dooms its GID entries before ib_core's work deletes
 * them (gid_doom.c): once marked, a send through one is refused while the
 * entry is still valid in the table. Another netdev's mark leaves the
 * entries alone, a second mark adds nothing, a lapsed mark lets the entry
 * be used again, and a reap drops marks whose time passed, whose entry
 * left the table, or every mark of a device (its removal).
 */
static void ibcm_gid_doomed(struct kunit *test)
{
	struct roce_rig rig, other;
	const struct ib_gid_attr *attr;
	struct ib_device *dev;
	unsigned int n, c0;
	int i;

	roce_rig_add(test, &rig);
	roce_rig_add(test, &other);
	dev = &rig.mock->ibdev;
	attr = roce_wait_gid(test, dev, 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_gid_action,
							   (void *)attr));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   doom_reap_action,
							   dev));
	KUNIT_EXPECT_FALSE(test, cm_av_sgid_gone(attr));

	KUNIT_EXPECT_EQ(test, cm_doom_gids(dev, other.ndev, jiffies + HZ), 0);
	KUNIT_EXPECT_FALSE(test, cm_av_sgid_gone(attr));
	n = cm_doom_gids(dev, rig.ndev, jiffies + 10 * HZ);
	KUNIT_EXPECT_GE(test, n, 1);
	KUNIT_EXPECT_FALSE(test, cm_gid_entry_gone(attr));
	KUNIT_EXPECT_TRUE(test, cm_av_sgid_gone(attr));
	KUNIT_EXPECT_EQ(test, cm_doom_gids(dev, rig.ndev, jiffies + 10 * HZ), 0);
	cm_doom_reap(dev, false);		/* still valid, still marked */
	KUNIT_EXPECT_TRUE(test, cm_av_sgid_gone(attr));

	cm_doom_gids(dev, rig.ndev, jiffies - 1);	/* the mark lapses */
	KUNIT_EXPECT_FALSE(test, cm_av_sgid_gone(attr));
	cm_doom_reap(dev, false);
	KUNIT_EXPECT_EQ(test, cm_doom_gids(dev, rig.ndev, jiffies + 10 * HZ), n);
	cm_doom_reap(dev, true);
	KUNIT_EXPECT_FALSE(test, cm_av_sgid_gone(attr));

	/*
	 * Marked, then deleted by the MAC change (and added again, elsewhere):
	 * the reap drops the marks of the deleted entries.
	 */
	c0 = cm_doom_count();
	KUNIT_EXPECT_EQ(test, cm_doom_gids(dev, rig.ndev, jiffies + 10 * HZ), n);
	KUNIT_EXPECT_EQ(test, cm_doom_count(), c0 + n);
	roce_rig_new_mac(test, &rig, attr);
	for (i = 0; i < 100 && !cm_gid_entry_gone(attr); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, cm_gid_entry_gone(attr));
	cm_doom_reap(dev, false);
	KUNIT_EXPECT_EQ(test, cm_doom_count(), c0);
}

/* When a send's completion ends the id's wait as a timeout, and when not. */
struct done_case {
	const char *name;
	enum ib_wc_status status;
	bool stale;		/* cancelled by cm_cancel_stale_sends() */
	bool waited;		/* the id waits for this send */
	enum ib_cm_state sent, now;
	bool timed_out;
	bool cancelled;		/* its cancel found it on the QP */
};

static const struct done_case done_cases[] = {
	{ "answered", IB_WC_SUCCESS, false, true, IB_CM_REQ_SENT,
	  IB_CM_REQ_SENT, false },
	{ "out-of-retries", IB_WC_RESP_TIMEOUT_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_REQ_SENT, true },
	{ "out-of-retries-mraed", IB_WC_RESP_TIMEOUT_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_MRA_REQ_RCVD, true },
	{ "out-of-retries-rep-mraed", IB_WC_RESP_TIMEOUT_ERR, false, true,
	  IB_CM_REP_SENT, IB_CM_MRA_REP_RCVD, true },
	{ "out-of-retries-moved-on", IB_WC_RESP_TIMEOUT_ERR, false, true,
	  IB_CM_DREQ_SENT, IB_CM_TIMEWAIT, false },
	/* cm_cancel_msg() forgets the send: its flush is no timeout */
	{ "cancelled", IB_WC_WR_FLUSH_ERR, false, false, IB_CM_DREQ_SENT,
	  IB_CM_DREQ_SENT, false },
	/* a flush nobody asked for: QP1 went to error (rxe, link flap) */
	{ "flushed-by-the-qp", IB_WC_WR_FLUSH_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_REQ_SENT, true },
	{ "flushed-by-the-qp-mraed", IB_WC_WR_FLUSH_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_MRA_REQ_RCVD, true },
	{ "flushed-moved-on", IB_WC_WR_FLUSH_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_REP_RCVD, false },
	/* cm_cancel_msg() could not cancel it (on the QP): kept, marked */
	{ "cancel-failed-flushed", IB_WC_WR_FLUSH_ERR, false, true,
	  IB_CM_DREQ_SENT, IB_CM_DREQ_SENT, false, true },
	{ "cancel-failed-out-of-retries", IB_WC_RESP_TIMEOUT_ERR, false, true,
	  IB_CM_REQ_SENT, IB_CM_REQ_SENT, false, true },
	{ "cancelled-stale", IB_WC_WR_FLUSH_ERR, true, true, IB_CM_DREQ_SENT,
	  IB_CM_DREQ_SENT, true },
	{ "stale-but-answered", IB_WC_SUCCESS, true, true, IB_CM_DREQ_SENT,
	  IB_CM_DREQ_SENT, false },
	{ "stale-moved-on", IB_WC_WR_FLUSH_ERR, true, true, IB_CM_DREQ_SENT,
	  IB_CM_TIMEWAIT, false },
	{ "not-waited-for", IB_WC_RESP_TIMEOUT_ERR, false, false,
	  IB_CM_REQ_SENT, IB_CM_REQ_SENT, false },
};

KUNIT_ARRAY_PARAM_DESC(done, done_cases, name);

static void ibcm_send_done(struct kunit *test)
{
	const struct done_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);
	struct ib_mad_send_buf buf = {}, other = {};
	enum ib_cm_state state = c->sent;
	bool got;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   forget_msg_action,
							   priv));
	spin_lock(&priv->lock);
	priv->id.state = c->now;
	priv->msg = c->waited ? &buf : &other;
	priv->msg_stale = c->stale;
	priv->msg_cancelled = c->cancelled;
	spin_unlock(&priv->lock);
	got = cm_send_done_timed_out(priv, &buf, c->status, &state);
	KUNIT_EXPECT_EQ(test, got, c->timed_out);
	if (c->waited) {
		KUNIT_EXPECT_NULL(test, priv->msg);
		KUNIT_EXPECT_FALSE(test, priv->msg_stale);
		KUNIT_EXPECT_FALSE(test, priv->msg_cancelled);
		KUNIT_EXPECT_EQ(test, state, c->now);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, priv->msg, &other);
	}
}

/* A connection's id on the test's device, known to the peer as 0x51525354. */
#define PEER_ID		cpu_to_be32(0x51525354)
#define PEER_GUID	cpu_to_be64(0x0002c90300c0ffeeULL)

static struct cm_id_priv *dup_id(struct kunit *test, struct fake_dev *fd,
				 enum ib_cm_state state)
{
	struct cm_id_priv *priv = conn_id(test, fd, rec_new(test), true);

	priv->id.remote_id = PEER_ID;
	priv->remote_ca_guid = PEER_GUID;
	priv->local_qpn = 0x00c0de;
	set_state(priv, state);
	return priv;
}

/* feed: the peer's message @fill, from PEER_ID to @priv, received. */
static void feed(struct kunit *test, struct fake_dev *fd,
		 struct cm_id_priv *priv, void (*fill)(struct cm_msg *m))
{
	struct cm_msg *in = new_msg(test);
	u8 *mad = new_mad(test);

	fill(in);
	switch (be16_to_cpu(in->attr_id)) {
	case 0x10:	/* REQ */
		in->req.local_comm_id = PEER_ID;
		in->req.local_ca_guid = PEER_GUID;
		break;
	case 0x11:	/* MRA */
		in->mra.local_comm_id = PEER_ID;
		in->mra.remote_comm_id = priv ? priv->id.local_id : 0;
		in->mra.msg_mraed = CM_MSG_REQ;
		break;
	case 0x13:	/* REP */
		in->rep.local_comm_id = PEER_ID;
		in->rep.remote_comm_id = priv ? priv->id.local_id : 0;
		break;
	default:	/* RTU, DREQ */
		in->disc.local_comm_id = PEER_ID;
		in->disc.remote_comm_id = priv ? priv->id.local_id : 0;
		break;
	}
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	cm_test_flush();
}

/* The end of a test: a state that destroys without sending. */
static void dup_done(struct cm_id_priv *priv)
{
	set_state(priv, IB_CM_IDLE);
}

/*
 * Duplicates, as the in-tree CM counts them: a DREQ for a connection we do
 * not have (any more), or one we are answering or have answered; an RTU
 * after the connection was established by its first receive; a REP we have
 * answered; an MRA for a request already MRAed; a REQ we hold an id for.
 * The first of each is no duplicate.
 */
static void ibcm_count_dup_dreq(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = dup_id(test, fd, IB_CM_ESTABLISHED);

	feed(test, fd, NULL, case_dreq);		/* no such connection */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID), 1);
	feed(test, fd, priv, case_dreq);		/* the first */
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_DREQ_RCVD);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID), 1);
	feed(test, fd, priv, case_dreq);		/* not answered yet */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID), 2);
	set_state(priv, IB_CM_TIMEWAIT);
	feed(test, fd, priv, case_dreq);		/* our DREP was lost */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_DREQ_ATTR_ID), 3);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX, CM_DREQ_ATTR_ID), 4);
	dup_done(priv);
}

static void ibcm_count_dup_rtu(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = dup_id(test, fd, IB_CM_REP_SENT);

	feed(test, fd, priv, case_rtu);			/* the first */
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_RTU_ATTR_ID), 0);
	feed(test, fd, priv, case_rtu);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_RTU_ATTR_ID), 1);
	priv->id.remote_id = cpu_to_be32(0x99);		/* not from our peer */
	feed(test, fd, priv, case_rtu);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_RTU_ATTR_ID), 1);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX, CM_RTU_ATTR_ID), 3);
	dup_done(priv);
}

static void ibcm_count_dup_rep(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = dup_id(test, fd, IB_CM_ESTABLISHED);

	feed(test, fd, priv, case_rep);		/* our RTU was lost */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_REP_ATTR_ID), 1);
	priv->id.remote_id = cpu_to_be32(0x99);
	feed(test, fd, priv, case_rep);		/* not from our peer */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_REP_ATTR_ID), 1);
	dup_done(priv);
}

static void ibcm_count_dup_mra(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = dup_id(test, fd, IB_CM_REQ_SENT);

	priv->id.remote_id = 0;			/* no REP yet */
	feed(test, fd, priv, case_mra);		/* the first */
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_MRA_REQ_RCVD);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_MRA_ATTR_ID), 0);
	feed(test, fd, priv, case_mra);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_MRA_ATTR_ID), 1);
	dup_done(priv);
}

static void ibcm_count_dup_req(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct cm_id_priv *priv = dup_id(test, fd, IB_CM_REQ_RCVD);
	struct cm_id_priv *cur = cm_insert_remote_id(priv);

	KUNIT_ASSERT_NULL(test, cur);
	feed(test, fd, NULL, case_req);		/* the same REQ again */
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX_DUP, CM_REQ_ATTR_ID), 1);
	KUNIT_EXPECT_EQ(test, msgs(fd, CM_GRP_RX, CM_REQ_ATTR_ID), 1);
	KUNIT_EXPECT_EQ(test, priv->id.state, IB_CM_REQ_RCVD);
	dup_done(priv);
}

static void restore_window(void *old)
{
	WRITE_ONCE(cm_req_window, (unsigned int)(uintptr_t)old);
}

/*
 * REQ pacing (pace.c): with a window of 1 and one REQ out, later REQs wait
 * in their order (counted, each id keeping its REQ); one destroyed while it
 * waits leaves the queue without hanging its destroy; a freed slot sends
 * the oldest, and one that cannot
 * be sent (no AH here) ends its connect with REQ_ERROR and gives its slot
 * back. Window 0, the default: no queue, the send's own result.
 */
static void ibcm_pace_req(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ca = rec_new(test);
	struct cm_id_priv *a = conn_id(test, fd, ca, true);
	struct cm_id_priv *b = conn_id(test, fd, rec_new(test), false);
	void *old = (void *)(uintptr_t)READ_ONCE(cm_req_window);
	long paced = cm_counter_read(CM_CNT_TX_REQ_PACED);
	struct cm_msg *msg = new_msg(test);
	unsigned int out, waiting;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   restore_window,
							   old));
	KUNIT_EXPECT_EQ(test, READ_ONCE(cm_req_window), 0);
	msg->attr_id = CM_REQ_ATTR_ID;
	set_state(a, IB_CM_REQ_SENT);
	set_state(b, IB_CM_REQ_SENT);
	/* Window 0: sent at once (refused here: no AH), nothing queued. */
	KUNIT_EXPECT_EQ(test, cm_pace_req(a, msg, 100, 2), -EINVAL);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, out + waiting, 0);

	WRITE_ONCE(cm_req_window, 1);
	spin_lock(&fd->port.pace_lock);
	fd->port.req_inflight = 1;		/* one REQ out */
	spin_unlock(&fd->port.pace_lock);
	KUNIT_EXPECT_EQ(test, cm_pace_req(a, msg, 100, 2), 0);
	KUNIT_EXPECT_EQ(test, cm_pace_req(b, msg, 100, 2), 0);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, out, 1);
	KUNIT_EXPECT_EQ(test, waiting, 2);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_TX_REQ_PACED) - paced, 2);
	KUNIT_EXPECT_NOT_NULL(test, a->paced_req);
	KUNIT_EXPECT_EQ(test, a->id.state, IB_CM_REQ_SENT);

	ib_destroy_cm_id(&b->id);		/* no hang */
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, waiting, 1);

	cm_pace_done(&fd->port);		/* the REQ out is answered */
	wait_events(test, ca, 1);
	cm_test_flush();
	KUNIT_EXPECT_EQ(test, ca->type[0], IB_CM_REQ_ERROR);
	KUNIT_EXPECT_EQ(test, a->id.state, IB_CM_IDLE);
	KUNIT_EXPECT_NULL(test, a->paced_req);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, out, 0);
	KUNIT_EXPECT_EQ(test, waiting, 0);
}

/*
 * The window changes while REQs wait: lowered to 0, a new REQ queues
 * behind them (never ahead) and all are sent; raised, the waiting ones are
 * sent at once, without an answer freeing a slot. An MRA or a REP for a
 * REQ still waiting (never sent) is dropped, the connect left waiting for
 * its own answer.
 */
static void ibcm_pace_window_change(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_add(test);
	struct rec_ctx *ca = rec_new(test), *cb = rec_new(test);
	struct rec_ctx *cc = rec_new(test);
	struct cm_id_priv *a = conn_id(test, fd, ca, true);
	struct cm_id_priv *b = conn_id(test, fd, cb, true);
	struct cm_id_priv *c = conn_id(test, fd, cc, true);
	void *old = (void *)(uintptr_t)READ_ONCE(cm_req_window);
	long bad = cm_counter_read(CM_CNT_RX_BAD_STATE);
	struct cm_msg *msg = new_msg(test), *in = new_msg(test);
	u8 *mad = new_mad(test);
	unsigned int out, waiting;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   restore_window,
							   old));
	msg->attr_id = CM_REQ_ATTR_ID;
	set_state(a, IB_CM_REQ_SENT);
	set_state(b, IB_CM_REQ_SENT);
	set_state(c, IB_CM_REQ_SENT);
	WRITE_ONCE(cm_req_window, 1);
	spin_lock(&fd->port.pace_lock);
	fd->port.req_inflight = 1;		/* one REQ out, never answered */
	spin_unlock(&fd->port.pace_lock);
	KUNIT_EXPECT_EQ(test, cm_pace_req(a, msg, 100, 2), 0);

	/* A stale MRA and a stale REP for a's unsent REQ: dropped. */
	case_mra(in);
	in->mra.msg_mraed = CM_MSG_REQ;
	in->mra.remote_comm_id = a->id.local_id;
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	case_rep(in);
	in->rep.remote_comm_id = a->id.local_id;
	cm_msg_build(mad, in);
	cm_recv_buf(&fd->port, NULL, mad, CM_MAD_SIZE);
	KUNIT_EXPECT_EQ(test, cm_counter_read(CM_CNT_RX_BAD_STATE), bad + 2);
	KUNIT_EXPECT_EQ(test, a->id.state, IB_CM_REQ_SENT);
	KUNIT_EXPECT_NOT_NULL(test, a->paced_req);

	/* Window 0: b waits behind a (sent at once it would fail here:
	 * no AH), then both go (and fail: REQ_ERROR).
	 */
	WRITE_ONCE(cm_req_window, 0);
	KUNIT_EXPECT_EQ(test, cm_pace_req(b, msg, 100, 2), 0);
	wait_events(test, ca, 1);
	wait_events(test, cb, 1);
	cm_test_flush();
	KUNIT_EXPECT_EQ(test, ca->type[0], IB_CM_REQ_ERROR);
	KUNIT_EXPECT_EQ(test, cb->type[0], IB_CM_REQ_ERROR);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, out, 1);
	KUNIT_EXPECT_EQ(test, waiting, 0);

	/* Window 1, full: c waits; raised to 2, c goes without an answer. */
	WRITE_ONCE(cm_req_window, 1);
	KUNIT_EXPECT_EQ(test, cm_pace_req(c, msg, 100, 2), 0);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, waiting, 1);
	WRITE_ONCE(cm_req_window, 2);
	cm_pace_window_changed();
	wait_events(test, cc, 1);
	cm_test_flush();
	KUNIT_EXPECT_EQ(test, cc->type[0], IB_CM_REQ_ERROR);
	cm_pace_read(&fd->port, &out, &waiting);
	KUNIT_EXPECT_EQ(test, out, 1);
	KUNIT_EXPECT_EQ(test, waiting, 0);
	spin_lock(&fd->port.pace_lock);
	fd->port.req_inflight = 0;
	spin_unlock(&fd->port.pace_lock);
}

static struct kunit_case ibcm_msg_cases[] = {
	KUNIT_CASE_PARAM(ibcm_msg_round_trip, rt_gen_params),
	KUNIT_CASE(ibcm_msg_req_fields),
	KUNIT_CASE(ibcm_msg_rep_fields),
	KUNIT_CASE_PARAM(ibcm_msg_malformed, bad_gen_params),
	KUNIT_CASE(ibcm_msg_null),
	KUNIT_CASE(ibcm_msg_lap_fields),
	KUNIT_CASE_PARAM(ibcm_ack_timeout, ack_gen_params),
	KUNIT_CASE(ibcm_path_from_alt),
	{}
};

static struct kunit_suite ibcm_msg_suite = {
	.name = "ib_cm_msg",
	.test_cases = ibcm_msg_cases,
};

static struct kunit_case ibcm_recv_cases[] = {
	KUNIT_CASE_PARAM(ibcm_recv_bad_input, inject_gen_params),
	KUNIT_CASE(ibcm_recv_rep_wrong_state),
	{}
};

static struct kunit_suite ibcm_recv_suite = {
	.name = "ib_cm_recv",
	.test_cases = ibcm_recv_cases,
};

static struct kunit_case ibcm_id_cases[] = {
	KUNIT_CASE(ibcm_create_no_cm_device),
	KUNIT_CASE(ibcm_listen),
	KUNIT_CASE(ibcm_insert_listen_shared),
	KUNIT_CASE(ibcm_idle_id_calls),
	KUNIT_CASE_PARAM(ibcm_service_match, svc_gen_params),
	KUNIT_CASE(ibcm_reject_msgs),
	KUNIT_CASE(ibcm_timeouts),
	{}
};

static struct kunit_case ibcm_conn_cases[] = {
	KUNIT_CASE(ibcm_qp_attr_rc),
	KUNIT_CASE(ibcm_qp_attr_uc),
	KUNIT_CASE(ibcm_alt_migrate),
	KUNIT_CASE(ibcm_mra_lap),
	KUNIT_CASE(ibcm_req_timeout),
	KUNIT_CASE(ibcm_dreq_timeout_timewait),
	KUNIT_CASE(ibcm_timewait_frees_remote_qp),
	KUNIT_CASE(ibcm_handler_destroys),
	KUNIT_CASE(ibcm_mra_delayed),
	KUNIT_CASE(ibcm_dup_rep_after_delayed_mra),
	KUNIT_CASE_PARAM(ibcm_recv_rej_whose, rej_gen_params),
	KUNIT_CASE(ibcm_notify_established),
	KUNIT_CASE(ibcm_destroy_waits_for_handler),
	KUNIT_CASE(ibcm_destroy_from_other_handler),
	KUNIT_CASE(ibcm_destroy_no_flush),
	KUNIT_CASE_PARAM(ibcm_path_from_req, path_gen_params),
	KUNIT_CASE(ibcm_dreq_sgid_gone),
	KUNIT_CASE(ibcm_waiting_dreq_sgid_gone),
	KUNIT_CASE(ibcm_gid_doomed),
	KUNIT_CASE(ibcm_netdev_down),
	KUNIT_CASE_PARAM(ibcm_send_done, done_gen_params),
	{}
};

static struct kunit_suite ibcm_conn_suite = {
	.name = "ib_cm_conn",
	.test_cases = ibcm_conn_cases,
};

static struct kunit_case ibcm_count_cases[] = {
	KUNIT_CASE_PARAM(ibcm_count_rx, rt_gen_params),
	KUNIT_CASE(ibcm_count_rx_unknown_attr),
	KUNIT_CASE_PARAM(ibcm_count_sent, sent_gen_params),
	KUNIT_CASE(ibcm_count_dup_dreq),
	KUNIT_CASE(ibcm_count_dup_rtu),
	KUNIT_CASE(ibcm_count_dup_rep),
	KUNIT_CASE(ibcm_count_dup_mra),
	KUNIT_CASE(ibcm_count_dup_req),
	KUNIT_CASE(ibcm_pace_req),
	KUNIT_CASE(ibcm_pace_window_change),
	{}
};

static struct kunit_suite ibcm_count_suite = {
	.name = "ib_cm_count",
	.test_cases = ibcm_count_cases,
};

static struct kunit_suite ibcm_id_suite = {
	.name = "ib_cm_id",
	.test_cases = ibcm_id_cases,
};

kunit_test_suites(&ibcm_msg_suite, &ibcm_recv_suite, &ibcm_id_suite,
		  &ibcm_conn_suite, &ibcm_count_suite);

MODULE_DESCRIPTION("KUnit tests of the openrdma-cm ib_cm");
MODULE_LICENSE("GPL");
