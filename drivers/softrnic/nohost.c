// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic against an iw_cm without the host-stack CM (branch iwhost, not
 * merged yet): the iWARP CM verbs refuse with -EOPNOTSUPP. Built only when
 * iw_cm/host.c is absent (Kbuild); delete this file once iwhost is merged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include <openrdma/iw_host.h>

static int sr_nohost_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return -EOPNOTSUPP;
}

static int sr_nohost_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	return -EOPNOTSUPP;
}

static int sr_nohost_listen(struct iw_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}

static int sr_nohost_unlisten(struct iw_cm_id *id)
{
	return 0;
}

const struct ib_device_ops orcm_iw_host_device_ops = {
	.iw_connect = sr_nohost_connect,
	.iw_accept = sr_nohost_connect,
	.iw_reject = sr_nohost_reject,
	.iw_create_listen = sr_nohost_listen,
	.iw_destroy_listen = sr_nohost_unlisten,
};

int orcm_iw_host_register(struct ib_device *dev,
			  const struct orcm_iw_host_ops *ops)
{
	return 0;
}

void orcm_iw_host_unregister(struct ib_device *dev)
{
}

void orcm_iw_conn_rtr_received(struct orcm_iw_conn *conn)
{
}

void orcm_iw_conn_peer_closed(struct orcm_iw_conn *conn)
{
}

void orcm_iw_conn_released(struct orcm_iw_conn *conn, int status)
{
}
