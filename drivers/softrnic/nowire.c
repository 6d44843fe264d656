// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic without its wire engine (branch sr-wire, not merged yet): every
 * hand-off is refused, so no QP reaches RTS. Built only when wire_conn.c is
 * absent (Kbuild); delete this file once the engine is merged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "softrnic.h"

int sr_wire_init(void)
{
	pr_info("built without the wire engine: connections are refused\n");
	return 0;
}

void sr_wire_exit(void)
{
}

int sr_conn_attach(struct sr_qp *qp, struct socket *sock,
		   const struct orcm_iw_mpa_params *params,
		   struct orcm_iw_conn *conn)
{
	return -EOPNOTSUPP;
}

void sr_tx_kick(struct sr_qp *qp)
{
}

void sr_conn_close(struct sr_qp *qp, bool abortive)
{
}

void sr_conn_destroy(struct sr_qp *qp)
{
	qp->conn = NULL;
}
