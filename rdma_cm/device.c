// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices as the connection manager sees them: the ib_client that
 * tracks them, binding ids to a device port, and DEVICE_REMOVAL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <openrdma/compat.h>

#include "cma_priv.h"
#include "path_cache.h"
#include "trace.h"

/* All cma_devices; cma_lock. */
LIST_HEAD(cma_dev_list);

void cma_dev_get(struct cma_device *cma_dev)
{
	refcount_inc(&cma_dev->refcount);
}

void cma_dev_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->comp);
}

/* Bind @id_priv to @port of @cma_dev; then cma_attach_done(). */
static void cma_attach_locked(struct rdma_id_private *id_priv,
			      struct cma_device *cma_dev, u32 port)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	lockdep_assert_held(&cma_dev->id_lock);
	cma_dev_get(cma_dev);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = cma_dev->device;
	id_priv->id.port_num = port;
	dev_addr->transport = rdma_node_get_transport(cma_dev->device->node_type);
	list_add_tail(&id_priv->device_item, &cma_dev->id_list);
}

/*
 * Outside @id_lock: restrack may sleep.
 *
 * The id's only rdma_restrack_add() (in-tree's "WARNING in
 * rdma_restrack_clean" class). It follows cma_attach_locked(), so a tracked
 * id holds a reference on its cma_device; cma_release() deletes the entry
 * before cma_detach_dev() drops that reference, and cma_remove_one() waits
 * for the last one before ib_core can reach rdma_restrack_clean(). An id is
 * attached only to a device still listed (cma_lock) or not yet @removing
 * (@id_lock, cma_attach_dev_live()), never once cma_remove_one() has begun.
 * The id of a CONNECT_REQUEST is attached before it is reported and goes
 * through cma_release() however it ends (refused before it is reported,
 * the handler's non-zero return, the consumer's destroy); an id never
 * attached has an invalid entry, which rdma_restrack_del() only unpins.
 */
static void cma_attach_done(struct rdma_id_private *id_priv)
{
	rdma_restrack_add(&id_priv->res);
	cma_track_attach(id_priv);
	trace_cm_id_attach(id_priv, id_priv->id.device);
}

/* Bind @id_priv to @port of @cma_dev, which cma_lock keeps listed. */
void cma_attach_dev(struct rdma_id_private *id_priv,
		    struct cma_device *cma_dev, u32 port)
{
	lockdep_assert_held(&cma_lock);
	spin_lock(&cma_dev->id_lock);
	cma_attach_locked(id_priv, cma_dev, port);
	spin_unlock(&cma_dev->id_lock);
	cma_attach_done(id_priv);
}

/*
 * The same for the id of an incoming connection, on its listener's device
 * (which the caller pins), without cma_lock: -ENODEV once the device is
 * being removed. cma_remove_one() sets @removing under @id_lock before it
 * empties @id_list, so an id is either refused here or found there.
 */
int cma_attach_dev_live(struct rdma_id_private *id_priv,
			struct cma_device *cma_dev, u32 port)
{
	spin_lock(&cma_dev->id_lock);
	if (cma_dev->removing) {
		spin_unlock(&cma_dev->id_lock);
		return -ENODEV;
	}
	cma_attach_locked(id_priv, cma_dev, port);
	spin_unlock(&cma_dev->id_lock);
	cma_attach_done(id_priv);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_attach_dev_live);

/*
 * Take @id_priv off its device's id list (cma_priv.h: the list's rules).
 * The device stays attached (id.device, the reference) until
 * cma_detach_dev(); the id is simply no longer found by cma_remove_one().
 */
void cma_unlink_dev(struct rdma_id_private *id_priv)
{
	/* Set by the id's attach, cleared by its own detach: stable here. */
	struct cma_device *cma_dev = id_priv->cma_dev;

	/* Without a device, device_item is listen_any_item: not ours here. */
	if (!cma_dev)
		return;
	spin_lock(&cma_dev->id_lock);
	list_del_init(&id_priv->device_item);
	spin_unlock(&cma_dev->id_lock);
}

/* Drop the device of a dying id (its last user is gone). */
void cma_detach_dev(struct rdma_id_private *id_priv)
{
	struct cma_device *cma_dev = id_priv->cma_dev;

	if (!cma_dev)
		return;
	spin_lock(&cma_dev->id_lock);
	list_del_init(&id_priv->device_item);
	id_priv->cma_dev = NULL;
	id_priv->id.device = NULL;
	spin_unlock(&cma_dev->id_lock);
	cma_dev_put(cma_dev);
}

/*
 * Whether InfiniBand @port of @device serves IPoIB netdev @bound, as
 * in-tree: IPoIB registers no netdev with its port (ib_device_get_netdev()
 * is NULL on mlx5, qib, hfi1, softib), so the port is the one whose GID
 * table holds the GID of the netdev's 20-byte hardware address (4 octets of
 * flags and QPN, then the port GID). A P_Key child interface carries its
 * parent's GID and so matches the same port; its P_Key (the broadcast
 * address's) is the id's, from address resolution.
 */
VISIBLE_IF_KUNIT bool cma_ib_port_serves(struct ib_device *device, u32 port,
					 const struct net_device *bound)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;

	if (bound->type != ARPHRD_INFINIBAND ||
	    bound->addr_len != INFINIBAND_ALEN)
		return false;
	memcpy(&gid, bound->dev_addr + 4, sizeof(gid));
	attr = rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB, port, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_port_serves);

/*
 * Whether @port of @device serves the netdev @bound: the port's own netdev,
 * or (@upper) one stacked on it at any depth that sends with the same
 * hardware address (a VLAN, a bond). An RNIC sits on the real device and
 * its addresses may live on such uppers. As in-tree (which matches the
 * port's GID, the MAC), a macvlan with a MAC of its own is not served: an
 * offloaded RNIC could not send with that MAC.
 */
static bool cma_port_serves(struct ib_device *device, u32 port,
			    struct net_device *bound, bool upper)
{
	struct net_device *ndev;
	bool match;

	if (rdma_protocol_ib(device, port))
		return !upper && cma_ib_port_serves(device, port, bound);
	if (bound->type == ARPHRD_INFINIBAND)
		return false;
	ndev = ib_device_get_netdev(device, port);
	if (!ndev)
		return false;
	if (!upper) {
		match = ndev == bound;
	} else {
		rcu_read_lock();
		match = netdev_has_upper_dev_all_rcu(ndev, bound) &&
			ndev->addr_len == bound->addr_len &&
			!memcmp(ndev->dev_addr, bound->dev_addr,
				ndev->addr_len);
		rcu_read_unlock();
	}
	dev_put(ndev);
	return match;
}

/* The device and port that serve @bound, exact netdev first; cma_lock. */
static struct cma_device *cma_find_port(struct net *net,
					struct net_device *bound, u32 *port)
{
	struct cma_device *cma_dev;
	int upper;
	u32 p;

	lockdep_assert_held(&cma_lock);
	for (upper = 0; upper < 2; upper++) {
		list_for_each_entry(cma_dev, &cma_dev_list, list) {
			if (cma_dev->removing ||
			    !rdma_dev_access_netns(cma_dev->device, net))
				continue;
			rdma_for_each_port(cma_dev->device, p) {
				if (cma_port_serves(cma_dev->device, p, bound,
						    upper)) {
					*port = p;
					return cma_dev;
				}
			}
		}
	}
	return NULL;
}

/*
 * A loopback address (127/8, ::1) has no RDMA netdev: as in-tree, take the
 * first device with an ACTIVE port, else the first device's port 1; cma_lock.
 */
static struct cma_device *cma_find_loopback_port(struct net *net, u32 *port)
{
	struct cma_device *cma_dev, *first = NULL;
	enum ib_port_state state;
	u32 p;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (cma_dev->removing ||
		    !rdma_dev_access_netns(cma_dev->device, net))
			continue;
		if (!first)
			first = cma_dev;
		rdma_for_each_port(cma_dev->device, p) {
			if (!ib_get_cached_port_state(cma_dev->device, p,
						      &state) &&
			    state == IB_PORT_ACTIVE) {
				*port = p;
				return cma_dev;
			}
		}
	}
	if (first)
		*port = rdma_start_port(first->device);
	return first;
}

/*
 * Bind @id_priv to the device port that serves the netdev its address
 * resolved or bound to (dev_addr.bound_dev_if): the RDMA device on that
 * netdev or on a device below it; for the loopback netdev, the first active
 * device. -ENODEV if there is none.
 */
int cma_acquire_dev_by_addr(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net *net = cma_net(id_priv);
	struct cma_device *cma_dev;
	struct net_device *bound;
	u32 port = 0;

	/* As in-tree: the IPoIB port space is for IPoIB netdevs alone. */
	if (id_priv->id.ps == RDMA_PS_IPOIB &&
	    dev_addr->dev_type != ARPHRD_INFINIBAND)
		return -EINVAL;

	bound = dev_get_by_index(net, dev_addr->bound_dev_if);
	if (!bound)
		return -ENODEV;

	mutex_lock(&cma_lock);
	if (id_priv->cma_dev) {
		mutex_unlock(&cma_lock);
		dev_put(bound);
		return 0;
	}
	cma_dev = cma_find_port(net, bound, &port);
	if (!cma_dev && (bound->flags & IFF_LOOPBACK))
		cma_dev = cma_find_loopback_port(net, &port);
	if (cma_dev)
		cma_attach_dev(id_priv, cma_dev, port);
	mutex_unlock(&cma_lock);
	dev_put(bound);
	return cma_dev ? 0 : -ENODEV;
}

/*
 * The GID types a port can use for rdma_cm connections: RoCE v1 and v2 as
 * the port supports them, IB otherwise (IB, iWARP).
 */
unsigned long cma_gid_types(struct ib_device *device, u32 port)
{
	unsigned long types = 0;

	if (!rdma_protocol_roce(device, port))
		return BIT(IB_GID_TYPE_IB);
	if (rdma_protocol_roce_eth_encap(device, port))
		types |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(device, port))
		types |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return types;
}

/* As in-tree: RoCE v2 where the port has it, else its first type. */
static u8 cma_default_gid_type(struct ib_device *device, u32 port)
{
	unsigned long types = cma_gid_types(device, port);

	if (types & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP))
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return types ? __ffs(types) : IB_GID_TYPE_IB;
}

/* The device called @name, with a reference; NULL if rdma_cm has none. */
struct cma_device *cma_get_dev_by_name(const char *name)
{
	struct cma_device *cma_dev, *found = NULL;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (!cma_dev->removing &&
		    !strcmp(dev_name(&cma_dev->device->dev), name)) {
			cma_dev_get(cma_dev);
			found = cma_dev;
			break;
		}
	}
	mutex_unlock(&cma_lock);
	return found;
}

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;
	LIST_HEAD(doomed);
	u32 port;

	trace_cm_add_one(device);
	cma_dev = kzalloc(struct_size(cma_dev, port_cfg,
				      rdma_end_port(device) -
				      rdma_start_port(device) + 1),
			  GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;
	cma_dev->device = device;
	rdma_for_each_port(device, port) {
		struct cma_port_cfg *cfg = &cma_dev->port_cfg[port - rdma_start_port(device)];

		cfg->gid_type = cma_default_gid_type(device, port);
		cfg->cm_response_timeout = CMA_CM_UNSET;
		cfg->cm_max_retries = CMA_CM_UNSET;
	}
	spin_lock_init(&cma_dev->id_lock);
	INIT_LIST_HEAD(&cma_dev->id_list);
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->comp);
	ib_set_client_data(device, &cma_client, cma_dev);
	rdma_for_each_port(device, port) {
		if (!rdma_cap_ib_sa(device, port))
			continue;
		/* The path cache drops a port's records on its events. */
		INIT_IB_EVENT_HANDLER(&cma_dev->event_handler, device,
				      cma_pc_event);
		ib_register_event_handler(&cma_dev->event_handler);
		cma_dev->has_event_handler = true;
		break;
	}

	/*
	 * Wildcard listeners follow the new device. One it refuses keeps
	 * listening on the others (cma_listen_on_dev() says why); in-tree
	 * fails the whole device for rdma_cm instead.
	 */
	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_dev_list);
	list_for_each_entry(id_priv, &cma_listen_any, listen_any_item)
		cma_listen_on_dev(id_priv, cma_dev, &doomed);
	mutex_unlock(&cma_lock);
	cma_destroy_doomed(&doomed);
	return 0;
}

/*
 * Tell the consumer that the device of @id_priv is going away. The caller
 * holds a reference, which this drops. The consumer must destroy the id,
 * or return non-zero so that we do: the removal waits for every id of the
 * device to be destroyed.
 */
static void cma_send_device_removal(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state old;
	unsigned long flags;

	mutex_lock(&id_priv->handler_mutex);
	spin_lock_irqsave(&id_priv->lock, flags);
	old = id_priv->state;
	if (old != RDMA_CM_DESTROYING && old != RDMA_CM_DEVICE_REMOVAL)
		WRITE_ONCE(id_priv->state, RDMA_CM_DEVICE_REMOVAL);
	spin_unlock_irqrestore(&id_priv->lock, flags);
	if (old == RDMA_CM_DESTROYING || old == RDMA_CM_DEVICE_REMOVAL)
		goto out_unlock;

	if (cma_deliver(id_priv, &ev)) {
		/*
		 * Destroy waits for the count to reach zero: drop ours first.
		 * The id's own reference stands (destroy needs handler_mutex).
		 */
		cma_id_put(id_priv);
		cma_destroy_handler_locked(id_priv);
		return;
	}
out_unlock:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;
	bool destroy, internal;

	trace_cm_remove_one(device);
	mutex_lock(&cma_lock);
	spin_lock(&cma_dev->id_lock);
	cma_dev->removing = true;
	spin_unlock(&cma_dev->id_lock);
	list_del(&cma_dev->list);
	for (;;) {
		spin_lock(&cma_dev->id_lock);
		id_priv = list_first_entry_or_null(&cma_dev->id_list,
						   struct rdma_id_private,
						   device_item);
		destroy = false;
		internal = id_priv && id_priv->internal_id;
		if (internal) {
			/*
			 * A wildcard listener's child: whoever unlinks it from
			 * the parent (cma_lock) destroys it. If
			 * cma_cancel_listens() got there first, it is
			 * destroying the child right now: not ours to touch
			 * once @id_lock is dropped.
			 */
			destroy = !list_empty(&id_priv->listen_item);
			list_del_init(&id_priv->listen_item);
		} else if (id_priv) {
			/*
			 * Listed, so its own reference stands: cma_release()
			 * unlinks (under @id_lock) before it drops it.
			 */
			cma_id_get(id_priv);
		}
		if (id_priv)
			list_del_init(&id_priv->device_item);
		spin_unlock(&cma_dev->id_lock);
		if (!id_priv)
			break;
		if (internal) {
			mutex_unlock(&cma_lock);
			if (destroy)
				rdma_destroy_id(&id_priv->id);
		} else {
			mutex_unlock(&cma_lock);
			cma_send_device_removal(id_priv);
		}
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);

	/* Every id of the device is destroyed when the last one detaches. */
	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);
	if (cma_dev->has_event_handler)
		ib_unregister_event_handler(&cma_dev->event_handler);
	cma_pc_invalidate(device, 0);
	kfree(cma_dev);
}

struct ib_client cma_client = {
	.name = "rdma_cm",
	.add = cma_add_one,
	.remove = cma_remove_one,
};

int cma_device_init(void)
{
	return ib_register_client(&cma_client);
}

void cma_device_exit(void)
{
	ib_unregister_client(&cma_client);
}
