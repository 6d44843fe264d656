// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic's connection path state, and its debugfs view.
 *
 * Offloaded CM (offload_cm=1): softrnic plays a card that keeps its own
 * copy of each connection's path, as cxgb4-type RNICs do. It subscribes to
 * the connection's path tracking (include/openrdma/offload_track.h) at
 * attach and takes from it, not from the host socket:
 *  - the FPDU size: the transmit path builds FPDUs of the MULPDU the
 *    notifications give (one FPDU per TCP segment of the path MTU); a new
 *    size takes effect at the next FPDU boundary (sr_track_tx());
 *  - the next hop's state: while the link is down the transmit path holds
 *    new FPDUs (what is queued on the socket stays there), and resumes when
 *    it comes back; a close or TERMINATE is sent regardless. The next hop's
 *    MAC, output netdev, route and local address are recorded and shown:
 *    the host stack's socket under softrnic routes by itself.
 * Host-stack mode (default) does not subscribe: its MULPDU is the socket's
 * MSS at the hand-off, and the host TCP under it follows the path.
 *
 * debugfs: softrnic/<device>-qp<N>, one file per connection, either mode.
 *
 * Locking: @trk_lock (process context: callbacks, tx_work, debugfs) guards
 * sr_conn.trk; c->mulpdu is tx_mutex's, read here with READ_ONCE().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <rdma/iw_cm.h>

#include "wire.h"

static struct dentry *sr_dbg_root;

void sr_track_init(void)
{
	sr_dbg_root = debugfs_create_dir("softrnic", NULL);
}

void sr_track_exit(void)
{
	debugfs_remove(sr_dbg_root);
}

static struct sr_conn *sub_conn(struct orcm_track_sub *sub)
{
	return container_of(sub, struct sr_conn, trk_sub);
}

/* A MULPDU the transmit path can use; 0: keep the current one. */
static u32 sr_track_mulpdu(const struct orcm_track_path *path)
{
	if (path->mulpdu < 256)
		return 0;
	return min_t(u32, path->mulpdu, SOFTRNIC_MPA_MAX_ULPDU & ~3U);
}

/* Every callback: record @path, count the update once, wake tx. */
static void sr_track_note(struct orcm_track_sub *sub,
			  const struct orcm_track_path *path,
			  enum sr_trk_class cls)
{
	struct sr_conn *c = sub_conn(sub);
	s64 lat = -1;

	if (path->event_time)
		lat = ktime_to_ns(ktime_sub(ktime_get(), path->event_time));
	spin_lock(&c->trk_lock);
	if (path->updates != c->trk.path.updates ||
	    path->event_time != c->trk.path.event_time) {
		c->trk.nr_updates++;
		c->trk.last_lat_ns = lat;
	}
	c->trk.nr_class[cls]++;
	c->trk.path = *path;
	if (sr_track_mulpdu(path) &&
	    sr_track_mulpdu(path) != c->trk.mulpdu_want) {
		c->trk.mulpdu_want = sr_track_mulpdu(path);
		c->trk.want_time = path->event_time;
	}
	c->trk.hold = !path->link_up;
	spin_unlock(&c->trk_lock);
	queue_work(sr_wire_wq, &c->tx_work);
}

static void sr_track_route(struct orcm_track_sub *sub,
			   const struct orcm_track_path *path)
{
	sr_track_note(sub, path, SR_TRK_ROUTE);
}

static void sr_track_neigh(struct orcm_track_sub *sub,
			   const struct orcm_track_path *path)
{
	sr_track_note(sub, path, SR_TRK_NEIGH);
}

static void sr_track_mtu(struct orcm_track_sub *sub,
			 const struct orcm_track_path *path)
{
	sr_track_note(sub, path, SR_TRK_MTU);
}

static void sr_track_link(struct orcm_track_sub *sub,
			  const struct orcm_track_path *path)
{
	sr_track_note(sub, path, SR_TRK_LINK);
}

static void sr_track_addr(struct orcm_track_sub *sub,
			  const struct orcm_track_path *path)
{
	sr_track_note(sub, path, SR_TRK_ADDR);
}

static const struct orcm_track_ops sr_track_ops = {
	.route_changed = sr_track_route,
	.neigh_changed = sr_track_neigh,
	.mtu_changed = sr_track_mtu,
	.link_changed = sr_track_link,
	.addr_removed = sr_track_addr,
};

static const char * const sr_trk_class_name[SR_TRK_NCLASS] = {
	[SR_TRK_ROUTE] = "route",
	[SR_TRK_NEIGH] = "neigh",
	[SR_TRK_MTU] = "mtu",
	[SR_TRK_LINK] = "link",
	[SR_TRK_ADDR] = "addr",
};

static int sr_track_show(struct seq_file *m, void *v)
{
	struct sr_conn *c = m->private;
	struct sr_trk t;
	int i;

	spin_lock(&c->trk_lock);
	t = c->trk;
	spin_unlock(&c->trk_lock);
	seq_printf(m, "mode %s\n", c->trk_subscribed ? "offload" : "host");
	seq_printf(m, "tx_mulpdu %u\n", READ_ONCE(c->mulpdu));
	/* The engine's state, a racy snapshot for a stalled connection. */
	seq_printf(m, "flags 0x%lx\nrx_work %s\ntx_work %s\n",
		   READ_ONCE(c->flags),
		   work_pending(&c->rx_work) ? "pending" : "idle",
		   work_pending(&c->tx_work) ? "pending" : "idle");
	seq_printf(m, "rx_pos %u\nrx_have %u\nrx_need %u\nrx_msn %u %u %u\n",
		   READ_ONCE(c->mrx.pos), READ_ONCE(c->mrx.have),
		   READ_ONCE(c->mrx.need), READ_ONCE(c->rx_msn[0]),
		   READ_ONCE(c->rx_msn[1]), READ_ONCE(c->rx_msn[2]));
	seq_printf(m, "tx_len %u\ntx_sent %u\ncur_valid %d\ntx_msn %u %u %u\n",
		   READ_ONCE(c->tx_len), READ_ONCE(c->tx_sent),
		   READ_ONCE(c->cur_valid), READ_ONCE(c->tx_msn[0]),
		   READ_ONCE(c->tx_msn[1]), READ_ONCE(c->tx_msn[2]));
	seq_printf(m, "ird_count %u\nord_count %u\n", READ_ONCE(c->ird_count),
		   READ_ONCE(c->ord_count));
	if (!c->trk_subscribed)
		return 0;
	seq_printf(m, "mtu %u\nmss %u\nmulpdu %u\n", t.path.mtu, t.path.mss,
		   t.path.mulpdu);
	seq_printf(m, "nh_mac %pM\noif %d\n", t.path.nh_mac, t.path.oif);
	if (ipv6_addr_v4mapped(&t.path.nh_ip))
		seq_printf(m, "nh_ip %pI4\n", &t.path.nh_ip.s6_addr32[3]);
	else
		seq_printf(m, "nh_ip %pI6c\n", &t.path.nh_ip);
	seq_printf(m, "link %s\nroute %s\naddr %s\n",
		   t.path.link_up ? "up" : "down",
		   t.path.route_ok ? "ok" : "none",
		   t.path.addr_present ? "present" : "removed");
	seq_printf(m, "tx_hold %d\n", t.hold);
	seq_printf(m, "updates %u\n", t.nr_updates);
	for (i = 0; i < SR_TRK_NCLASS; i++)
		seq_printf(m, "%s_changes %u\n", sr_trk_class_name[i],
			   t.nr_class[i]);
	seq_printf(m, "last_latency_ns %lld\n", t.last_lat_ns);
	seq_printf(m, "last_tx_latency_ns %lld\n", t.tx_lat_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sr_track);

/*
 * The card frames an FPDU when it can send it: TCP holds at most
 * SR_TRK_NOTSENT octets framed but not sent yet (two FPDUs at MTU 9000), so
 * an FPDU size notified reaches the wire after that much, not after a send
 * buffer's worth. A stream in the UML test VM moves tens of KB/s at times:
 * 64 KiB there took over a second to drain.
 */
#define SR_TRK_NOTSENT	(16 * 1024)

static void sr_track_notsent(struct sock *sk)
{
	lock_sock(sk);
	WRITE_ONCE(tcp_sk(sk)->notsent_lowat, SR_TRK_NOTSENT);
	release_sock(sk);
}

/*
 * At attach, before the connection is published: subscribe if the device
 * plays an offloaded RNIC, and make the debugfs file. Failures leave the
 * connection working as in host-stack mode.
 */
void sr_track_attach(struct sr_conn *c, struct orcm_iw_conn *conn)
{
	struct ib_device *ibdev = c->qp->ibqp.device;
	struct tcp_sock *tp = tcp_sk(c->sock->sk);
	struct orcm_track_path now;
	struct iw_cm_id *cm_id;
	char name[IB_DEVICE_NAME_MAX + 16];

	spin_lock_init(&c->trk_lock);
	c->trk.last_lat_ns = -1;
	c->trk.tx_lat_ns = -1;
	cm_id = orcm_iw_conn_cm_id(conn);
	if (!(ibdev->iw_driver_flags & IW_F_NO_PORT_MAP) && cm_id) {
		c->trk_sub.ops = &sr_track_ops;
		c->trk_sub.markers = c->params.markers_tx;
		c->trk_sub.tcp_opt_len = tp->tcp_header_len -
					 sizeof(struct tcphdr);
		c->trk_sub.peer_mss = tp->rx_opt.mss_clamp;
		if (!orcm_iw_track_subscribe(cm_id, &c->trk_sub, &now)) {
			c->trk_subscribed = true;
			c->trk.path = now;
			c->trk.mulpdu_want = sr_track_mulpdu(&now);
			c->trk.hold = now.mtu && !now.link_up;
			sr_track_notsent(c->sock->sk);
		}
	}
	snprintf(name, sizeof(name), "%s-qp%u", dev_name(&ibdev->dev),
		 c->qp->ibqp.qp_num);
	c->trk_dbg = debugfs_create_file(name, 0444, sr_dbg_root, c,
					 &sr_track_fops);
}

/* Before the connection's end is reported: no callback after this. */
void sr_track_release(struct sr_conn *c)
{
	if (!c->trk_subscribed)
		return;
	orcm_iw_track_unsubscribe(&c->trk_sub);
	c->trk_subscribed = false;
}

/* Before the connection is freed (the file's readers are waited for). */
void sr_track_free(struct sr_conn *c)
{
	debugfs_remove(c->trk_dbg);
	c->trk_dbg = NULL;
}

/*
 * tx_work, between FPDUs (nothing framed is waiting in txbuf), tx_mutex
 * held: take the notified FPDU size. True if the link is down and no close
 * or TERMINATE is due: send nothing new now.
 */
bool sr_track_tx(struct sr_conn *c)
{
	ktime_t when;
	u32 want;
	bool hold;

	lockdep_assert_held(&c->tx_mutex);
	if (!c->trk_subscribed)
		return false;
	spin_lock(&c->trk_lock);
	want = c->trk.mulpdu_want;
	when = c->trk.want_time;
	hold = c->trk.hold;
	spin_unlock(&c->trk_lock);
	if (want && want != c->mulpdu &&
	    (want <= c->mulpdu_cap || !sr_conn_tx_bufs(c, want))) {
		WRITE_ONCE(c->mulpdu, want);
		/* From the netdev event to the first FPDU of the new size. */
		spin_lock(&c->trk_lock);
		if (when)
			c->trk.tx_lat_ns = ktime_to_ns(ktime_sub(ktime_get(),
								 when));
		spin_unlock(&c->trk_lock);
	}
	return hold && !test_bit(SR_CONN_CLOSING, &c->flags) &&
	       !test_bit(SR_CONN_TERM, &c->flags);
}
