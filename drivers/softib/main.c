// SPDX-License-Identifier: GPL-2.0
/*
 * softib: module, `rdma link add NAME type softib netdev NETDEV`, the
 * rdmavt device (one InfiniBand port, node type CA), and its lifetime.
 *
 * rdmavt's teardown (rvt_unregister_device: the MAD agent, the QPN, lkey
 * and WSS tables) must follow ib_unregister_device(), which `rdma link
 * delete` and a vanishing netdev run without us. So: our ib_client's
 * remove (it runs before the MAD layer's, clients go LIFO) frees rdmavt's
 * MAD agent; dealloc_driver unlinks the device and defers the rest to
 * softib_free_work(), which holds a device reference until it is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/wait_bit.h>
#include <net/addrconf.h>
#include <rdma/ib_sysfs.h>
#include <rdma/rdma_netlink.h>
#include "softib.h"
#include "wire.h"
#include "sw.h"

#define SOFTIB_NODE_DESC	"softib"
/* Carrier bytes a packet needs beyond its IB payload (LRH GRH BTH RETH ...) */
#define SOFTIB_HDR_ROOM		96

/*
 * All softib devices: softib_lock for writers, RCU for the receive path.
 * softib_lock also guards softib_claims, the netdevs switch ports hold: a
 * netdev is one CA's carrier or one switch port, never both, and both
 * kinds of claim are checked and made under this one lock (a CA's by
 * softib_ca_claim(), from newlink, a port's by softib_ndev_claim(), from
 * the switch's bind), so that of an `rdma link add` and a bind racing for
 * one netdev exactly one wins. Lock order: sw.c's softib_sw_lock, then
 * softib_lock; the RTNL before either.
 */
static LIST_HEAD(softib_list);
static LIST_HEAD(softib_claims);
static DEFINE_MUTEX(softib_lock);
/* softib_free_work() runs here; the module's exit drains it. */
static struct workqueue_struct *softib_free_wq;
/*
 * Deallocations between their unlinking from softib_list (under
 * softib_lock) and the queueing of their free work: an unregistration
 * queued by a vanishing netdev runs on ib_core's workqueue, so an empty
 * list does not mean that no dealloc_driver is still in our code. The
 * module's exit waits for 0 (softib_unregister_all()).
 */
static atomic_t softib_unlinking = ATOMIC_INIT(0);

struct softib_dev *softib_find_rcu(struct net_device *ndev)
{
	struct softib_dev *sdev;

	list_for_each_entry_rcu(sdev, &softib_list, list)
		if (sdev->ndev == ndev && READ_ONCE(sdev->live))
			return sdev;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(softib_find_rcu);

/* A CA on ndev: live, still being created, or being removed. */
static struct softib_dev *softib_find(struct net_device *ndev)
{
	struct softib_dev *sdev;

	lockdep_assert_held(&softib_lock);
	list_for_each_entry(sdev, &softib_list, list)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

static bool softib_claimed(struct net_device *ndev)
{
	struct softib_claim *c;

	lockdep_assert_held(&softib_lock);
	list_for_each_entry(c, &softib_claims, node)
		if (c->ndev == ndev)
			return true;
	return false;
}

/**
 * softib_ndev_claim - make a switch port the one user of a netdev
 * @c: the port's claim, not on the list
 * @ndev: the netdev
 *
 * Return: 0, or -EBUSY when a CA (whatever its state) or a switch port
 * has @ndev already.
 */
int softib_ndev_claim(struct softib_claim *c, struct net_device *ndev)
{
	int ret = 0;

	mutex_lock(&softib_lock);
	if (softib_find(ndev) || softib_claimed(ndev)) {
		ret = -EBUSY;
	} else {
		c->ndev = ndev;
		list_add_tail(&c->node, &softib_claims);
	}
	mutex_unlock(&softib_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(softib_ndev_claim);

/* The port is done with its netdev (it has unbound it). */
void softib_ndev_unclaim(struct softib_claim *c)
{
	mutex_lock(&softib_lock);
	list_del(&c->node);
	c->ndev = NULL;
	mutex_unlock(&softib_lock);
}
EXPORT_SYMBOL_IF_KUNIT(softib_ndev_unclaim);

/**
 * softib_ca_claim - put a new CA on softib_list (not live)
 * @sdev: the CA, its ndev set
 *
 * Return: 0; -EEXIST when another CA has the netdev, -EBUSY when a switch
 * port has it.
 */
int softib_ca_claim(struct softib_dev *sdev)
{
	int ret = 0;

	mutex_lock(&softib_lock);
	if (softib_find(sdev->ndev))
		ret = -EEXIST;
	else if (softib_claimed(sdev->ndev))
		ret = -EBUSY;
	else
		list_add_tail_rcu(&sdev->list, &softib_list);
	mutex_unlock(&softib_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(softib_ca_claim);

/* Undo softib_ca_claim() (newlink's unwind); waits for the receive path. */
void softib_ca_unclaim(struct softib_dev *sdev)
{
	mutex_lock(&softib_lock);
	list_del_rcu(&sdev->list);
	mutex_unlock(&softib_lock);
	synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(softib_ca_unclaim);

/* The largest IB MTU whose packets fit a carrier's MTU (a switch's too). */
enum ib_mtu softib_ndev_mtu(const struct net_device *ndev)
{
	int room = (int)READ_ONCE(ndev->mtu) - SOFTIB_HDR_ROOM;
	enum ib_mtu mtu;

	for (mtu = SOFTIB_MAX_MTU; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) <= room)
			break;
	return mtu;
}
EXPORT_SYMBOL_IF_KUNIT(softib_ndev_mtu);

enum ib_mtu softib_max_mtu(struct softib_dev *sdev)
{
	return softib_ndev_mtu(sdev->ndev);
}
EXPORT_SYMBOL_IF_KUNIT(softib_max_mtu);

/* The neighbour MTU the SM set, within what the carrier takes. */
enum ib_mtu softib_active_mtu(struct softib_port *port)
{
	enum ib_mtu max = softib_max_mtu(port->sdev);
	u8 mtu = READ_ONCE(port->mtu);

	return mtu && mtu < max ? mtu : max;
}

/* ---- rdmavt's calls into the driver ------------------------------------- */

static struct pci_dev *softib_get_pci_dev(struct rvt_dev_info *rdi)
{
	return &rdi_to_sdev(rdi)->fake_pdev;
}

static int softib_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
				   struct ib_port_attr *props)
{
	struct softib_port *port = &rdi_to_sdev(rdi)->port;

	props->lid = READ_ONCE(port->lid);
	props->lmc = READ_ONCE(port->lmc);
	props->state = READ_ONCE(port->state);
	props->phys_state = READ_ONCE(port->phys_state);
	props->max_mtu = softib_max_mtu(port->sdev);
	props->active_mtu = softib_active_mtu(port);
	props->gid_tbl_len = SOFTIB_NGUIDS;
	props->max_vl_num = SOFTIB_NUM_VLS;
	props->active_width = SOFTIB_LINK_WIDTH;
	props->active_speed = SOFTIB_LINK_SPEED;
	props->init_type_reply = READ_ONCE(port->init_type_reply);
	return 0;
}

static int softib_get_guid_be(struct rvt_dev_info *rdi,
			      struct rvt_ibport *rvp, int guid_index,
			      __be64 *guid)
{
	struct softib_port *port = container_of(rvp, struct softib_port, rvp);

	if (guid_index < 0 || guid_index >= SOFTIB_NGUIDS)
		return -EINVAL;
	*guid = READ_ONCE(port->guids[guid_index]);
	return 0;
}

static int softib_shut_down_port(struct rvt_dev_info *rdi, u32 port_num)
{
	return 0;
}

/* After ib_modify_port() changed the port's CapabilityMask: trap 144. */
static void softib_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num)
{
	softib_sma_cap_mask_chg(&rdi_to_sdev(rdi)->port);
}

static int softib_modify_device(struct ib_device *ibdev, int mask,
				struct ib_device_modify *props)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

/* /sys/class/infiniband/<dev>/ports/1/softib/carrier: the netdev's name */
static ssize_t carrier_show(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", netdev_name(to_sdev(ibdev)->ndev));
}

static struct ib_port_attribute softib_port_attr_carrier = __ATTR_RO(carrier);

static struct attribute *softib_port_attrs[] = {
	&softib_port_attr_carrier.attr,
	NULL
};

static const struct attribute_group softib_port_group = {
	.name = "softib",
	.attrs = softib_port_attrs,
};

static const struct attribute_group *softib_port_groups[] = {
	&softib_port_group,
	NULL
};

/* ---- the ib_client: frees rdmavt's MAD agent before the MAD layer goes -- */

static void softib_dealloc_driver(struct ib_device *ibdev);

/* ib_mad's client came first (ib_core's own): QP0 is there for traps. */
static int softib_client_add(struct ib_device *ibdev)
{
	if (ibdev->ops.dealloc_driver != softib_dealloc_driver)
		return -EOPNOTSUPP;
	softib_trap_start(&to_sdev(ibdev)->port);
	return 0;
}

static void softib_client_remove(struct ib_device *ibdev, void *data)
{
	struct softib_dev *sdev = to_sdev(ibdev);
	struct rvt_ibport *rvp = &sdev->port.rvp;
	struct ib_mad_agent *agent;

	softib_trap_stop(&sdev->port);
	WRITE_ONCE(sdev->live, false);
	agent = xchg(&rvp->send_agent, NULL);
	if (agent)
		ib_unregister_mad_agent(agent);
	if (rvp->sm_ah) {
		rdma_destroy_ah(&rvp->sm_ah->ibah, RDMA_DESTROY_AH_SLEEPABLE);
		rvp->sm_ah = NULL;
	}
}

static struct ib_client softib_client = {
	.name = "softib",
	.add = softib_client_add,
	.remove = softib_client_remove,
};

/* ---- creation and removal ----------------------------------------------- */

#define SOFTIB_QPT_UD	(BIT(IB_QPT_UD) | BIT(IB_QPT_SMI) | BIT(IB_QPT_GSI))

static const struct rvt_operation_params softib_post_parms[RVT_OPERATION_MAX] = {
	[IB_WR_SEND] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = SOFTIB_QPT_UD | BIT(IB_QPT_RC),
	},
	[IB_WR_SEND_WITH_IMM] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = BIT(IB_QPT_UD) | BIT(IB_QPT_RC),
	},
	[IB_WR_SEND_WITH_INV] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_WRITE] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_READ] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC,
	},
	[IB_WR_ATOMIC_CMP_AND_SWP] = {
		.length = sizeof(struct ib_atomic_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC | RVT_OPERATION_ATOMIC_SGE,
	},
	[IB_WR_ATOMIC_FETCH_AND_ADD] = {
		.length = sizeof(struct ib_atomic_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC | RVT_OPERATION_ATOMIC_SGE,
	},
	[IB_WR_REG_MR] = {
		.length = sizeof(struct ib_reg_wr),
		.qpt_support = BIT(IB_QPT_UD) | BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_LOCAL,
	},
	[IB_WR_LOCAL_INV] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = BIT(IB_QPT_UD) | BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_LOCAL,
	},
};

/* ib_wr_opcode -> ib_wc_opcode of its send completion */
static const enum ib_wc_opcode softib_wc_opcode[] = {
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_WR_REG_MR] = IB_WC_REG_MR,
};

static const struct ib_device_ops softib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_QIB,	/* rdma-core's ipathverbs binds */
	.uverbs_abi_ver = 2,		/* the qib user ABI rdmavt implements */

	.dealloc_driver = softib_dealloc_driver,
	.map_mr_sg = softib_map_mr_sg,	/* rdmavt's forces PAGE_SIZE pages */
	.modify_device = softib_modify_device,
	.port_groups = softib_port_groups,
	.process_mad = softib_process_mad,
};

/*
 * The CPU of a CQ's completion vector. Without this rdmavt takes the first
 * CPU of dparms.node's mask, and cpumask_of_node(NUMA_NO_NODE) is no mask
 * on a NUMA kernel (Debian's: a NULL dereference in rvt_create_cq() when
 * ib_mad made its CQ); UML has no NUMA, which hid it.
 */
static int softib_comp_vect_cpu(struct rvt_dev_info *rdi, int comp_vect)
{
	return cpumask_local_spread(comp_vect, rdi->dparms.node);
}

static void softib_set_dparms(struct softib_dev *sdev)
{
	struct rvt_driver_params *dp = &sdev->rdi.dparms;
	struct ib_device_attr *a = &dp->props;

	a->sys_image_guid = sdev->node_guid;
	a->vendor_id = SOFTIB_VENDOR_ID;
	a->vendor_part_id = SOFTIB_DEVICE_ID;
	a->hw_ver = SOFTIB_HW_REV;
	a->max_mr_size = ~0ULL;
	a->page_size_cap = SOFTIB_MR_PAGE_SIZES;	/* mr.c */
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SHUTDOWN_PORT |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SRQ_RESIZE |
			      IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_qp = 16384;
	a->max_qp_wr = 16383;
	a->max_send_sge = 96;
	a->max_recv_sge = 96;
	a->max_sge_rd = 96;
	a->max_cq = 65535;
	a->max_cqe = 65535;
	a->max_pd = 65535;
	a->max_mr = 65535;
	a->max_ah = 65535;
	a->max_srq = 1024;
	a->max_srq_wr = 16383;
	a->max_srq_sge = 96;
	a->max_fast_reg_page_list_len = 512;
	a->max_pkeys = SOFTIB_NPKEYS;
	a->max_mcast_grp = 16384;
	a->max_mcast_qp_attach = 16;
	a->max_total_mcast_qp_attach = 16 * 16384;
	a->max_qp_rd_atom = SOFTIB_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = SOFTIB_MAX_RD_ATOMIC;
	a->max_res_rd_atom = SOFTIB_MAX_RD_ATOMIC * 16384;
	a->atomic_cap = IB_ATOMIC_HCA;	/* rc_rx.c: one lock for all */

	dp->lkey_table_size = 16;
	dp->qp_table_size = 256;
	dp->sge_copy_mode = RVT_SGE_COPY_MEMCPY;
	dp->qpn_start = 1;
	dp->qpn_inc = 1;
	dp->qos_shift = 1;
	dp->qpn_res_start = 0;
	dp->qpn_res_end = 0;
	dp->nports = 1;
	dp->npkeys = SOFTIB_NPKEYS;
	dp->node = NUMA_NO_NODE;
	dp->psn_mask = 0xffffff;
	dp->psn_shift = 8;
	dp->psn_modify_mask = 0xffffff;
	dp->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	dp->max_mad_size = IB_MGMT_MAD_SIZE;
	dp->max_rdma_atomic = SOFTIB_MAX_RD_ATOMIC;
}

static void softib_port_setup(struct softib_dev *sdev)
{
	struct softib_port *port = &sdev->port;

	port->sdev = sdev;
	port->port_num = 1;
	spin_lock_init(&port->rvp.lock);
	port->rvp.mcast_tree = RB_ROOT;
	port->rvp.gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	port->rvp.port_cap_flags = IB_PORT_SYS_IMAGE_GUID_SUP |
				   IB_PORT_CLIENT_REG_SUP;
	port->rvp.subnet_timeout = 18;
	port->state = IB_PORT_DOWN;
	port->phys_state = IB_PORT_PHYS_STATE_POLLING;
	port->link_down_default = IB_PORT_PHYS_STATE_POLLING;
	port->mtu = SOFTIB_MAX_MTU;
	port->vl_high_limit = 1;
	port->pkeys[0] = 0xffff;
	/* One port: its GUID is the node's (as qib's first port). */
	port->guids[0] = sdev->node_guid;
	rvt_init_port(&sdev->rdi, &port->rvp, 0, port->pkeys);
	softib_sma_port_init(port);
	softib_neigh_init(&port->neigh);
}

/* Tell the SMA when the carrier's state changes. */
static void softib_carrier_check(struct softib_dev *sdev)
{
	bool up = netif_running(sdev->ndev) && netif_carrier_ok(sdev->ndev);

	lockdep_assert_held(&softib_lock);
	if (up == sdev->carrier)
		return;
	sdev->carrier = up;
	/* whoever was behind the link, the SM included, may not be now */
	if (!up)
		softib_neigh_flush(&sdev->port.neigh, true);
	softib_sma_link_change(&sdev->port, up);
}

/*
 * softib_lock is not held across the registration: ib_core's clients (IPoIB)
 * take the RTNL there, and our netdev notifier takes softib_lock under it.
 * The device is on the list from the start (not live, not registered), so
 * that a second `rdma link add` on the same netdev fails, and so does a
 * switch's bind (softib_ca_claim()).
 */
int softib_newlink(const char *name, struct net_device *ndev)
{
	struct rvt_dev_info *rdi;
	struct softib_dev *sdev;
	struct ib_device *ibdev;
	int ret;

	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EINVAL;

	rdi = rvt_alloc_device(sizeof(*sdev), 1);
	if (!rdi)
		return -ENOMEM;
	sdev = rdi_to_sdev(rdi);
	ibdev = &rdi->ibdev;
	INIT_LIST_HEAD(&sdev->list);
	sdev->ndev = ndev;
	/* one carrier, one user: not another CA's, not a switch port's */
	ret = softib_ca_claim(sdev);
	if (ret)
		goto out_free;

	ret = -ENOMEM;
	/* High priority: busy-polling verbs programs must not starve it. */
	sdev->wq = alloc_workqueue("softib_%s",
				   WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI,
				   0, name);
	if (!sdev->wq)
		goto out_unlist;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->fake_pdev.dev.init_name = "softib";

	/* EUI-64 of the MAC, as IPv6 makes an interface ID (U/L bit flipped) */
	addrconf_addr_eui48((u8 *)&sdev->node_guid, ndev->dev_addr);
	ibdev->node_guid = sdev->node_guid;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	strscpy(ibdev->node_desc, SOFTIB_NODE_DESC, sizeof(ibdev->node_desc));
	ret = dev_set_name(&ibdev->dev, "%s", name);
	if (ret)
		goto out_put;
	ib_set_device_ops(ibdev, &softib_dev_ops);

	rdi->driver_f.get_pci_dev = softib_get_pci_dev;
	rdi->driver_f.comp_vect_cpu_lookup = softib_comp_vect_cpu;
	rdi->driver_f.query_port_state = softib_query_port_state;
	rdi->driver_f.get_guid_be = softib_get_guid_be;
	rdi->driver_f.shut_down_port = softib_shut_down_port;
	rdi->driver_f.cap_mask_chg = softib_cap_mask_chg;
	softib_qp_init_driver_f(&rdi->driver_f);
	rdi->post_parms = softib_post_parms;
	rdi->wc_opcode = softib_wc_opcode;
	softib_set_dparms(sdev);
	softib_port_setup(sdev);

	ret = ib_device_set_netdev(ibdev, ndev, 1);
	if (ret)
		goto out_put;
	ret = rvt_register_device(rdi);
	if (ret)
		goto out_put;

	/* From here dealloc_driver and softib_free_work() undo everything. */
	mutex_lock(&softib_lock);
	sdev->registered = true;
	softib_debugfs_add(sdev);
	WRITE_ONCE(sdev->live, true);
	softib_carrier_check(sdev);
	/* The netdev went while we registered: follow it. */
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(ibdev);
	mutex_unlock(&softib_lock);
	return 0;

out_put:
	netdev_put(ndev, &sdev->ndev_tracker);
	destroy_workqueue(sdev->wq);
out_unlist:
	softib_ca_unclaim(sdev);
out_free:
	rvt_dealloc_device(rdi);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(softib_newlink);

/*
 * After ib_unregister_device() (ours, rdma link delete's or the queued one
 * of a vanishing netdev): rdmavt's teardown, then the last reference.
 */
static void softib_free_work(struct work_struct *work)
{
	struct softib_dev *sdev = container_of(work, struct softib_dev,
					       free_work);
	struct rvt_dev_info *rdi = &sdev->rdi;

	/* Its ib_unregister_device() finds the device gone already. */
	rvt_unregister_device(rdi);
	destroy_workqueue(sdev->wq);
	/* No receive handler can still hold sdev. */
	synchronize_rcu();
	kfree(rdi->ports);
	rdi->ports = NULL;
	put_device(&rdi->ibdev.dev);
}

/* Inside the unregistration, from ib_dealloc_device(). */
static void softib_dealloc_driver(struct ib_device *ibdev)
{
	struct softib_dev *sdev = to_sdev(ibdev);

	if (!sdev->registered)	/* newlink's own unwind */
		return;
	mutex_lock(&softib_lock);
	list_del_rcu(&sdev->list);
	atomic_inc(&softib_unlinking);
	mutex_unlock(&softib_lock);
	softib_debugfs_remove(sdev);
	/* No QP is left to send: the carrier may go. */
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	get_device(&ibdev->dev);
	INIT_WORK(&sdev->free_work, softib_free_work);
	queue_work(softib_free_wq, &sdev->free_work);
	if (atomic_dec_and_test(&softib_unlinking))
		wake_up_var(&softib_unlinking);
}

static struct rdma_link_ops softib_link_ops = {
	.type = "softib",
	.newlink = softib_newlink,
};

static int softib_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct softib_dev *sdev;

	softib_sw_netdev_event(ndev, event);
	mutex_lock(&softib_lock);
	sdev = softib_find(ndev);
	if (!sdev || !sdev->registered)
		goto out;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		softib_carrier_check(sdev);
		break;
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&sdev->rdi.ibdev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&softib_lock);
	return NOTIFY_DONE;
}

static struct notifier_block softib_netdev_nb = {
	.notifier_call = softib_netdev_event,
};

static void softib_unregister_all(void)
{
	struct softib_dev *sdev;

	for (;;) {
		mutex_lock(&softib_lock);
		sdev = list_first_entry_or_null(&softib_list,
						struct softib_dev, list);
		if (sdev)
			get_device(&sdev->rdi.ibdev.dev);
		mutex_unlock(&softib_lock);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->rdi.ibdev);
		put_device(&sdev->rdi.ibdev.dev);
	}
	/*
	 * A device that left the list under a queued unregistration may still
	 * be in softib_dealloc_driver(); once none is, every teardown is
	 * queued: the rdmavt teardowns of the unregistrations.
	 */
	wait_var_event(&softib_unlinking, !atomic_read(&softib_unlinking));
	flush_workqueue(softib_free_wq);
}

static int __init softib_init(void)
{
	int ret;

	softib_free_wq = alloc_workqueue("softib_free", 0, 0);
	if (!softib_free_wq)
		return -ENOMEM;
	ret = softib_sw_init();
	if (ret)
		goto out_wq;
	ret = ib_register_client(&softib_client);
	if (ret)
		goto out_sw;
	ret = register_netdevice_notifier(&softib_netdev_nb);
	if (ret)
		goto out_client;
	softib_debugfs_init();
	softib_net_init();
	rdma_link_register(&softib_link_ops);
	return 0;

out_client:
	ib_unregister_client(&softib_client);
out_sw:
	softib_sw_exit();
out_wq:
	destroy_workqueue(softib_free_wq);
	return ret;
}

static void __exit softib_exit(void)
{
	rdma_link_unregister(&softib_link_ops);
	unregister_netdevice_notifier(&softib_netdev_nb);
	softib_sw_exit();
	softib_unregister_all();
	softib_net_exit();
	ib_unregister_client(&softib_client);
	softib_debugfs_exit();
	destroy_workqueue(softib_free_wq);
}

module_init(softib_init);
module_exit(softib_exit);

MODULE_DESCRIPTION("softib: a software InfiniBand HCA on rdmavt, over an Ethernet carrier");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
MODULE_ALIAS_RDMA_LINK("softib");
