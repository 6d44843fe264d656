// SPDX-License-Identifier: GPL-2.0
/* softrnic: device and port attributes, user contexts, protection domains. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

#define SR_VENDOR_ID	0x736f66	/* "sof" */
#define SR_FW_MAJOR	0
#define SR_FW_MINOR	1

int sr_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)SR_FW_MAJOR << 32 | (u64)SR_FW_MINOR << 16;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SR_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = SR_VENDOR_ID;
	attr->max_qp = SR_MAX_QP;
	attr->max_qp_wr = SR_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = SIW_MAX_SGE;
	attr->max_recv_sge = SIW_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = SR_MAX_CQ;
	attr->max_cqe = SR_MAX_CQE;
	attr->max_mr = SR_MAX_MR;
	attr->max_pd = SR_MAX_PD;
	attr->max_qp_rd_atom = SR_MAX_IRD;
	attr->max_qp_init_rd_atom = SR_MAX_ORD;
	attr->max_res_rd_atom = SR_MAX_QP * SR_MAX_IRD;
	attr->max_srq = SR_MAX_SRQ;
	attr->max_srq_wr = SR_MAX_SRQ_WR;
	attr->max_srq_sge = SIW_MAX_SGE;
	attr->max_fast_reg_page_list_len = SR_MAX_FR_PAGES;
	attr->max_pkeys = 1;
	return 0;
}

enum ib_port_state sr_port_state(struct sr_dev *sdev)
{
	struct net_device *ndev = sdev->netdev;

	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

void sr_port_event(struct sr_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

int sr_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr)
{
	struct sr_dev *sdev = to_sr_dev(ibdev);
	int ret;

	/* The core zeroed *attr. */
	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret)
		return ret;
	attr->state = sr_port_state(sdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(READ_ONCE(sdev->netdev->mtu));
	attr->active_mtu = attr->max_mtu;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = SZ_2G;
	return 0;
}

int sr_get_port_immutable(struct ib_device *ibdev, u32 port,
			  struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 1;
	imm->pkey_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* The one GID: the netdev's MAC address, zero padded (as iWARP RNICs do). */
int sr_query_gid(struct ib_device *ibdev, u32 port, int idx, union ib_gid *gid)
{
	struct net_device *ndev = to_sr_dev(ibdev)->netdev;

	if (idx)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, ndev->dev_addr,
	       min_t(unsigned int, ndev->addr_len, ETH_ALEN));
	return 0;
}

int sr_query_pkey(struct ib_device *ibdev, u32 port, u16 idx, u16 *pkey)
{
	if (idx)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

void sr_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.%d.0", SR_FW_MAJOR,
		 SR_FW_MINOR);
}

int sr_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct siw_uresp_alloc_ctx resp = {
		.dev_id = ibuc->device->index,
	};

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

void sr_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

int sr_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sr_dev *sdev = to_sr_dev(ibpd->device);

	if (atomic_inc_return(&sdev->num_pd) > SR_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int sr_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sr_dev(ibpd->device)->num_pd);
	return 0;
}
