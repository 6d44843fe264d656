// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity scenarios of network change tracking over RoCE (the rxe device
 * of the RoCE scenarios, both addresses on its netdev): a neighbour update
 * for a connected id's destination, with another MAC (in-tree: UNREACHABLE
 * -ETIMEDOUT to the active id, nothing to the passive one) and with the
 * same MAC (nothing).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <net/arp.h>
#include <net/neighbour.h>

#include "pt.h"

#define TR_PORT		(PT_PORT + 120)

/*
 * Make the neighbour entry of @ip on @ndev valid with @mac: what an ARP
 * reply or a gratuitous ARP from a peer with that MAC does. The entry is
 * put back (failed, left to the garbage collector) by tr_neigh_drop().
 */
static struct neighbour *tr_neigh_set(struct net_device *ndev, __be32 ip,
				      const u8 *mac)
{
	struct neighbour *n = __neigh_lookup(&arp_tbl, &ip, ndev, true);

	if (IS_ERR_OR_NULL(n))
		return NULL;
	neigh_update(n, mac, NUD_REACHABLE,
		     NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	return n;
}

static void tr_neigh_drop(struct neighbour *n)
{
	if (!n)
		return;
	neigh_update(n, NULL, NUD_FAILED,
		     NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	neigh_release(n);
}

enum { TR_SAME_MAC, TR_NEW_MAC };

static void sc_neigh(int how)
{
	struct pt_id l = {}, c = {};
	struct neighbour *n = NULL;
	struct net_device *ndev;
	__be32 ip = in_aton(PARITY_RB);
	u8 mac[ETH_ALEN];

	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_RB, TR_PORT + how, PT_ACCEPT);
	if (pt_connect(&c, PARITY_RB, TR_PORT + how, 0) ||
	    pt_wait_any(&c, RDMA_CM_EVENT_ESTABLISHED,
			RDMA_CM_EVENT_REJECTED) != RDMA_CM_EVENT_ESTABLISHED ||
	    !l.child || !pt_wait(l.child, RDMA_CM_EVENT_ESTABLISHED))
		goto out;

	ndev = ip_dev_find(&init_net, ip);
	if (!ndev) {
		pt_log("  no netdev has %s\n", PARITY_RB);
		goto out;
	}
	memcpy(mac, c.id->route.addr.dev_addr.dst_dev_addr, ETH_ALEN);
	if (how == TR_NEW_MAC)
		mac[ETH_ALEN - 1] ^= 0x5a;
	n = tr_neigh_set(ndev, ip, mac);
	dev_put(ndev);
	pt_log("  neighbour %s %s\n", PARITY_RB,
	       how == TR_NEW_MAC ? "new MAC" : "same MAC");
	if (how == TR_NEW_MAC)
		pt_wait(&c, RDMA_CM_EVENT_UNREACHABLE);
	/* Time for a wrong event to show (on the child, or the listener). */
	msleep(300);
	pt_call(&c, "after", 0);
	pt_call(l.child, "after", 0);
	/*
	 * The end, made deterministic: a teardown that destroys the child
	 * first races its DREQ (towards the client's address, whose
	 * neighbour is untouched) with the client's own destroy, and either
	 * stack sometimes delivers the client a DISCONNECTED before it.
	 * The child disconnects and the client is waited for; the client's
	 * DREP (towards the changed neighbour) does not matter, the child is
	 * destroyed first.
	 */
	pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
	pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
out:
	pt_destroy_children();
	pt_destroy(&c);
	pt_destroy(&l);
	tr_neigh_drop(n);
}

void pt_register_track(void)
{
	pt_add("roce-neigh-same-mac", sc_neigh, TR_SAME_MAC, false);
	pt_add("roce-neigh-new-mac", sc_neigh, TR_NEW_MAC, false);
}
