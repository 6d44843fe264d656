// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the IB/RoCE half of rdma_cm that need no device: the
 * rdma_cm header of REQ private data (encode, parse, malformed input),
 * service ids of port spaces, the RoCE path record, which listener
 * address takes a request, the SA path query of an IB route,
 * malformed requests on a listening cm_id (refused and counted), and AF_IB
 * addresses (port spaces of service ids, private data without a header,
 * the addresses of a request's new id).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_user_cm.h>

#include "rdma_cm/cma_priv.h"
#include "rdma_cm/ib.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static struct sockaddr_in cik_in4(const char *a, u16 port)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	s.sin_addr.s_addr = in_aton(a);
	return s;
}

static struct sockaddr_in6 cik_in6(u32 last, u16 port)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port) };

	s.sin6_addr.s6_addr32[0] = htonl(0xfd000198);
	s.sin6_addr.s6_addr32[3] = htonl(last);
	return s;
}

/* The wire layout: 36 bytes, version, IP version nibble, port, addrs. */
static void cik_hdr_ipv4(struct kunit *test)
{
	struct sockaddr_in src = cik_in4("198.18.2.1", 40000);
	struct sockaddr_in dst = cik_in4("198.18.2.7", 7000);
	struct sockaddr_storage local, remote;
	struct sockaddr_in *l4 = (void *)&local, *r4 = (void *)&remote;
	u8 buf[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};
	__be64 sid = cma_ib_service_id(RDMA_PS_TCP, htons(7000));

	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_encode((void *)buf,
						   (void *)&src, (void *)&dst));
	KUNIT_EXPECT_EQ(test, buf[0], 0);
	KUNIT_EXPECT_EQ(test, buf[1], 0x40);
	KUNIT_EXPECT_EQ(test, buf[2] << 8 | buf[3], 40000);
	KUNIT_EXPECT_EQ(test, buf[4 + 12], 198);
	KUNIT_EXPECT_EQ(test, buf[4 + 15], 1);
	KUNIT_EXPECT_EQ(test, buf[20 + 15], 7);
	KUNIT_EXPECT_EQ(test, buf[4], 0);

	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_parse(buf, sizeof(buf), sid,
						  &local, &remote));
	KUNIT_EXPECT_EQ(test, l4->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, l4->sin_addr.s_addr, dst.sin_addr.s_addr);
	KUNIT_EXPECT_EQ(test, ntohs(l4->sin_port), 7000);
	KUNIT_EXPECT_EQ(test, r4->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, r4->sin_addr.s_addr, src.sin_addr.s_addr);
	KUNIT_EXPECT_EQ(test, ntohs(r4->sin_port), 40000);
}

static void cik_hdr_ipv6(struct kunit *test)
{
	struct sockaddr_in6 src = cik_in6(1, 1234), dst = cik_in6(2, 18515);
	struct sockaddr_storage local, remote;
	struct sockaddr_in6 *l6 = (void *)&local, *r6 = (void *)&remote;
	u8 buf[CMA_IB_HDR_LEN];
	__be64 sid = cma_ib_service_id(RDMA_PS_UDP, htons(18515));

	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_encode((void *)buf,
						   (void *)&src, (void *)&dst));
	KUNIT_EXPECT_EQ(test, buf[1], 0x60);
	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_parse(buf, sizeof(buf), sid,
						  &local, &remote));
	KUNIT_EXPECT_EQ(test, l6->sin6_family, AF_INET6);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&l6->sin6_addr,
						&dst.sin6_addr));
	KUNIT_EXPECT_EQ(test, ntohs(l6->sin6_port), 18515);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&r6->sin6_addr,
						&src.sin6_addr));
	KUNIT_EXPECT_EQ(test, ntohs(r6->sin6_port), 1234);
}

/* Malformed headers are refused, never read past the data. */
static void cik_hdr_bad(struct kunit *test)
{
	struct sockaddr_in src = cik_in4("198.18.2.1", 1);
	struct sockaddr_in6 dst6 = cik_in6(2, 2);
	struct sockaddr_storage local, remote;
	struct sockaddr ib = { .sa_family = AF_IB };
	__be64 sid = cma_ib_service_id(RDMA_PS_TCP, htons(2));
	u8 buf[CMA_IB_HDR_LEN];

	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_encode((void *)buf,
							 (void *)&src,
							 (void *)&dst6));
	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT,
			cma_ib_hdr_encode((void *)buf, &ib, &ib));

	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_encode((void *)buf, (void *)&src,
						   (void *)&src));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_parse(buf,
							CMA_IB_HDR_LEN - 1,
							sid, &local, &remote));
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_parse(NULL, 92, sid,
							&local, &remote));
	buf[0] = 1;		/* unknown version */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_parse(buf, sizeof(buf), sid,
							&local, &remote));
	/* Version 0 without an IP version: an AF_IB id's request (in-tree). */
	buf[0] = 0;
	buf[1] = 0x50;		/* IP version 5 */
	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT,
			cma_ib_hdr_parse(buf, sizeof(buf), sid, &local,
					 &remote));
	buf[1] = 0;
	KUNIT_EXPECT_EQ(test, -EAFNOSUPPORT,
			cma_ib_hdr_parse(buf, sizeof(buf), sid, &local,
					 &remote));
}

/* Service id = port space << 16 | port, and back. */
static void cik_service_id(struct kunit *test)
{
	__be64 sid = cma_ib_service_id(RDMA_PS_TCP, htons(7174));

	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid), 0x01061c06ULL);
	KUNIT_EXPECT_EQ(test, cma_ib_sid_ps(sid), RDMA_PS_TCP);
	KUNIT_EXPECT_EQ(test, ntohs(cma_ib_sid_port(sid)), 7174);
	sid = cma_ib_service_id(RDMA_PS_UDP, htons(65535));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid), 0x0111ffffULL);
	KUNIT_EXPECT_EQ(test, cma_ib_sid_ps(sid), RDMA_PS_UDP);
	sid = cma_ib_service_id(RDMA_PS_IPOIB, 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid), 0x00020000ULL);
}

static struct cma_roce_path_in cik_path_in(enum ib_gid_type type)
{
	struct cma_roce_path_in in = {
		.gid_type = type,
		.dmac = { 0x02, 0, 0, 0, 0, 0x42 },
		.hop_limit = 64,
		.tos = 0xa0,
		.sl = 5,
		.netdev_mtu = 1500,
		.packet_life_time = CMA_ROCE_PACKET_LIFETIME,
	};

	in.sgid.raw[15] = 1;
	in.dgid.raw[15] = 2;
	return in;
}

static void cik_path_v2(struct kunit *test)
{
	struct cma_roce_path_in in = cik_path_in(IB_GID_TYPE_ROCE_UDP_ENCAP);
	struct sa_path_rec rec;

	KUNIT_ASSERT_EQ(test, 0, cma_roce_fill_path(&rec, &in));
	KUNIT_EXPECT_EQ(test, rec.rec_type, SA_PATH_REC_TYPE_ROCE_V2);
	KUNIT_EXPECT_EQ(test, rec.sgid.raw[15], 1);
	KUNIT_EXPECT_EQ(test, rec.dgid.raw[15], 2);
	KUNIT_EXPECT_EQ(test, rec.traffic_class, 0xa0);
	KUNIT_EXPECT_EQ(test, rec.sl, 5);
	KUNIT_EXPECT_EQ(test, rec.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, rec.mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, rec.packet_life_time, CMA_ROCE_PACKET_LIFETIME);
	KUNIT_EXPECT_TRUE(test, rec.roce.route_resolved);
	KUNIT_EXPECT_EQ(test, 0, memcmp(sa_path_get_dmac(&rec), in.dmac,
					ETH_ALEN));
	KUNIT_EXPECT_TRUE(test, sa_path_is_roce(&rec));
}

static void cik_path_v1_mtu(struct kunit *test)
{
	struct cma_roce_path_in in = cik_path_in(IB_GID_TYPE_ROCE);
	struct sa_path_rec rec;

	in.netdev_mtu = 9000;
	in.tos = 0;
	in.sl = 0;
	KUNIT_ASSERT_EQ(test, 0, cma_roce_fill_path(&rec, &in));
	KUNIT_EXPECT_EQ(test, rec.rec_type, SA_PATH_REC_TYPE_ROCE_V1);
	KUNIT_EXPECT_EQ(test, rec.mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, rec.sl, 0);
	/* Too small for any IB MTU: refused. */
	in.netdev_mtu = 200;
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_roce_fill_path(&rec, &in));
}

/* Which listener address takes a request for a local address. */
static void cik_listen_match(struct kunit *test)
{
	struct sockaddr_in any4 = cik_in4("0.0.0.0", 7000);
	struct sockaddr_in a = cik_in4("198.18.2.1", 7000);
	struct sockaddr_in b = cik_in4("198.18.2.2", 7000);
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in6 x6 = cik_in6(1, 7000), y6 = cik_in6(2, 7000);
	struct sockaddr ib = { .sa_family = AF_IB };

	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match((void *)&any4, 1, (void *)&a));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&any4, 0, (void *)&x6));
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match((void *)&a, 1, (void *)&a));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&a, 1, (void *)&b));
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match((void *)&any6, 1, (void *)&x6));
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match((void *)&any6, 0, (void *)&a));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&any6, 1, (void *)&a));
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match((void *)&x6, 0, (void *)&x6));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&x6, 0, (void *)&y6));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&x6, 0, (void *)&a));
	/* As in-tree: AF_IB listeners take any request, IP ones no AF_IB. */
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match(&ib, 1, (void *)&a));
	KUNIT_EXPECT_TRUE(test, cma_ib_listen_match(&ib, 0, &ib));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&any4, 0, &ib));
	KUNIT_EXPECT_FALSE(test, cma_ib_listen_match((void *)&any6, 0, &ib));
}

/* The SA path query of an IPoIB-resolved address. */
static void cik_sa_query(struct kunit *test)
{
	struct rdma_dev_addr dev_addr = { .dev_type = ARPHRD_INFINIBAND };
	__be64 sid = cma_ib_service_id(RDMA_PS_TCP, htons(7000));
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;

	/* 4 bytes of flags and QPN, then the GID (ARP over IPoIB). */
	dev_addr.src_dev_addr[4] = 0xfe;
	dev_addr.src_dev_addr[19] = 1;
	dev_addr.dst_dev_addr[4] = 0xfe;
	dev_addr.dst_dev_addr[19] = 2;
	ib_addr_set_pkey(&dev_addr, 0x8001);

	cma_ib_path_query(&rec, &mask, &dev_addr, sid, false, 0);
	KUNIT_EXPECT_EQ(test, rec.rec_type, SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, rec.sgid.raw[0], 0xfe);
	KUNIT_EXPECT_EQ(test, rec.sgid.raw[15], 1);
	KUNIT_EXPECT_EQ(test, rec.dgid.raw[15], 2);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, rec.numb_path, 1);
	KUNIT_EXPECT_EQ(test, rec.reversible, 1);
	KUNIT_EXPECT_EQ(test, rec.service_id, sid);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_DGID);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_SGID);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_PKEY);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_NUMB_PATH);
	KUNIT_EXPECT_FALSE(test, mask & IB_SA_PATH_REC_TRAFFIC_CLASS);

	cma_ib_path_query(&rec, &mask, &dev_addr, sid, true, 0x28);
	KUNIT_EXPECT_EQ(test, rec.traffic_class, 0x28);
	KUNIT_EXPECT_TRUE(test, mask & IB_SA_PATH_REC_TRAFFIC_CLASS);
}

/*
 * Malformed requests on a listening cm_id are refused (non-zero, so ib_cm
 * destroys the request's cm_id) and counted, before any lookup: a REQ
 * without private data, with a short or unknown rdma_cm header, without a
 * primary path, on a bad port; a SIDR_REQ with a bad header.
 */
static void cik_bad_requests(struct kunit *test)
{
	struct sockaddr_in a = cik_in4("198.18.2.1", 7000);
	struct sa_path_rec path = {};
	struct ib_cm_event ev = {};
	struct ib_device *dev;
	struct ib_cm_id cm_id = {};
	u8 pd[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE] = {};
	long before = cma_ib_req_dropped_count();

	/* Only the port count and node type are read before the drop. */
	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->phys_port_cnt = 1;
	dev->node_type = RDMA_NODE_IB_CA;
	cm_id.device = dev;
	cm_id.service_id = cma_ib_service_id(RDMA_PS_TCP, htons(7000));

	ev.event = IB_CM_REQ_RECEIVED;
	ev.param.req_rcvd.port = 1;
	ev.param.req_rcvd.primary_path = &path;
	ev.private_data = NULL;				/* no data */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));
	/* Version 0, IP 0: an AF_IB request, refused: no AF_IB listener. */
	ev.private_data = pd;
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));
	KUNIT_ASSERT_EQ(test, 0, cma_ib_hdr_encode((void *)pd, (void *)&a,
						   (void *)&a));
	pd[0] = 7;					/* unknown version */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));
	pd[0] = 0;
	ev.param.req_rcvd.primary_path = NULL;		/* no path */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));
	ev.param.req_rcvd.primary_path = &path;
	ev.param.req_rcvd.port = 9;			/* no such port */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));

	memset(&ev, 0, sizeof(ev));
	ev.event = IB_CM_SIDR_REQ_RECEIVED;
	ev.param.sidr_req_rcvd.port = 1;
	ev.param.sidr_req_rcvd.service_id = cm_id.service_id;
	ev.private_data = pd;
	pd[0] = 3;					/* unknown version */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));

	/* Malformed ones only: an AF_IB request is no malformed one. */
	KUNIT_EXPECT_EQ(test, cma_ib_req_dropped_count() - before, 5);
	/* Other events on a listening cm_id are ignored. */
	ev.event = IB_CM_TIMEWAIT_EXIT;
	KUNIT_EXPECT_EQ(test, 0, cma_ib_listen_handler(&cm_id, &ev));
}

/*
 * AF_IB service ids: the port space a bind takes and the service id and
 * mask it leaves. The expectations are what the in-tree CM answered to
 * rdma_bind_addr() through librdmacm (tests/e2e/softib-afib.bash, the
 * "check" lines of the stock VM); the first is librdmacm's AF_IB probe.
 */
struct cik_ps_case {
	const char			*name;
	enum rdma_ucm_port_space	id_ps;
	u64				sid, mask;
	enum rdma_ucm_port_space	want_ps;	/* 0: refused */
	u64				want_sid, want_mask;
};

static const struct cik_ps_case cik_ps_cases[] = {
	{ "probe", RDMA_PS_IB, RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK,
	  RDMA_PS_TCP, RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK },
	{ "ib-any-mask0", RDMA_PS_IB, 0, 0,
	  RDMA_PS_IB, RDMA_IB_IP_PS_IB, RDMA_IB_IP_PS_MASK },
	{ "tcp-any-mask0", RDMA_PS_TCP, 0, 0,
	  RDMA_PS_TCP, RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK },
	{ "udp-any-mask0", RDMA_PS_UDP, 0, 0,
	  RDMA_PS_UDP, RDMA_IB_IP_PS_UDP, RDMA_IB_IP_PS_MASK },
	{ "udp-sid-udp", RDMA_PS_UDP, RDMA_IB_IP_PS_UDP | 5000, U64_MAX,
	  RDMA_PS_UDP, RDMA_IB_IP_PS_UDP | 5000, U64_MAX },
	{ "ib-sid-udp", RDMA_PS_IB, RDMA_IB_IP_PS_UDP | 7, U64_MAX,
	  RDMA_PS_UDP, RDMA_IB_IP_PS_UDP | 7, U64_MAX },
	{ "tcp-sid-ib", RDMA_PS_TCP, RDMA_IB_IP_PS_IB | 5000, U64_MAX,
	  0, RDMA_IB_IP_PS_IB | 5000, U64_MAX },
	{ "udp-sid-tcp", RDMA_PS_UDP, RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK,
	  0, RDMA_IB_IP_PS_TCP, RDMA_IB_IP_PS_MASK },
	{ "ipoib-sid-ib", RDMA_PS_IPOIB, RDMA_IB_IP_PS_IB, RDMA_IB_IP_PS_MASK,
	  0, RDMA_IB_IP_PS_IB, RDMA_IB_IP_PS_MASK },
	{ "ib-sid-other", RDMA_PS_IB, 0x2000000ULL, RDMA_IB_IP_PS_MASK,
	  0, 0x2000000ULL, RDMA_IB_IP_PS_MASK },
	{ "ib-port-low", RDMA_PS_IB, RDMA_IB_IP_PS_IB | 0x1234, 0xffff,
	  RDMA_PS_IB, RDMA_IB_IP_PS_IB | 0x1234, U64_MAX },
	/* Unmasked port bits are no port; unmasked prefix bits are cleared. */
	{ "ib-port-unmasked", RDMA_PS_IB, 0xabcd0000000000ffULL, 0xff00,
	  RDMA_PS_IB, RDMA_IB_IP_PS_IB, RDMA_IB_IP_PS_MASK | 0xff00 },
};

static void cik_ps_desc(const struct cik_ps_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cik_ps, cik_ps_cases, cik_ps_desc);

static void cik_afib_select_ps(struct kunit *test)
{
	const struct cik_ps_case *c = test->param_value;
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_sid = cpu_to_be64(c->sid),
		.sib_sid_mask = cpu_to_be64(c->mask),
	};

	KUNIT_EXPECT_EQ(test, cma_afib_select_ps(c->id_ps, &sib), c->want_ps);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib.sib_sid), c->want_sid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib.sib_sid_mask), c->want_mask);
	/* Selecting again changes nothing (bind selects before and after). */
	if (c->want_ps) {
		KUNIT_EXPECT_EQ(test, cma_afib_select_ps(c->id_ps, &sib),
				c->want_ps);
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib.sib_sid), c->want_sid);
	}
	/* The port rdma_cm reads from it is the service id's low bits. */
	KUNIT_EXPECT_EQ(test, ntohs(cma_port((struct sockaddr *)&sib)),
			(u16)(c->want_sid & c->want_mask));
}

/* A fake id bound to @family, for the helpers that only read addresses. */
static struct rdma_id_private *cik_id(struct kunit *test, sa_family_t family)
{
	struct rdma_id_private *id_priv;

	id_priv = kunit_kzalloc(test, sizeof(*id_priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id_priv);
	id_priv->id.route.addr.src_addr.ss_family = family;
	id_priv->id.route.addr.dst_addr.ss_family = family;
	return id_priv;
}

/*
 * AF_IB request private data: no rdma_cm header, so the consumer's 92
 * bytes; as in-tree (tests/e2e/softib-afib.bash: the listener of the
 * stock VM saw 00 02 03 ... for 01 02 03 ...) its first byte goes out as
 * the header version, 0; none at all without data. An IP id's has the
 * 36-byte header first.
 */
static void cik_afib_pdata(struct kunit *test)
{
	struct rdma_id_private *ib = cik_id(test, AF_IB);
	struct rdma_id_private *ip = cik_id(test, AF_INET);
	struct rdma_conn_param cp = {};
	u8 data[92], *pd;
	u8 len;
	int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i + 1;
	cp.private_data = data;
	cp.private_data_len = sizeof(data);
	KUNIT_EXPECT_EQ(test, cma_ib_hdr_len(ib), 0);
	KUNIT_EXPECT_EQ(test, cma_ib_hdr_len(ip), CMA_IB_HDR_LEN);

	pd = cma_ib_req_pdata(ib, &cp, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(pd));
	KUNIT_EXPECT_EQ(test, len, sizeof(data));
	KUNIT_EXPECT_EQ(test, pd[0], 0);
	KUNIT_EXPECT_EQ(test, 0, memcmp(pd + 1, data + 1, sizeof(data) - 1));
	kfree(pd);

	cp.private_data_len = 0;
	pd = cma_ib_req_pdata(ib, &cp, &len);
	KUNIT_EXPECT_NULL(test, pd);
	KUNIT_EXPECT_EQ(test, len, 0);

	cp.private_data_len = 4;
	((struct sockaddr_in *)cma_src_addr(ip))->sin_port = htons(7000);
	pd = cma_ib_req_pdata(ip, &cp, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(pd));
	KUNIT_EXPECT_EQ(test, len, CMA_IB_HDR_LEN + 4);
	KUNIT_EXPECT_EQ(test, pd[1], 0x40);
	KUNIT_EXPECT_EQ(test, 0, memcmp(pd + CMA_IB_HDR_LEN, data, 4));
	kfree(pd);
}

/*
 * The addresses of an AF_IB request's new id, as the stock VM's rdma_ucm
 * QUERY reported them (tests/e2e/softib-afib.bash, "request src/dst"):
 * ours from the REQ's path (its SGID is ours), a full mask; the peer's
 * GID, P_Key and flow label without a service id. A SIDR_REQ's: the
 * listener's own address and an unspecified peer.
 */
static void cik_afib_req_addrs(struct kunit *test)
{
	struct rdma_id_private *conn = cik_id(test, 0);
	struct sockaddr_ib listen = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0x8001),
		.sib_flowinfo = htonl(0x12345),
		.sib_sid = cpu_to_be64(RDMA_IB_IP_PS_IB | 0x4321),
		.sib_sid_mask = cpu_to_be64(0xffff),
		.sib_scope_id = 3,
	};
	struct sa_path_rec path = {
		.pkey = htons(0xffff),
		.flow_label = htonl(0x2a),
		.service_id = cpu_to_be64(RDMA_IB_IP_PS_IB | 0x4321),
	};
	struct sockaddr_ib *src = (void *)cma_src_addr(conn);
	struct sockaddr_ib *dst = (void *)cma_dst_addr(conn);

	path.sgid.raw[0] = 0xfe;
	path.sgid.raw[15] = 2;
	path.dgid.raw[0] = 0xfe;
	path.dgid.raw[15] = 1;
	listen.sib_addr.sib_raw[15] = 9;

	cma_afib_req_addrs(conn, &listen, &path);
	KUNIT_EXPECT_EQ(test, src->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, ntohs(src->sib_pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, ntohl(src->sib_flowinfo), 0x2a);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&src->sib_addr, &path.sgid, 16));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(src->sib_sid),
			RDMA_IB_IP_PS_IB | 0x4321);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(src->sib_sid_mask), U64_MAX);
	KUNIT_EXPECT_EQ(test, src->sib_scope_id, 0);
	KUNIT_EXPECT_EQ(test, dst->sib_family, AF_IB);
	KUNIT_EXPECT_EQ(test, ntohs(dst->sib_pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, ntohl(dst->sib_flowinfo), 0x2a);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&dst->sib_addr, &path.dgid, 16));
	KUNIT_EXPECT_EQ(test, dst->sib_sid, 0);
	KUNIT_EXPECT_EQ(test, dst->sib_sid_mask, 0);

	cma_afib_req_addrs(conn, &listen, NULL);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&src->sib_addr, &listen.sib_addr, 16));
	KUNIT_EXPECT_EQ(test, src->sib_pkey, listen.sib_pkey);
	KUNIT_EXPECT_EQ(test, src->sib_flowinfo, listen.sib_flowinfo);
	KUNIT_EXPECT_EQ(test, src->sib_sid, listen.sib_sid);
	KUNIT_EXPECT_EQ(test, src->sib_scope_id, 3);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(src->sib_sid_mask), U64_MAX);
	KUNIT_EXPECT_EQ(test, dst->sib_family, AF_IB);
	KUNIT_EXPECT_TRUE(test, cma_any_addr((struct sockaddr *)dst));
}

/* A source sockaddr_ib as a device address: IB link, GID, P_Key. */
static void cik_afib_translate(struct kunit *test)
{
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_pkey = htons(0x8001),
	};
	struct rdma_dev_addr dev_addr = {};
	union ib_gid gid;

	sib.sib_addr.sib_raw[0] = 0xfe;
	sib.sib_addr.sib_raw[15] = 7;
	cma_afib_translate(&sib, &dev_addr);
	KUNIT_EXPECT_EQ(test, dev_addr.dev_type, ARPHRD_INFINIBAND);
	rdma_addr_get_sgid(&dev_addr, &gid);
	KUNIT_EXPECT_EQ(test, 0, memcmp(&gid, &sib.sib_addr, 16));
	KUNIT_EXPECT_EQ(test, ib_addr_get_pkey(&dev_addr), 0x8001);
}

static struct kunit_case cma_ib_cases[] = {
	KUNIT_CASE(cik_hdr_ipv4),
	KUNIT_CASE(cik_hdr_ipv6),
	KUNIT_CASE(cik_hdr_bad),
	KUNIT_CASE(cik_service_id),
	KUNIT_CASE(cik_path_v2),
	KUNIT_CASE(cik_path_v1_mtu),
	KUNIT_CASE(cik_listen_match),
	KUNIT_CASE(cik_sa_query),
	KUNIT_CASE(cik_bad_requests),
	KUNIT_CASE_PARAM(cik_afib_select_ps, cik_ps_gen_params),
	KUNIT_CASE(cik_afib_pdata),
	KUNIT_CASE(cik_afib_req_addrs),
	KUNIT_CASE(cik_afib_translate),
	{}
};

static struct kunit_suite cma_ib_suite = {
	.name = "rdma_cm_ib",
	.test_cases = cma_ib_cases,
};

kunit_test_suite(cma_ib_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm's IB/RoCE header, routes and matching");
MODULE_LICENSE("GPL");
