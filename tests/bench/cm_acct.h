/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cm_acct: CPU time accounting by category for the "CM alone" benchmark
 * (tests/bench/cm_acct.c). The driver (null_rnic) and the consumer
 * (cm_bench) mark the code they run; the CM's own time is what runs inside
 * a CM region: a CM call made by the consumer, an upcall from the driver
 * into the CM, or a work item of the CM's modules, minus the driver's and
 * the consumer's regions nested in it.
 */
#ifndef _CM_ACCT_H
#define _CM_ACCT_H

#include <linux/types.h>

enum cm_acct_cat {
	CMA_OTHER,	/* anything not marked: shells, kthreads, the wq loop */
	CMA_IDLE,	/* the idle task */
	CMA_CM,		/* rdma_cm, iw_cm, ib_cm, ib_core inside a CM region */
	CMA_DRIVER,	/* the RNIC driver's ops and its event queue */
	CMA_CONSUMER,	/* the consumer's own code, its handler, its verbs */
	CMA_WQ,		/* a worker thread between work items: the hops */
	CMA_NCAT
};

/* What part of a connection a CM region serves. */
enum cm_acct_phase {
	CMA_P_ASYNC,	/* CM work whose origin is not known (timer, irq) */
	CMA_P_CREATE_ID,
	CMA_P_ADDR,	/* rdma_resolve_addr() to ADDR_RESOLVED */
	CMA_P_ROUTE,	/* rdma_resolve_route() to ROUTE_RESOLVED */
	CMA_P_QP,	/* rdma_create_qp(), active side */
	CMA_P_CONNECT,	/* rdma_connect() to ESTABLISHED, active side */
	CMA_P_DISC,	/* rdma_disconnect() to DISCONNECTED, active side */
	CMA_P_DESTROY,	/* rdma_destroy_qp() + rdma_destroy_id(), active */
	CMA_P_REQ,	/* passive: the CONNECT_REQUEST upcall, but the handler */
	CMA_P_ACCEPT,	/* passive: create QP, rdma_accept() to ESTABLISHED */
	CMA_P_PDOWN,	/* passive: DISCONNECT upcall, disconnect, destroy */
	CMA_P_OTHER,	/* listen, unlisten, release */
	CMA_NPHASE
};

void cm_acct_push(enum cm_acct_cat cat, enum cm_acct_phase phase);
void cm_acct_pop(void);

#endif /* _CM_ACCT_H */
