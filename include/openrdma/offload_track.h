/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path tracking for offloaded iWARP connections: rdma_cm -> iw_cm -> RNIC.
 *
 * An offloaded RNIC (TCP and MPA on the card, with the host's IP and MAC
 * addresses) keeps per-connection copies of the path: the next hop's MAC,
 * the output netdev, its MTU and the MSS and MPA MULPDU that follow. The
 * host owns the routing and neighbour tables, so it has to tell the card
 * when they change. rdma_cm tracks every id's path (rdma_cm/track.c: the
 * netdevice, netevent and address notifiers and the per-id re-validation);
 * iw_cm, the layer through which the driver sees its connections
 * (iw_connect()/iw_accept() get the iw_cm_id; the host-stack hand-off gets
 * it with orcm_iw_conn_cm_id()), holds the driver's subscription on the
 * connection's iw_cm_id and calls it with what rdma_cm found.
 *
 * Contract:
 *  - one subscription per iw_cm_id, made by the driver that owns the
 *    connection (orcm_iw_track_subscribe());
 *  - every callback runs in process context (the rdma_cm_track
 *    workqueue, with the rdma_cm id's handler_mutex and the id's tracking
 *    mutex held): it may sleep briefly but must not call into rdma_cm or
 *    iw_cm for that connection (destroy, disconnect, unsubscribe);
 *  - the callbacks of one subscription never run concurrently, and each
 *    gets the whole new path, so it can act on one field or on all;
 *  - no callback runs after orcm_iw_track_unsubscribe() has returned. A
 *    driver unsubscribes before it reports the connection's end
 *    (IW_CM_EVENT_CLOSE, or orcm_iw_conn_released() for the host-stack
 *    hand-off), so no callback follows the end the ULP is told about;
 *  - once iw_destroy_cm_id() has been called on the id, no callback runs
 *    either; the subscription's reference keeps the id's memory until
 *    unsubscribe.
 */
#ifndef _OPENRDMA_OFFLOAD_TRACK_H
#define _OPENRDMA_OFFLOAD_TRACK_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/types.h>

struct iw_cm_id;

/**
 * struct orcm_track_path - a connection's path as the host sees it
 * @mtu: MTU of the output netdev; 0 if not known yet
 * @mss: TCP payload of one segment (EMSS) at @mtu for this connection's
 *	address family and TCP options, clamped to the peer's MSS
 * @mulpdu: MPA MULPDU (RFC 5044 4.4) of one FPDU per @mss segment, with
 *	or without markers as the subscription says; 0 if @mss is too small
 * @oif: ifindex of the route's output netdev; 0 without a route
 * @nh_ip: the next hop: the route's gateway, or the destination itself
 *	on a directly connected route; an IPv4 address is v4-mapped
 *	(::ffff:a.b.c.d); all zero without a route
 * @nh_mac: MAC of the next hop; all zero while it is unresolved
 * @link_up: the netdev the connection is bound to is up with carrier
 * @route_ok: a route from the source to the destination address exists
 * @addr_present: the connection's local address is still configured
 * @updates: rdma_cm's count of re-validations that changed the path
 * @event_time: ktime_get() when the first notifier event behind this
 *	update ran (a netdevice, netevent or address notifier); 0 for the
 *	state handed over at subscription
 */
struct orcm_track_path {
	u32	mtu;
	u32	mss;
	u32	mulpdu;
	int	oif;
	struct in6_addr nh_ip;
	u8	nh_mac[ETH_ALEN];
	bool	link_up;
	bool	route_ok;
	bool	addr_present;
	u32	updates;
	ktime_t	event_time;
};

struct orcm_track_sub;

/**
 * struct orcm_track_ops - what a subscribed driver is told
 *
 * One update may change several things: the callbacks of every class that
 * changed run, in the order below, each with the same new @path. Every
 * callback is optional.
 *
 * @route_changed: the route changed: another output netdev (@path->oif),
 *	another next hop (@path->nh_ip), or the route appeared or
 *	disappeared (@path->route_ok).
 * @neigh_changed: the next hop's MAC changed (@path->nh_mac; zero while
 *	the neighbour is being resolved again).
 * @mtu_changed: the output netdev's MTU changed, or the MSS or MULPDU
 *	that follow from it: @path->mtu, @path->mss, @path->mulpdu. The
 *	driver's next FPDU should not exceed @path->mulpdu.
 * @link_changed: the bound netdev went down or lost carrier, or came back
 *	(@path->link_up).
 * @addr_removed: the connection's local address was removed from the
 *	host (@path->addr_present is false); the connection cannot send
 *	from it any more. Called once.
 */
struct orcm_track_ops {
	void (*route_changed)(struct orcm_track_sub *sub,
			      const struct orcm_track_path *path);
	void (*neigh_changed)(struct orcm_track_sub *sub,
			      const struct orcm_track_path *path);
	void (*mtu_changed)(struct orcm_track_sub *sub,
			    const struct orcm_track_path *path);
	void (*link_changed)(struct orcm_track_sub *sub,
			     const struct orcm_track_path *path);
	void (*addr_removed)(struct orcm_track_sub *sub,
			     const struct orcm_track_path *path);
};

/**
 * struct orcm_track_sub - a driver's subscription to one connection
 * @ops: the callbacks; set by the driver before subscribing
 * @markers: the driver inserts MPA markers on transmit (MULPDU is smaller)
 * @tcp_opt_len: octets of TCP options per segment (12 with timestamps)
 * @peer_mss: the MSS the peer announced; 0: no clamp
 * @cm_id: the connection; set by orcm_iw_track_subscribe()
 *
 * Embedded in the driver's connection; it must stay valid until
 * orcm_iw_track_unsubscribe() returns.
 */
struct orcm_track_sub {
	const struct orcm_track_ops *ops;
	bool	markers;
	u16	tcp_opt_len;
	u32	peer_mss;
	struct iw_cm_id *cm_id;
};

/**
 * orcm_mpa_emss() - the TCP payload of one segment on a path
 * @mtu: the path MTU
 * @ipv6: IPv6 (40 octets of IP header) rather than IPv4 (20)
 * @tcp_opt_len: octets of TCP options per segment
 *
 * Return: the octets of payload, 0 if @mtu cannot carry any.
 */
static inline u32 orcm_mpa_emss(u32 mtu, bool ipv6, u32 tcp_opt_len)
{
	u32 hdrs = (ipv6 ? 40 : 20) + 20 + tcp_opt_len;

	return mtu > hdrs ? mtu - hdrs : 0;
}

/**
 * orcm_mpa_mulpdu() - the largest ULPDU of an FPDU that fits one segment
 * @emss: the segment's payload (orcm_mpa_emss())
 * @markers: markers are inserted (4 octets every 512 of the stream)
 *
 * RFC 5044 section 4.4: MULPDU = EMSS - (6 + 4 * ceil(EMSS / 512) with
 * markers + EMSS mod 4), which keeps the FPDU a multiple of 4 octets; at
 * most 65532 (ULPDU_Length is 16 bits).
 *
 * Return: the MULPDU, 0 if @emss is smaller than the framing.
 */
static inline u32 orcm_mpa_mulpdu(u32 emss, bool markers)
{
	u32 overhead = 2 + 4 + emss % 4;	/* ULPDU_Length, CRC, pad */

	if (markers)
		overhead += 4 * DIV_ROUND_UP(emss, 512);
	if (emss <= overhead)
		return 0;
	return min_t(u32, emss - overhead, 0xffff & ~3U);
}

/**
 * orcm_iw_track_subscribe() - be told of path changes of a connection
 * @cm_id: the connection's id (iw_connect()/iw_accept(), or
 *	orcm_iw_conn_cm_id() in the host-stack hand-off)
 * @sub: the subscription, with @ops, @markers, @tcp_opt_len and
 *	@peer_mss set
 * @now: filled with the path as last seen (@now->mtu is 0 when the
 *	connection is not tracked: no netdev, or not made through rdma_cm)
 *
 * Process context. Takes a reference on @cm_id until unsubscribe.
 *
 * Return: 0, -EBUSY if @cm_id already has a subscription, -ENOENT if
 * @cm_id is being destroyed.
 */
int orcm_iw_track_subscribe(struct iw_cm_id *cm_id,
			    struct orcm_track_sub *sub,
			    struct orcm_track_path *now);

/**
 * orcm_iw_track_unsubscribe() - stop the callbacks of a subscription
 * @sub: a subscription made with orcm_iw_track_subscribe()
 *
 * Process context; not from a callback. Waits for a callback in progress:
 * no callback of @sub runs after this returns. Drops the reference on the
 * id; @sub may be freed afterwards.
 */
void orcm_iw_track_unsubscribe(struct orcm_track_sub *sub);

/**
 * orcm_iw_track_update() - a connection's path as rdma_cm re-validated it
 * @cm_id: the id rdma_cm drives
 * @path: the new path; @mss and @mulpdu are ignored (computed per
 *	subscription)
 *
 * For rdma_cm (rdma_cm/track.c), process context, under the rdma_cm id's
 * handler_mutex and never after iw_destroy_cm_id(@cm_id). Remembers @path
 * for a later subscription and calls the subscriber's callbacks of every
 * class that changed.
 */
void orcm_iw_track_update(struct iw_cm_id *cm_id,
			  const struct orcm_track_path *path);

#endif /* _OPENRDMA_OFFLOAD_TRACK_H */
