// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm rdma_cm.ko: the transport-neutral RDMA connection manager.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cma_priv.h"
#include "path_cache.h"
#include "ib.h"
#include "ps.h"

MODULE_AUTHOR("openrdma-cm developers");
MODULE_DESCRIPTION("openrdma-cm: transport-neutral RDMA connection manager");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");

/*
 * Devices, their id lists and the wildcard listeners; see cma_priv.h.
 *
 * Lock order (in-tree's "deadlock via create_listen" class): a driver's
 * iw_create_listen, iw_cm's iwpm mapping (which waits for iwpmd) and
 * ib_cm_insert_listen() run under cma_lock (cma_listen_on_dev(), from
 * rdma_listen() and cma_add_one()), so cma_lock is taken after
 * handler_mutex (cma_addr_done(), consumer calls from handlers) and after
 * ib_core's device and client locks, and never under RTNL: the netdevice
 * and address notifiers take only cma_track_lock and defer to a work. Under
 * cma_lock nothing takes a handler_mutex, waits for a handler or destroys
 * an id that may have one: a child refused by its device, a child of a
 * stopping listener or of a device going away is unlinked under cma_lock
 * and destroyed after it is dropped (cma_destroy_doomed(),
 * cma_cancel_listens(), cma_remove_one()), as ib_cm's handler
 * (cma_ib_child()) takes cma_lock. The cm_id of a listen that failed,
 * destroyed under it, never had a handler to wait for.
 */
DEFINE_MUTEX(cma_lock);
struct workqueue_struct *cma_wq;

static int __init cma_init(void)
{
	int ret;

	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;
	ret = cma_addr_init();
	if (ret)
		goto err_wq;
	ret = cma_ps_init();
	if (ret)
		goto err_addr;
	ret = cma_timers_init();
	if (ret)
		goto err_ps;
	cma_debugfs_init();
	cma_sa_init();
	ret = cma_device_init();
	if (ret)
		goto err_sa;
	ret = cma_configfs_init();
	if (ret)
		goto err_device;
	ret = cma_track_init();
	if (ret)
		goto err_configfs;
	return 0;

err_configfs:
	cma_configfs_exit();
err_device:
	cma_device_exit();
err_sa:
	cma_sa_exit();
	cma_pc_exit();
	cma_debugfs_exit();
	cma_timers_exit();
err_ps:
	cma_ps_exit();
err_addr:
	cma_addr_exit();
err_wq:
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_exit(void)
{
	cma_track_exit();
	cma_configfs_exit();
	cma_device_exit();
	cma_sa_exit();
	cma_pc_exit();
	cma_debugfs_exit();
	cma_timers_exit();
	cma_ps_exit();
	cma_addr_exit();
	destroy_workqueue(cma_wq);
}

module_init(cma_init);
module_exit(cma_exit);
