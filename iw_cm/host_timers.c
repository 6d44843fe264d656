// SPDX-License-Identifier: GPL-2.0
/*
 * The host-stack iWARP CM's deadlines per network namespace (issue 40): a
 * connect to a peer that does not answer, or a peer that never completes
 * its MPA exchange, is given up after these, and a user who wants a dead
 * peer reported sooner (or a slow one given longer) sets them for the
 * namespace the connections live in:
 *
 *   net.iw_cm.connect_timeout_ms    initiator: the TCP handshake
 *   net.iw_cm.mpa_rep_timeout_ms    initiator: the whole MPA reply
 *   net.iw_cm.mpa_req_timeout_ms    responder: the whole MPA request
 *   net.iw_cm.rtr_timeout_ms        peer-to-peer responder: the RTR
 *
 * 0, each namespace's default, means the module parameter of the same name
 * (host.c: one value for the whole machine, 20000, 5000, 10000 and 5000
 * ms); 1 to 3600000 ms sets the namespace's own. A value out of range is
 * refused with -EINVAL and changes nothing. A connection takes the value
 * of its socket's namespace (the id's) when it enters the phase.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <kunit/visibility.h>

#include <openrdma/compat.h>

#include "host.h"

/* One namespace's values, ms, 0 unset; READ_ONCE(), written by sysctl. */
struct hcm_timers_net {
	unsigned int		ms[HCM_DL_NR];
	struct ctl_table_header	*hdr;
};

static unsigned int hcm_timers_net_id;
static unsigned int hcm_dl_max_ms = HCM_DL_MAX_MS;

static const struct ctl_table hcm_timers_table[HCM_DL_NR + 1] = {
#define HCM_DL_ENTRY(i, name) \
	[i] = { \
		.procname	= name, \
		.maxlen		= sizeof(unsigned int), \
		.mode		= 0644, \
		.proc_handler	= proc_douintvec_minmax, \
		.extra1		= SYSCTL_ZERO, \
		.extra2		= &hcm_dl_max_ms, \
	}
	HCM_DL_ENTRY(HCM_DL_CONNECT, "connect_timeout_ms"),
	HCM_DL_ENTRY(HCM_DL_MPA_REP, "mpa_rep_timeout_ms"),
	HCM_DL_ENTRY(HCM_DL_MPA_REQ, "mpa_req_timeout_ms"),
	HCM_DL_ENTRY(HCM_DL_RTR, "rtr_timeout_ms"),
#undef HCM_DL_ENTRY
	ORCM_CTL_TABLE_END
};

/* The machine-wide default of deadline @dl: its module parameter. */
static unsigned int hcm_deadline_param(enum hcm_deadline dl)
{
	switch (dl) {
	case HCM_DL_CONNECT:
		return READ_ONCE(hcm_connect_timeout_ms);
	case HCM_DL_MPA_REP:
		return READ_ONCE(hcm_mpa_rep_timeout_ms);
	case HCM_DL_MPA_REQ:
		return READ_ONCE(hcm_mpa_req_timeout_ms);
	case HCM_DL_RTR:
	default:
		return READ_ONCE(hcm_rtr_timeout_ms);
	}
}

/*
 * Deadline @dl, ms, in namespace @net: the namespace's value if set, else
 * the module parameter. @net NULL: the module parameter.
 */
unsigned int hcm_deadline_ms(const struct net *net, enum hcm_deadline dl)
{
	const struct hcm_timers_net *tn;
	unsigned int v;

	if (WARN_ON_ONCE(dl >= HCM_DL_NR))
		dl = HCM_DL_CONNECT;
	if (!net)
		return hcm_deadline_param(dl);
	tn = net_generic(net, hcm_timers_net_id);
	v = READ_ONCE(tn->ms[dl]);
	return v ? v : hcm_deadline_param(dl);
}
EXPORT_SYMBOL_IF_KUNIT(hcm_deadline_ms);

#if IS_ENABLED(CONFIG_KUNIT)
/* Set @net's value of @dl (a test's way in; the sysctl writes it). */
void hcm_deadline_set_net(struct net *net, enum hcm_deadline dl,
			  unsigned int ms)
{
	struct hcm_timers_net *tn = net_generic(net, hcm_timers_net_id);

	WRITE_ONCE(tn->ms[dl], ms);
}
EXPORT_SYMBOL_IF_KUNIT(hcm_deadline_set_net);
#endif

static int __net_init hcm_timers_net_init(struct net *net)
{
	struct hcm_timers_net *tn = net_generic(net, hcm_timers_net_id);
	struct ctl_table *t;
	int i;

	t = kmemdup(hcm_timers_table, sizeof(hcm_timers_table), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < HCM_DL_NR; i++)
		t[i].data = &tn->ms[i];
	tn->hdr = orcm_register_net_sysctl(net, "net/iw_cm", t, HCM_DL_NR);
	if (!tn->hdr) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit hcm_timers_net_exit(struct net *net)
{
	struct hcm_timers_net *tn = net_generic(net, hcm_timers_net_id);
	const struct ctl_table *t = tn->hdr->ctl_table_arg;

	unregister_net_sysctl_table(tn->hdr);
	kfree(t);
}

static struct pernet_operations hcm_timers_net_ops = {
	.init	= hcm_timers_net_init,
	.exit	= hcm_timers_net_exit,
	.id	= &hcm_timers_net_id,
	.size	= sizeof(struct hcm_timers_net),
};

int hcm_timers_init(void)
{
	return register_pernet_subsys(&hcm_timers_net_ops);
}

void hcm_timers_exit(void)
{
	unregister_pernet_subsys(&hcm_timers_net_ops);
}
