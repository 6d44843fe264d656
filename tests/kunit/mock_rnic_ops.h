/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs that a mock iWARP RNIC needs for ib_core to treat it as a
 * kernel verbs provider (and so add rdma_cm as a client) but that the tests
 * never exercise: one ACTIVE iWARP port with one P_Key, PDs that cost
 * nothing, no data path. The GID is each mock's own. Shared by
 * tests/kunit/cma_dev_kunit.c and tests/bench/null_rnic.c; a file that
 * includes it puts MOCK_RNIC_COMMON_OPS in its struct ib_device_ops, or
 * MOCK_RNIC_VERB_OPS and ports of its own (tests/kunit/ib_cm_kunit.c's
 * RoCE mock).
 */
#ifndef _ORCM_MOCK_RNIC_OPS_H
#define _ORCM_MOCK_RNIC_OPS_H

#include <rdma/ib_verbs.h>

static int mock_rnic_query_port(struct ib_device *ibdev, u32 port,
				struct ib_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->max_mtu = IB_MTU_1024;
	attr->active_mtu = IB_MTU_1024;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	return 0;
}

/* (ib_cm_kunit.c's RoCE mock has its own: MOCK_RNIC_VERB_OPS) */
static int __maybe_unused mock_rnic_port_immutable(struct ib_device *ibdev,
						   u32 port,
						   struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 1;
	imm->pkey_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

static int mock_rnic_query_pkey(struct ib_device *ibdev, u32 port, u16 idx,
				u16 *pkey)
{
	*pkey = 0xffff;
	return 0;
}

static int mock_rnic_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int mock_rnic_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int mock_rnic_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}

static int mock_rnic_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}

static int mock_rnic_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int mock_rnic_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int mock_rnic_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	return 0;
}

static struct ib_mr *mock_rnic_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *mock_rnic_reg_user_mr(struct ib_pd *pd, u64 start,
					   u64 len, u64 virt, int access,
					   struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int mock_rnic_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

/* The verbs without the port's (a mock of another link layer has its own). */
#define MOCK_RNIC_VERB_OPS					\
	.query_pkey = mock_rnic_query_pkey,			\
	.alloc_pd = mock_rnic_alloc_pd,				\
	.dealloc_pd = mock_rnic_dealloc_pd,			\
	.post_send = mock_rnic_post_send,			\
	.post_recv = mock_rnic_post_recv,			\
	.destroy_cq = mock_rnic_destroy_cq,			\
	.poll_cq = mock_rnic_poll_cq,				\
	.req_notify_cq = mock_rnic_req_notify_cq,		\
	.get_dma_mr = mock_rnic_get_dma_mr,			\
	.reg_user_mr = mock_rnic_reg_user_mr,			\
	.dereg_mr = mock_rnic_dereg_mr

#define MOCK_RNIC_COMMON_OPS					\
	.query_port = mock_rnic_query_port,			\
	.get_port_immutable = mock_rnic_port_immutable,		\
	MOCK_RNIC_VERB_OPS

#endif /* _ORCM_MOCK_RNIC_OPS_H */
