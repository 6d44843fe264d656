// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm listeners: ib_cm_listen() and ib_cm_insert_listen() (one
 * listener per (device, service id), shared by reference count), and the
 * lookup of the listener for a received REQ or SIDR_REQ by service id
 * under the listener's mask.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "openrdma/symvers.h"

#include <kunit/visibility.h>
#include <linux/module.h>

#include "cm_priv.h"

/* Does @got fall under the listener (@want, @mask)? */
bool cm_service_match(__be64 want, __be64 mask, __be64 got)
{
	return ((want ^ got) & mask) == 0;
}
EXPORT_SYMBOL_IF_KUNIT(cm_service_match);

static struct cm_id_priv *
cm_find_listener_locked(struct ib_device *dev, __be64 service_id, __be64 mask)
{
	struct cm_id_priv *priv;

	lockdep_assert_held(&cm.lock);
	list_for_each_entry(priv, &cm.listeners, listen_entry) {
		if (priv->id.device != dev)
			continue;
		/* Overlap: either listener's mask decides. */
		if (cm_service_match(priv->id.service_id,
				     priv->service_mask & mask, service_id))
			return priv;
	}
	return NULL;
}

/* A reference on the listener of @dev that takes @service_id, or NULL. */
struct cm_id_priv *cm_find_listener(struct ib_device *dev, __be64 service_id)
{
	struct cm_id_priv *priv;

	spin_lock(&cm.lock);
	priv = cm_find_listener_locked(dev, service_id, cpu_to_be64(~0ULL));
	if (priv)
		cm_get(priv);
	spin_unlock(&cm.lock);
	return priv;
}

/* Enter @priv as a listener; -EBUSY if the service id is taken. */
static int cm_listen_locked(struct cm_id_priv *priv, __be64 service_id)
{
	__be64 mask = cpu_to_be64(~0ULL);

	lockdep_assert_held(&cm.lock);
	if (priv->id.state != IB_CM_IDLE)
		return -EINVAL;
	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		service_id = cm.next_service_id;
		be64_add_cpu(&cm.next_service_id, 1);
	} else if ((service_id & IB_SERVICE_ID_AGN_MASK) ==
		   IB_CM_ASSIGN_SERVICE_ID) {
		return -EINVAL;	/* that range is ours to assign */
	}
	if (cm_find_listener_locked(priv->id.device, service_id, mask))
		return -EBUSY;
	priv->id.service_id = service_id;
	priv->service_mask = mask;
	priv->id.state = IB_CM_LISTEN;
	priv->listening = true;
	priv->listen_sharecount = 1;
	list_add_tail(&priv->listen_entry, &cm.listeners);
	return 0;
}

/**
 * ib_cm_listen - listen for REQs and SIDR_REQs to a service id
 * @cm_id: an idle id
 * @service_id: in network order; IB_CM_ASSIGN_SERVICE_ID to get one
 *
 * Return: 0, -EINVAL (id not idle, a reserved service id), -EBUSY.
 */
int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	struct cm_id_priv *priv = to_priv(cm_id);
	int ret;

	spin_lock(&priv->lock);
	spin_lock(&cm.lock);
	ret = cm_listen_locked(priv, service_id);
	spin_unlock(&cm.lock);
	spin_unlock(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_cm_listen);

/**
 * ib_cm_insert_listen - the listener of @device for @service_id, shared
 * @device: the device
 * @cm_handler: its handler; an existing listener must have the same one
 * @service_id: the service id, network order
 *
 * Return: a listening id, created or shared (each caller destroys it
 * once), or ERR_PTR(-EINVAL) if another handler listens there already.
 */
struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cm_id_priv *new, *cur;
	int ret;

	new = cm_id_alloc(device, cm_handler, NULL);
	if (IS_ERR(new))
		return ERR_CAST(new);

	spin_lock(&new->lock);
	spin_lock(&cm.lock);
	cur = cm_find_listener_locked(device, service_id, cpu_to_be64(~0ULL));
	if (cur && cur->id.service_id == service_id &&
	    cur->id.cm_handler == cm_handler) {
		cur->listen_sharecount++;
		spin_unlock(&cm.lock);
		spin_unlock(&new->lock);
		cm_destroy(new, false);
		return &cur->id;
	}
	ret = cur ? -EINVAL : cm_listen_locked(new, service_id);
	spin_unlock(&cm.lock);
	spin_unlock(&new->lock);
	if (ret) {
		cm_destroy(new, false);
		return ERR_PTR(ret);
	}
	return &new->id;
}
EXPORT_SYMBOL(ib_cm_insert_listen);
