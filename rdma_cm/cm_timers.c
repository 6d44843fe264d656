// SPDX-License-Identifier: GPL-2.0
/*
 * How long the CM waits for a CM reply and how often it resends (issue 40):
 * the CM response timeout (IBA's 5-bit exponent: 4.096 us * 2^n) and the
 * retry count (4 bits) that an IB or RoCE REQ carries for both ends of the
 * connection, and from which ib_cm times the REQ, the REP and the DREQ.
 *
 * In-tree fixes them at 20 (about 4.3 s a try) and 15 retries, so a
 * connect to a peer that vanished is reported after about a minute. Here
 * they are a user's to set, the defaults staying the in-tree values:
 *
 *   net.rdma_cm.cm_response_timeout   0-31, default 20   (per namespace)
 *   net.rdma_cm.cm_max_retries        0-15, default 15   (per namespace)
 *   /sys/kernel/config/rdma_cm/<dev>/ports/<n>/cm_response_timeout and
 *   .../cm_max_retries: -1 (the namespace's value, the default) or a value
 *   in the same range, for that port (configfs.c)
 *
 * and, for a kernel ULP, per id: orcm_rdma_set_cm_timers()
 * (<openrdma/rdma_cm_timers.h>, a new export: the in-tree ones and their
 * CRCs are untouched).
 *
 * An id takes its own value if its ULP set one, else its port's if set,
 * else its namespace's; a value out of range is refused with -EINVAL
 * (sysctl, configfs, the call).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <kunit/visibility.h>

#include <openrdma/compat.h>
#include <openrdma/rdma_cm_timers.h>

#include "cma_priv.h"

/* One namespace's values; read with READ_ONCE(), written by the sysctl. */
struct cma_timers_net {
	u8			response_timeout;
	u8			max_retries;
	struct ctl_table_header	*hdr;
};

static unsigned int cma_timers_net_id;
/* proc_dou8vec_minmax() reads its bounds as unsigned int. */
static unsigned int cma_timeout_max = CMA_CM_TIMEOUT_MAX;
static unsigned int cma_retries_max = CMA_CM_RETRIES_MAX;

static const struct ctl_table cma_timers_table[] = {
	{
		.procname	= "cm_response_timeout",
		.maxlen		= sizeof(u8),
		.mode		= 0644,
		.proc_handler	= proc_dou8vec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &cma_timeout_max,
	},
	{
		.procname	= "cm_max_retries",
		.maxlen		= sizeof(u8),
		.mode		= 0644,
		.proc_handler	= proc_dou8vec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &cma_retries_max,
	},
	ORCM_CTL_TABLE_END
};

/* The id's own value if set, else its port's if set, else its namespace's. */
static u8 cma_timer_pick(const struct rdma_id_private *id_priv, bool retries)
{
	const struct cma_device *cma_dev = id_priv->cma_dev;
	struct net *net = id_priv->id.route.addr.dev_addr.net;
	const struct cma_timers_net *tn;
	u8 v;

	v = retries ? READ_ONCE(id_priv->cm_retries_id) :
		      READ_ONCE(id_priv->cm_timeout_id);
	if (v)
		return v - 1;
	v = CMA_CM_UNSET;
	if (cma_dev && rdma_is_port_valid(cma_dev->device, id_priv->id.port_num)) {
		const struct cma_port_cfg *cfg = &cma_dev->port_cfg[id_priv->id.port_num -
						rdma_start_port(cma_dev->device)];

		v = retries ? READ_ONCE(cfg->cm_max_retries) :
			      READ_ONCE(cfg->cm_response_timeout);
	}
	if (v != CMA_CM_UNSET)
		return v;
	if (!net)
		return retries ? CMA_CM_DEFAULT_RETRIES : CMA_CM_DEFAULT_TIMEOUT;
	tn = net_generic(net, cma_timers_net_id);
	return retries ? READ_ONCE(tn->max_retries) : READ_ONCE(tn->response_timeout);
}

u8 cma_cm_response_timeout(const struct rdma_id_private *id_priv)
{
	return cma_timer_pick(id_priv, false);
}
EXPORT_SYMBOL_IF_KUNIT(cma_cm_response_timeout);

u8 cma_cm_max_retries(const struct rdma_id_private *id_priv)
{
	return cma_timer_pick(id_priv, true);
}
EXPORT_SYMBOL_IF_KUNIT(cma_cm_max_retries);

/**
 * orcm_rdma_set_cm_timers - the CM reply timeout and retries of one id
 * @id: an RDMA CM id, before rdma_connect() (the values go into its REQ)
 * @response_timeout: 0-31 (4.096 us * 2^n), or -1 for the port's or
 *	namespace's value
 * @max_retries: 0-15, or -1 for the port's or namespace's value
 *
 * For IB and RoCE connections: a ULP that wants a dead peer reported in
 * seconds (or a slow fabric given longer) sets them for its own ids,
 * whatever the administrator set for the port or the namespace. Not
 * in-tree: a ULP that must also build against in-tree's rdma_cm checks for
 * <openrdma/rdma_cm_timers.h>.
 *
 * Return: 0, or -EINVAL for a value out of range (nothing is changed).
 */
int orcm_rdma_set_cm_timers(struct rdma_cm_id *id, int response_timeout,
			    int max_retries)
{
	struct rdma_id_private *id_priv;

	if (response_timeout < -1 || response_timeout > CMA_CM_TIMEOUT_MAX ||
	    max_retries < -1 || max_retries > CMA_CM_RETRIES_MAX)
		return -EINVAL;
	id_priv = container_of(id, struct rdma_id_private, id);
	WRITE_ONCE(id_priv->cm_timeout_id, response_timeout + 1);
	WRITE_ONCE(id_priv->cm_retries_id, max_retries + 1);
	return 0;
}
EXPORT_SYMBOL_GPL(orcm_rdma_set_cm_timers);

/*
 * A port's value as written to configfs: -1 (unset) or 0..@max. Returns
 * the value to store, or -EINVAL.
 */
int cma_cm_timer_parse(const char *buf, u8 max)
{
	int v, ret;

	ret = kstrtoint(buf, 0, &v);
	if (ret)
		return -EINVAL;
	if (v == -1)
		return CMA_CM_UNSET;
	if (v < 0 || v > max)
		return -EINVAL;
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(cma_cm_timer_parse);

#if IS_ENABLED(CONFIG_KUNIT)
/* Set @net's values (a test's way in; the sysctl writes them otherwise). */
void cma_cm_timers_set_net(struct net *net, u8 timeout, u8 retries)
{
	struct cma_timers_net *tn = net_generic(net, cma_timers_net_id);

	WRITE_ONCE(tn->response_timeout, timeout);
	WRITE_ONCE(tn->max_retries, retries);
}
EXPORT_SYMBOL_IF_KUNIT(cma_cm_timers_set_net);
#endif

static int __net_init cma_timers_net_init(struct net *net)
{
	struct cma_timers_net *tn = net_generic(net, cma_timers_net_id);
	struct ctl_table *t;

	tn->response_timeout = CMA_CM_DEFAULT_TIMEOUT;
	tn->max_retries = CMA_CM_DEFAULT_RETRIES;
	t = kmemdup(cma_timers_table, sizeof(cma_timers_table), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t[0].data = &tn->response_timeout;
	t[1].data = &tn->max_retries;
	tn->hdr = orcm_register_net_sysctl(net, "net/rdma_cm", t, 2);
	if (!tn->hdr) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit cma_timers_net_exit(struct net *net)
{
	struct cma_timers_net *tn = net_generic(net, cma_timers_net_id);
	const struct ctl_table *t = tn->hdr->ctl_table_arg;

	unregister_net_sysctl_table(tn->hdr);
	kfree(t);
}

static struct pernet_operations cma_timers_net_ops = {
	.init	= cma_timers_net_init,
	.exit	= cma_timers_net_exit,
	.id	= &cma_timers_net_id,
	.size	= sizeof(struct cma_timers_net),
};

int cma_timers_init(void)
{
	return register_pernet_subsys(&cma_timers_net_ops);
}

void cma_timers_exit(void)
{
	unregister_pernet_subsys(&cma_timers_net_ops);
}
