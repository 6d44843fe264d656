// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: module, `rdma link add NAME type softrnic netdev DEV`, device
 * registration with ib_core, and the netdev notifier (the device goes with
 * its netdev; the port follows carrier).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/module.h>
#include <kunit/visibility.h>
#include <net/addrconf.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>
#include <openrdma/compat.h>

#include "sr_verbs.h"

/*
 * Which iWARP CM model a device added from now on plays (read at `rdma
 * link add`). Host-stack (default): iw_cm makes the connection with host
 * sockets on the id's own ports, IW_F_NO_PORT_MAP. Offloaded CM: the
 * device stands for a card that runs TCP and MPA itself with the host's
 * addresses, so it leaves IW_F_NO_PORT_MAP unset and iw_cm's port mapper
 * (iwpmd, or the kernel reservation) gives its ids mapped ports; the
 * card's TCP endpoints are those of iw_cm's host CM, bound to the mapped
 * addresses beside the mapper's hold (include/openrdma/iw_host.h).
 */
static bool sr_offload_cm;
module_param_named(offload_cm, sr_offload_cm, bool, 0644);
MODULE_PARM_DESC(offload_cm,
		 "Devices added from now on are offloaded-CM RNICs: their ports go through the iWARP port mapper (default off: host-stack model, host ports)");

/* All softrnic devices; sr_dev_list_lock protects the list. */
static LIST_HEAD(sr_dev_list);
static DEFINE_MUTEX(sr_dev_list_lock);

static const struct orcm_iw_host_ops sr_host_ops = {
	.attach = sr_host_attach,
};

static void sr_dealloc_driver(struct ib_device *ibdev)
{
	struct sr_dev *sdev = to_sr_dev(ibdev);

	if (sdev->host_registered)
		orcm_iw_host_unregister(ibdev);
	mutex_lock(&sr_dev_list_lock);
	list_del_init(&sdev->list);
	mutex_unlock(&sr_dev_list_lock);
	WARN_ON(!xa_empty(&sdev->qp_xa));
	WARN_ON(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
}

ORCM_DEFINE_CREATE_CQ(sr_create_cq)

static const struct ib_device_ops sr_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,	/* rdma-core's siw provider binds */
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.alloc_mr = sr_alloc_mr,
	.alloc_pd = sr_alloc_pd,
	.alloc_ucontext = sr_alloc_ucontext,
	.create_cq = ORCM_CREATE_CQ(sr_create_cq),
	.create_qp = sr_create_qp,
	.create_srq = sr_create_srq,
	.dealloc_driver = sr_dealloc_driver,
	.dealloc_pd = sr_dealloc_pd,
	.dealloc_ucontext = sr_dealloc_ucontext,
	.dereg_mr = sr_dereg_mr,
	.destroy_cq = sr_destroy_cq,
	.destroy_qp = sr_destroy_qp,
	.destroy_srq = sr_destroy_srq,
	.get_dev_fw_str = sr_get_dev_fw_str,
	.get_dma_mr = sr_get_dma_mr,
	.get_port_immutable = sr_get_port_immutable,
	.iw_add_ref = sr_iw_add_ref,
	.iw_get_qp = sr_iw_get_qp,
	.iw_rem_ref = sr_iw_rem_ref,
	.map_mr_sg = sr_map_mr_sg,
	.mmap = sr_mmap,
	.mmap_free = sr_mmap_free,
	.modify_qp = sr_modify_qp,
	.modify_srq = sr_modify_srq,
	.poll_cq = sr_poll_cq,
	.post_recv = sr_post_recv,
	.post_send = sr_post_send,
	.post_srq_recv = sr_post_srq_recv,
	.query_device = sr_query_device,
	.query_gid = sr_query_gid,
	.query_pkey = sr_query_pkey,
	.query_port = sr_query_port,
	.query_qp = sr_query_qp,
	.query_srq = sr_query_srq,
	.reg_user_mr = sr_reg_user_mr,
	.req_notify_cq = sr_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, sr_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, sr_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sr_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sr_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sr_ucontext, ibuc),
};

static struct sr_dev *sr_dev_find(struct net_device *ndev)
{
	struct sr_dev *sdev;

	lockdep_assert_held(&sr_dev_list_lock);
	list_for_each_entry(sdev, &sr_dev_list, list)
		if (sdev->netdev == ndev)
			return sdev;
	return NULL;
}

static struct sr_dev *sr_dev_alloc(struct net_device *ndev)
{
	struct sr_dev *sdev;
	struct ib_device *ibdev;

	sdev = ib_alloc_device(sr_dev, ibdev);
	if (!sdev)
		return NULL;
	ibdev = &sdev->ibdev;
	sdev->netdev = ndev;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&sdev->list);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1);

	ibdev->node_type = RDMA_NODE_RNIC;
	BUILD_BUG_ON(sizeof(SR_NODE_DESC) > IB_DEVICE_NODE_DESC_MAX);
	memcpy(ibdev->node_desc, SR_NODE_DESC, sizeof(SR_NODE_DESC));
	if (ndev->addr_len == ETH_ALEN)
		addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	else	/* loopback: a locally administered GUID from the ifindex */
		ibdev->node_guid = cpu_to_be64(0x0200000000000000ULL |
					       ndev->ifindex);
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->iw_driver_flags = READ_ONCE(sr_offload_cm) ? 0 : IW_F_NO_PORT_MAP;
	strscpy(ibdev->iw_ifname, ndev->name, sizeof(ibdev->iw_ifname));
	ib_set_device_ops(ibdev, &sr_dev_ops);
	ib_set_device_ops(ibdev, &orcm_iw_host_device_ops);
	/* rdma-core's siw provider rings the SQ doorbell with an empty post_send */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	return sdev;
}

VISIBLE_IF_KUNIT int sr_newlink(const char *name, struct net_device *ndev)
{
	struct sr_dev *sdev;
	int ret;

	if (ndev->type != ARPHRD_ETHER && ndev->type != ARPHRD_LOOPBACK &&
	    ndev->type != ARPHRD_NONE)
		return -EINVAL;

	mutex_lock(&sr_dev_list_lock);
	if (sr_dev_find(ndev)) {
		ret = -EEXIST;
		goto out_unlock;
	}
	sdev = sr_dev_alloc(ndev);
	if (!sdev) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	/* On the list from here: dealloc_driver takes it off. */
	list_add_tail(&sdev->list, &sr_dev_list);
	mutex_unlock(&sr_dev_list_lock);

	ret = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (ret)
		goto out_dealloc;
	ret = orcm_iw_host_register(&sdev->ibdev, &sr_host_ops);
	if (ret)
		goto out_dealloc;
	sdev->host_registered = true;
	ret = ib_register_device(&sdev->ibdev, name, NULL);
	if (ret)
		goto out_dealloc;
	sr_port_event(sdev, sr_port_state(sdev) == IB_PORT_ACTIVE ?
		      IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
	return 0;

out_dealloc:
	/* Calls sr_dealloc_driver(), which undoes the above. */
	ib_dealloc_device(&sdev->ibdev);
	return ret;
out_unlock:
	mutex_unlock(&sr_dev_list_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sr_newlink);

static struct rdma_link_ops sr_link_ops = {
	.type = "softrnic",
	.newlink = sr_newlink,
};

static int sr_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sr_dev *sdev;

	mutex_lock(&sr_dev_list_lock);
	sdev = sr_dev_find(ndev);
	if (!sdev)
		goto out;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sr_port_event(sdev, sr_port_state(sdev) == IB_PORT_ACTIVE ?
			      IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGENAME:
		strscpy(sdev->ibdev.iw_ifname, ndev->name,
			sizeof(sdev->ibdev.iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&sr_dev_list_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sr_netdev_nb = {
	.notifier_call = sr_netdev_event,
};

/*
 * Not ib_unregister_driver(): it would take stock siw's devices too (same
 * driver id). Each of ours, waiting for a queued unregistration as well.
 */
static void sr_unregister_all(void)
{
	struct sr_dev *sdev;

	for (;;) {
		mutex_lock(&sr_dev_list_lock);
		sdev = list_first_entry_or_null(&sr_dev_list, struct sr_dev,
						list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		mutex_unlock(&sr_dev_list_lock);
		if (!sdev)
			return;
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static int __init sr_init(void)
{
	int ret;

	ret = sr_wire_init();
	if (ret)
		return ret;
	ret = register_netdevice_notifier(&sr_netdev_nb);
	if (ret)
		goto out_wire;
	rdma_link_register(&sr_link_ops);
	return 0;

out_wire:
	sr_wire_exit();
	return ret;
}

static void __exit sr_exit(void)
{
	rdma_link_unregister(&sr_link_ops);
	unregister_netdevice_notifier(&sr_netdev_nb);
	sr_unregister_all();
	sr_wire_exit();
}

module_init(sr_init);
module_exit(sr_exit);

MODULE_DESCRIPTION("softrnic: a software iWARP RNIC for the host-stack iWARP CM");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
MODULE_ALIAS_RDMA_LINK("softrnic");
