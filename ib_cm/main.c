// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm ib_cm.ko: the InfiniBand connection manager, module glue.
 *
 * This module replaces the in-tree ib_cm.ko: the CM protocol of IBTA
 * vol. 1 chapter 12 (REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ,
 * SIDR_REP, LAP received; as in-tree, no APR is sent) over ib_core's MAD
 * layer, for IB and RoCE ports. Here: the ib_client, one MAD agent on the
 * GSI QP of every port with rdma_cap_ib_cm(), the debugfs counters
 * (/sys/kernel/debug/ib_cm/counters) of what the receive path dropped.
 * The in-tree per-port message counters in sysfs are in counters.c, the
 * ib_cma trace events in trace.h.
 *
 * Files: id.c (ids, references, tables, events, destroy), mad.c (MAD
 * send/receive, address vectors, timeouts), listen.c, req.c (REQ), rep.c
 * (REP, RTU, establishment), rej.c (REJ, reject messages), mra.c (MRA),
 * lap.c (alternate paths, LAP, path migration), disc.c (DREQ, DREP,
 * timewait), sidr.c, qp_attr.c, msg.c (the
 * wire format), gid_doom.c (RoCE GIDs about to be deleted), cm_priv.h
 * (private header, locking rules).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "cm_priv.h"

MODULE_AUTHOR("openrdma-cm");
MODULE_DESCRIPTION("InfiniBand CM (openrdma-cm)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION("0.1");

struct cm_globals cm = {
	.lock = __SPIN_LOCK_UNLOCKED(cm.lock),
	.devices = LIST_HEAD_INIT(cm.devices),
	.listeners = LIST_HEAD_INIT(cm.listeners),
};

static void cm_device_release(struct kref *kref)
{
	struct cm_device *cm_dev = container_of(kref, struct cm_device, kref);
	u32 p;

	for (p = 1; p <= cm_dev->num_ports; p++)
		kfree(cm_dev->port[p - 1]);
	kfree(cm_dev);
}

void cm_device_put(struct cm_device *cm_dev)
{
	kref_put(&cm_dev->kref, cm_device_release);
}

/* A reference on the CM state of @ib_dev, or NULL (no CM port, removed). */
struct cm_device *cm_device_get_by_ib(struct ib_device *ib_dev)
{
	struct cm_device *cm_dev, *found = NULL;

	spin_lock(&cm.lock);
	list_for_each_entry(cm_dev, &cm.devices, entry) {
		if (cm_dev->ib_dev == ib_dev && !cm_dev->going_away) {
			kref_get(&cm_dev->kref);
			found = cm_dev;
			break;
		}
	}
	spin_unlock(&cm.lock);
	return found;
}

struct cm_port *cm_port_of(struct cm_device *cm_dev, u32 port_num)
{
	if (!port_num || port_num > cm_dev->num_ports)
		return NULL;
	return cm_dev->port[port_num - 1];
}

static void cm_remove_port(struct cm_port *port)
{
	struct ib_port_modify modify = { .clr_port_cap_mask = IB_PORT_CM_SUP };
	struct ib_mad_agent *agent;

	spin_lock(&port->agent_lock);
	agent = port->agent;
	port->agent = NULL;
	spin_unlock(&port->agent_lock);
	if (agent) {
		ib_modify_port(port->cm_dev->ib_dev, port->port_num, 0,
			       &modify);
		/* Waits for our handlers; flushes the sends in flight. */
		ib_unregister_mad_agent(agent);
	}
	cm_port_sysfs_del(port);
}

static struct ib_client cm_client;

/* A stale send on the QP is done within microseconds: 200 x 5 ms at most. */
#define CM_STALE_RETRY_MS	5
#define CM_STALE_TRIES		200

static void cm_stale_work(struct work_struct *work)
{
	struct cm_device *cm_dev = container_of(to_delayed_work(work),
						struct cm_device, stale_work);

	if (cm_cancel_stale_sends(cm_dev) &&
	    ++cm_dev->stale_tries < CM_STALE_TRIES)
		queue_delayed_work(cm.wq, &cm_dev->stale_work,
				   msecs_to_jiffies(CM_STALE_RETRY_MS));
}

/*
 * ib_core's asynchronous events. IB_EVENT_GID_CHANGE comes synchronously
 * from the GID table's update (process context, with the port's GID table
 * mutex held: nothing here may take it), once per entry added or deleted;
 * a deleted entry may be the source GID of sends still waiting for an
 * answer (RoCE: an address removed, a bond's MAC changed).
 */
static void cm_event_handler(struct ib_event_handler *handler,
			     struct ib_event *event)
{
	struct cm_device *cm_dev = container_of(handler, struct cm_device,
						event_handler);

	if (event->event != IB_EVENT_GID_CHANGE)
		return;
	cm_doom_reap(cm_dev->ib_dev, false);	/* the entries gone now */
	if (cm_cancel_stale_sends(cm_dev)) {
		WRITE_ONCE(cm_dev->stale_tries, 0);
		mod_delayed_work(cm.wq, &cm_dev->stale_work,
				 msecs_to_jiffies(CM_STALE_RETRY_MS));
	}
}

static int cm_add_one(struct ib_device *ib_dev)
{
	struct ib_port_modify modify = { .set_port_cap_mask = IB_PORT_CM_SUP };
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = CM_CLASS_VERSION,
	};
	struct cm_device *cm_dev;
	struct ib_mad_agent *agent;
	struct cm_port *port;
	unsigned int n = 0;
	u32 p;
	int ret;

	set_bit(IB_MGMT_METHOD_SEND, reg.method_mask);
	cm_dev = kzalloc(struct_size(cm_dev, port, rdma_end_port(ib_dev)),
			 GFP_KERNEL);
	if (!cm_dev)
		return -ENOMEM;
	kref_init(&cm_dev->kref);
	cm_dev->ib_dev = ib_dev;
	cm_dev->ca_guid = ib_dev->node_guid;
	cm_dev->ack_delay = ib_dev->attrs.local_ca_ack_delay;
	cm_dev->num_ports = rdma_end_port(ib_dev);

	rdma_for_each_port(ib_dev, p) {
		if (!rdma_cap_ib_cm(ib_dev, p))
			continue;
		port = kzalloc(sizeof(*port), GFP_KERNEL);
		if (!port) {
			ret = -ENOMEM;
			goto err_ports;
		}
		port->cm_dev = cm_dev;
		port->port_num = p;
		spin_lock_init(&port->agent_lock);
		cm_pace_port_init(port);
		cm_dev->port[p - 1] = port;
		ret = cm_port_sysfs_add(port);
		if (ret)
			goto err_ports;
		agent = ib_register_mad_agent(ib_dev, p, IB_QPT_GSI, &reg, 0,
					      cm_send_handler, cm_recv_handler,
					      port, 0);
		if (IS_ERR(agent)) {
			ret = PTR_ERR(agent);
			goto err_ports;
		}
		spin_lock(&port->agent_lock);
		port->agent = agent;
		spin_unlock(&port->agent_lock);
		/* Advertises CM support in IB PortInfo; RoCE ports ignore it. */
		ib_modify_port(ib_dev, p, 0, &modify);
		if (rdma_protocol_roce(ib_dev, p))
			cm_dev->gid_watch = true;
		n++;
	}
	if (!n) {
		ret = -EOPNOTSUPP;
		goto err_ports;
	}

	INIT_DELAYED_WORK(&cm_dev->stale_work, cm_stale_work);
	INIT_IB_EVENT_HANDLER(&cm_dev->event_handler, ib_dev,
			      cm_event_handler);
	ib_register_event_handler(&cm_dev->event_handler);
	spin_lock(&cm.lock);
	list_add_tail(&cm_dev->entry, &cm.devices);
	spin_unlock(&cm.lock);
	ib_set_client_data(ib_dev, &cm_client, cm_dev);
	return 0;

err_ports:
	for (p = 1; p <= cm_dev->num_ports; p++)
		if (cm_dev->port[p - 1])
			cm_remove_port(cm_dev->port[p - 1]);
	cm_device_put(cm_dev);
	return ret;
}

static void cm_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct cm_device *cm_dev = client_data;
	u32 p;

	/* Waits for a handler call under way. */
	ib_unregister_event_handler(&cm_dev->event_handler);
	spin_lock(&cm.lock);
	cm_dev->going_away = true;	/* gid_doom.c queues no more work */
	list_del(&cm_dev->entry);
	spin_unlock(&cm.lock);
	cancel_delayed_work_sync(&cm_dev->stale_work);
	cm_doom_reap(ib_dev, true);

	for (p = 1; p <= cm_dev->num_ports; p++)
		if (cm_dev->port[p - 1])
			cm_remove_port(cm_dev->port[p - 1]);
	/*
	 * The ports stay allocated until the device's last id is gone: an id
	 * keeps a pointer to its port (whose agent is now NULL).
	 */
	flush_workqueue(cm.wq);
	cm_device_put(cm_dev);
}

static struct ib_client cm_client = {
	.name = "cm",
	.add = cm_add_one,
	.remove = cm_remove_one,
};

#if IS_ENABLED(CONFIG_KUNIT)
long cm_counter_read(enum cm_counter c)
{
	return atomic_long_read(&cm.counters[c]);
}
EXPORT_SYMBOL_IF_KUNIT(cm_counter_read);

long cm_ids_live(void)
{
	return atomic_long_read(&cm.nr_ids);
}
EXPORT_SYMBOL_IF_KUNIT(cm_ids_live);

/*
 * A device of the test's own (no MAD agents): ids can be created on it,
 * listen and be destroyed; nothing is ever sent. The test keeps the
 * cm_device's memory and removes it before freeing it.
 */
void cm_test_add_device(struct cm_device *cm_dev)
{
	kref_init(&cm_dev->kref);
	kref_get(&cm_dev->kref);	/* never released: the test owns it */
	spin_lock(&cm.lock);
	list_add_tail(&cm_dev->entry, &cm.devices);
	spin_unlock(&cm.lock);
}
EXPORT_SYMBOL_IF_KUNIT(cm_test_add_device);

void cm_test_del_device(struct cm_device *cm_dev)
{
	spin_lock(&cm.lock);
	list_del(&cm_dev->entry);
	spin_unlock(&cm.lock);
}
EXPORT_SYMBOL_IF_KUNIT(cm_test_del_device);

/* Every event queued so far has been handled. */
void cm_test_flush(void)
{
	flush_workqueue(cm.wq);
}
EXPORT_SYMBOL_IF_KUNIT(cm_test_flush);
#endif

/* ---- debugfs ---- */

static const char *const cm_counter_names[CM_CNT_MAX] = {
	[CM_CNT_RX] = "rx",
	[CM_CNT_RX_MALFORMED] = "rx_malformed",
	[CM_CNT_RX_UNKNOWN_ATTR] = "rx_unknown_attr",
	[CM_CNT_RX_UNKNOWN_ID] = "rx_unknown_comm_id",
	[CM_CNT_RX_BAD_STATE] = "rx_bad_state",
	[CM_CNT_RX_DUPLICATE] = "rx_duplicate",
	[CM_CNT_RX_NO_LISTENER] = "rx_no_listener",
	[CM_CNT_RX_STALE] = "rx_stale_conn",
	[CM_CNT_RX_LAP_APR] = "rx_lap_apr",
	[CM_CNT_RX_NOMEM] = "rx_nomem",
	[CM_CNT_TX] = "tx",
	[CM_CNT_TX_ERR] = "tx_err",
	[CM_CNT_TIMEOUT] = "timeout",
	[CM_CNT_TX_STALE] = "tx_stale_cancelled",
	[CM_CNT_GID_DOOMED] = "gid_doomed",
	[CM_CNT_TX_REQ_PACED] = "tx_req_paced",
	[CM_CNT_TX_FLUSHED] = "tx_flushed",
	[CM_CNT_TX_NETDEV_DOWN] = "tx_netdev_down",
};

static struct dentry *cm_debugfs_dir;

static int cm_counters_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < CM_CNT_MAX; i++)
		seq_printf(s, "%s %ld\n", cm_counter_names[i],
			   atomic_long_read(&cm.counters[i]));
	seq_printf(s, "gid_doomed_now %u\n", cm_doom_count());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cm_counters);

static int cm_ids_get(void *data, u64 *val)
{
	*val = atomic_long_read(&cm.nr_ids);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cm_ids_fops, cm_ids_get, NULL, "%llu\n");

/* Best effort, as debugfs is: the CM works without it. */
void cm_debugfs_init(void)
{
	cm_debugfs_dir = debugfs_create_dir("ib_cm", NULL);
	debugfs_create_file("counters", 0444, cm_debugfs_dir, NULL,
			    &cm_counters_fops);
	debugfs_create_file_unsafe("ids", 0444, cm_debugfs_dir, NULL,
				   &cm_ids_fops);
}

void cm_debugfs_exit(void)
{
	debugfs_remove(cm_debugfs_dir);
}

static int __init ib_cm_init(void)
{
	int ret;

	xa_init_flags(&cm.local_ids, XA_FLAGS_ALLOC);
	hash_init(cm.remote_ids);
	hash_init(cm.remote_qpns);
	cm.local_id_xor = get_random_u32();
	/* Assigned service ids: the IB_CM_ASSIGN_SERVICE_ID range. */
	cm.next_service_id = cpu_to_be64(0x0200000000000000ULL |
					 (get_random_u32() & 0xffff));
	cm.wq = alloc_workqueue("ib_cm", WQ_MEM_RECLAIM, 0);
	if (!cm.wq)
		return -ENOMEM;
	cm_debugfs_init();
	cm_counters_init();
	ret = ib_register_client(&cm_client);
	if (ret)
		goto err_wq;
	ret = cm_doom_init();
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&cm_client);
err_wq:
	cm_debugfs_exit();
	destroy_workqueue(cm.wq);
	return ret;
}

static void __exit ib_cm_exit(void)
{
	cm_doom_exit();
	ib_unregister_client(&cm_client);
	destroy_workqueue(cm.wq);
	cm_debugfs_exit();
	WARN_ON(!xa_empty(&cm.local_ids));
	xa_destroy(&cm.local_ids);
}

module_init(ib_cm_init);
module_exit(ib_cm_exit);
