// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm.ko: the iWARP connection manager, module glue.
 *
 * This module replaces the in-tree iw_cm.ko. It implements two driver
 * models. Offloaded CM: connections are made by the RNIC driver through
 * its ib_device iw_* ops (stock siw, cxgb4, irdma), and iw_cm keeps the
 * per-connection state machine, queues the driver's events and delivers
 * them to the user (rdma_cm) from an ordered workqueue. Host-stack CM
 * (host.c, host_conn.c, mpa.c; include/openrdma/iw_host.h): a driver that
 * merges orcm_iw_host_device_ops gets iw_cm's own TCP + MPA, the same
 * events, and the connected socket through its ->attach().
 *
 * The iWARP port mapper for RNICs without IW_F_NO_PORT_MAP (iwpmd's
 * netlink client RDMA_NL_IWCM, and a daemon-less kernel mode): iwpm.h.
 *
 * The listen backlog used when iw_cm_listen() is given 0 is the sysctl
 * net.iw_cm.default_backlog, as in-tree, also settable as the module
 * parameter default_backlog (at load time). The host-stack CM's deadlines
 * are per namespace, net.iw_cm.*_timeout_ms (host_timers.c).
 *
 * Files: id.c (ids, references, event pool, destroy), conn.c (the
 * connection API), event.c (provider upcalls, queue and worker), msg.c
 * (reject reasons), iwpm_*.c (port mapper), iwcm.h (private header).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include <rdma/rdma_netlink.h>
#include <openrdma/compat.h>

#include "host.h"
#include "iwcm.h"
#include "iwpm.h"

/* Read with READ_ONCE(); written through the sysctl or sysfs. */
unsigned int iwcm_default_backlog = 256;
module_param_named(default_backlog, iwcm_default_backlog, uint, 0644);
MODULE_PARM_DESC(default_backlog,
		 "Listen backlog used when iw_cm_listen() is given 0 (default 256; also net.iw_cm.default_backlog)");

static struct ctl_table iwcm_ctl_table[] = {
	{
		.procname	= "default_backlog",
		.data		= &iwcm_default_backlog,
		.maxlen		= sizeof(iwcm_default_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_INT_MAX,
	},
	ORCM_CTL_TABLE_END
};

static struct ctl_table_header *iwcm_ctl_hdr;

static int __init iwcm_init(void)
{
	int ret;

	ret = iwcm_event_init();
	if (ret)
		return ret;
	ret = iwcm_host_init();
	if (ret)
		goto out_event;
	ret = hcm_timers_init();
	if (ret)
		goto out_host;
	iwcm_ctl_hdr = register_net_sysctl(&init_net, "net/iw_cm",
					   iwcm_ctl_table);
	if (!iwcm_ctl_hdr) {
		ret = -ENOMEM;
		goto out_timers;
	}
	ret = iwpm_init();
	if (ret)
		goto out_sysctl;
	return 0;

out_sysctl:
	unregister_net_sysctl_table(iwcm_ctl_hdr);
out_timers:
	hcm_timers_exit();
out_host:
	iwcm_host_exit();
out_event:
	iwcm_event_exit();
	return ret;
}

static void __exit iwcm_exit(void)
{
	iwpm_exit();
	unregister_net_sysctl_table(iwcm_ctl_hdr);
	hcm_timers_exit();
	iwcm_host_exit();
	iwcm_event_exit();
}

module_init(iwcm_init);
module_exit(iwcm_exit);

/* iwpmd's messages load us, as they load the in-tree iw_cm. */
MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_IWCM, 2);
MODULE_DESCRIPTION("openrdma-cm iWARP connection manager (offloaded and host-stack CM models)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
