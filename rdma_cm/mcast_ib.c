// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast on native InfiniBand ports: a join is an MCMemberRecord join
 * through the subnet administrator (ib_sa_join_multicast()), which ib_sa's
 * multicast module shares between the joins of one port and group.
 *
 * The group of an IP multicast address is the one IPoIB uses (RFC 4391 and
 * RFC 4392: ff1<scope>:401b:<P_Key>::<IPv4 group>, ff1<scope>:601b:<P_Key>
 * and the IPv6 group's low 80 bits), with the scope and P_Key of the
 * IPoIB netdev's broadcast address; an RDMA_PS_UDP id marks the MGID with
 * the rdma_cm signature (0x01 in its eighth octet), as in-tree, so that its
 * groups are not IPoIB's. An IPv6 address that already is an SA-assigned
 * MGID (ff1x:a01b::/32) is used as is. The record starts from the IPoIB
 * broadcast group's (its MTU, rate, SL, flow label, traffic class, hop
 * limit: the SA refuses a group the port cannot reach), so, as in-tree,
 * joins need IPoIB's broadcast group to be joined on the port.
 *
 * The SA calls back from ib_sa's work queue with the outcome, and again
 * with an error when the membership is lost (port error, SM change, client
 * reregister). The callback only hands the record to the join's work under
 * id_priv->mc_lock; the work builds the address vector and delivers
 * MULTICAST_JOIN or MULTICAST_ERROR under the id's handler_mutex. A join
 * is published on mc_list before its callback may queue that work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "cma_priv.h"
#include "ib.h"
#include "mcast.h"

/* The rdma_cm signature in an MGID's eighth octet (RDMA_PS_UDP groups). */
#define CMA_MC_IB_CM_SIGNATURE	0x01

static bool cma_mc_ib_sa_mgid(const struct sockaddr *addr)
{
	const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;

	return addr->sa_family == AF_INET6 &&
	       (be32_to_cpu(a->s6_addr32[0]) & 0xfff0ffff) == 0xff10a01b;
}

/*
 * The MGID of IP group @addr on an IPoIB netdev with broadcast address
 * @broadcast (its scope and P_Key), with the rdma_cm signature if
 * @cm_signature.
 */
VISIBLE_IF_KUNIT void cma_mc_ib_mgid(const struct sockaddr *addr,
				     const u8 *broadcast, bool cm_signature,
				     union ib_gid *mgid)
{
	u8 map[MAX_ADDR_LEN];

	if (cma_mc_ib_sa_mgid(addr)) {
		memcpy(mgid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(*mgid));
		return;
	}
	if (addr->sa_family == AF_INET6)
		ipv6_ib_mc_map(&((const struct sockaddr_in6 *)addr)->sin6_addr,
			       broadcast, map);
	else
		ip_ib_mc_map(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
			     broadcast, map);
	if (cm_signature)
		map[7] = CMA_MC_IB_CM_SIGNATURE;
	memcpy(mgid->raw, map + 4, sizeof(*mgid));
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_ib_mgid);

/*
 * The record of the IPoIB broadcast group of @id_priv's netdev (its MGID is
 * the broadcast address's GID), as ib_sa's multicast module keeps it.
 * -ENOENT (or ib_sa's error) while IPoIB has not joined it.
 */
static int cma_mc_ib_bcast_rec(struct rdma_id_private *id_priv,
			       struct ib_sa_mcmember_rec *rec)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	union ib_gid mgid;

	memcpy(mgid.raw, dev_addr->broadcast + 4, sizeof(mgid));
	return ib_sa_get_mcmember_rec(id_priv->id.device, id_priv->id.port_num,
				      &mgid, rec);
}

/* RDMA_PS_IPOIB: the Q_Key is the broadcast group's, as in-tree. */
int cma_ib_bcast_qkey(struct rdma_id_private *id_priv, u32 *qkey)
{
	struct ib_sa_mcmember_rec rec;
	int ret;

	if (!id_priv->id.device ||
	    !rdma_protocol_ib(id_priv->id.device, id_priv->id.port_num))
		return -EINVAL;
	ret = cma_mc_ib_bcast_rec(id_priv, &rec);
	if (ret)
		return ret;
	*qkey = be32_to_cpu(rec.qkey);
	return 0;
}

/* The SA's word on a join: hand it to the join's work. */
static int cma_mc_ib_done(int status, struct ib_sa_multicast *multicast)
{
	struct cma_mc *mc = multicast->context;
	struct rdma_id_private *id_priv = mc->id_priv;

	spin_lock(&id_priv->mc_lock);
	mc->sa_status = status;
	if (!status)
		mc->sa_rec = multicast->rec;
	mc->sa_pending = true;
	if (mc->published && !list_empty(&mc->list)) {
		cma_id_get(id_priv);	/* the work's */
		if (!queue_work(cma_wq, &mc->work))
			cma_id_put(id_priv);
	}
	spin_unlock(&id_priv->mc_lock);
	/* ib_sa keeps the membership until ib_sa_free_multicast(). */
	return 0;
}

/*
 * Start the SA join of @mc by @id_priv (an id bound to an InfiniBand port,
 * its Q_Key set). The outcome comes as an event of the join's work.
 */
int cma_mc_join_ib(struct rdma_id_private *id_priv, struct cma_mc *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct ib_sa_multicast *sa_mc;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	int ret;

	ret = cma_mc_ib_bcast_rec(id_priv, &rec);
	if (ret)
		return ret;
	cma_mc_ib_mgid((struct sockaddr *)&mc->addr, dev_addr->broadcast,
		       id_priv->id.ps == RDMA_PS_UDP, &mc->mgid);
	rec.mgid = mc->mgid;
	rdma_addr_get_sgid(dev_addr, &rec.port_gid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.join_state = mc->join_state;
	rec.qkey = cpu_to_be32(id_priv->qkey);

	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
	       IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
	/* IPoIB's own groups must match the broadcast group's link. */
	if (id_priv->id.ps == RDMA_PS_IPOIB)
		mask |= IB_SA_MCMEMBER_REC_RATE |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;

	sa_mc = ib_sa_join_multicast(&cma_sa_client, id_priv->id.device,
				     id_priv->id.port_num, &rec, mask,
				     GFP_KERNEL, cma_mc_ib_done, mc);
	if (IS_ERR(sa_mc))
		return PTR_ERR(sa_mc);
	mc->sa_mc = sa_mc;
	return 0;
}

/* @mc is on mc_list now (mc_lock held): a reported outcome may go. */
void cma_mc_publish_ib(struct rdma_id_private *id_priv, struct cma_mc *mc)
{
	lockdep_assert_held(&id_priv->mc_lock);
	mc->published = true;
	if (mc->sa_pending) {
		cma_id_get(id_priv);	/* the work's */
		if (!queue_work(cma_wq, &mc->work))
			cma_id_put(id_priv);
	}
}

/*
 * The join's work: the event of the SA's last word, if there is one to
 * deliver (false otherwise). A successful join settles the id's Q_Key
 * with the group's and gets the group's address vector, which the caller
 * destroys after delivery. Process context, handler_mutex held.
 */
bool cma_mc_take_ib_event(struct rdma_id_private *id_priv, struct cma_mc *mc,
			  struct rdma_cm_event *ev)
{
	struct rdma_ud_param *ud = &ev->param.ud;
	struct ib_sa_mcmember_rec rec;
	int status;

	lockdep_assert_held(&id_priv->handler_mutex);
	spin_lock(&id_priv->mc_lock);
	if (!mc->sa_pending) {
		spin_unlock(&id_priv->mc_lock);
		return false;
	}
	mc->sa_pending = false;
	status = mc->sa_status;
	rec = mc->sa_rec;
	if (!status)
		mc->mlid = be16_to_cpu(rec.mlid);
	spin_unlock(&id_priv->mc_lock);

	memset(ev, 0, sizeof(*ev));
	if (!status) {
		mutex_lock(&id_priv->qp_mutex);
		status = cma_ud_set_qkey(id_priv, be32_to_cpu(rec.qkey));
		mutex_unlock(&id_priv->qp_mutex);
	}
	if (!status)
		status = ib_init_ah_from_mcmember(id_priv->id.device,
						  id_priv->id.port_num, &rec,
						  NULL, IB_GID_TYPE_IB,
						  &ud->ah_attr);
	ud->private_data = mc->context;
	if (status) {
		ev->event = RDMA_CM_EVENT_MULTICAST_ERROR;
		ev->status = status;
		return true;
	}
	ev->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	ud->qp_num = 0xffffff;
	ud->qkey = id_priv->qkey;
	return true;
}

/* Leave the SA group: no callback runs or follows once this returns. */
void cma_mc_leave_ib(struct cma_mc *mc)
{
	if (!mc->sa_mc)
		return;
	ib_sa_free_multicast(mc->sa_mc);
	mc->sa_mc = NULL;
}
