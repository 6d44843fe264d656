/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast joins of UD ids: the common part and RoCE (mcast.c), native
 * InfiniBand joins through the subnet administrator (mcast_ib.c).
 */
#ifndef _RDMA_CM_MCAST_H
#define _RDMA_CM_MCAST_H

#include <linux/socket.h>
#include <linux/workqueue.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>

struct rdma_id_private;

/*
 * One join of a group by an id. Linked on id_priv->mc_list (under
 * id_priv->mc_lock) from rdma_join_multicast() until whoever unlinks it
 * (rdma_leave_multicast() or the destroy path) frees it; that one also
 * drops the IP group membership (@ip_ifindex) and the SA membership
 * (@sa_mc), so each is dropped exactly once. @work delivers the join's
 * events and holds a reference on the id while queued; the unlinker stops
 * the SA's callbacks (ib_sa_free_multicast()), then cancels the work
 * (cancel_work_sync()) before freeing.
 */
struct cma_mc {
	struct list_head	list;
	struct rdma_id_private	*id_priv;
	struct work_struct	work;
	struct sockaddr_storage	addr;
	/*
	 * The address pointer the joiner passed: compared, never read. A
	 * leave names its join by address alone, and one id may join one
	 * group twice; rdma_ucm hands both calls a pointer into its own
	 * per-join object, so a leave with that pointer takes that join
	 * (cma_mc_pick()), never another whose context rdma_ucm is about to
	 * free.
	 */
	const void		*join_addr;
	union ib_gid		mgid;
	u8			join_state;
	/* The netdev whose IP group this join holds, 0 for none. */
	int			ip_ifindex;
	struct rdma_cm_event	event;	/* RoCE: MULTICAST_JOIN, ah_attr owned */

	/*
	 * InfiniBand (mcast_ib.c): @ib is set at the join and never changes;
	 * @sa_mc is the SA's membership until the leave drops it.
	 */
	bool			ib;
	struct ib_sa_multicast	*sa_mc;
	void			*context;	/* the consumer's, in events */
	/*
	 * What the SA's callback reported last, for @work to deliver; under
	 * id_priv->mc_lock. @published: the join is on mc_list, so the
	 * callback may queue @work.
	 */
	bool			published;
	bool			sa_pending;
	int			sa_status;
	struct ib_sa_mcmember_rec sa_rec;
	u16			mlid;		/* the group's, for detach */
};

/* Leave every group @id_priv joined; the destroy path, no locks held. */
void cma_mc_leave_all(struct rdma_id_private *id_priv);

/* InfiniBand (mcast_ib.c). */
int cma_mc_join_ib(struct rdma_id_private *id_priv, struct cma_mc *mc);
void cma_mc_publish_ib(struct rdma_id_private *id_priv, struct cma_mc *mc);
bool cma_mc_take_ib_event(struct rdma_id_private *id_priv, struct cma_mc *mc,
			  struct rdma_cm_event *ev);
void cma_mc_leave_ib(struct cma_mc *mc);
int cma_ib_bcast_qkey(struct rdma_id_private *id_priv, u32 *qkey);

#if IS_ENABLED(CONFIG_KUNIT)
struct cma_mc *cma_mc_pick(struct list_head *mc_list,
			   const struct sockaddr *addr);
void cma_mc_mgid(const struct sockaddr *addr, enum ib_gid_type gid_type,
		 union ib_gid *mgid);
void cma_mc_ib_mgid(const struct sockaddr *addr, const u8 *broadcast,
		    bool cm_signature, union ib_gid *mgid);
#endif

#endif /* _RDMA_CM_MCAST_H */
