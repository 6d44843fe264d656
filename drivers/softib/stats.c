// SPDX-License-Identifier: GPL-2.0
/*
 * softib: drop counters. Every packet the receive path refuses is counted
 * by reason; /sys/kernel/debug/softib/<ibdev>/drops lists each reason and
 * its count; .../rc the RC requester's recoveries, .../traps the traps the
 * SMA sent to the SM and what became of them, .../neigh the MACs the
 * carrier sends unicast LIDs to (net.c) and the frames sent each way.
 */
#include <linux/seq_file.h>
#include "softib.h"

static const char *const softib_drop_names[SOFTIB_DROP_NR] = {
	[SOFTIB_DROP_SHORT] = "short",
	[SOFTIB_DROP_ICRC] = "icrc",
	[SOFTIB_DROP_LVER] = "lver",
	[SOFTIB_DROP_DLID] = "dlid",
	[SOFTIB_DROP_OPCODE] = "opcode",
	[SOFTIB_DROP_QP] = "qp",
	[SOFTIB_DROP_PKEY] = "pkey",
	[SOFTIB_DROP_QKEY] = "qkey",
	[SOFTIB_DROP_PSN] = "psn",
	[SOFTIB_DROP_PORT_DOWN] = "port_down",
	[SOFTIB_DROP_NO_RWQE] = "no_rwqe",
	[SOFTIB_DROP_MAD] = "mad",
	[SOFTIB_DROP_OPSEQ] = "opseq",
	[SOFTIB_DROP_LEN] = "len",
	[SOFTIB_DROP_RKEY] = "rkey",
	[SOFTIB_DROP_RNR] = "rnr",
	[SOFTIB_DROP_DUP] = "dup",
	[SOFTIB_DROP_MGMT] = "mgmt",
};

static struct dentry *softib_debugfs_root;

static void softib_inc16(u16 *c)
{
	u16 v = READ_ONCE(*c);

	if (v != U16_MAX)
		WRITE_ONCE(*c, v + 1);
}

void softib_drop(struct softib_port *port, enum softib_drop why)
{
	if (WARN_ON_ONCE(why >= SOFTIB_DROP_NR))
		return;
	atomic64_inc(&port->cnt.drops[why]);
	/* The PMA's and the SMA's views of the same events. */
	switch (why) {
	case SOFTIB_DROP_SHORT:
	case SOFTIB_DROP_ICRC:
	case SOFTIB_DROP_LVER:
	case SOFTIB_DROP_DLID:
	case SOFTIB_DROP_OPCODE:
		atomic64_inc(&port->cnt.rcv_errors);
		break;
	case SOFTIB_DROP_PKEY:
		softib_inc16(&port->rvp.pkey_violations);
		break;
	case SOFTIB_DROP_QKEY:
		softib_inc16(&port->rvp.qkey_violations);
		break;
	default:
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(softib_drop);

u64 softib_drop_count(struct softib_port *port, enum softib_drop why)
{
	return atomic64_read(&port->cnt.drops[why]);
}
EXPORT_SYMBOL_IF_KUNIT(softib_drop_count);

static int softib_drops_show(struct seq_file *m, void *unused)
{
	struct softib_dev *sdev = m->private;
	int i;

	for (i = 0; i < SOFTIB_DROP_NR; i++)
		seq_printf(m, "%-10s %llu\n", softib_drop_names[i],
			   softib_drop_count(&sdev->port, i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softib_drops);

/* The RC requester's recoveries (rdmavt's per-port counters). */
static int softib_rc_show(struct seq_file *m, void *unused)
{
	struct softib_dev *sdev = m->private;
	struct rvt_ibport *rvp = &sdev->port.rvp;

	seq_printf(m, "timeouts   %llu\n", READ_ONCE(rvp->n_rc_timeouts));
	seq_printf(m, "go_back    %llu\n", READ_ONCE(rvp->n_rc_resends));
	seq_printf(m, "seq_naks   %llu\n", READ_ONCE(rvp->n_seq_naks));
	seq_printf(m, "rnr_naks   %llu\n", READ_ONCE(rvp->n_rnr_naks));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softib_rc);

/* The port's traps to its SM (sma.c). */
static int softib_traps_show(struct seq_file *m, void *unused)
{
	struct softib_dev *sdev = m->private;
	struct softib_trap_stats st;
	bool pending;

	softib_trap_stats(&sdev->port, &st, &pending);
	seq_printf(m, "sent       %llu\n", st.sent);
	seq_printf(m, "repressed  %llu\n", st.repressed);
	seq_printf(m, "timed_out  %llu\n", st.timed_out);
	seq_printf(m, "dropped    %llu\n", st.dropped);
	seq_printf(m, "replaced   %llu\n", st.replaced);
	seq_printf(m, "stale      %llu\n", st.stale);
	seq_printf(m, "pending    %u\n", pending);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softib_traps);

/*
 * "ucast N", "bcast N", "known N", "sm MAC|none", then one "LID MAC AGE_MS"
 * line per neighbour.
 */
static int softib_neigh_show(struct seq_file *m, void *unused)
{
	struct softib_dev *sdev = m->private;
	struct softib_neigh *n = &sdev->port.neigh;
	unsigned long now = jiffies, flags;
	unsigned int i;

	seq_printf(m, "ucast %llu\n", atomic64_read(&n->ucast));
	seq_printf(m, "bcast %llu\n", atomic64_read(&n->bcast));
	seq_printf(m, "known %u\n", softib_neigh_count(n, now));
	spin_lock_irqsave(&n->lock, flags);
	if (n->sm_bound)
		seq_printf(m, "sm %pM\n", n->sm_mac);
	else
		seq_puts(m, "sm none\n");
	for (i = 0; i < SOFTIB_NEIGH_MAX; i++) {
		const struct softib_neigh_ent *e = &n->ent[i];

		if (e->lid && time_before(now, e->seen + SOFTIB_NEIGH_AGE))
			seq_printf(m, "%u %pM %u\n", e->lid, e->mac,
				   jiffies_to_msecs(now - e->seen));
	}
	spin_unlock_irqrestore(&n->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softib_neigh);

void softib_debugfs_add(struct softib_dev *sdev)
{
	sdev->debugfs = debugfs_create_dir(dev_name(&sdev->rdi.ibdev.dev),
					   softib_debugfs_root);
	debugfs_create_file("drops", 0444, sdev->debugfs, sdev,
			    &softib_drops_fops);
	debugfs_create_file("rc", 0444, sdev->debugfs, sdev, &softib_rc_fops);
	debugfs_create_file("traps", 0444, sdev->debugfs, sdev,
			    &softib_traps_fops);
	debugfs_create_file("neigh", 0444, sdev->debugfs, sdev,
			    &softib_neigh_fops);
}

void softib_debugfs_remove(struct softib_dev *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}

void softib_debugfs_init(void)
{
	softib_debugfs_root = debugfs_create_dir("softib", NULL);
}

void softib_debugfs_exit(void)
{
	debugfs_remove_recursive(softib_debugfs_root);
}
