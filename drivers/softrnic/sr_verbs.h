/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softrnic: the verbs of the ib_device (private to the verbs layer; the
 * engine's interface is softrnic.h).
 */
#ifndef _SR_VERBS_H
#define _SR_VERBS_H

#include "softrnic.h"

/* verbs.c: device, port, ucontext, PD */
int sr_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		    struct ib_udata *udata);
int sr_query_port(struct ib_device *ibdev, u32 port,
		  struct ib_port_attr *attr);
int sr_get_port_immutable(struct ib_device *ibdev, u32 port,
			  struct ib_port_immutable *imm);
int sr_query_gid(struct ib_device *ibdev, u32 port, int idx,
		 union ib_gid *gid);
int sr_query_pkey(struct ib_device *ibdev, u32 port, u16 idx, u16 *pkey);
void sr_get_dev_fw_str(struct ib_device *ibdev, char *str);
int sr_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sr_dealloc_ucontext(struct ib_ucontext *ibuc);
int sr_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sr_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
void sr_port_event(struct sr_dev *sdev, enum ib_event_type type);
enum ib_port_state sr_port_state(struct sr_dev *sdev);

/* mmap.c: the rings shared with rdma-core */
int sr_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sr_mmap_free(struct rdma_user_mmap_entry *entry);
u64 sr_mmap_insert(struct ib_udata *udata, void *addr, size_t len,
		   struct rdma_user_mmap_entry **entry);
void sr_mmap_remove(struct rdma_user_mmap_entry *entry);
void *sr_ring_alloc(size_t len, bool user);
void sr_ring_free(void *ring);

/* cq.c */
int sr_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 struct uverbs_attr_bundle *attrs);
int sr_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sr_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int sr_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sr_cq_add(struct sr_cq *cq, const struct siw_cqe *cqe, bool solicited);

/* srq.c */
int sr_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		  struct ib_udata *udata);
int sr_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		  enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sr_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sr_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sr_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
int sr_srq_take(struct sr_srq *srq, struct siw_rqe *rqe);

/* qp.c: QP life cycle and state machine */
int sr_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		 struct ib_udata *udata);
int sr_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata);
int sr_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init_attr);
int sr_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void sr_iw_add_ref(struct ib_qp *ibqp);
void sr_iw_rem_ref(struct ib_qp *ibqp);
struct ib_qp *sr_iw_get_qp(struct ib_device *ibdev, int qpn);
int sr_host_attach(struct ib_qp *ibqp, struct socket *sock,
		   const struct orcm_iw_mpa_params *params,
		   struct orcm_iw_conn *conn);

/* wqe.c: posting, taking and completing work requests */
int sr_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		 const struct ib_send_wr **bad_wr);
int sr_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad_wr);
int sr_rqe_from_wr(struct siw_rqe *rqe, const struct ib_recv_wr *wr);
int sr_ring_take(struct siw_rqe *ring, u32 num, u32 *get,
		 struct siw_rqe *rqe);
void sr_qp_flush(struct sr_qp *qp);

/* mr.c */
struct ib_mr *sr_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sr_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
			     u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sr_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			  u32 max_num_sg);
int sr_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		 unsigned int *sg_offset);
int sr_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int sr_mr_fastreg(struct sr_qp *qp, const struct siw_sqe *sqe);

#if IS_ENABLED(CONFIG_KUNIT)
/* Internals the KUnit suite calls (static without KUnit). */
int sr_sqe_from_wr(struct siw_sqe *sqe, const struct ib_send_wr *wr,
		   bool sig_all);
enum siw_wc_status sr_sqe_check(const struct sr_qp *qp,
				const struct siw_sqe *sqe);
int sr_newlink(const char *name, struct net_device *ndev);
bool sr_qp_transition_ok(enum ib_qp_state cur, enum ib_qp_state next,
			 bool conn);
#endif

#endif /* _SR_VERBS_H */
