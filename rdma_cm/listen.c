// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_listen(): on one device when the id is bound to a device address,
 * otherwise on every device (now and later) through one internal listener
 * per device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <openrdma/compat.h>

#include "cma_priv.h"
#include "ib.h"
#include "ps.h"

/* Wildcard listeners (their listen_any_item); cma_lock. */
LIST_HEAD(cma_listen_any);

/* Start listening on the device @id_priv is bound to. */
static int cma_listen_dev_bound(struct rdma_id_private *id_priv)
{
	struct ib_device *device = id_priv->id.device;

	if (rdma_cap_iw_cm(device, id_priv->id.port_num))
		return cma_iw_listen(id_priv, id_priv->backlog);
	if (rdma_cap_ib_cm(device, id_priv->id.port_num))
		return cma_ib_listen(id_priv);
	return -EPROTONOSUPPORT;
}

/* The first port of @device that has a CM we can dispatch to, or 0. */
u32 cma_first_cm_port(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port)
		if (rdma_cap_iw_cm(device, port) ||
		    rdma_cap_ib_cm(device, port))
			return port;
	return 0;
}

/*
 * Whether iWARP @port of @device carries TCP outside @net: its netdev
 * lives in another namespace. Such a device's connections arrive in that
 * namespace's TCP stack, never at a listener in @net; its driver, asked to
 * listen anyway, makes its socket in the caller's namespace (siw binds it
 * to the netdev's ifindex, which in @net may name another netdev and
 * collide with that netdev's listener). A device without a netdev is not
 * out: nothing tells where its connections arrive.
 */
static bool cma_iw_port_out_of_net(struct ib_device *device, u32 port,
				   struct net *net)
{
	struct net_device *ndev;
	bool out;

	if (!rdma_cap_iw_cm(device, port))
		return false;
	ndev = ib_device_get_netdev(device, port);
	if (!ndev)
		return false;
	out = !net_eq(dev_net(ndev), net);
	dev_put(ndev);
	return out;
}

/*
 * Add an internal listener for wildcard listener @id_priv on @cma_dev. A
 * device without a port we can dispatch to, out of the listener's
 * namespace, or (iWARP) whose netdev is in another namespace, is skipped
 * (0; tests/parity/deviations: iw-listen-other-netns). The netdev's
 * namespace is read now: a netdev moved later keeps what it had. Returns
 * the error of a device that refuses
 * (the driver's, e.g. -EADDRINUSE, or -ENOMEM); the refused child is then
 * off the parent's list and chained on @doomed through its listen_item,
 * for the caller to destroy with cma_destroy_doomed() once it has dropped
 * cma_lock.
 */
int cma_listen_on_dev(struct rdma_id_private *id_priv,
		      struct cma_device *cma_dev, struct list_head *doomed)
{
	struct rdma_id_private *child;
	u32 port;
	int ret;

	lockdep_assert_held(&cma_lock);
	if (cma_dev->removing ||
	    !rdma_dev_access_netns(cma_dev->device, cma_net(id_priv)))
		return 0;
	port = cma_first_cm_port(cma_dev->device);
	if (!port ||
	    cma_iw_port_out_of_net(cma_dev->device, port, cma_net(id_priv)))
		return 0;
	/* As in-tree, an AF_IB listener skips devices without an IB CM. */
	if (cma_src_addr(id_priv)->sa_family == AF_IB &&
	    !rdma_cap_ib_cm(cma_dev->device, port))
		return 0;

	child = cma_id_alloc(cma_net(id_priv), id_priv->id.event_handler,
			     id_priv->id.context, id_priv->id.ps,
			     id_priv->id.qp_type, id_priv);
	if (!child)
		return -ENOMEM;
	child->internal_id = 1;
	cma_lockdep_listener(child);
	/* The child's requests reach the parent's handler: pin the parent. */
	cma_id_get(id_priv);
	child->parent = id_priv;
	child->state = RDMA_CM_LISTEN;
	child->backlog = id_priv->backlog;
	memcpy(cma_src_addr(child), cma_src_addr(id_priv),
	       sizeof(child->id.route.addr.src_addr));
	/*
	 * The wildcard parent has no device, so restrack (`rdma res show
	 * cm_id`) shows one LISTEN entry per device: these, under the
	 * parent's owner. As in-tree they have a device but no port (shown
	 * as dev/-); a request takes the device's CM port (iw.c).
	 */
	cma_attach_dev(child, cma_dev, 0);
	list_add_tail(&child->listen_item, &id_priv->listen_list);

	if (rdma_cap_iw_cm(cma_dev->device, port))
		ret = cma_iw_listen(child, child->backlog);
	else
		ret = cma_ib_listen(child);
	if (ret) {
		dev_warn(&cma_dev->device->dev,
			 "rdma_cm: cannot listen on port %u: %d\n", port, ret);
		/*
		 * Unlinked by us, so destroyed by us (cma_priv.h); off the
		 * device's list too, so that cma_remove_one() leaves it be.
		 */
		spin_lock(&cma_dev->id_lock);
		list_del_init(&child->device_item);
		spin_unlock(&cma_dev->id_lock);
		list_move_tail(&child->listen_item, doomed);
	}
	return ret;
}

/* Destroy the refused children that cma_listen_on_dev() chained. */
void cma_destroy_doomed(struct list_head *doomed)
{
	struct rdma_id_private *child, *tmp;

	list_for_each_entry_safe(child, tmp, doomed, listen_item) {
		list_del_init(&child->listen_item);
		rdma_destroy_id(&child->id);
	}
}

/*
 * Stop the listeners that a wildcard listener @id_priv owns: no device added
 * from now on gets one, and every child still on the parent's list is
 * destroyed here. Called by the destroy path, or by rdma_listen() undoing a
 * failed wildcard listen.
 */
void cma_cancel_listens(struct rdma_id_private *id_priv)
{
	struct rdma_id_private *child;

	if (id_priv->internal_id)
		return;

	mutex_lock(&cma_lock);
	if (!id_priv->cma_dev)
		list_del_init(&id_priv->listen_any_item);
	while (!list_empty(&id_priv->listen_list)) {
		child = list_first_entry(&id_priv->listen_list,
					 struct rdma_id_private, listen_item);
		/* Whoever unlinks a child destroys it. */
		list_del_init(&child->listen_item);
		mutex_unlock(&cma_lock);
		rdma_destroy_id(&child->id);
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *id_priv = to_id_priv(id);
	struct cma_device *cma_dev;
	LIST_HEAD(doomed);
	int ret;

	if (cma_state(id_priv) == RDMA_CM_IDLE) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		ret = rdma_bind_addr(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN))
		return -EINVAL;
	cma_lockdep_listener(id_priv);

	/* A port bound with reuseaddr must be ours alone to listen on. */
	if (id_priv->reuseaddr) {
		ret = cma_ps_check_listen(id_priv);
		if (ret)
			goto err_state;
	}

	id_priv->backlog = backlog;
	if (id->device) {
		ret = cma_listen_dev_bound(id_priv);
		if (ret)
			goto err_state;
		return 0;
	}

	/*
	 * Every device listens, or none: as in-tree, a device that refuses
	 * (port taken, no memory) fails the call and undoes the others.
	 */
	ret = 0;
	mutex_lock(&cma_lock);
	INIT_LIST_HEAD(&id_priv->listen_list);
	list_add_tail(&id_priv->listen_any_item, &cma_listen_any);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		ret = cma_listen_on_dev(id_priv, cma_dev, &doomed);
		if (ret)
			break;
	}
	mutex_unlock(&cma_lock);
	if (ret) {
		cma_destroy_doomed(&doomed);
		cma_cancel_listens(id_priv);
		goto err_state;
	}
	return 0;

err_state:
	id_priv->backlog = 0;
	cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_listen);
