// SPDX-License-Identifier: GPL-2.0
/*
 * cm_floor: the generic kernel work an RDMA connection over an iWARP device
 * costs whichever CM makes it, run without a CM, for the "CM alone" rows of
 * `make bench` (tools/bench/guest.sh).
 *
 *   echo "dev=nullrnic0 dst=198.18.4.2 count=2000" > /sys/kernel/debug/cm_floor
 *
 * Each round is one connection's share of what both CMs (stock and ours)
 * must do through interfaces they share, inside one CM region of cm_acct
 * (phase "other"), so that cm_acct charges it exactly as it charges a CM:
 *  - the public part of the four ids (two struct rdma_cm_id, two struct
 *    iw_cm_id): allocated and freed;
 *  - the local port of the active id, taken from and given back to a port
 *    table (an xarray);
 *  - address resolution: one IPv4 route lookup for @dst;
 *  - the two QPs through ib_core: create, to INIT, to ERR (the close),
 *    destroy; the device's own ops are the driver's (null_rnic marks them)
 *    and are not counted;
 *  - eight events deferred to a worker (ADDR_RESOLVED and ROUTE_RESOLVED
 *    from rdma_cm, the six iWARP provider events), each queued once;
 *  - the handler lock taken around each of the ten events a consumer gets.
 * What it leaves out (both CMs do it too): restrack for the ids, the port
 * mapper query, the private data copies, the state machines. So it is a
 * lower bound of any CM's time: a CM cannot cost less than this, and a
 * CM's time over stock's cannot be below this over stock's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "cm_acct.h"

#define CF_EVENTS	8	/* deferred to a worker */
#define CF_UPCALLS	10	/* consumer upcalls, under the handler lock */
#define CF_CMD_LEN	128

/* One floor run; the debugfs writer allocates and owns it. */
struct cf_run {
	struct ib_pd *pd;
	struct ib_cq *cq;
	__be32 dst;
	struct workqueue_struct *wq;
	struct work_struct works[CF_EVENTS];
	struct mutex handler_mutex;	/* stands for a CM's per-id lock */
	struct xarray ports;		/* stands for a port space */
};

static void cf_event_fn(struct work_struct *work)
{
}

static int cf_qp_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state, .port_num = 1 };
	int mask = IB_QP_STATE;

	if (state == IB_QPS_INIT)
		mask |= IB_QP_ACCESS_FLAGS | IB_QP_PORT;
	return ib_modify_qp(qp, &attr, mask);
}

/* One connection's floor, in a CM region. */
static int cf_one(struct cf_run *run)
{
	struct ib_qp_init_attr qattr = {
		.send_cq = run->cq,
		.recv_cq = run->cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_cm_id *rid[2] = {};
	struct iw_cm_id *iid[2] = {};
	struct ib_qp *qp[2] = {};
	struct rtable *rt;
	int i, ret = -ENOMEM;
	u32 port;

	cm_acct_push(CMA_CM, CMA_P_OTHER);
	for (i = 0; i < 2; i++) {
		rid[i] = kzalloc(sizeof(*rid[i]), GFP_KERNEL);
		iid[i] = kzalloc(sizeof(*iid[i]), GFP_KERNEL);
		if (!rid[i] || !iid[i])
			goto out;
	}
	ret = xa_alloc(&run->ports, &port, rid[0], XA_LIMIT(1024, 65535),
		       GFP_KERNEL);
	if (ret)
		goto out;
	rt = ip_route_output(&init_net, run->dst, 0, 0, 0, RT_SCOPE_UNIVERSE);
	if (IS_ERR(rt)) {
		ret = PTR_ERR(rt);
		goto out_port;
	}
	ip_rt_put(rt);
	for (i = 0; i < 2; i++) {
		qp[i] = ib_create_qp(run->pd, &qattr);
		if (IS_ERR(qp[i])) {
			ret = PTR_ERR(qp[i]);
			qp[i] = NULL;
			goto out_qp;
		}
		ret = cf_qp_state(qp[i], IB_QPS_INIT);
		if (ret)
			goto out_qp;
	}
	for (i = 0; i < CF_EVENTS; i++)
		queue_work(run->wq, &run->works[i]);
	for (i = 0; i < CF_UPCALLS; i++) {
		mutex_lock(&run->handler_mutex);
		mutex_unlock(&run->handler_mutex);
	}
	for (i = 0; i < 2; i++) {
		ret = cf_qp_state(qp[i], IB_QPS_ERR);
		if (ret)
			goto out_qp;
	}
out_qp:
	for (i = 0; i < 2; i++)
		if (qp[i])
			ib_destroy_qp(qp[i]);
out_port:
	xa_erase(&run->ports, port);
out:
	for (i = 0; i < 2; i++) {
		kfree(iid[i]);
		kfree(rid[i]);
	}
	cm_acct_pop();
	/* The worker runs the events; that is the hop, not the CM. */
	flush_workqueue(run->wq);
	return ret;
}

static int cf_run(const char *name, __be32 dst, u32 count)
{
	struct ib_device *dev;
	struct cf_run *run;
	int i, ret = -ENOMEM;

	dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!dev)
		return -ENODEV;
	cm_acct_push(CMA_CONSUMER, CMA_P_ASYNC);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		goto out_dev;
	run->dst = dst;
	mutex_init(&run->handler_mutex);
	xa_init_flags(&run->ports, XA_FLAGS_ALLOC);
	for (i = 0; i < CF_EVENTS; i++)
		INIT_WORK(&run->works[i], cf_event_fn);
	run->wq = alloc_ordered_workqueue("cm_floor", 0);
	if (!run->wq)
		goto out_run;
	run->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(run->pd)) {
		ret = PTR_ERR(run->pd);
		goto out_wq;
	}
	run->cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(run->cq)) {
		ret = PTR_ERR(run->cq);
		goto out_pd;
	}
	for (ret = 0; count-- && !ret;) {
		ret = cf_one(run);
		cond_resched();
	}
	ib_free_cq(run->cq);
out_pd:
	ib_dealloc_pd(run->pd);
out_wq:
	destroy_workqueue(run->wq);
out_run:
	xa_destroy(&run->ports);
	mutex_destroy(&run->handler_mutex);
	kfree(run);
out_dev:
	cm_acct_pop();
	ib_device_put(dev);
	return ret;
}

/* "dev=NAME dst=IPV4 count=N" */
static ssize_t cf_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	char *buf, *rest, *tok, *val, *name = NULL;
	__be32 dst = 0;
	u32 count = 0;
	int ret = 0;

	if (len >= CF_CMD_LEN)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rest = strim(buf);
	while ((tok = strsep(&rest, " \t")) && !ret) {
		val = strchr(tok, '=');
		if (!val) {
			ret = -EINVAL;
			break;
		}
		*val++ = '\0';
		if (!strcmp(tok, "dev"))
			name = val;
		else if (!strcmp(tok, "dst"))
			ret = in4_pton(val, -1, (u8 *)&dst, -1, NULL) ? 0 :
			      -EINVAL;
		else if (!strcmp(tok, "count"))
			ret = kstrtou32(val, 0, &count);
		else
			ret = -EINVAL;
	}
	if (!ret && (!name || !dst || !count || count > 1000000))
		ret = -EINVAL;
	if (!ret)
		ret = cf_run(name, dst, count);
	kfree(buf);
	return ret ?: len;
}

static const struct file_operations cf_fops = {
	.owner = THIS_MODULE,
	.write = cf_write,
	.llseek = noop_llseek,
};

static struct dentry *cf_file;

static int __init cf_init(void)
{
	cf_file = debugfs_create_file("cm_floor", 0200, NULL, NULL, &cf_fops);
	return 0;
}

static void __exit cf_exit(void)
{
	debugfs_remove(cf_file);
}

module_init(cf_init);
module_exit(cf_exit);
MODULE_DESCRIPTION("The generic kernel work of an iWARP connection, without a CM");
MODULE_LICENSE("GPL");
