// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: path tracking for offloaded connections
 * (include/openrdma/offload_track.h).
 *
 * rdma_cm owns the tracking (its notifiers and index, rdma_cm/track.c) and
 * pushes each re-validated path of an id that drives an iw_cm_id through
 * orcm_iw_track_update(). iw_cm keeps the last path on the iw_cm_id, so a
 * driver that subscribes after the connection is up starts from it, and
 * calls the driver's callbacks for what changed. The subscription lives
 * here, not in rdma_cm, because the iw_cm_id is what the driver knows its
 * connection by, and because a driver then depends on iw_cm only, as any
 * iWARP driver does, never on rdma_cm.
 *
 * Locking: priv->track_mutex protects priv->track_sub, track_path and
 * track_dead, and is held across the callbacks. So unsubscribe, which takes
 * it, returns only after a callback in progress, and none starts after.
 * Order: rdma_cm's handler_mutex, then track_mutex, then the driver's own
 * locks inside a callback.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/export.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include <openrdma/offload_track.h>

#include "iwcm.h"

void iwcm_track_init_id(struct iwcm_id_priv *priv)
{
	mutex_init(&priv->track_mutex);
}

/* iw_destroy_cm_id(): no callback from now on. */
void iwcm_track_stop(struct iwcm_id_priv *priv)
{
	mutex_lock(&priv->track_mutex);
	priv->track_dead = true;
	mutex_unlock(&priv->track_mutex);
}

/* @path as @sub sees it: the MSS and MULPDU of its connection. */
static void iwcm_track_fill(struct iwcm_id_priv *priv,
			    const struct orcm_track_sub *sub,
			    struct orcm_track_path *path)
{
	bool ipv6 = priv->id.local_addr.ss_family == AF_INET6;

	path->mss = orcm_mpa_emss(path->mtu, ipv6, sub->tcp_opt_len);
	if (sub->peer_mss)
		path->mss = min(path->mss, sub->peer_mss);
	path->mulpdu = orcm_mpa_mulpdu(path->mss, sub->markers);
}

int orcm_iw_track_subscribe(struct iw_cm_id *cm_id,
			    struct orcm_track_sub *sub,
			    struct orcm_track_path *now)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	int ret = 0;

	mutex_lock(&priv->track_mutex);
	if (priv->track_dead) {
		ret = -ENOENT;
		goto out;
	}
	if (priv->track_sub) {
		ret = -EBUSY;
		goto out;
	}
	iwcm_get(priv);
	sub->cm_id = cm_id;
	priv->track_sub = sub;
	*now = priv->track_path;
	iwcm_track_fill(priv, sub, now);
out:
	mutex_unlock(&priv->track_mutex);
	return ret;
}
EXPORT_SYMBOL(orcm_iw_track_subscribe);

void orcm_iw_track_unsubscribe(struct orcm_track_sub *sub)
{
	struct iwcm_id_priv *priv = to_iwcm(sub->cm_id);

	mutex_lock(&priv->track_mutex);
	WARN_ON_ONCE(priv->track_sub != sub);
	if (priv->track_sub == sub)
		priv->track_sub = NULL;
	mutex_unlock(&priv->track_mutex);
	sub->cm_id = NULL;
	iwcm_put(priv);
}
EXPORT_SYMBOL(orcm_iw_track_unsubscribe);

void orcm_iw_track_update(struct iw_cm_id *cm_id,
			  const struct orcm_track_path *path)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	const struct orcm_track_ops *ops;
	struct orcm_track_path old, new;
	struct orcm_track_sub *sub;

	might_sleep();
	mutex_lock(&priv->track_mutex);
	if (priv->track_dead)
		goto out;
	old = priv->track_path;
	priv->track_path = *path;
	sub = priv->track_sub;
	if (!sub)
		goto out;
	new = *path;
	iwcm_track_fill(priv, sub, &old);
	iwcm_track_fill(priv, sub, &new);
	ops = sub->ops;
	if ((old.oif != new.oif || old.route_ok != new.route_ok ||
	     !ipv6_addr_equal(&old.nh_ip, &new.nh_ip)) && ops->route_changed)
		ops->route_changed(sub, &new);
	if (!ether_addr_equal(old.nh_mac, new.nh_mac) && ops->neigh_changed)
		ops->neigh_changed(sub, &new);
	if ((old.mtu != new.mtu || old.mss != new.mss ||
	     old.mulpdu != new.mulpdu) && ops->mtu_changed)
		ops->mtu_changed(sub, &new);
	if (old.link_up != new.link_up && ops->link_changed)
		ops->link_changed(sub, &new);
	if (old.addr_present && !new.addr_present && ops->addr_removed)
		ops->addr_removed(sub, &new);
out:
	mutex_unlock(&priv->track_mutex);
}
EXPORT_SYMBOL(orcm_iw_track_update);
