// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/config/rdma_cm: per-port defaults, the in-tree interface
 * (Documentation/ABI/testing/configfs-rdma_cm).
 *
 *   mkdir /sys/kernel/config/rdma_cm/<device>	     (-ENODEV if unknown)
 *   <device>/ports/<n>/default_roce_mode   "IB/RoCE v1" or "RoCE v2"; a type
 *					     the port lacks is -EINVAL
 *   <device>/ports/<n>/default_roce_tos    0-255
 *   <device>/ports/<n>/cm_response_timeout -1 (the namespace's
 *					     net.rdma_cm value) or 0-31
 *   <device>/ports/<n>/cm_max_retries      -1 or 0-15 (cm_timers.c; not
 *					     in-tree)
 *
 * The values live in the cma_device (cma_priv.h), so they outlive the
 * directory and go with the device; a directory whose device went away
 * answers -ENODEV. The directory keeps only the device's name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cma_priv.h"

struct cma_cfs_port {
	struct config_group	group;
	u32			port;
};

struct cma_cfs_dev {
	struct config_group	group;		/* <device> */
	struct config_group	ports;		/* <device>/ports */
	char			name[IB_DEVICE_NAME_MAX];
	struct cma_cfs_port	port[];
};

static const char * const cma_gid_type_names[] = {
	[IB_GID_TYPE_IB]		= "IB/RoCE v1",
	[IB_GID_TYPE_ROCE_UDP_ENCAP]	= "RoCE v2",
};

static struct cma_cfs_port *to_cfs_port(struct config_item *item)
{
	return container_of(to_config_group(item), struct cma_cfs_port, group);
}

/* The device and port of a port directory; -ENODEV once it is gone. */
static int cma_cfs_get(struct config_item *item, struct cma_device **cma_dev,
		       struct cma_port_cfg **cfg)
{
	struct cma_cfs_port *p = to_cfs_port(item);
	struct cma_cfs_dev *d;
	struct ib_device *device;

	/* ports/<n> -> ports -> <device> */
	d = container_of(to_config_group(item->ci_parent), struct cma_cfs_dev,
			 ports);
	*cma_dev = cma_get_dev_by_name(d->name);
	if (!*cma_dev)
		return -ENODEV;
	device = (*cma_dev)->device;
	if (!rdma_is_port_valid(device, p->port)) {
		cma_dev_put(*cma_dev);
		return -ENODEV;
	}
	*cfg = &(*cma_dev)->port_cfg[p->port - rdma_start_port(device)];
	return 0;
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	struct cma_port_cfg *cfg;
	u8 type;
	int ret;

	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	type = READ_ONCE(cfg->gid_type);
	cma_dev_put(cma_dev);
	if (type >= ARRAY_SIZE(cma_gid_type_names) || !cma_gid_type_names[type])
		return -EINVAL;
	return sysfs_emit(buf, "%s\n", cma_gid_type_names[type]);
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct cma_port_cfg *cfg;
	struct cma_device *cma_dev;
	struct cma_cfs_port *p = to_cfs_port(item);
	int type, ret;

	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	type = sysfs_match_string(cma_gid_type_names, buf);
	if (type < 0 || !(cma_gid_types(cma_dev->device, p->port) & BIT(type)))
		ret = -EINVAL;
	else
		WRITE_ONCE(cfg->gid_type, type);
	cma_dev_put(cma_dev);
	return ret ?: strnlen(buf, count);
}

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	struct cma_port_cfg *cfg;
	u8 tos;
	int ret;

	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	tos = READ_ONCE(cfg->roce_tos);
	cma_dev_put(cma_dev);
	return sysfs_emit(buf, "%u\n", tos);
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	struct cma_port_cfg *cfg;
	u8 tos;
	int ret;

	ret = kstrtou8(buf, 0, &tos);
	if (ret)
		return ret;
	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	WRITE_ONCE(cfg->roce_tos, tos);
	cma_dev_put(cma_dev);
	return strnlen(buf, count);
}

/* A port's CM timer (cm_timers.c): -1 when the namespace's value applies. */
static ssize_t cma_cfs_timer_show(struct config_item *item, char *buf, bool retries)
{
	struct cma_device *cma_dev;
	struct cma_port_cfg *cfg;
	u8 v;
	int ret;

	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	v = retries ? READ_ONCE(cfg->cm_max_retries) : READ_ONCE(cfg->cm_response_timeout);
	cma_dev_put(cma_dev);
	return sysfs_emit(buf, "%d\n", v == CMA_CM_UNSET ? -1 : v);
}

static ssize_t cma_cfs_timer_store(struct config_item *item, const char *buf,
				   size_t count, bool retries)
{
	struct cma_device *cma_dev;
	struct cma_port_cfg *cfg;
	int v, ret;

	v = cma_cm_timer_parse(buf, retries ? CMA_CM_RETRIES_MAX : CMA_CM_TIMEOUT_MAX);
	if (v < 0)
		return v;
	ret = cma_cfs_get(item, &cma_dev, &cfg);
	if (ret)
		return ret;
	if (retries)
		WRITE_ONCE(cfg->cm_max_retries, v);
	else
		WRITE_ONCE(cfg->cm_response_timeout, v);
	cma_dev_put(cma_dev);
	return strnlen(buf, count);
}

static ssize_t cm_response_timeout_show(struct config_item *item, char *buf)
{
	return cma_cfs_timer_show(item, buf, false);
}

static ssize_t cm_response_timeout_store(struct config_item *item,
					 const char *buf, size_t count)
{
	return cma_cfs_timer_store(item, buf, count, false);
}

static ssize_t cm_max_retries_show(struct config_item *item, char *buf)
{
	return cma_cfs_timer_show(item, buf, true);
}

static ssize_t cm_max_retries_store(struct config_item *item,
				    const char *buf, size_t count)
{
	return cma_cfs_timer_store(item, buf, count, true);
}

CONFIGFS_ATTR(, default_roce_mode);
CONFIGFS_ATTR(, default_roce_tos);
CONFIGFS_ATTR(, cm_response_timeout);
CONFIGFS_ATTR(, cm_max_retries);

static struct configfs_attribute *cma_cfs_port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	&attr_cm_response_timeout,
	&attr_cm_max_retries,
	NULL,
};

static const struct config_item_type cma_cfs_port_type = {
	.ct_attrs	= cma_cfs_port_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cma_cfs_ports_type = {
	.ct_owner	= THIS_MODULE,
};

/* The last reference to <device> is gone: its ports went before it. */
static void cma_cfs_dev_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct cma_cfs_dev, group));
}

static struct configfs_item_operations cma_cfs_dev_ops = {
	.release	= cma_cfs_dev_release,
};

static const struct config_item_type cma_cfs_dev_type = {
	.ct_item_ops	= &cma_cfs_dev_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group *cma_cfs_make_dev(struct config_group *parent,
					     const char *name)
{
	struct cma_device *cma_dev;
	struct cma_cfs_dev *d;
	u32 i, n;

	cma_dev = cma_get_dev_by_name(name);
	if (!cma_dev)
		return ERR_PTR(-ENODEV);
	n = cma_dev->device->phys_port_cnt;
	cma_dev_put(cma_dev);

	d = kzalloc(struct_size(d, port, n), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	strscpy(d->name, name, sizeof(d->name));
	config_group_init_type_name(&d->group, name, &cma_cfs_dev_type);
	config_group_init_type_name(&d->ports, "ports", &cma_cfs_ports_type);
	configfs_add_default_group(&d->ports, &d->group);
	for (i = 0; i < n; i++) {
		char num[11];

		d->port[i].port = i + 1;
		snprintf(num, sizeof(num), "%u", i + 1);
		config_group_init_type_name(&d->port[i].group, num,
					    &cma_cfs_port_type);
		configfs_add_default_group(&d->port[i].group, &d->ports);
	}
	return &d->group;
}

static void cma_cfs_drop_dev(struct config_group *parent,
			     struct config_item *item)
{
	struct cma_cfs_dev *d = container_of(to_config_group(item),
					     struct cma_cfs_dev, group);

	configfs_remove_default_groups(&d->ports);
	configfs_remove_default_groups(&d->group);
	config_item_put(item);
}

static struct configfs_group_operations cma_cfs_root_ops = {
	.make_group	= cma_cfs_make_dev,
	.drop_item	= cma_cfs_drop_dev,
};

static const struct config_item_type cma_cfs_root_type = {
	.ct_group_ops	= &cma_cfs_root_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cma_cfs = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "rdma_cm",
			.ci_type	= &cma_cfs_root_type,
		},
	},
};

int cma_configfs_init(void)
{
	config_group_init(&cma_cfs.su_group);
	mutex_init(&cma_cfs.su_mutex);
	return configfs_register_subsystem(&cma_cfs);
}

void cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_cfs);
}
