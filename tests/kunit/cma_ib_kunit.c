// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the IB/RoCE half of rdma_cm that need no device: the
 * rdma_cm header of REQ private data (encode, parse, malformed input),
 * service ids of port spaces, the RoCE path record, which listener
 * address takes a request, the SA path query of an IB route, and
 * malformed requests on a listening cm_id (refused and counted).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
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
	buf[0] = 0;
	buf[1] = 0x50;		/* IP version 5 */
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_parse(buf, sizeof(buf), sid,
							&local, &remote));
	buf[1] = 0;
	KUNIT_EXPECT_EQ(test, -EINVAL, cma_ib_hdr_parse(buf, sizeof(buf), sid,
							&local, &remote));
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
	ev.private_data = pd;				/* version 0, IP 0 */
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
	pd[1] = 0x50;					/* IP version 5 */
	KUNIT_EXPECT_NE(test, 0, cma_ib_listen_handler(&cm_id, &ev));

	KUNIT_EXPECT_EQ(test, cma_ib_req_dropped_count() - before, 6);
	/* Other events on a listening cm_id are ignored. */
	ev.event = IB_CM_TIMEWAIT_EXIT;
	KUNIT_EXPECT_EQ(test, 0, cma_ib_listen_handler(&cm_id, &ev));
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
	{}
};

static struct kunit_suite cma_ib_suite = {
	.name = "rdma_cm_ib",
	.test_cases = cma_ib_cases,
};

kunit_test_suite(cma_ib_suite);

MODULE_DESCRIPTION("KUnit tests of rdma_cm's IB/RoCE header, routes and matching");
MODULE_LICENSE("GPL");
