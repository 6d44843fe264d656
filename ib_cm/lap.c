// SPDX-License-Identifier: GPL-2.0
/*
 * Alternate paths (automatic path migration): a REQ's alternate path on
 * either side, a received LAP (Load Alternate Path) delivered as
 * IB_CM_LAP_RECEIVED with the path loaded, an MRA for it, and
 * ib_cm_notify(IB_EVENT_PATH_MIG) making the alternate path the id's own
 * (its QP attributes and the CM's MADs follow it). As in-tree, on IB ports
 * only (a LAP or APR on RoCE is dropped); no APR is ever sent (6.12 has no
 * ib_send_cm_apr()) and a received APR is dropped (nor ib_send_cm_lap():
 * we never wait for one).
 *
 * The alternate path lives in cm_id_priv.alt under the id's lock. A path
 * the id leaves (the primary at a migration, an alternate replaced by a new
 * LAP) may still carry a MAD in flight: it is kept on cm_id_priv.old_avs
 * until the id is freed. Their number is bounded by the consumer: a LAP is
 * taken once per migration.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"

/*
 * The local ACK timeout of a path (IBA 12.7.34): twice its packet life time
 * plus the responder's ACK delay, each 4.096 us * 2^n; the sum as such an
 * exponent, rounded up: the larger one, plus one when the other is at least
 * half of it.
 */
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	unsigned int rtt = packet_life_time + 1;
	unsigned int hi = max_t(unsigned int, rtt, ca_ack_delay);
	unsigned int lo = min_t(unsigned int, rtt, ca_ack_delay);

	return min_t(unsigned int, hi + (lo + 1 >= hi), 31);
}
EXPORT_SYMBOL_IF_KUNIT(cm_ack_timeout);

/* A path record as a REQ's (or LAP's) path fields, the sender's view. */
void cm_path_to_info(struct cm_path_info *pi, struct sa_path_rec *path,
		     u8 ack_timeout)
{
	if (sa_path_is_roce(path)) {
		pi->local_lid = IB_LID_PERMISSIVE;
		pi->remote_lid = IB_LID_PERMISSIVE;
	} else {
		pi->local_lid = cpu_to_be16(be32_to_cpu(sa_path_get_slid(path)));
		pi->remote_lid = cpu_to_be16(be32_to_cpu(sa_path_get_dlid(path)));
		pi->subnet_local = path->hop_limit <= 1;
	}
	pi->local_gid = path->sgid;
	pi->remote_gid = path->dgid;
	pi->flow_label = be32_to_cpu(path->flow_label);
	pi->packet_rate = path->rate;
	pi->traffic_class = path->traffic_class;
	pi->hop_limit = path->hop_limit;
	pi->sl = path->sl;
	pi->local_ack_timeout = ack_timeout;
}

/*
 * The path record a receiver makes of a REQ's alternate path or a LAP's
 * (IB): the sender's local port is our destination. The packet life time
 * is the sender's local ACK timeout less one, as in-tree.
 */
void cm_path_from_alt_info(struct sa_path_rec *path,
			   const struct cm_path_info *pi, u16 pkey, u8 mtu)
{
	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_IB;
	sa_path_set_slid(path, be16_to_cpu(pi->remote_lid));
	sa_path_set_dlid(path, be16_to_cpu(pi->local_lid));
	path->sgid = pi->remote_gid;
	path->dgid = pi->local_gid;
	path->flow_label = cpu_to_be32(pi->flow_label);
	path->hop_limit = pi->hop_limit;
	path->traffic_class = pi->traffic_class;
	path->reversible = 1;
	path->pkey = cpu_to_be16(pkey);
	path->sl = pi->sl;
	path->mtu_selector = IB_SA_EQ;
	path->mtu = mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = pi->packet_rate;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = pi->local_ack_timeout ?
				 pi->local_ack_timeout - 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cm_path_from_alt_info);

/**
 * cm_alt_load - make @path the id's alternate path
 * @priv: the id, not locked
 * @path: an IB path whose SGID is one of the device's, to a unicast LID
 * @ack_timeout: the QP's alt_timeout for it
 *
 * Process context. Return: 0, or -errno when the path cannot be used from
 * this device (SGID or P_Key not ours, a RoCE port, a multicast or
 * permissive DLID, no MAD agent).
 */
int cm_alt_load(struct cm_id_priv *priv, struct sa_path_rec *path,
		u8 ack_timeout)
{
	struct cm_alt alt = {};
	struct cm_old_av *old;
	u32 dlid;
	int ret;

	/*
	 * A unicast destination: a LAP or REQ naming a multicast or the
	 * permissive LID as the peer's port is refused (in-tree loads it).
	 */
	dlid = be32_to_cpu(sa_path_get_dlid(path));
	if (sa_path_is_roce(path) || !dlid ||
	    dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE))
		return -EINVAL;
	old = kzalloc(sizeof(*old), GFP_KERNEL);
	alt.spare = kzalloc(sizeof(*alt.spare), GFP_KERNEL);
	if (!old || !alt.spare) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = cm_av_init(priv->cm_dev, path, NULL, &alt.av);
	if (ret)
		goto err_free;
	if (!rdma_protocol_ib(priv->id.device, alt.av.port->port_num)) {
		ret = -EINVAL;
		goto err_av;
	}
	alt.ack_timeout = ack_timeout;
	alt.valid = true;

	spin_lock(&priv->lock);
	if (priv->alt.valid) {
		old->av = priv->alt.av;			/* the references move */
		list_add(&old->entry, &priv->old_avs);
		old = priv->alt.spare;			/* freed below */
	}
	priv->alt = alt;
	spin_unlock(&priv->lock);
	kfree(old);
	return 0;

err_av:
	cm_av_destroy(&alt.av);
err_free:
	kfree(alt.spare);
	kfree(old);
	return ret;
}

/* At the id's end (process context, no reference left). */
void cm_alt_release(struct cm_id_priv *priv)
{
	struct cm_old_av *old, *tmp;

	list_for_each_entry_safe(old, tmp, &priv->old_avs, entry) {
		list_del(&old->entry);
		cm_av_destroy(&old->av);
		kfree(old);
	}
	if (!priv->alt.valid)
		return;
	cm_av_destroy(&priv->alt.av);
	kfree(priv->alt.spare);
	priv->alt.valid = false;
}

static void cm_alt_fill(struct cm_id_priv *priv, struct ib_qp_attr *attr)
{
	attr->alt_port_num = priv->alt.av.port->port_num;
	attr->alt_pkey_index = priv->alt.av.pkey_index;
	attr->alt_timeout = priv->alt.ack_timeout;
	attr->alt_ah_attr = priv->alt.av.ah_attr;	/* borrowed, as ah_attr */
}

/**
 * cm_alt_qp_attr - the alternate path's part of a QP transition
 * @priv: the id, locked
 * @attr: the attributes ib_cm_init_qp_attr() filled for @qp_state
 * @mask: their mask; RTR gains IB_QP_ALT_PATH, RTS IB_QP_PATH_MIG_STATE
 * @qp_state: IB_QPS_RTR or IB_QPS_RTS
 *
 * After a LAP (or a migration), the RTS transition is RTS to RTS: the
 * alternate path and a re-armed migration state, nothing else, as in-tree.
 */
void cm_alt_qp_attr(struct cm_id_priv *priv, struct ib_qp_attr *attr,
		    int *mask, enum ib_qp_state qp_state)
{
	bool alt = priv->alt.valid && rdma_ah_get_dlid(&priv->alt.av.ah_attr);

	lockdep_assert_held(&priv->lock);
	if (qp_state == IB_QPS_RTR) {
		if (alt) {
			*mask |= IB_QP_ALT_PATH;
			cm_alt_fill(priv, attr);
		}
		return;
	}
	if (priv->id.lap_state == IB_CM_LAP_UNINIT) {
		if (alt) {
			*mask |= IB_QP_PATH_MIG_STATE;
			attr->path_mig_state = IB_MIG_REARM;
		}
		return;
	}
	*mask = IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE;
	if (priv->alt.valid) {
		cm_alt_fill(priv, attr);
	} else {	/* migrated without one: a zeroed path, as in-tree */
		attr->alt_pkey_index = 0;
		attr->alt_timeout = 0;
		memset(&attr->alt_ah_attr, 0, sizeof(attr->alt_ah_attr));
	}
	attr->path_mig_state = IB_MIG_REARM;
}

/**
 * cm_migrate - the QP migrated to its alternate path: so does the id
 * @priv: an id, not locked
 *
 * Its address vector, port, P_Key index and ACK timeout become the
 * alternate path's, and so does the AH of its MADs; the alternate path
 * stays loaded (a second migration changes nothing), as in-tree.
 *
 * Any task context (the caller may hold spinlocks): it allocates nothing.
 * Return: 0, or -EINVAL when the id is not established or a LAP is pending.
 */
int cm_migrate(struct cm_id_priv *priv)
{
	struct cm_old_av *old = NULL;
	int ret = 0;

	spin_lock(&priv->lock);
	if (priv->id.state != IB_CM_ESTABLISHED ||
	    (priv->id.lap_state != IB_CM_LAP_UNINIT &&
	     priv->id.lap_state != IB_CM_LAP_IDLE)) {
		ret = -EINVAL;
		goto out;
	}
	if (priv->alt.valid && !priv->alt.taken && priv->alt.spare) {
		old = priv->alt.spare;		/* made by cm_alt_load() */
		priv->alt.spare = NULL;
		old->av.port = priv->port;
		old->av.pkey_index = priv->pkey_index;
		old->av.ah_attr = priv->ah_attr;	/* the reference moves */
		old->av.mad_ah = priv->mad_ah;
		list_add(&old->entry, &priv->old_avs);
		rdma_copy_ah_attr(&priv->ah_attr, &priv->alt.av.ah_attr);
		priv->mad_ah = priv->alt.av.mad_ah;
		priv->alt.av.mad_ah = NULL;	/* the id's own now */
		priv->alt.taken = true;
		priv->port = priv->alt.av.port;
		priv->pkey_index = priv->alt.av.pkey_index;
		priv->local_ack_timeout = priv->alt.ack_timeout;
	}
	priv->id.lap_state = IB_CM_LAP_IDLE;
out:
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cm_migrate);

/*
 * A duplicate of the LAP we took: our MRA again if we sent (or delayed)
 * one, else nothing.
 */
static void cm_dup_lap(struct cm_port *port, struct cm_id_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	cm_count(CM_CNT_RX_DUPLICATE);
	cm_port_count(port, CM_GRP_RX_DUP, CM_LAP_ATTR_ID, 1);
	if (priv->id.lap_state == IB_CM_MRA_LAP_SENT && priv->lap_mra)
		cm_send_built(priv, priv->lap_mra);
}

/**
 * cm_send_lap_mra - our MRA of the LAP we took (ib_send_cm_mra())
 * @priv: the id, locked, established with lap_state IB_CM_LAP_RCVD
 * @msg: the MRA (MessageMRAed "other")
 * @delay: IB_CM_MRA_FLAG_DELAY: sent only for a duplicate of the LAP
 *
 * The MRA is kept apart from the id's last reply (an RTU, say, which a
 * duplicate REP must still get) and sent again for each duplicate LAP.
 */
int cm_send_lap_mra(struct cm_id_priv *priv, const struct cm_msg *msg,
		    bool delay)
{
	int ret = 0;

	lockdep_assert_held(&priv->lock);
	if (!priv->lap_mra)
		priv->lap_mra = kmalloc(CM_MAD_SIZE, GFP_ATOMIC);
	if (!priv->lap_mra)
		return -ENOMEM;
	cm_msg_build(priv->lap_mra, msg);
	if (!delay)
		ret = cm_send(priv, msg, 0, 0, false);
	if (!ret)
		priv->id.lap_state = IB_CM_MRA_LAP_SENT;
	return ret;
}

/**
 * cm_recv_lap - a LAP: load its path and tell the consumer
 * @port: where it came in
 * @wc: its work completion
 * @msg: the parsed LAP
 *
 * Taken on an IB port for an established connection whose LAP state is
 * idle; a duplicate is answered by our MRA, if any. The path is loaded
 * before the event: IB_CM_LAP_RECEIVED carries it; the consumer may answer
 * with ib_send_cm_mra() and loads it into its QP (ib_cm_init_qp_attr(),
 * RTS). Anything else is dropped and counted.
 */
void cm_recv_lap(struct cm_port *port, struct ib_mad_recv_wc *wc,
		 struct cm_msg *msg)
{
	const struct cm_lap_info *lap = &msg->lap;
	struct cm_event_elem *elem;
	struct cm_id_priv *priv;
	enum ib_cm_lap_state was;
	u16 pkey = 0;

	priv = cm_lookup_local(lap->remote_comm_id);
	if (!priv) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		return;
	}
	if (!rdma_protocol_ib(port->cm_dev->ib_dev, port->port_num)) {
		cm_count(CM_CNT_RX_LAP_APR);
		goto out;
	}
	elem = cm_event_alloc(IB_CM_LAP_RECEIVED, GFP_KERNEL);
	if (!elem) {
		cm_count(CM_CNT_RX_NOMEM);
		goto out;
	}
	spin_lock(&priv->lock);
	if (priv->id.remote_id != lap->local_comm_id) {
		cm_count(CM_CNT_RX_UNKNOWN_ID);
		goto drop;
	}
	if (priv->id.state != IB_CM_ESTABLISHED) {
		cm_count(CM_CNT_RX_BAD_STATE);
		goto drop;
	}
	/* The connection's own port too (a RoCE one of a mixed device). */
	if (!rdma_protocol_ib(priv->id.device, priv->port->port_num)) {
		cm_count(CM_CNT_RX_LAP_APR);
		goto drop;
	}
	was = priv->id.lap_state;
	switch (was) {
	case IB_CM_LAP_UNINIT:
	case IB_CM_LAP_IDLE:
		break;
	case IB_CM_LAP_RCVD:
	case IB_CM_MRA_LAP_SENT:
		cm_dup_lap(port, priv);
		goto drop;
	default:
		cm_count(CM_CNT_RX_BAD_STATE);
		goto drop;
	}
	/* Ours until the path is loaded: a duplicate meanwhile is one. */
	priv->id.lap_state = IB_CM_LAP_RCVD;
	spin_unlock(&priv->lock);

	ib_get_cached_pkey(priv->id.device, priv->port->port_num,
			   priv->pkey_index, &pkey);
	cm_path_from_alt_info(&elem->path[0], &lap->alternate, pkey,
			      priv->path_mtu);
	if (cm_alt_load(priv, &elem->path[0],
			elem->path[0].packet_life_time + 1)) {
		cm_count(CM_CNT_RX_LAP_APR);
		spin_lock(&priv->lock);
		if (priv->id.lap_state == IB_CM_LAP_RCVD)
			priv->id.lap_state = was;
		spin_unlock(&priv->lock);
		kfree(elem);
		goto out;
	}
	/* The connection may have ended meanwhile (a DREQ, a destroy). */
	spin_lock(&priv->lock);
	if (priv->id.state != IB_CM_ESTABLISHED ||
	    priv->id.lap_state != IB_CM_LAP_RCVD) {
		cm_count(CM_CNT_RX_BAD_STATE);
		goto drop;
	}
	priv->tid = msg->tid;	/* our MRA answers this LAP */
	spin_unlock(&priv->lock);

	elem->ev.param.lap_rcvd.alternate_path = &elem->path[0];
	memcpy(elem->data, lap->private_data, IB_CM_LAP_PRIVATE_DATA_SIZE);
	elem->ev.private_data = elem->data;
	cm_queue_event(priv, elem);
	goto out;
drop:
	spin_unlock(&priv->lock);
	kfree(elem);
out:
	cm_put(priv);
}
