/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the softib KUnit suites (softib_kunit.c,
 * softib_fuzz_kunit.c): build a UD packet with its ICRC, a QP that takes
 * packets, and hand a frame to the receive path the way the carrier's rx
 * handler does.
 */
#ifndef SOFTIB_TEST_H
#define SOFTIB_TEST_H

#include <linux/bottom_half.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>

#include "drivers/softib/softib.h"
#include "drivers/softib/wire.h"

/*
 * A packet of h's headers and payload_len bytes of payload (payload, or
 * 0xa0, 0xa1, ... when NULL), with its ICRC; fills in h's PadCnt, PktLen
 * and PayLen. Returns its length.
 */
static inline unsigned int sib_make_data(struct softib_hdr *h, u8 *buf,
					 const u8 *payload,
					 unsigned int payload_len)
{
	unsigned int hl, bytes, i;

	h->padcnt = -payload_len & 3;
	hl = softib_hdr_len(h);
	bytes = hl + payload_len + h->padcnt + SOFTIB_ICRC_BYTES;
	h->pktlen = bytes / 4;
	if (h->lnh == SOFTIB_LNH_GLOBAL)
		h->paylen = bytes - SOFTIB_LRH_BYTES - SOFTIB_GRH_BYTES;
	softib_hdr_build(buf, h);
	for (i = 0; i < payload_len + h->padcnt; i++)
		buf[hl + i] = i >= payload_len ? 0 :
			      payload ? payload[i] : 0xa0 + i;
	softib_icrc_set(buf, bytes - SOFTIB_ICRC_BYTES);
	return bytes;
}

static inline unsigned int sib_make(struct softib_hdr *h, u8 *buf,
				    unsigned int payload_len)
{
	return sib_make_data(h, buf, NULL, payload_len);
}

/*
 * A QP ready to receive (RTS) whose receive queue is empty, from zeroed
 * memory: a packet that passes every check of the receive path ends in
 * rvt_get_rwqe() finding no WQE and is counted as no_rwqe, which is how a
 * test sees "delivered".
 */
static inline void sib_qp_ready(struct rvt_qp *qp, struct rvt_krwq *kwq,
				struct ib_device *ibdev, enum ib_qp_type type,
				u32 qpn)
{
	spin_lock_init(&kwq->p_lock);
	spin_lock_init(&kwq->c_lock);
	spin_lock_init(&qp->r_lock);
	qp->r_rq.kwq = kwq;
	qp->r_rq.size = 1;
	qp->ibqp.device = ibdev;
	qp->ibqp.qp_type = type;
	qp->ibqp.qp_num = qpn;
	qp->state = IB_QPS_RTS;
}

/* softib_ud_rcv() in the context the carrier's rx handler gives it. */
static inline void sib_rx_skb(struct softib_dev *sdev, struct sk_buff *skb)
{
	local_bh_disable();
	rcu_read_lock();
	softib_ud_rcv(sdev, skb);
	rcu_read_unlock();
	local_bh_enable();
}

#endif /* SOFTIB_TEST_H */
