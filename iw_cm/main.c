// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm.ko: the iWARP connection manager, module glue.
 *
 * This module replaces the in-tree iw_cm.ko. It implements the "offloaded
 * CM" driver model: connections are made by the RNIC driver through its
 * ib_device iw_* ops (stock siw, cxgb4, irdma), and iw_cm keeps the
 * per-connection state machine, queues the driver's events and delivers
 * them to the user (rdma_cm) from an ordered workqueue.
 *
 * Not here (yet): the iWARP port-mapper client (iwpm, netlink client
 * RDMA_NL_IWCM, used with iwpmd by hardware RNICs) that the in-tree
 * iw_cm.ko carries. Without it every id's mapped addresses equal its own
 * (m_local_addr == local_addr, m_remote_addr == remote_addr), which is
 * what the in-tree module does too while no iwpmd is running. The
 * net.iw_cm.default_backlog sysctl is the module parameter
 * default_backlog here.
 *
 * Files: id.c (ids, references, event pool, destroy), conn.c (the
 * connection API), event.c (provider upcalls, queue and worker), msg.c
 * (reject reasons), iwcm.h (private header).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "iwcm.h"

/* Read with READ_ONCE(); written only through sysfs. */
unsigned int iwcm_default_backlog = 256;
module_param_named(default_backlog, iwcm_default_backlog, uint, 0644);
MODULE_PARM_DESC(default_backlog,
		 "Listen backlog used when iw_cm_listen() is given 0 (default 256)");

static int __init iwcm_init(void)
{
	int ret;

	ret = iwcm_event_init();
	if (ret)
		return ret;
	pr_debug("loaded\n");
	return 0;
}

static void __exit iwcm_exit(void)
{
	iwcm_event_exit();
}

module_init(iwcm_init);
module_exit(iwcm_exit);

MODULE_DESCRIPTION("openrdma-cm iWARP connection manager (offloaded CM model)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
