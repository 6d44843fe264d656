// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the UD engine, for QP0 (SMI), QP1 (GSI) and UD QPs.
 *
 * Send: the QP's work item takes the next WQE, builds LRH [GRH] BTH DETH
 * [ImmDt] payload ICRC into an skb and hands it to the carrier, or, when
 * the DLID is our own, straight to our receive path; then completes it.
 *
 * Receive: softib_ud_rcv() checks a packet the way IBA chapters 7, 9 and
 * 10 order it (lengths, versions, ICRC, DLID, P_Key, port state, QP,
 * Q_Key), counts and drops whatever fails, and delivers the rest into the
 * QP's next receive WQE (40 bytes of GRH area first) and its receive CQ.
 */
#include <linux/skbuff.h>
#include "softib.h"
#include "wire.h"

/* Index of pkey in the port's table, or -1. */
static int softib_pkey_find(struct softib_port *port, u16 pkey)
{
	int i;

	for (i = 0; i < SOFTIB_NPKEYS; i++)
		if (softib_pkey_match(READ_ONCE(port->pkeys[i]), pkey))
			return i;
	return -1;
}

u16 softib_pkey_at(struct softib_port *port, unsigned int idx)
{
	return idx < SOFTIB_NPKEYS ? READ_ONCE(port->pkeys[idx]) : 0;
}

static u16 softib_lmc_mask(struct softib_port *port)
{
	return (1U << READ_ONCE(port->lmc)) - 1;
}

/* ---- receive ------------------------------------------------------------ */

/*
 * Deliver one checked packet to one QP. Q_Key and the QP's own P_Key are
 * per QP (a multicast packet may suit some of the attached QPs only).
 */
static void softib_ud_deliver(struct softib_port *port, struct rvt_qp *qp,
			      const struct softib_hdr *h, const u8 *pkt,
			      int pkey_index)
{
	struct ib_wc wc = {};
	unsigned long flags;
	u32 len;
	int ret;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
		break;
	case IB_QPT_GSI:
		if (h->qkey != IB_QP1_QKEY) {
			softib_drop(port, SOFTIB_DROP_QKEY);
			return;
		}
		break;
	case IB_QPT_UD:
		if (!softib_pkey_match(softib_pkey_at(port, qp->s_pkey_index),
				       h->pkey)) {
			softib_drop(port, SOFTIB_DROP_PKEY);
			return;
		}
		pkey_index = qp->s_pkey_index;
		if (h->qkey != qp->qkey) {
			softib_drop(port, SOFTIB_DROP_QKEY);
			return;
		}
		break;
	default:
		softib_drop(port, SOFTIB_DROP_QP);
		return;
	}

	len = h->payload_len + SOFTIB_GRH_BYTES;
	spin_lock_irqsave(&qp->r_lock, flags);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK)) {
		softib_drop(port, SOFTIB_DROP_QP);
		goto out;
	}
	if (qp->r_flags & RVT_R_REUSE_SGE) {
		/* the WQE a packet too large for it left in r_sge (below) */
		qp->r_flags &= ~RVT_R_REUSE_SGE;
	} else {
		ret = rvt_get_rwqe(qp, false);
		if (ret < 0) {
			spin_lock(&qp->s_lock);
			softib_qp_error(qp, IB_WC_LOC_QP_OP_ERR);
			spin_unlock(&qp->s_lock);
			softib_drop(port, SOFTIB_DROP_QP);
			goto out;
		}
		if (!ret) {
			/*
			 * PortCounters VL15Dropped: an SMP with nowhere to
			 * go (only QP0, whose r_lock is held, writes it)
			 */
			if (qp->ibqp.qp_type == IB_QPT_SMI)
				WRITE_ONCE(port->rvp.n_vl15_dropped,
					   port->rvp.n_vl15_dropped + 1);
			softib_drop(port, SOFTIB_DROP_NO_RWQE);
			goto out;
		}
	}
	if (len > qp->r_len) {
		/*
		 * Too large for this WQE: the packet is dropped and the WQE
		 * kept, untouched, in r_sge for the next packet (as qib and
		 * hfi1 do), its MR references with it; rdmavt puts them when
		 * the QP is reset or destroyed, and rvt_error_qp() completes
		 * the WQE (RVT_R_WRID_VALID) if the QP fails first.
		 *
		 * Not a completion with IB_WC_LOC_LEN_ERR (rxe's way): the
		 * kernel's UD consumers take a failed receive as the end of
		 * its buffer, not as one to post again. IPoIB's
		 * ipoib_ib_handle_rx_wc() frees the buffer of any failed
		 * receive and does not repost it, ib_mad's receive handler
		 * returns without reposting; so each oversized frame anyone
		 * on the segment sends to IPoIB's QPN (or its broadcast
		 * group) would take one of its receive buffers for good, and
		 * IPoIB on every host would stop receiving after 256 of them.
		 * Reusing the WQE costs the receiver nothing.
		 */
		qp->r_flags |= RVT_R_REUSE_SGE;
		softib_drop(port, SOFTIB_DROP_NO_RWQE);
		goto out;
	}
	if (h->lnh == SOFTIB_LNH_GLOBAL) {
		rvt_copy_sge(qp, &qp->r_sge, (void *)(pkt + SOFTIB_LRH_BYTES),
			     SOFTIB_GRH_BYTES, true, false);
		wc.wc_flags |= IB_WC_GRH;
	} else {
		rvt_skip_sge(&qp->r_sge, SOFTIB_GRH_BYTES, true);
	}
	rvt_copy_sge(qp, &qp->r_sge, (void *)(pkt + h->hdr_len),
		     h->payload_len, true, false);
	rvt_put_ss(&qp->r_sge);
	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		goto out;

	wc.wr_id = qp->r_wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.qp = &qp->ibqp;
	wc.byte_len = len;
	wc.src_qp = h->sqpn;
	wc.slid = h->slid;
	wc.sl = h->sl;
	wc.port_num = port->port_num;
	wc.pkey_index = pkey_index;
	if (!softib_lid_is_mcast(h->dlid) && h->dlid != SOFTIB_LID_PERMISSIVE)
		wc.dlid_path_bits = h->dlid & softib_lmc_mask(port);
	if (softib_op_has_imm(h->opcode)) {
		wc.ex.imm_data = h->imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	rvt_recv_cq(qp, &wc, h->se);
out:
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

static void softib_ud_rcv_mcast(struct softib_port *port,
				const struct softib_hdr *h, const u8 *pkt,
				int pkey_index)
{
	struct rvt_mcast_qp *p;
	struct rvt_mcast *mc;
	union ib_gid mgid = h->dgid;

	if (h->lnh != SOFTIB_LNH_GLOBAL) {
		softib_drop(port, SOFTIB_DROP_QP);
		return;
	}
	mc = rvt_mcast_find(&port->rvp, &mgid, h->dlid);
	if (!mc) {
		softib_drop(port, SOFTIB_DROP_QP);
		return;
	}
	atomic64_inc(&port->cnt.rcv_mcast_pkts);
	list_for_each_entry_rcu(p, &mc->qp_list, list)
		softib_ud_deliver(port, p->qp, h, pkt, pkey_index);
	if (atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
}

/*
 * One packet from the carrier or the loopback; consumes skb. Softirq or
 * BH-disabled context, under rcu_read_lock().
 */
void softib_ud_rcv(struct softib_dev *sdev, struct sk_buff *skb)
{
	struct softib_port *port = &sdev->port;
	enum softib_drop why;
	struct softib_hdr h;
	struct rvt_qp *qp;
	u16 lid, mask;
	int pkey_index = 0;
	bool is_smp, on_vl15;
	u8 state;
	const u8 *pkt, *src;

	if (skb_linearize(skb)) {
		softib_drop(port, SOFTIB_DROP_SHORT);
		goto free;
	}
	pkt = skb->data;
	why = softib_hdr_parse(pkt, skb->len, &h);
	if (why != SOFTIB_DROP_NR)
		goto drop;
	atomic64_inc(&port->cnt.rcv_pkts);
	atomic64_add(h.pktlen, &port->cnt.rcv_data);

	/*
	 * DLID: ours (LMC range), multicast, or permissive for QP0. The
	 * permissive LID, as DLID or SLID, is QP0's alone (IBA 9.6.1.4.1).
	 */
	lid = READ_ONCE(port->lid);
	mask = softib_lmc_mask(port);
	why = SOFTIB_DROP_DLID;
	if ((h.dlid == SOFTIB_LID_PERMISSIVE ||
	     h.slid == SOFTIB_LID_PERMISSIVE) && h.dqpn != 0)
		goto drop;
	if (softib_lid_is_mcast(h.dlid)) {
		if (h.dqpn != SOFTIB_QPN_MCAST)
			goto drop;
	} else if (h.dlid != SOFTIB_LID_PERMISSIVE &&
		   (!lid || (h.dlid & ~mask) != lid)) {
		goto drop;
	}

	/* QP0 lives on VL15 and nothing else does; SMPs skip the P_Key. */
	why = SOFTIB_DROP_QP;
	is_smp = h.dqpn == 0;
	on_vl15 = h.vl == 15;
	if (is_smp != on_vl15)
		goto drop;
	if (h.dqpn != 0) {
		pkey_index = softib_pkey_find(port, h.pkey);
		why = SOFTIB_DROP_PKEY;
		if (pkey_index < 0)
			goto drop;
	}

	/* A port in INIT takes SMPs only; ARMED and ACTIVE take everything. */
	state = READ_ONCE(port->state);
	why = SOFTIB_DROP_PORT_DOWN;
	if (state == IB_PORT_DOWN || state == IB_PORT_NOP ||
	    (h.dqpn != 0 && state == IB_PORT_INIT))
		goto drop;

	/*
	 * QP0 and QP1 take one MAD, nothing shorter or longer, sent without
	 * ImmDt (IBA 13.5.3.1); a LID-routed SMP never comes to or from the
	 * permissive LID (only directed route works before the LIDs are set).
	 */
	why = SOFTIB_DROP_MAD;
	if (h.dqpn <= 1 && (h.payload_len != IB_MGMT_MAD_SIZE ||
			    h.opcode != SOFTIB_OP_UD_SEND_ONLY))
		goto drop;
	if (h.dqpn == 0 && (h.dlid == SOFTIB_LID_PERMISSIVE ||
			    h.slid == SOFTIB_LID_PERMISSIVE) &&
	    pkt[h.hdr_len + offsetof(struct ib_mad_hdr, mgmt_class)] !=
	    IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		goto drop;

	/*
	 * From the wire (the loopback has no Ethernet header): a SubnSet
	 * passes the management policy, and the frame teaches its sender's
	 * MAC.
	 */
	src = softib_skb_src(skb);
	why = SOFTIB_DROP_MGMT;
	if (src && h.dqpn == 0 &&
	    pkt[h.hdr_len + offsetof(struct ib_mad_hdr, method)] ==
	    IB_MGMT_METHOD_SET &&
	    !softib_mgmt_set_ok(&port->neigh, READ_ONCE(port->rvp.mkey), src))
		goto drop;
	if (src)
		softib_neigh_learn(&port->neigh, h.slid, lid, mask, src,
				   jiffies);

	if (h.dqpn == SOFTIB_QPN_MCAST) {
		why = SOFTIB_DROP_QP;
		if (!softib_op_is_ud(h.opcode))
			goto drop;
		softib_ud_rcv_mcast(port, &h, pkt, pkey_index);
		goto free;
	}
	qp = rvt_lookup_qpn(&sdev->rdi, &port->rvp, h.dqpn);
	why = SOFTIB_DROP_QP;
	if (!qp)
		goto drop;
	if (softib_op_is_rc(h.opcode)) {
		if (qp->ibqp.qp_type != IB_QPT_RC ||
		    softib_lid_is_mcast(h.dlid) ||
		    h.dlid == SOFTIB_LID_PERMISSIVE)
			goto drop;
		softib_rc_rcv(port, qp, &h, pkt);
		goto free;
	}
	if ((h.dqpn == 0 && qp->ibqp.qp_type != IB_QPT_SMI) ||
	    (h.dqpn == 1 && qp->ibqp.qp_type != IB_QPT_GSI) ||
	    (h.dqpn > 1 && qp->ibqp.qp_type != IB_QPT_UD))
		goto drop;
	softib_ud_deliver(port, qp, &h, pkt, pkey_index);
	goto free;

drop:
	softib_drop(port, why);
free:
	kfree_skb(skb);
}
EXPORT_SYMBOL_IF_KUNIT(softib_ud_rcv);

/* ---- send --------------------------------------------------------------- */

/* LRH and GRH of a packet to ah from port (VL from the SL). */
void softib_hdr_route(struct softib_port *port, const struct rdma_ah_attr *ah,
		      struct softib_hdr *h)
{
	u16 lid = READ_ONCE(port->lid);

	h->sl = rdma_ah_get_sl(ah) & 0xf;
	h->vl = port->sl_to_vl[h->sl] & 0xf;
	h->lver = SOFTIB_LVER;
	h->dlid = rdma_ah_get_dlid(ah);
	h->slid = lid | (rdma_ah_get_path_bits(ah) & softib_lmc_mask(port));
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		h->lnh = SOFTIB_LNH_GLOBAL;
		h->ipver = SOFTIB_IPVER;
		h->tclass = grh->traffic_class;
		h->flow_label = grh->flow_label;
		h->nxthdr = SOFTIB_NXTHDR_IBA;
		h->hop_limit = grh->hop_limit;
		h->sgid.global.subnet_prefix = port->rvp.gid_prefix;
		h->sgid.global.interface_id = port->guids[0];
		h->dgid = grh->dgid;
	} else {
		h->lnh = SOFTIB_LNH_LOCAL;
	}
}

/* The lengths of a packet of h's headers and len bytes of payload. */
void softib_hdr_lengths(struct softib_hdr *h, u32 len)
{
	h->padcnt = -len & 3;
	h->tver = SOFTIB_TVER;
	h->pktlen = (softib_hdr_len(h) + len + h->padcnt +
		     SOFTIB_ICRC_BYTES) / 4;
	if (h->lnh == SOFTIB_LNH_GLOBAL)
		h->paylen = h->pktlen * 4 - SOFTIB_LRH_BYTES - SOFTIB_GRH_BYTES;
}
EXPORT_SYMBOL_IF_KUNIT(softib_hdr_lengths);

/* Fill h for wqe on qp; the caller holds s_lock (PSN). */
static void softib_ud_hdr(struct softib_dev *sdev, struct rvt_qp *qp,
			  struct rvt_swqe *wqe, struct softib_hdr *h)
{
	struct softib_port *port = &sdev->port;
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	u16 lid = READ_ONCE(port->lid);
	unsigned int idx;
	u32 qkey;

	memset(h, 0, sizeof(*h));
	softib_hdr_route(port, ah, h);
	if (qp->ibqp.qp_type == IB_QPT_SMI) {
		h->vl = 15;
		if (h->dlid == SOFTIB_LID_PERMISSIVE || !lid)
			h->slid = SOFTIB_LID_PERMISSIVE;
	}
	h->opcode = wqe->wr.opcode == IB_WR_SEND_WITH_IMM ?
		    SOFTIB_OP_UD_SEND_ONLY_IMM : SOFTIB_OP_UD_SEND_ONLY;
	if (h->opcode == SOFTIB_OP_UD_SEND_ONLY_IMM)
		h->imm = wqe->wr.ex.imm_data;
	h->se = wqe->wr.send_flags & IB_SEND_SOLICITED;
	switch (qp->ibqp.qp_type) {
	case IB_QPT_SMI:
		h->pkey = 0xffff;
		break;
	case IB_QPT_GSI:
		idx = rvt_get_swqe_pkey_index(wqe);
		h->pkey = softib_pkey_at(port, idx);
		break;
	default:
		h->pkey = softib_pkey_at(port, qp->s_pkey_index);
		break;
	}
	h->dqpn = rvt_get_swqe_remote_qpn(wqe);
	h->psn = qp->s_next_psn++ & 0xffffff;
	qkey = rvt_get_swqe_remote_qkey(wqe);
	h->qkey = (qkey & 0x80000000) ? qp->qkey : qkey;
	h->sqpn = qp->ibqp.qp_num;
	softib_hdr_lengths(h, wqe->length);
}

/* Build and send one packet; the WQE's completion status. */
static enum ib_wc_status softib_ud_send_one(struct softib_dev *sdev,
					    struct rvt_swqe *wqe,
					    const struct softib_hdr *h)
{
	struct rvt_sge_state ss = {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
		.total_len = wqe->length,
	};
	struct sk_buff *skb;

	skb = softib_pkt_build(sdev, h, &ss, wqe->length, GFP_KERNEL);
	if (!skb) {
		atomic64_inc(&sdev->port.cnt.xmit_discards);
		return IB_WC_SUCCESS;
	}
	softib_pkt_out(sdev, skb);
	return IB_WC_SUCCESS;
}

/* The send engine of one QP: every posted WQE, in order. */
void softib_ud_send(struct rvt_qp *qp)
{
	struct softib_dev *sdev = rdi_to_sdev(ib_to_rvt(qp->ibqp.device));
	enum ib_wc_status status;
	struct rvt_swqe *wqe;
	struct softib_hdr h;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&qp->s_lock, flags);
		if (!(ib_rvt_state_ops[qp->state] &
		      RVT_PROCESS_NEXT_SEND_OK)) {
			/* In error: flush what is left, then stop. */
			if (!(ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND) ||
			    qp->s_last == READ_ONCE(qp->s_head))
				break;
			wqe = rvt_get_swqe_ptr(qp, qp->s_last);
			rvt_send_complete(qp, wqe, IB_WC_WR_FLUSH_ERR);
			spin_unlock_irqrestore(&qp->s_lock, flags);
			continue;
		}
		if (qp->s_cur == READ_ONCE(qp->s_head))
			break;
		wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
		qp->s_cur = rvt_qp_swqe_incr(qp, qp->s_cur);
		softib_ud_hdr(sdev, qp, wqe, &h);
		spin_unlock_irqrestore(&qp->s_lock, flags);

		status = softib_ud_send_one(sdev, wqe, &h);

		spin_lock_irqsave(&qp->s_lock, flags);
		rvt_send_complete(qp, wqe, status);
		spin_unlock_irqrestore(&qp->s_lock, flags);
	}
	spin_unlock_irqrestore(&qp->s_lock, flags);
}
