// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the carrier. An IB packet (LRH through ICRC) is the payload of an
 * Ethernet frame of EtherType SOFTIB_ETHERTYPE, sent to the broadcast
 * address from the carrier netdev's own: the LRH's DLID is what routes.
 * A frame goes to the CA whose carrier received it, or to the switch port
 * bound to that netdev (sw_fwd.c); anywhere else it is dropped.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/unaligned.h>
#include "softib.h"
#include "wire.h"
#include "sw.h"

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
	return softib_eth_xmit(ndev, skb);
}

/*
 * The IB packet at skb->data (consumed, with ETH_HLEN of writable headroom)
 * out of ndev: a CA's carrier or a switch port's netdev (sw_fwd.c).
 */
int softib_eth_xmit(struct net_device *ndev, struct sk_buff *skb)
{
	struct ethhdr *eth;

	skb_reset_network_header(skb);
	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	eth_broadcast_addr(eth->h_dest);
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
