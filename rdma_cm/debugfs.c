// SPDX-License-Identifier: GPL-2.0
/*
 * A count of every live id, in /sys/kernel/debug/rdma_cm/ids. restrack
 * (`rdma res show cm_id`) lists only ids attached to a device; the tests'
 * leak checks read this count to see the others too (an id that never
 * resolved, a wildcard listener). And the IB/RoCE connection requests
 * dropped as malformed (bad rdma_cm header, no path, bad port), in
 * /sys/kernel/debug/rdma_cm/ib_req_dropped. The path cache's counters
 * (path_cache.c) in /sys/kernel/debug/rdma_cm/path_cache, the tracking's
 * (track.c) in /sys/kernel/debug/rdma_cm/track.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/debugfs.h>

#include "cma_priv.h"
#include "path_cache.h"
#include "track.h"

static atomic_long_t cma_nr_ids = ATOMIC_LONG_INIT(0);
static atomic_long_t cma_nr_ib_req_dropped = ATOMIC_LONG_INIT(0);
static struct dentry *cma_debugfs_dir;

void cma_ib_req_dropped(void)
{
	atomic_long_inc(&cma_nr_ib_req_dropped);
}

long cma_ib_req_dropped_count(void)
{
	return atomic_long_read(&cma_nr_ib_req_dropped);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_req_dropped_count);

void cma_ids_inc(void)
{
	atomic_long_inc(&cma_nr_ids);
}

void cma_ids_dec(void)
{
	atomic_long_dec(&cma_nr_ids);
}

long cma_ids_live(void)
{
	return atomic_long_read(&cma_nr_ids);
}
EXPORT_SYMBOL_IF_KUNIT(cma_ids_live);

static int cma_ids_get(void *data, u64 *val)
{
	*val = cma_ids_live();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cma_ids_fops, cma_ids_get, NULL, "%llu\n");

static int cma_ib_req_dropped_get(void *data, u64 *val)
{
	*val = cma_ib_req_dropped_count();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cma_ib_req_dropped_fops, cma_ib_req_dropped_get,
			 NULL, "%llu\n");

/* Best effort, as debugfs is: the CM works without it. */
void cma_debugfs_init(void)
{
	cma_debugfs_dir = debugfs_create_dir("rdma_cm", NULL);
	debugfs_create_file_unsafe("ids", 0444, cma_debugfs_dir, NULL,
				   &cma_ids_fops);
	debugfs_create_file_unsafe("ib_req_dropped", 0444, cma_debugfs_dir,
				   NULL, &cma_ib_req_dropped_fops);
	cma_pc_debugfs(cma_debugfs_dir);
	cma_track_debugfs(cma_debugfs_dir);
}

void cma_debugfs_exit(void)
{
	debugfs_remove(cma_debugfs_dir);
}
