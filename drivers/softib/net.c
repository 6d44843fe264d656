// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the carrier. An IB packet (LRH through ICRC) is the payload of an
 * Ethernet frame of EtherType SOFTIB_ETHERTYPE, sent from the carrier
 * netdev's address to the MAC its DLID was last seen behind (the
 * neighbour table below), or to broadcast when that is unknown, multicast
 * or permissive: the LRH's DLID is what routes. A frame goes to the CA
 * whose carrier received it, or to the switch port bound to that netdev
 * (sw_fwd.c); anywhere else it is dropped.
 *
 * Also here: the policy for SubnSet from the wire (mgmt_policy).
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/moduleparam.h>
#include <linux/unaligned.h>
#include "softib.h"
#include "wire.h"
#include "sw.h"

/* ---- neighbours (struct softib_neigh) ----------------------------------- */

void softib_neigh_init(struct softib_neigh *n)
{
	spin_lock_init(&n->lock);
	memset(n->ent, 0, sizeof(n->ent));
	n->sm_bound = false;
	atomic64_set(&n->ucast, 0);
	atomic64_set(&n->bcast, 0);
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_init);

static bool softib_neigh_lid_ok(u16 lid)
{
	return lid && lid != SOFTIB_LID_PERMISSIVE && !softib_lid_is_mcast(lid);
}

static bool softib_neigh_fresh(const struct softib_neigh_ent *e,
			       unsigned long now)
{
	return e->lid && time_before(now, e->seen + SOFTIB_NEIGH_AGE);
}

/**
 * softib_neigh_learn - a frame from mac carried SLID slid
 * @n: the receiving port's table
 * @slid: the packet's SLID
 * @own: the receiving port's base LID (0: none yet; a change flushes)
 * @own_mask: its LMC mask; no frame teaches a LID of the port's own
 * @mac: the frame's Ethernet source
 * @now: jiffies
 *
 * Call for a frame that passed the receiver's header checks only.
 */
void softib_neigh_learn(struct softib_neigh *n, u16 slid, u16 own,
			u16 own_mask, const u8 *mac, unsigned long now)
{
	struct softib_neigh_ent *e, *slot = NULL;
	unsigned long flags;
	unsigned int i;

	softib_neigh_own(n, own);
	if (!softib_neigh_lid_ok(slid) || !is_valid_ether_addr(mac) ||
	    (own && (slid & ~own_mask) == own))
		return;
	spin_lock_irqsave(&n->lock, flags);
	for (i = 0; i < SOFTIB_NEIGH_MAX; i++) {
		e = &n->ent[i];
		if (e->lid == slid) {
			slot = e;
			break;
		}
		/* a free slot, or else the one seen longest ago */
		if (!slot || (slot->lid && (!e->lid ||
					    time_before(e->seen, slot->seen))))
			slot = e;
	}
	slot->lid = slid;
	slot->seen = now;
	ether_addr_copy(slot->mac, mac);
	spin_unlock_irqrestore(&n->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_learn);

/**
 * softib_neigh_lookup - the MAC a frame to dlid goes to
 * @n: the sending port's table
 * @dlid: the packet's DLID
 * @mac: set to the MAC when known
 * @now: jiffies
 *
 * Return: true when @mac is set; false: broadcast (unknown, aged, a
 * multicast or the permissive LID).
 */
bool softib_neigh_lookup(struct softib_neigh *n, u16 dlid, u8 *mac,
			 unsigned long now)
{
	unsigned long flags;
	unsigned int i;
	bool found = false;

	if (!softib_neigh_lid_ok(dlid))
		return false;
	spin_lock_irqsave(&n->lock, flags);
	for (i = 0; i < SOFTIB_NEIGH_MAX; i++) {
		struct softib_neigh_ent *e = &n->ent[i];

		if (e->lid != dlid)
			continue;
		if (softib_neigh_fresh(e, now)) {
			ether_addr_copy(mac, e->mac);
			found = true;
		} else {
			e->lid = 0;
		}
		break;
	}
	spin_unlock_irqrestore(&n->lock, flags);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_lookup);

/*
 * Forget every neighbour (the port's LID changed), and the SM binding too
 * when sm (the link went down).
 */
void softib_neigh_flush(struct softib_neigh *n, bool sm)
{
	unsigned long flags;

	spin_lock_irqsave(&n->lock, flags);
	memset(n->ent, 0, sizeof(n->ent));
	if (sm)
		n->sm_bound = false;
	spin_unlock_irqrestore(&n->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_flush);

/*
 * The port's LID is own: when it changed since the table was learned (a
 * new subnet's LIDs), forget the neighbours, not the SM.
 */
void softib_neigh_own(struct softib_neigh *n, u16 own)
{
	unsigned long flags;

	if (READ_ONCE(n->own) == own)
		return;
	spin_lock_irqsave(&n->lock, flags);
	if (n->own != own) {
		memset(n->ent, 0, sizeof(n->ent));
		WRITE_ONCE(n->own, own);
	}
	spin_unlock_irqrestore(&n->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_own);

/* How many neighbours are known (not aged) at now. */
unsigned int softib_neigh_count(struct softib_neigh *n, unsigned long now)
{
	unsigned int i, cnt = 0;
	unsigned long flags;

	spin_lock_irqsave(&n->lock, flags);
	for (i = 0; i < SOFTIB_NEIGH_MAX; i++)
		cnt += softib_neigh_fresh(&n->ent[i], now);
	spin_unlock_irqrestore(&n->lock, flags);
	return cnt;
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_count);

/*
 * A SubnSet from mac (NULL: no Ethernet header, the zero address stands
 * for it): true when it is the bound SM's, or binds it when none is.
 */
bool softib_neigh_sm_ok(struct softib_neigh *n, const u8 *mac)
{
	static const u8 none[ETH_ALEN];
	unsigned long flags;
	bool ok = true;

	if (!mac)
		mac = none;
	spin_lock_irqsave(&n->lock, flags);
	if (!n->sm_bound) {
		n->sm_bound = true;
		ether_addr_copy(n->sm_mac, mac);
	} else {
		ok = ether_addr_equal(n->sm_mac, mac);
	}
	spin_unlock_irqrestore(&n->lock, flags);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(softib_neigh_sm_ok);

/* The Ethernet source of a frame from the carrier; NULL for the loopback. */
const u8 *softib_skb_src(const struct sk_buff *skb)
{
	if (!skb_mac_header_was_set(skb) ||
	    skb_mac_header(skb) + ETH_HLEN > skb->data)
		return NULL;
	return eth_hdr(skb)->h_source;
}
EXPORT_SYMBOL_IF_KUNIT(softib_skb_src);

/* ---- management from the wire ------------------------------------------- */

static enum softib_mgmt_policy softib_mgmt_policy = SOFTIB_MGMT_SM_ONLY;
static const char * const softib_mgmt_policy_names[] = {
	[SOFTIB_MGMT_SM_ONLY] = "sm-only",
	[SOFTIB_MGMT_OPEN] = "open",
};

static int softib_mgmt_policy_set(const char *val,
				  const struct kernel_param *kp)
{
	int i = sysfs_match_string(softib_mgmt_policy_names, val);

	if (i < 0)
		return i;
	WRITE_ONCE(softib_mgmt_policy, i);
	return 0;
}

static int softib_mgmt_policy_show(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  softib_mgmt_policy_names[READ_ONCE(softib_mgmt_policy)]);
}

static const struct kernel_param_ops softib_mgmt_policy_ops = {
	.set = softib_mgmt_policy_set,
	.get = softib_mgmt_policy_show,
};
module_param_cb(mgmt_policy, &softib_mgmt_policy_ops, NULL, 0644);
MODULE_PARM_DESC(mgmt_policy,
		 "SubnSet from the wire to a port whose M_Key is 0: sm-only (default: only from the Ethernet source of the first SubnSet since link up) or open (anyone, as IBA)");

enum softib_mgmt_policy softib_mgmt_policy_get(void)
{
	return READ_ONCE(softib_mgmt_policy);
}
EXPORT_SYMBOL_IF_KUNIT(softib_mgmt_policy_get);

/**
 * softib_mgmt_set_ok - may a SubnSet from the wire reach a CA port's SMA?
 * @n: the port's table (its SM binding)
 * @mkey: the port's M_Key: a non-zero one is IBA's check, not ours
 * @mac: the frame's Ethernet source
 */
bool softib_mgmt_set_ok(struct softib_neigh *n, __be64 mkey, const u8 *mac)
{
	if (softib_mgmt_policy_get() == SOFTIB_MGMT_OPEN || mkey)
		return true;
	return softib_neigh_sm_ok(n, mac);
}
EXPORT_SYMBOL_IF_KUNIT(softib_mgmt_set_ok);

/* ---- packets ------------------------------------------------------------ */

/*
 * A packet with the headers h describes and len bytes of payload taken
 * from ss (advanced past them; ss may be NULL when len is 0), its pad and
 * ICRC. NULL when no memory.
 */
struct sk_buff *softib_pkt_build(struct softib_dev *sdev,
				 const struct softib_hdr *h,
				 struct rvt_sge_state *ss, u32 len, gfp_t gfp)
{
	unsigned int hlen = softib_hdr_len(h), bytes = h->pktlen * 4;
	struct net_device *ndev = sdev->ndev;
	struct sk_buff *skb;
	u8 *p, *dst;
	u32 left;

	if (bytes != hlen + len + h->padcnt + SOFTIB_ICRC_BYTES)
		return NULL;
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + bytes, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	p = skb_put(skb, bytes);
	softib_hdr_build(p, h);
	dst = p + hlen;
	for (left = len; left; ) {
		u32 n = rvt_get_sge_length(&ss->sge, left);

		if (!n) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(dst, ss->sge.vaddr, n);
		rvt_update_sge(ss, n, false);
		dst += n;
		left -= n;
	}
	memset(dst, 0, h->padcnt);
	softib_icrc_set(p, bytes - SOFTIB_ICRC_BYTES);
	return skb;
}

/*
 * Send a built packet (consumed): to the carrier, or, when its DLID is our
 * own, to our receive path as if from the wire. No QP lock may be held:
 * our own receive path takes them. A down port, or data before ACTIVE
 * (anything but VL15's SMPs): the packet goes nowhere.
 */
void softib_pkt_out(struct softib_dev *sdev, struct sk_buff *skb)
{
	struct softib_port *port = &sdev->port;
	u8 state = READ_ONCE(port->state);
	u16 lid = READ_ONCE(port->lid);
	const u8 *p = skb->data;
	u16 dlid = get_unaligned_be16(p + 2);
	u8 vl = p[0] >> 4;
	u16 mask = (1U << READ_ONCE(port->lmc)) - 1;

	if (state == IB_PORT_DOWN || state == IB_PORT_NOP ||
	    (vl != 15 && state != IB_PORT_ACTIVE)) {
		atomic64_inc(&port->cnt.xmit_discards);
		kfree_skb(skb);
		return;
	}
	atomic64_inc(&port->cnt.xmit_pkts);
	atomic64_add(skb->len / 4, &port->cnt.xmit_data);
	if (softib_lid_is_mcast(dlid))
		atomic64_inc(&port->cnt.xmit_mcast_pkts);
	if (lid && !softib_lid_is_mcast(dlid) &&
	    dlid != SOFTIB_LID_PERMISSIVE && (dlid & ~mask) == lid) {
		local_bh_disable();
		rcu_read_lock();
		softib_ud_rcv(sdev, skb);
		rcu_read_unlock();
		local_bh_enable();
		return;
	}
	if (softib_xmit(sdev, skb))
		atomic64_inc(&port->cnt.xmit_discards);
}

/* Consumes skb, which holds the IB packet at skb->data. */
int softib_xmit(struct softib_dev *sdev, struct sk_buff *skb)
{
	struct net_device *ndev = sdev->ndev;

	if (skb->len > ndev->mtu || !(ndev->flags & IFF_UP)) {
		kfree_skb(skb);
		return -EMSGSIZE;
	}
	softib_neigh_own(&sdev->port.neigh, READ_ONCE(sdev->port.lid));
	return softib_eth_xmit(ndev, skb, &sdev->port.neigh);
}

/*
 * The IB packet at skb->data (consumed, with ETH_HLEN of writable headroom)
 * out of ndev: a CA's carrier or a switch port's netdev (sw_fwd.c), to the
 * MAC n knows for its DLID, or to broadcast.
 */
int softib_eth_xmit(struct net_device *ndev, struct sk_buff *skb,
		    struct softib_neigh *n)
{
	u16 dlid = get_unaligned_be16(skb->data + 2);
	struct ethhdr *eth;

	skb_reset_network_header(skb);
	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	if (softib_neigh_lookup(n, dlid, eth->h_dest, jiffies)) {
		atomic64_inc(&n->ucast);
	} else {
		eth_broadcast_addr(eth->h_dest);
		atomic64_inc(&n->bcast);
	}
	ether_addr_copy(eth->h_source, ndev->dev_addr);
	eth->h_proto = htons(SOFTIB_ETHERTYPE);
	skb->protocol = htons(SOFTIB_ETHERTYPE);
	skb->dev = ndev;
	skb->priority = 0;
	return dev_queue_xmit(skb) == NET_XMIT_SUCCESS ? 0 : -ENOBUFS;
}
EXPORT_SYMBOL_IF_KUNIT(softib_eth_xmit);

/* Under rcu_read_lock() (the receive softirq). */
static int softib_pkt_rcv(struct sk_buff *skb, struct net_device *ndev,
			  struct packet_type *pt, struct net_device *orig)
{
	struct softib_sw_port *swp = NULL;
	struct softib_dev *sdev;

	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_OUTGOING)
		goto free;
	sdev = softib_find_rcu(ndev);
	if (!sdev) {
		swp = softib_sw_port_find_rcu(ndev);
		if (!swp)
			goto free;
	}
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (swp)
		softib_sw_rcv(swp, skb);
	else
		softib_ud_rcv(sdev, skb);
	return NET_RX_SUCCESS;
free:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type softib_packet_type __read_mostly = {
	.type = cpu_to_be16(SOFTIB_ETHERTYPE),
	.func = softib_pkt_rcv,
};

int softib_net_init(void)
{
	dev_add_pack(&softib_packet_type);
	return 0;
}

void softib_net_exit(void)
{
	/* Waits for the receive handlers in flight (synchronize_net). */
	dev_remove_pack(&softib_packet_type);
}
