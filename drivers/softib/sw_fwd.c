// SPDX-License-Identifier: GPL-2.0
/*
 * softib: what a switch port does with a packet it receives (softirq, under
 * RCU). Directed-route SMPs (IBA vol 1 14.2.2.2, C14-9 and C14-13) are
 * forwarded along their path or, at its end, answered by the switch's SMA;
 * LID-routed SMPs to the switch's LID are answered too; everything else is
 * forwarded by its DLID: unicast through the linear forwarding table,
 * multicast through the multicast forwarding table (never back out of the
 * port it came in on). Transit packets are not ICRC-checked (the end CA
 * does); a packet the switch rewrites or answers is, and gets a new ICRC.
 * Every switch a LID-routed packet passes counts itself in the packet, and
 * a packet that has passed SOFTIB_SW_HOP_LIMIT of them is dropped: a
 * forwarding loop dies (sw_hop()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/unaligned.h>
#include <kunit/static_stub.h>

#include "sw.h"
#include "wire.h"

/* An SMP: LRH, BTH, DETH, one MAD, ICRC; nothing else goes on VL15 to us. */
#define SW_SMP_HDR	(SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES + SOFTIB_DETH_BYTES)
#define SW_SMP_BYTES	(SW_SMP_HDR + IB_MGMT_MAD_SIZE + SOFTIB_ICRC_BYTES)
#define SW_MIN_BYTES	(SOFTIB_LRH_BYTES + SOFTIB_BTH_BYTES + \
			 SOFTIB_ICRC_BYTES)

/* The LRH fields forwarding needs. */
struct sw_lrh {
	u8 vl, lnh;
	u16 dlid, slid;
	unsigned int bytes;	/* PktLen * 4 */
	unsigned int bth;	/* where the BTH starts (after the GRH, if any) */
};

/*
 * Loops. Two ports of a switch on one veth pair, an LFT or MFT that leads
 * back, a fabric reconfigured under traffic: a packet would go round in
 * softirq for ever, and round a multicast loop multiply. Nothing in the
 * LRH bounds its hops (on hardware, the switches' HOQ and switch lifetime
 * limits do; this switch has no queue to age a packet in), and softib's
 * frames have no header of their own besides Ethernet's. So the switches
 * count the hops in the BTH, in the six reserved bits after FECN and BECN
 * (resv6a: the low bits of the byte IBA 1.0 called resv8a, BTH byte 4).
 * That byte is a variant field, outside the ICRC (icrc.c takes it as
 * ones), since switches set FECN and BECN on the way: counting costs no
 * ICRC. CAs send 0 there and never read it. Directed-route SMPs are not
 * counted: their hop pointer bounds them (C14-9, C14-13); an SMP the
 * switch answers leaves with a count of 0, a new packet.
 */
#define SW_BTH_HOPS	4	/* the byte of the BTH */
#define SW_HOPS_MASK	0x3f	/* its bits below FECN and BECN */

/*
 * Count this switch's hop in skb, which p received; false when it is one
 * too many (counted; the caller frees the packet).
 */
static bool sw_hop(struct softib_sw_port *p, struct sk_buff *skb,
		   const struct sw_lrh *l)
{
	unsigned int off = l->bth + SW_BTH_HOPS;
	u8 hops = skb->data[off] & SW_HOPS_MASK;

	if (hops >= SOFTIB_SW_HOP_LIMIT) {
		softib_sw_drop(p, SOFTIB_SW_DROP_HOPS);
		return false;
	}
	/* a clone (a packet tap's) gets its own copy of the headers */
	if (skb_ensure_writable(skb, off + 1)) {
		softib_sw_drop(p, SOFTIB_SW_DROP_STATE);
		return false;
	}
	skb->data[off] = (skb->data[off] & ~SW_HOPS_MASK) | (hops + 1);
	return true;
}

/*
 * Send skb (the IB packet at skb->data, consumed) out of port q. from is
 * the arrival port (its counters take the drop). An SMP (VL15) needs the
 * link up (INIT on); anything else an ACTIVE port.
 */
static void sw_xmit(struct softib_sw_port *from, struct softib_sw_port *q,
		    struct sk_buff *skb, bool vl15)
{
	u8 state = READ_ONCE(q->state);
	struct net_device *ndev;
	unsigned int len = skb->len;

	KUNIT_STATIC_STUB_REDIRECT(sw_xmit, from, q, skb, vl15);
	ndev = rcu_dereference(q->ndev);
	if (!ndev || state == IB_PORT_DOWN || state == IB_PORT_NOP ||
	    (!vl15 && state != IB_PORT_ACTIVE) || !(ndev->flags & IFF_UP)) {
		softib_sw_drop(from, SOFTIB_SW_DROP_STATE);
		goto free;
	}
	if (len > READ_ONCE(ndev->mtu)) {
		softib_sw_drop(from, SOFTIB_SW_DROP_MTU);
		goto free;
	}
	if (skb_cow_head(skb, LL_RESERVED_SPACE(ndev))) {
		softib_sw_drop(from, SOFTIB_SW_DROP_STATE);
		goto free;
	}
	skb_scrub_packet(skb, true);
	atomic64_inc(&q->tx_pkts);
	atomic64_add(len / 4, &q->tx_words);
	softib_eth_xmit(ndev, skb, &q->neigh);
	return;
free:
	kfree_skb(skb);
}

static struct softib_sw_port *sw_port(struct softib_sw *sw, unsigned int n)
{
	return n >= 1 && n <= sw->nports ? &sw->port[n] : NULL;
}

/* Unicast through the LFT; a DLID of the switch itself is not forwarded. */
static void sw_fwd_ucast(struct softib_sw_port *p, struct sk_buff *skb,
			 const struct sw_lrh *l)
{
	struct softib_sw *sw = p->sw;
	struct softib_sw_port *q;
	u8 out;

	if (l->dlid > READ_ONCE(sw->lft_top) || l->dlid >= SOFTIB_SW_LFT_CAP) {
		softib_sw_drop(p, SOFTIB_SW_DROP_LID);
		goto free;
	}
	out = READ_ONCE(sw->lft[l->dlid]);
	q = sw_port(sw, out);
	if (!q) {		/* 0 (ourselves: no GMP agent yet) or none */
		softib_sw_drop(p, SOFTIB_SW_DROP_LID);
		goto free;
	}
	if (q == p) {
		softib_sw_drop(p, SOFTIB_SW_DROP_LOOP);
		goto free;
	}
	if (!sw_hop(p, skb, l))
		goto free;
	sw_xmit(p, q, skb, l->vl == 15);
	return;
free:
	kfree_skb(skb);
}

/* Multicast: a copy to every port of the MLID's mask but the arrival one. */
static void sw_fwd_mcast(struct softib_sw_port *p, struct sk_buff *skb,
			 const struct sw_lrh *l)
{
	struct softib_sw *sw = p->sw;
	unsigned int idx = l->dlid - SOFTIB_LID_MCAST_MIN, n, last = 0;
	u64 mask;

	if (idx >= SOFTIB_SW_MFT_CAP) {
		softib_sw_drop(p, SOFTIB_SW_DROP_LID);
		goto free;
	}
	mask = READ_ONCE(sw->mft[idx]) & ~(BIT_ULL(p->num) | BIT_ULL(0));
	mask &= GENMASK_ULL(sw->nports, 0);
	if (!mask) {
		softib_sw_drop(p, SOFTIB_SW_DROP_LID);
		goto free;
	}
	/* once, before the copies: they share the data */
	if (!sw_hop(p, skb, l))
		goto free;
	for (n = 1; n <= sw->nports; n++) {
		struct sk_buff *c;

		if (!(mask & BIT_ULL(n)))
			continue;
		if (last) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (c)
				sw_xmit(p, &sw->port[last], c, false);
			else
				softib_sw_drop(p, SOFTIB_SW_DROP_STATE);
		}
		last = n;
	}
	sw_xmit(p, &sw->port[last], skb, false);
	return;
free:
	kfree_skb(skb);
}

/* The MAD of an SMP packet whose headers the switch may act on, or NULL. */
static struct ib_smp *sw_smp_of(struct sk_buff *skb, const struct sw_lrh *l)
{
	const u8 *bth;

	/* the switch rewrites it: a clone (a packet tap's) gets its own copy */
	if (skb_ensure_writable(skb, skb->len))
		return NULL;
	bth = skb->data + SOFTIB_LRH_BYTES;
	if (l->lnh != SOFTIB_LNH_LOCAL || l->bytes != SW_SMP_BYTES ||
	    bth[0] != SOFTIB_OP_UD_SEND_ONLY || (bth[1] & 0x30) ||
	    (get_unaligned_be32(bth + 4) & 0xffffff) != 0)
		return NULL;
	if (!softib_icrc_ok(skb->data, l->bytes))
		return NULL;
	return (struct ib_smp *)(skb->data + SW_SMP_HDR);
}

static void sw_set_lids(struct sk_buff *skb, u16 dlid, u16 slid)
{
	put_unaligned_be16(dlid, skb->data + 2);
	put_unaligned_be16(slid, skb->data + 6);
}

/**
 * softib_sw_mgmt_ok - may an SMP for the switch from the wire reach its SMA?
 * @p: the port it arrived on
 * @smp: the SMP
 * @src: the frame's Ethernet source (NULL: none, the zero address stands)
 *
 * mgmt_policy sm-only and the switch's M_Key 0: a SubnSet only by the port
 * and from the source of the first since that port's link came up (net.c).
 * Return: false when refused (counted).
 */
bool softib_sw_mgmt_ok(struct softib_sw_port *p, const struct ib_smp *smp,
		       const u8 *src)
{
	static const u8 none[ETH_ALEN];
	struct softib_sw *sw = p->sw;
	bool ok = true;

	if (smp->method != IB_MGMT_METHOD_SET ||
	    softib_mgmt_policy_get() == SOFTIB_MGMT_OPEN)
		return true;
	if (!src)
		src = none;
	spin_lock_bh(&sw->lock);
	if (sw->mkey) {
		ok = true;		/* IBA's M_Key check decides */
	} else if (!sw->sm_port) {
		sw->sm_port = p->num;
		ether_addr_copy(sw->sm_mac, src);
	} else {
		ok = sw->sm_port == p->num && ether_addr_equal(sw->sm_mac, src);
	}
	spin_unlock_bh(&sw->lock);
	if (!ok)
		softib_sw_drop(p, SOFTIB_SW_DROP_MGMT);
	return ok;
}

/*
 * A directed-route SMP arriving on p (C14-9 outgoing, C14-13 returning)
 * from src. Returns the port to send the rewritten packet out of, or NULL
 * to drop (with *answered set: already counted, a SubnSet refused).
 */
static struct softib_sw_port *sw_dr(struct softib_sw_port *p,
				    struct ib_smp *smp, const u8 *src,
				    bool *answered)
{
	struct softib_sw *sw = p->sw;
	u8 hc = smp->hop_cnt, hp = smp->hop_ptr;

	*answered = false;
	if (hc >= IB_SMP_MAX_PATH_HOPS)
		return NULL;
	if (!(smp->status & IB_SMP_DIRECTION)) {
		if (hp == 0 || hp > hc)
			return NULL;
		smp->return_path[hp] = p->num;
		if (hp < hc) {		/* an intermediate hop */
			smp->hop_ptr = hp + 1;
			return sw_port(sw, smp->initial_path[hp + 1]);
		}
		/* the end of the path: we are the destination */
		if (smp->dr_dlid != IB_LID_PERMISSIVE)
			return NULL;
		smp->hop_ptr = hp + 1;
		if (!softib_sw_mgmt_ok(p, smp, src)) {
			*answered = true;	/* counted */
			return NULL;
		}
		if (!softib_sw_sma(sw, p->num, smp))
			return NULL;
		*answered = true;
		smp->hop_ptr = hc;	/* C14-13:1 */
		return sw_port(sw, smp->return_path[hc]);
	}
	/* returning: 2 <= hp <= hc is ours to relay; 1 would be an SM here */
	if (hp < 2 || hp > hc)
		return NULL;
	smp->hop_ptr = hp - 1;
	return sw_port(sw, smp->return_path[hp - 1]);
}

/* VL15: DR SMPs, SMPs to our LID, LID-routed SMPs passing through. */
static void sw_rcv_vl15(struct softib_sw_port *p, struct sk_buff *skb,
			const struct sw_lrh *l)
{
	struct softib_sw *sw = p->sw;
	u16 lid = READ_ONCE(sw->lid), mask = (1U << READ_ONCE(sw->lmc)) - 1;
	struct softib_sw_port *q;
	struct ib_smp *smp;
	bool answered;

	if (softib_lid_is_mcast(l->dlid))
		goto drop;
	if (l->dlid != IB_LID_PERMISSIVE &&
	    (!lid || (l->dlid & ~mask) != lid)) {
		sw_fwd_ucast(p, skb, l);	/* to someone else */
		return;
	}
	smp = sw_smp_of(skb, l);
	if (!smp) {
		softib_sw_drop(p, SOFTIB_SW_DROP_ICRC);
		goto free;
	}
	if (l->dlid == IB_LID_PERMISSIVE) {
		if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
			goto drop;
		q = sw_dr(p, smp, softib_skb_src(skb), &answered);
		if (!q && answered)
			goto free;
		if (!q)
			goto drop;
		if (answered) {
			sw_set_lids(skb, IB_LID_PERMISSIVE, IB_LID_PERMISSIVE);
			skb->data[l->bth + SW_BTH_HOPS] = 0;
		}
	} else {
		/* LID routed, to us: the answer goes back to the SLID */
		if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		    l->slid == IB_LID_PERMISSIVE || !l->slid ||
		    softib_lid_is_mcast(l->slid))
			goto drop;
		if (!softib_sw_mgmt_ok(p, smp, softib_skb_src(skb)))
			goto free;
		if (!softib_sw_sma(sw, p->num, smp))
			goto drop;	/* no answer (a response, a bad M_Key) */
		q = l->slid <= READ_ONCE(sw->lft_top) ?
		    sw_port(sw, READ_ONCE(sw->lft[l->slid])) : NULL;
		sw_set_lids(skb, l->slid, lid);
		skb->data[l->bth + SW_BTH_HOPS] = 0;
		if (!q)
			q = p;
	}
	softib_icrc_set(skb->data, l->bytes - SOFTIB_ICRC_BYTES);
	sw_xmit(p, q, skb, true);
	return;
drop:
	softib_sw_drop(p, SOFTIB_SW_DROP_SMP);
free:
	kfree_skb(skb);
}

/**
 * softib_sw_rcv - a packet arrived on switch port p
 * @p: the port
 * @skb: the IB packet at skb->data (consumed)
 */
void softib_sw_rcv(struct softib_sw_port *p, struct sk_buff *skb)
{
	u8 state = READ_ONCE(p->state);
	struct sw_lrh l;
	const u8 *pkt, *src;

	if (skb_linearize(skb) || skb->len < SW_MIN_BYTES)
		goto short_pkt;
	pkt = skb->data;
	l.vl = pkt[0] >> 4;
	l.lnh = pkt[1] & 3;
	l.dlid = get_unaligned_be16(pkt + 2);
	l.bytes = (get_unaligned_be16(pkt + 4) & 0x7ff) * 4;
	l.slid = get_unaligned_be16(pkt + 6);
	l.bth = SOFTIB_LRH_BYTES;
	if (l.lnh == SOFTIB_LNH_GLOBAL)
		l.bth += SOFTIB_GRH_BYTES;
	/* sw_hop() needs the BTH */
	if ((pkt[0] & 0xf) != SOFTIB_LVER || l.lnh < SOFTIB_LNH_LOCAL ||
	    l.bytes < l.bth + SOFTIB_BTH_BYTES + SOFTIB_ICRC_BYTES ||
	    l.bytes > skb->len)
		goto short_pkt;
	/* the carrier may have padded it: PktLen is the truth */
	if (pskb_trim(skb, l.bytes))
		goto short_pkt;
	atomic64_inc(&p->rx_pkts);
	atomic64_add(l.bytes / 4, &p->rx_words);
	src = softib_skb_src(skb);
	if (src && state != IB_PORT_DOWN && state != IB_PORT_NOP)
		softib_neigh_learn(&p->neigh, l.slid, READ_ONCE(p->sw->lid),
				   (1U << READ_ONCE(p->sw->lmc)) - 1, src,
				   jiffies);

	if (state == IB_PORT_DOWN || state == IB_PORT_NOP) {
		softib_sw_drop(p, SOFTIB_SW_DROP_STATE);
		goto free;
	}
	if (l.vl == 15) {
		sw_rcv_vl15(p, skb, &l);
		return;
	}
	/* the permissive LID is VL15's alone; data waits for ARMED */
	if (l.dlid == IB_LID_PERMISSIVE || l.slid == IB_LID_PERMISSIVE) {
		softib_sw_drop(p, SOFTIB_SW_DROP_LID);
		goto free;
	}
	if (state != IB_PORT_ARMED && state != IB_PORT_ACTIVE) {
		softib_sw_drop(p, SOFTIB_SW_DROP_STATE);
		goto free;
	}
	if (softib_lid_is_mcast(l.dlid))
		sw_fwd_mcast(p, skb, &l);
	else
		sw_fwd_ucast(p, skb, &l);
	return;
short_pkt:
	softib_sw_drop(p, SOFTIB_SW_DROP_SHORT);
free:
	kfree_skb(skb);
}
