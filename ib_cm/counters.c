// SPDX-License-Identifier: GPL-2.0
/*
 * The per-port CM message counters, where the in-tree ib_cm of 6.12 shows
 * them: ib_core's port directory holds four client groups,
 *
 *   /sys/class/infiniband/DEV/ports/N/cm_tx_msgs/       sends, resends included
 *                                     cm_tx_retries/    resends
 *                                     cm_rx_msgs/       received
 *                                     cm_rx_duplicates/ received again
 *
 * each with one read-only file per CM message (req, mra, rej, rep, rtu,
 * dreq, drep, sidr_req, sidr_rep, lap, apr) holding a decimal count.
 * (The infiniband_cm class with a device per HCA is older than 5.11.)
 *
 * When each counts, as in-tree: a send when the MAD layer completes it
 * (whatever its status), once plus once per MAD-layer resend; a message
 * sent again for a duplicate of the peer's, or a DREP to a DREQ for a
 * connection we do not have, counts as one send and one retry more; a
 * received MAD of a CM message type before it is parsed; a duplicate
 * where the receive handlers find one (req.c, rep.c, mra.c, disc.c,
 * sidr.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include "cm_priv.h"

void cm_port_count(struct cm_port *port, enum cm_msg_group group,
		   __be16 attr_id, long n)
{
	unsigned int i = be16_to_cpu(attr_id) - CM_MSG_FIRST_ATTR;

	if (i < CM_MSG_TYPES)
		atomic_long_add(n, &port->msgs[group][i]);
}
EXPORT_SYMBOL_IF_KUNIT(cm_port_count);

/*
 * Count @buf, whose send has completed, on the port it left from. The
 * in-tree CM counts what it sends again for a duplicate (MRA, RTU, DREP)
 * and its DREP to a DREQ for a connection it does not have as one send and
 * one retry more; a REJ never has retries.
 */
void cm_count_sent(struct cm_port *port, const struct ib_mad_send_buf *buf)
{
	__be16 attr_id = ((const struct ib_mad_hdr *)buf->mad)->attr_id;
	long retries = buf->retries;	/* the MAD layer's resends */
	bool again;

	if (buf->context[0])		/* sent by an id */
		again = (uintptr_t)buf->context[1] & CM_SEND_RESEND;
	else				/* a reply built from a received MAD */
		again = attr_id == CM_DREP_ATTR_ID;
	if (again && attr_id != CM_REJ_ATTR_ID)
		retries = 1;
	cm_port_count(port, CM_GRP_TX, attr_id, 1 + retries);
	if (retries)
		cm_port_count(port, CM_GRP_TX_RETRIES, attr_id, retries);
}
EXPORT_SYMBOL_IF_KUNIT(cm_count_sent);

/* ---- sysfs ---- */

struct cm_msg_attr {
	struct ib_port_attribute attr;
	enum cm_msg_group group;
	unsigned int msg;		/* attribute id - CM_MSG_FIRST_ATTR */
};

static const char *const cm_msg_names[CM_MSG_TYPES] = {
	"req", "mra", "rej", "rep", "rtu", "dreq", "drep",
	"sidr_req", "sidr_rep", "lap", "apr",
};

/* Filled once by cm_counters_init(), read-only afterwards. */
static struct cm_msg_attr cm_msg_attrs[CM_GRP_MAX][CM_MSG_TYPES];
static struct attribute *cm_msg_attr_ptrs[CM_GRP_MAX][CM_MSG_TYPES + 1];
static struct attribute_group cm_msg_groups[CM_GRP_MAX] = {
	[CM_GRP_TX] = { .name = "cm_tx_msgs" },
	[CM_GRP_TX_RETRIES] = { .name = "cm_tx_retries" },
	[CM_GRP_RX] = { .name = "cm_rx_msgs" },
	[CM_GRP_RX_DUP] = { .name = "cm_rx_duplicates" },
};

static const struct attribute_group *cm_msg_group_ptrs[CM_GRP_MAX + 1];

static ssize_t cm_msg_count_show(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr, char *buf)
{
	struct cm_msg_attr *a = container_of(attr, struct cm_msg_attr, attr);
	struct cm_device *cm_dev = cm_device_get_by_ib(ibdev);
	struct cm_port *port;
	ssize_t ret = -ENODEV;

	if (!cm_dev)
		return ret;
	port = cm_port_of(cm_dev, port_num);
	if (port)
		ret = sysfs_emit(buf, "%ld\n",
				 atomic_long_read(&port->msgs[a->group][a->msg]));
	cm_device_put(cm_dev);
	return ret;
}

void cm_counters_init(void)
{
	unsigned int g, m;

	for (g = 0; g < CM_GRP_MAX; g++) {
		for (m = 0; m < CM_MSG_TYPES; m++) {
			struct cm_msg_attr *a = &cm_msg_attrs[g][m];

			a->attr.attr.name = cm_msg_names[m];
			a->attr.attr.mode = 0444;
			a->attr.show = cm_msg_count_show;
			a->group = g;
			a->msg = m;
			cm_msg_attr_ptrs[g][m] = &a->attr.attr;
		}
		cm_msg_groups[g].attrs = cm_msg_attr_ptrs[g];
		cm_msg_group_ptrs[g] = &cm_msg_groups[g];
	}
}

int cm_port_sysfs_add(struct cm_port *port)
{
	int ret;

	ret = ib_port_register_client_groups(port->cm_dev->ib_dev,
					     port->port_num, cm_msg_group_ptrs);
	port->sysfs = !ret;
	return ret;
}

void cm_port_sysfs_del(struct cm_port *port)
{
	if (!port->sysfs)
		return;
	ib_port_unregister_client_groups(port->cm_dev->ib_dev, port->port_num,
					 cm_msg_group_ptrs);
	port->sysfs = false;
}
