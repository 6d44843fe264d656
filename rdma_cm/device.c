// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices as the connection manager sees them: the ib_client that
 * tracks them, binding ids to a device port, and DEVICE_REMOVAL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>

#include "cma_priv.h"

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

/* Bind @id_priv to @port of @cma_dev. */
void cma_attach_dev(struct rdma_id_private *id_priv,
		    struct cma_device *cma_dev, u32 port)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	lockdep_assert_held(&cma_lock);
	cma_dev_get(cma_dev);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = cma_dev->device;
	id_priv->id.port_num = port;
	dev_addr->transport = rdma_node_get_transport(cma_dev->device->node_type);
	list_add_tail(&id_priv->device_item, &cma_dev->id_list);
	rdma_restrack_add(&id_priv->res);
}

void cma_detach_dev(struct rdma_id_private *id_priv)
{
	struct cma_device *cma_dev;

	mutex_lock(&cma_lock);
	cma_dev = id_priv->cma_dev;
	if (!cma_dev) {
		mutex_unlock(&cma_lock);
		return;
	}
	list_del_init(&id_priv->device_item);
	id_priv->cma_dev = NULL;
	id_priv->id.device = NULL;
	mutex_unlock(&cma_lock);
	cma_dev_put(cma_dev);
}

/* Whether @port of @device carries the netdev @ifindex of @net. */
static bool cma_port_has_netdev(struct ib_device *device, u32 port,
				struct net *net, int ifindex)
{
	struct net_device *ndev;
	bool match;

	ndev = ib_device_get_netdev(device, port);
	if (!ndev)
		return false;
	match = ndev->ifindex == ifindex && net_eq(dev_net(ndev), net);
	dev_put(ndev);
	return match;
}

/*
 * Bind @id_priv to the device port that carries the netdev its address
 * resolved or bound to (dev_addr.bound_dev_if). -ENODEV if no RDMA device
 * sits on that netdev.
 */
int cma_acquire_dev_by_addr(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct net *net = cma_net(id_priv);
	struct cma_device *cma_dev;
	u32 port;

	mutex_lock(&cma_lock);
	if (id_priv->cma_dev) {
		mutex_unlock(&cma_lock);
		return 0;
	}
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (cma_dev->removing ||
		    !rdma_dev_access_netns(cma_dev->device, net))
			continue;
		rdma_for_each_port(cma_dev->device, port) {
			if (!cma_port_has_netdev(cma_dev->device, port, net,
						 dev_addr->bound_dev_if))
				continue;
			cma_attach_dev(id_priv, cma_dev, port);
			mutex_unlock(&cma_lock);
			return 0;
		}
	}
	mutex_unlock(&cma_lock);
	return -ENODEV;
}

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;
	cma_dev->device = device;
	INIT_LIST_HEAD(&cma_dev->id_list);
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->comp);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_dev_list);
	list_for_each_entry(id_priv, &cma_listen_any, listen_any_item)
		cma_listen_on_dev(id_priv, cma_dev);
	mutex_unlock(&cma_lock);
	return 0;
}

/*
 * Tell the consumer that the device of @id_priv is going away. The consumer
 * must destroy the id (or return non-zero so that we do); the removal waits
 * for that.
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
	if (old == RDMA_CM_DESTROYING || old == RDMA_CM_DEVICE_REMOVAL) {
		mutex_unlock(&id_priv->handler_mutex);
		return;
	}
	if (cma_deliver(id_priv, &ev)) {
		cma_destroy_handler_locked(id_priv);
		return;
	}
	mutex_unlock(&id_priv->handler_mutex);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;

	mutex_lock(&cma_lock);
	cma_dev->removing = true;
	list_del(&cma_dev->list);
	while (!list_empty(&cma_dev->id_list)) {
		id_priv = list_first_entry(&cma_dev->id_list,
					   struct rdma_id_private, device_item);
		list_del_init(&id_priv->device_item);
		if (id_priv->internal_id) {
			/* A listener of ours: whoever unlinks it destroys it. */
			list_del_init(&id_priv->listen_item);
			mutex_unlock(&cma_lock);
			rdma_destroy_id(&id_priv->id);
		} else {
			cma_id_get(id_priv);
			mutex_unlock(&cma_lock);
			cma_send_device_removal(id_priv);
			cma_id_put(id_priv);
		}
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);

	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);
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
