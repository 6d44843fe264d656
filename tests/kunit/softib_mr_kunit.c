// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for softib's fast-registration MRs (drivers/softib/mr.c,
 * issue 42): an MR of a real softib device (on a netdev of this module's)
 * mapped with ib_map_mr_sg() at 4 KiB, 8 KiB, 64 KiB, 128 KiB and 2 MiB
 * pages, over scatterlists of chunks of several pages (one page at 2 MiB,
 * the most a buddy allocation aligns), with the first entry starting inside
 * a page and the last ending inside one, with an sg_offset past the first
 * page, and with a misaligned middle entry (only the entries before it are
 * mapped). Each MR is registered as REG_MR does (rvt_fast_reg_mr()), then:
 *
 *  - its segments are walked as rvt_copy_sge() walks them, and every step
 *    must land on the buffer's own bytes (before any byte moves: a wrong
 *    map would otherwise write wild);
 *  - an RDMA WRITE of its whole length goes through softib's receive path
 *    (softib_rc_rcv() on a mock RC QP, path MTU 4096) and every byte of
 *    every entry, the last of each included, must be the payload's;
 *  - an RDMA READ request through the same path, then its responses built
 *    as rc.c builds them (rvt_skip_sge() to the packet's offset, then the
 *    segment walk of softib_pkt_build()), must read back what the buffer
 *    holds;
 *  - a WRITE one byte past its end, one byte before it, a WRITE FIRST whose
 *    DMA length is one byte too long and a READ past its end are refused
 *    (NAK remote access error), and no byte outside the mapped data moves.
 *
 * And the page sizes softib advertises, and the ones it refuses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_pack.h>
#include <rdma/rdmavt_mr.h>

#include "drivers/softib/softib.h"
#include "drivers/softib/wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define SIBMR_PEER	7
#define SIBMR_QPN	5
#define SIBMR_PSN	0x100
#define SIBMR_PMTU	4096
#define SIBMR_CHUNKS	3
#define SIBMR_MAX_SG	512	/* max_fast_reg_page_list_len */
#define SIBMR_SENTINEL	0x5a
#define SIBMR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* ---- one softib device for the suite ------------------------------------- */

static struct net_device *sibmr_ndev;
static struct ib_device *sibmr_ibdev;
static struct ib_pd *sibmr_pd;

static netdev_tx_t sibmr_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops sibmr_ndo = {
	.ndo_start_xmit = sibmr_xmit,
};

static void sibmr_suite_exit(struct kunit_suite *suite)
{
	if (sibmr_pd)
		ib_dealloc_pd(sibmr_pd);
	sibmr_pd = NULL;
	if (sibmr_ibdev) {
		ib_unregister_device(sibmr_ibdev);
		put_device(&sibmr_ibdev->dev);
	}
	sibmr_ibdev = NULL;
	if (sibmr_ndev) {
		unregister_netdev(sibmr_ndev);
		free_netdev(sibmr_ndev);
	}
	sibmr_ndev = NULL;
}

static int sibmr_suite_init(struct kunit_suite *suite)
{
	struct softib_dev *sdev;
	int ret;

	sibmr_ndev = alloc_etherdev(0);
	if (!sibmr_ndev)
		return -ENOMEM;
	sibmr_ndev->netdev_ops = &sibmr_ndo;
	eth_hw_addr_random(sibmr_ndev);
	strscpy(sibmr_ndev->name, "sibmr%d", IFNAMSIZ);
	ret = register_netdev(sibmr_ndev);
	if (ret) {
		free_netdev(sibmr_ndev);
		sibmr_ndev = NULL;
		return ret;
	}
	ret = softib_newlink("sibmr_kunit", sibmr_ndev);
	if (ret)
		goto out;
	rcu_read_lock();
	sdev = softib_find_rcu(sibmr_ndev);
	if (sdev) {
		sibmr_ibdev = &sdev->rdi.ibdev;
		get_device(&sibmr_ibdev->dev);
	}
	rcu_read_unlock();
	ret = -ENODEV;
	if (!sibmr_ibdev)
		goto out;
	sibmr_pd = ib_alloc_pd(sibmr_ibdev, 0);
	if (IS_ERR(sibmr_pd)) {
		ret = PTR_ERR(sibmr_pd);
		sibmr_pd = NULL;
		goto out;
	}
	return 0;
out:
	sibmr_suite_exit(suite);
	return ret;
}

/* ---- a test's MR, buffers and mock QP -------------------------------------- */

struct sibmr_chunk {
	u8 *alloc;		/* alloc_pages_exact(), SIBMR_SENTINEL */
	size_t alloc_len;
	u8 *base;		/* aligned to the page size */
};

struct sibmr_span {		/* bytes of the buffer, in the MR's order */
	u8 *start;
	u32 len;
};

struct sibmr {
	struct kunit *test;
	struct rvt_qp *qp;
	struct softib_qp_priv *priv;
	struct softib_port *port;
	struct sibmr_chunk c[SIBMR_CHUNKS];
	struct scatterlist sg[SIBMR_CHUNKS];
	bool sg_mapped;
	struct ib_mr *mr;
	/* what the MR should cover: d[0..nd), total bytes from iova */
	struct sibmr_span d[SIBMR_CHUNKS];
	int nd;
	u32 total;
	u64 iova;
	u8 *pkt;
};

static void sibmr_noop_work(struct work_struct *work)
{
}

static void sibmr_free(void *data)
{
	struct sibmr *t = data;
	int i;

	if (t->mr)
		KUNIT_EXPECT_EQ(t->test, ib_dereg_mr(t->mr), 0);
	if (t->sg_mapped)
		ib_dma_unmap_sg(sibmr_ibdev, t->sg, SIBMR_CHUNKS,
				DMA_BIDIRECTIONAL);
	for (i = 0; i < SIBMR_CHUNKS; i++)
		if (t->c[i].alloc)
			free_pages_exact(t->c[i].alloc, t->c[i].alloc_len);
}

static struct sibmr *sibmr_new(struct kunit *test)
{
	struct rvt_dev_info *rdi;
	struct sibmr *t;
	struct rvt_qp *qp;

	KUNIT_ASSERT_NOT_NULL(test, sibmr_pd);
	rdi = ib_to_rvt(sibmr_ibdev);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sibmr_free, t),
			0);
	t->pkt = kunit_kzalloc(test, SIBMR_PMTU + 128, GFP_KERNEL);
	t->qp = kunit_kzalloc(test, sizeof(*t->qp), GFP_KERNEL);
	t->priv = kunit_kzalloc(test, sizeof(*t->priv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->pkt);
	KUNIT_ASSERT_NOT_NULL(test, t->qp);
	KUNIT_ASSERT_NOT_NULL(test, t->priv);
	t->port = &rdi_to_sdev(rdi)->port;

	/* An RC QP in RTS on the device, as softib_rc_kunit.c's. */
	qp = t->qp;
	qp->s_ack_queue = kunit_kcalloc(test, rvt_max_atomic(rdi),
					sizeof(*qp->s_ack_queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->s_ack_queue);
	spin_lock_init(&qp->r_lock);
	spin_lock_init(&qp->s_lock);
	qp->ibqp.device = sibmr_ibdev;
	qp->ibqp.pd = sibmr_pd;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.qp_num = SIBMR_QPN;
	qp->state = IB_QPS_RTS;
	qp->remote_qpn = 9;
	qp->remote_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&qp->remote_ah_attr, SIBMR_PEER);
	qp->pmtu = SIBMR_PMTU;
	qp->log_pmtu = ilog2(SIBMR_PMTU);
	qp->r_psn = SIBMR_PSN;
	qp->r_state = IB_OPCODE_RC_SEND_LAST;
	qp->qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	qp->priv = t->priv;
	t->priv->qp = qp;
	INIT_WORK(&t->priv->send_work, sibmr_noop_work);
	softib_qp_events_init(t->priv);
	return t;
}

static void sibmr_alloc_mr(struct kunit *test, struct sibmr *t, u32 max_sg)
{
	t->mr = ib_alloc_mr(sibmr_pd, IB_MR_TYPE_MEM_REG, max_sg);
	if (IS_ERR(t->mr)) {
		long err = PTR_ERR(t->mr);

		t->mr = NULL;
		KUNIT_FAIL_AND_ABORT(test, "ib_alloc_mr: %ld", err);
	}
}

/* SIBMR_CHUNKS chunks of len bytes, each at an address aligned to align. */
static void sibmr_alloc_chunks(struct kunit *test, struct sibmr *t, u32 len,
			       u32 align)
{
	int i;

	for (i = 0; i < SIBMR_CHUNKS; i++) {
		struct sibmr_chunk *c = &t->c[i];

		c->alloc_len = PAGE_ALIGN(len + align);
		c->alloc = alloc_pages_exact(c->alloc_len,
					     GFP_KERNEL | __GFP_NOWARN);
		KUNIT_ASSERT_NOT_NULL_MSG(test, c->alloc, "%zu bytes",
					  c->alloc_len);
		memset(c->alloc, SIBMR_SENTINEL, c->alloc_len);
		c->base = PTR_ALIGN(c->alloc, align);
	}
}

/* The scatterlist of the entries (start, len), DMA-mapped. */
static void sibmr_sg(struct kunit *test, struct sibmr *t,
		     const struct sibmr_span *e)
{
	int i;

	sg_init_table(t->sg, SIBMR_CHUNKS);
	for (i = 0; i < SIBMR_CHUNKS; i++)
		sg_set_buf(&t->sg[i], e[i].start, e[i].len);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(sibmr_ibdev, t->sg, SIBMR_CHUNKS,
					    DMA_BIDIRECTIONAL), SIBMR_CHUNKS);
	t->sg_mapped = true;
}

/* What the MR must cover: entries [0, n) of e, the first from sgoff on. */
static void sibmr_expect(struct sibmr *t, const struct sibmr_span *e, int n,
			 u32 sgoff)
{
	int i;

	t->nd = n;
	t->total = 0;
	for (i = 0; i < n; i++) {
		t->d[i] = e[i];
		if (!i) {
			t->d[i].start += sgoff;
			t->d[i].len -= sgoff;
		}
		t->total += t->d[i].len;
	}
	t->iova = (uintptr_t)t->d[0].start;
}

/* The buffer's byte at offset x of the MR. */
static u8 *sibmr_addr(struct sibmr *t, u32 x)
{
	int i;

	for (i = 0; i < t->nd; i++) {
		if (x < t->d[i].len)
			return t->d[i].start + x;
		x -= t->d[i].len;
	}
	return NULL;
}

static u8 sibmr_byte(u32 x, u32 seed)
{
	return hash_32(x ^ seed, 8);
}

/* REG_MR's part: rdmavt's rvt_fast_reg_mr() on our QP. */
static void sibmr_reg(struct kunit *test, struct sibmr *t)
{
	KUNIT_ASSERT_EQ(test, rvt_fast_reg_mr(t->qp, t->mr, t->mr->rkey,
					      SIBMR_ACCESS), 0);
}

/*
 * Walk the MR from its iova as rvt_copy_sge() would, moving no byte: each
 * step must be the buffer's bytes at that offset. False at the first that
 * is not (so that a wrong map is never written through).
 */
static bool sibmr_walk(struct kunit *test, struct sibmr *t)
{
	struct rvt_sge_state ss = { .num_sge = 1, .total_len = t->total };
	struct rvt_mregion *mr;
	bool ok = true;
	u32 x = 0;

	if (!rvt_rkey_ok(t->qp, &ss.sge, t->total, t->iova, t->mr->rkey,
			 IB_ACCESS_REMOTE_WRITE)) {
		KUNIT_FAIL(test, "rvt_rkey_ok refuses the MR's own %u bytes",
			   t->total);
		return false;
	}
	mr = ss.sge.mr;
	while (x < t->total) {
		u32 n = rvt_get_sge_length(&ss.sge, t->total - x);
		u8 *want = sibmr_addr(t, x);

		if (!n || (u8 *)ss.sge.vaddr != want ||
		    sibmr_addr(t, x + n - 1) != want + n - 1) {
			KUNIT_FAIL(test,
				   "MR byte %u: a segment of %u bytes at %+ld from the buffer's byte",
				   x, n, (long)((u8 *)ss.sge.vaddr - want));
			ok = false;
			break;
		}
		rvt_update_sge(&ss, n, false);
		x += n;
	}
	rvt_put_mr(mr);
	return ok;
}

/* ---- packets through softib's receive path -------------------------------- */

static struct softib_hdr sibmr_hdr(struct sibmr *t, u8 opcode, u32 psn,
				   u32 len)
{
	struct softib_hdr h = {
		.lnh = SOFTIB_LNH_LOCAL, .dlid = 3, .slid = SIBMR_PEER,
		.opcode = opcode, .pkey = 0xffff, .dqpn = SIBMR_QPN,
		.psn = psn, .ackreq = true,
	};

	h.hdr_len = softib_hdr_len(&h);
	h.payload_len = len;
	return h;
}

static void sibmr_rx(struct sibmr *t, const struct softib_hdr *h)
{
	local_bh_disable();
	rcu_read_lock();
	softib_rc_rcv(t->port, t->qp, h, t->pkt);
	rcu_read_unlock();
	local_bh_enable();
}

static void sibmr_drops(struct sibmr *t, u64 *c)
{
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		c[i] = softib_drop_count(t->port, i);
}

/* Since before: exactly one drop for why, or none (SOFTIB_DROP_NR). */
static void sibmr_expect_drops(struct kunit *test, struct sibmr *t,
			       const u64 *before, enum softib_drop why)
{
	int i;

	flush_workqueue(rdi_to_sdev(ib_to_rvt(sibmr_ibdev))->wq);
	for (i = 0; i < SOFTIB_DROP_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, softib_drop_count(t->port, i) -
				    before[i], (u64)(i == why),
				    "drop reason %d (expected %d)", i, why);
}

/* Every byte the MR covers is sibmr_byte(offset, seed). */
static void sibmr_check(struct kunit *test, struct sibmr *t, u32 seed,
			const char *what)
{
	u32 x = 0, bad = 0, first = 0, j;
	int i;

	for (i = 0; i < t->nd; i++) {
		const struct sibmr_span *d = &t->d[i];

		for (j = 0; j < d->len; j++) {
			if (d->start[j] == sibmr_byte(x + j, seed))
				continue;
			if (!bad++)
				first = x + j;
		}
		KUNIT_EXPECT_EQ_MSG(test, d->start[d->len - 1],
				    sibmr_byte(x + d->len - 1, seed),
				    "%s: the last byte of entry %d", what, i);
		x += d->len;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "%s: %u of %u bytes differ, the first at MR offset %u",
			    what, bad, t->total, first);
}

/* No byte of the chunks outside what the MR covers has moved. */
static void sibmr_check_outside(struct kunit *test, struct sibmr *t)
{
	u32 bad = 0;
	int i;

	for (i = 0; i < SIBMR_CHUNKS; i++) {
		const struct sibmr_chunk *c = &t->c[i];
		u8 *lo = c->alloc, *hi = c->alloc;
		size_t j;

		if (i < t->nd) {
			lo = t->d[i].start;
			hi = lo + t->d[i].len;
		}
		for (j = 0; j < c->alloc_len; j++) {
			u8 *p = c->alloc + j;

			if ((p < lo || p >= hi) && *p != SIBMR_SENTINEL)
				bad++;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "bytes outside the MR's data were written");
}

/* An RDMA WRITE of the MR's whole length, path-MTU packets. */
static void sibmr_write(struct kunit *test, struct sibmr *t, u32 seed)
{
	u32 psn = t->qp->r_psn, x, len, j;
	u64 before[SOFTIB_DROP_NR];

	sibmr_drops(t, before);
	for (x = 0; x < t->total; x += len) {
		bool first = !x, last;
		struct softib_hdr h;
		u8 op;

		len = min_t(u32, t->total - x, SIBMR_PMTU);
		last = x + len == t->total;
		op = first && last ? IB_OPCODE_RC_RDMA_WRITE_ONLY :
		     first ? IB_OPCODE_RC_RDMA_WRITE_FIRST :
		     last ? IB_OPCODE_RC_RDMA_WRITE_LAST :
		     IB_OPCODE_RC_RDMA_WRITE_MIDDLE;
		h = sibmr_hdr(t, op, psn++, len);
		if (first) {
			h.va = t->iova;
			h.rkey = t->mr->rkey;
			h.dmalen = t->total;
		}
		for (j = 0; j < len; j++)
			t->pkt[h.hdr_len + j] = sibmr_byte(x + j, seed);
		sibmr_rx(t, &h);
	}
	sibmr_expect_drops(test, t, before, SOFTIB_DROP_NR);
	KUNIT_EXPECT_FALSE(test, t->priv->nak_pending);
	KUNIT_EXPECT_EQ(test, t->qp->r_psn, psn);
	sibmr_check(test, t, seed, "RDMA WRITE");
}

/*
 * An RDMA READ request, then each response's payload as rc.c takes it from
 * the ack queue entry: rvt_skip_sge() to the packet's offset, then the
 * segment walk of softib_pkt_build() (net.c).
 */
static void sibmr_read(struct kunit *test, struct sibmr *t, u32 seed)
{
	struct rvt_qp *qp = t->qp;
	u32 npkts = DIV_ROUND_UP(t->total, SIBMR_PMTU), x, off, len, bad = 0;
	u32 psn = qp->r_psn;
	u64 before[SOFTIB_DROP_NR];
	struct rvt_ack_entry *e;
	struct softib_hdr h;
	u8 head;
	int i;

	for (i = 0, x = 0; i < t->nd; x += t->d[i].len, i++)
		for (off = 0; off < t->d[i].len; off++)
			t->d[i].start[off] = sibmr_byte(x + off, seed);

	sibmr_drops(t, before);
	head = qp->r_head_ack_queue;
	h = sibmr_hdr(t, IB_OPCODE_RC_RDMA_READ_REQUEST, psn, 0);
	h.va = t->iova;
	h.rkey = t->mr->rkey;
	h.dmalen = t->total;
	sibmr_rx(t, &h);
	sibmr_expect_drops(test, t, before, SOFTIB_DROP_NR);
	KUNIT_EXPECT_EQ(test, qp->r_psn, (psn + npkts) & 0xffffff);
	e = &qp->s_ack_queue[head];
	KUNIT_ASSERT_NOT_NULL(test, e->rdma_sge.mr);

	for (off = 0; off < t->total; off += len) {
		struct rvt_sge_state ss = {
			.sge = e->rdma_sge, .num_sge = 1, .total_len = t->total,
		};
		u32 done = 0;

		len = min_t(u32, t->total - off, SIBMR_PMTU);
		if (off)
			rvt_skip_sge(&ss, off, false);
		while (done < len) {
			u32 n = rvt_get_sge_length(&ss.sge, len - done);

			if (!n)
				break;
			memcpy(t->pkt + done, ss.sge.vaddr, n);
			rvt_update_sge(&ss, n, false);
			done += n;
		}
		KUNIT_EXPECT_EQ_MSG(test, done, len, "response at %u", off);
		for (x = 0; x < done; x++)
			if (t->pkt[x] != sibmr_byte(off + x, seed))
				bad++;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "RDMA READ: %u of %u bytes differ",
			    bad, t->total);
	rvt_put_mr(e->rdma_sge.mr);
	e->rdma_sge.mr = NULL;
	qp->s_tail_ack_queue = qp->r_head_ack_queue;
}

/* A request the R_Key check must refuse: NAK remote access, r_psn kept. */
static void sibmr_refused(struct kunit *test, struct sibmr *t, u8 op,
			  u64 va, u32 dmalen, u32 len, const char *what)
{
	u32 psn = t->qp->r_psn;
	u8 head = t->qp->r_head_ack_queue;
	u64 before[SOFTIB_DROP_NR];
	struct softib_hdr h;

	sibmr_drops(t, before);
	h = sibmr_hdr(t, op, psn, len);
	h.va = va;
	h.rkey = t->mr->rkey;
	h.dmalen = dmalen;
	memset(t->pkt + h.hdr_len, 0xee, len);
	sibmr_rx(t, &h);
	sibmr_expect_drops(test, t, before, SOFTIB_DROP_RKEY);
	KUNIT_EXPECT_TRUE_MSG(test, t->priv->nak_pending, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, softib_aeth_syndrome(t->priv->nak_aeth),
			    SOFTIB_NAK_REM_ACCESS, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, t->qp->r_psn, psn, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, t->qp->r_head_ack_queue, head, "%s", what);
	t->priv->nak_pending = false;
	t->qp->r_nak_state = 0;
}

static void sibmr_beyond(struct kunit *test, struct sibmr *t)
{
	sibmr_refused(test, t, IB_OPCODE_RC_RDMA_WRITE_ONLY,
		      t->iova + t->total, 1, 1, "WRITE one byte past the end");
	sibmr_refused(test, t, IB_OPCODE_RC_RDMA_WRITE_ONLY, t->iova - 1, 1, 1,
		      "WRITE one byte before the start");
	sibmr_refused(test, t, IB_OPCODE_RC_RDMA_WRITE_FIRST, t->iova,
		      max_t(u32, t->total + 1, SIBMR_PMTU + 1), SIBMR_PMTU,
		      "WRITE one byte longer than the MR");
	sibmr_refused(test, t, IB_OPCODE_RC_RDMA_READ_REQUEST,
		      t->iova + t->total - 10, 11, 0, "READ past the end");
}

/* ---- the cases ------------------------------------------------------------ */

enum sibmr_layout {
	SIBMR_ALIGNED,		/* chunks of whole pages */
	SIBMR_OFFSETS,		/* first starts, last ends, inside a page */
	SIBMR_SG_OFFSET,	/* ib_map_mr_sg()'s sg_offset past a page */
	SIBMR_MISALIGNED,	/* a middle entry not on a page boundary */
	SIBMR_NR_LAYOUTS
};

static const char * const sibmr_layout_name[] = {
	[SIBMR_ALIGNED] = "aligned chunks",
	[SIBMR_OFFSETS] = "first and last entries inside a page",
	[SIBMR_SG_OFFSET] = "sg_offset past the first page",
	[SIBMR_MISALIGNED] = "misaligned middle entry",
};

struct sibmr_param {
	u32 page_size;
	enum sibmr_layout layout;
};

static const struct sibmr_param sibmr_params[] = {
	{ SZ_4K, SIBMR_ALIGNED }, { SZ_4K, SIBMR_OFFSETS },
	{ SZ_4K, SIBMR_SG_OFFSET }, { SZ_4K, SIBMR_MISALIGNED },
	{ SZ_8K, SIBMR_ALIGNED }, { SZ_8K, SIBMR_OFFSETS },
	{ SZ_8K, SIBMR_SG_OFFSET }, { SZ_8K, SIBMR_MISALIGNED },
	{ SZ_64K, SIBMR_ALIGNED }, { SZ_64K, SIBMR_OFFSETS },
	{ SZ_64K, SIBMR_SG_OFFSET }, { SZ_64K, SIBMR_MISALIGNED },
	{ SZ_128K, SIBMR_ALIGNED }, { SZ_128K, SIBMR_OFFSETS },
	{ SZ_128K, SIBMR_SG_OFFSET }, { SZ_128K, SIBMR_MISALIGNED },
	{ SZ_2M, SIBMR_ALIGNED }, { SZ_2M, SIBMR_OFFSETS },
	{ SZ_2M, SIBMR_SG_OFFSET }, { SZ_2M, SIBMR_MISALIGNED },
};

static void sibmr_param_desc(const struct sibmr_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u KiB pages, %s",
		 p->page_size / SZ_1K, sibmr_layout_name[p->layout]);
}

KUNIT_ARRAY_PARAM(sibmr, sibmr_params, sibmr_param_desc);

static void sibmr_map_rw(struct kunit *test)
{
	const struct sibmr_param *p = test->param_value;
	u32 ps = p->page_size, chunk = (ps <= SZ_128K ? 3 : 1) * ps;
	struct sibmr_span e[SIBMR_CHUNKS];
	unsigned int sgoff = 0, sgoff_in;
	struct sibmr *t = sibmr_new(test);
	int i, n, want = SIBMR_CHUNKS;

	KUNIT_EXPECT_TRUE_MSG(test, sibmr_ibdev->attrs.page_size_cap & ps,
			      "page_size_cap %#llx lacks %u",
			      sibmr_ibdev->attrs.page_size_cap, ps);
	sibmr_alloc_mr(test, t, SIBMR_MAX_SG);
	sibmr_alloc_chunks(test, t, chunk, ps);
	for (i = 0; i < SIBMR_CHUNKS; i++) {
		e[i].start = t->c[i].base;
		e[i].len = chunk;
	}
	switch (p->layout) {
	case SIBMR_ALIGNED:
		break;
	case SIBMR_OFFSETS:
		e[0].start += ps / 4 + 52;
		e[0].len -= ps / 4 + 52;
		e[SIBMR_CHUNKS - 1].len -= ps / 2 + 7;
		break;
	case SIBMR_SG_OFFSET:
		sgoff = (chunk > ps ? ps : ps / 2) + 4095;
		break;
	case SIBMR_MISALIGNED:
		e[1].start += ps / 2;
		e[1].len -= ps / 2;
		want = 1;
		break;
	default:
		KUNIT_FAIL_AND_ABORT(test, "layout %d", p->layout);
	}
	sibmr_sg(test, t, e);
	sgoff_in = sgoff;
	n = ib_map_mr_sg(t->mr, t->sg, SIBMR_CHUNKS, &sgoff, ps);
	sibmr_expect(t, e, want, sgoff_in);
	KUNIT_ASSERT_EQ_MSG(test, n, want, "entries mapped");
	KUNIT_EXPECT_EQ(test, t->mr->length, (u64)t->total);
	KUNIT_EXPECT_EQ(test, t->mr->iova, t->iova);
	sibmr_reg(test, t);
	KUNIT_ASSERT_TRUE_MSG(test, sibmr_walk(test, t),
			      "the MR's segments are not the buffer's: no data moved");
	sibmr_write(test, t, 0x1234 + ps);
	sibmr_read(test, t, 0xabcd + ps);
	sibmr_beyond(test, t);
	sibmr_check(test, t, 0xabcd + ps, "after the refused requests");
	sibmr_check_outside(test, t);
}

/* softib advertises every page size a ULP asks for, from 4 KiB. */
static void sibmr_caps(struct kunit *test)
{
	static const u32 sizes[] = { SZ_4K, SZ_8K, SZ_64K, SZ_128K, SZ_2M };
	u64 cap;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sibmr_ibdev);
	cap = sibmr_ibdev->attrs.page_size_cap;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		KUNIT_EXPECT_TRUE_MSG(test, cap & sizes[i],
				      "page_size_cap %#llx lacks %u", cap,
				      sizes[i]);
	KUNIT_EXPECT_FALSE(test, cap & SZ_2K);
	/* rtrs-clt and srp take the smallest: still 4 KiB. */
	KUNIT_EXPECT_EQ(test, (unsigned long)__ffs64(cap), 12UL);
}

/*
 * Page sizes softib cannot map are refused, and leave an MR that nothing
 * reaches; an MR allocated for 2 pages maps 2 of 3 entries.
 */
static void sibmr_refuse(struct kunit *test)
{
	static const u32 bad[] = { SZ_2K, 3 * SZ_4K, SZ_4K + 1, 0 };
	struct sibmr_span e[SIBMR_CHUNKS];
	struct sibmr *t = sibmr_new(test);
	bool refused = true;
	int i, n;

	sibmr_alloc_mr(test, t, SIBMR_MAX_SG);
	sibmr_alloc_chunks(test, t, SZ_4K, SZ_4K);
	for (i = 0; i < SIBMR_CHUNKS; i++) {
		e[i].start = t->c[i].base;
		e[i].len = SZ_4K;
	}
	sibmr_sg(test, t, e);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		n = ib_map_mr_sg(t->mr, t->sg, SIBMR_CHUNKS, NULL, bad[i]);
		KUNIT_EXPECT_LT_MSG(test, n, 0, "page size %u", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, t->mr->length, 0ULL, "page size %u",
				    bad[i]);
		refused &= n < 0;
	}
	/* Only after a refusal: rdmavt's own map leaves wild segments. */
	if (refused) {
		sibmr_expect(t, e, 1, 0);
		sibmr_reg(test, t);
		sibmr_refused(test, t, IB_OPCODE_RC_RDMA_WRITE_ONLY,
			      t->mr->iova, 1, 1, "WRITE through a refused map");
		t->nd = 0;
		sibmr_check_outside(test, t);
	}

	/* Room for 2 pages: the first 2 entries. */
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(t->mr), 0);
	t->mr = NULL;
	sibmr_alloc_mr(test, t, 2);
	n = ib_map_mr_sg(t->mr, t->sg, SIBMR_CHUNKS, NULL, SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 2);
	sibmr_expect(t, e, 2, 0);
	KUNIT_EXPECT_EQ(test, t->mr->length, (u64)t->total);
	sibmr_reg(test, t);
	KUNIT_ASSERT_TRUE(test, sibmr_walk(test, t));
	sibmr_write(test, t, 77);
	sibmr_beyond(test, t);
	sibmr_check_outside(test, t);
}

static struct kunit_case sibmr_cases[] = {
	KUNIT_CASE(sibmr_caps),
	KUNIT_CASE(sibmr_refuse),
	KUNIT_CASE_PARAM(sibmr_map_rw, sibmr_gen_params),
	{}
};

static struct kunit_suite sibmr_suite = {
	.name = "softib_mr",
	.suite_init = sibmr_suite_init,
	.suite_exit = sibmr_suite_exit,
	.test_cases = sibmr_cases,
};

kunit_test_suite(sibmr_suite);

MODULE_DESCRIPTION("KUnit tests for softib's fast-registration MRs");
MODULE_LICENSE("GPL");
