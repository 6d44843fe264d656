// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the carrier. An IB packet (LRH through ICRC) is the payload of an
 * Ethernet frame of EtherType SOFTIB_ETHERTYPE, sent to the broadcast
 * address from the carrier netdev's own: the LRH's DLID is what routes.
 * Frames that reach a netdev no softib device is bound to are dropped.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include "softib.h"

/* Consumes skb, which holds the IB packet at skb->data. */
int softib_xmit(struct softib_dev *sdev, struct sk_buff *skb)
{
	struct net_device *ndev = sdev->ndev;
	struct ethhdr *eth;

	if (skb->len > ndev->mtu || !(ndev->flags & IFF_UP)) {
		kfree_skb(skb);
		return -EMSGSIZE;
	}
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

/* Under rcu_read_lock() (the receive softirq). */
static int softib_pkt_rcv(struct sk_buff *skb, struct net_device *ndev,
			  struct packet_type *pt, struct net_device *orig)
{
	struct softib_dev *sdev;

	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_OUTGOING)
		goto free;
	sdev = softib_find_rcu(ndev);
	if (!sdev)
		goto free;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
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
