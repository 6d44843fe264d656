// SPDX-License-Identifier: GPL-2.0
/*
 * cm_acct: where the CPU time of a benchmark run goes, by category (the CM,
 * the RNIC driver, the consumer, idle, other), for the "CM alone" rows of
 * `make bench` (tools/bench/guest.sh).
 *
 *   echo start > /sys/kernel/debug/cm_acct	(zero the counters, go)
 *   echo stop > /sys/kernel/debug/cm_acct
 *   cat /sys/kernel/debug/cm_acct		(one line of key=value)
 *
 * Every task has a stack of regions (category, phase). The consumer
 * (cm_bench) and the driver (null_rnic) push a region around the code they
 * want told apart: a CM call, an upcall into the CM, a driver op. A work
 * item gets a region from the module its function lives in (rdma_cm,
 * iw_cm, ib_cm, ib_core, rdma_ucm: the CM; null_rnic: the driver;
 * cm_bench: the consumer; else other) and, for the CM, the phase of the
 * region that queued it. Time is charged at each change of region and at
 * each context switch (sched_switch) to the running task's innermost
 * region, so a nested driver op or consumer handler is not counted in the
 * CM around it, and a task that sleeps is charged nothing. What a
 * connection waits for (an event in a queue, a mutex) costs no CPU and is
 * not counted either.
 *
 * It hooks the sched_switch, workqueue and kmalloc tracepoints (and, with
 * count_locks=1, lock_acquire) while loaded; they return at once while
 * stopped. The counters assume what the benchmark VM has: one CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "cm_acct.h"

struct pool_workqueue;

#define CMA_DEPTH	8
#define CMA_TASKS_BITS	9
#define CMA_WORKS_BITS	12
#define CMA_FNS		64

static bool count_locks;
module_param(count_locks, bool, 0444);
MODULE_PARM_DESC(count_locks,
		 "count lock acquisitions in CM regions (lockdep kernels; the probe costs time everywhere)");

struct cma_task {
	struct task_struct *task;
	u8 depth, wbase;	/* regions; the depth a work item began at */
	u8 cat[CMA_DEPTH], phase[CMA_DEPTH], fn[CMA_DEPTH];
};

struct cma_fn {
	work_func_t func;
	u8 cat;
	u64 ns, count;
	char name[KSYM_SYMBOL_LEN];
};

/*
 * All of it under cma_lock, irqs off (it is taken in sched_switch). Tasks
 * and queued works are in open hash tables that only grow until the next
 * start; a table that is full loses the task or the phase (counted).
 */
static DEFINE_RAW_SPINLOCK(cma_lock);
static bool cma_on;
static struct cma_task cma_tasks[1 << CMA_TASKS_BITS];
static struct {
	struct work_struct *work;
	u8 phase;
} cma_works[1 << CMA_WORKS_BITS];
static struct cma_fn cma_fns[CMA_FNS];
static unsigned int cma_nfns;
static struct cma_task *cma_cur;	/* the running task's, or NULL */
static bool cma_idle;			/* the idle task runs */
static u64 cma_last, cma_start_ns, cma_stop_ns;
static u64 cma_cat_ns[CMA_NCAT], cma_phase_ns[CMA_NPHASE];
static u64 cma_works_run[CMA_NCAT], cma_lost;
static u64 cma_allocs[CMA_NPHASE], cma_locks[CMA_NPHASE];
/*
 * The instrument's own cost inside CM regions. Every stretch of time
 * charged to a CM region (a segment) lies between two probe calls, and the
 * part of each that runs after its clock read (the first) or before it
 * (the second) is charged to the CM; a queue_work or allocation probe
 * inside a CM region is charged to it whole. So the CM's figure holds
 * segments x the cost of one segment's edges + queue probes x theirs +
 * allocations x theirs. cma_calibrate() measures the three costs at start.
 */
static u64 cma_segs[CMA_NPHASE], cma_queues[CMA_NPHASE];
static u64 cma_seg_ns, cma_queue_ns, cma_alloc_ns;

static const char *const cma_cat_names[CMA_NCAT] = {
	[CMA_OTHER] = "other", [CMA_IDLE] = "idle", [CMA_CM] = "cm",
	[CMA_DRIVER] = "driver", [CMA_CONSUMER] = "consumer", [CMA_WQ] = "wq",
};

static const char *const cma_phase_names[CMA_NPHASE] = {
	[CMA_P_ASYNC] = "async", [CMA_P_CREATE_ID] = "create_id",
	[CMA_P_ADDR] = "addr", [CMA_P_ROUTE] = "route", [CMA_P_QP] = "qp",
	[CMA_P_CONNECT] = "connect", [CMA_P_DISC] = "disconnect",
	[CMA_P_DESTROY] = "destroy", [CMA_P_REQ] = "request",
	[CMA_P_ACCEPT] = "accept", [CMA_P_PDOWN] = "passive_down",
	[CMA_P_OTHER] = "other",
};

static struct cma_task *cma_task_find(struct task_struct *t, bool add)
{
	unsigned int i, h = hash_ptr(t, CMA_TASKS_BITS);

	lockdep_assert_held(&cma_lock);
	for (i = 0; i < ARRAY_SIZE(cma_tasks); i++) {
		struct cma_task *e = &cma_tasks[(h + i) % ARRAY_SIZE(cma_tasks)];

		if (e->task == t)
			return e;
		if (!e->task) {
			if (!add)
				return NULL;
			e->task = t;
			return e;
		}
	}
	if (add)
		cma_lost++;
	return NULL;
}

/* Charge the time since the last change to the running task's region. */
static void cma_charge(void)
{
	u64 now = ktime_get_ns(), d = now - cma_last;
	struct cma_task *e = cma_cur;
	unsigned int l;

	lockdep_assert_held(&cma_lock);
	cma_last = now;
	if (cma_idle) {
		cma_cat_ns[CMA_IDLE] += d;
		return;
	}
	if (!e || !e->depth) {
		/* A worker outside a work item: picking the next one, idling. */
		if (e && (e->task->flags & PF_WQ_WORKER))
			cma_cat_ns[CMA_WQ] += d;
		else
			cma_cat_ns[CMA_OTHER] += d;
		return;
	}
	l = e->depth - 1;
	cma_cat_ns[e->cat[l]] += d;
	if (e->cat[l] == CMA_CM) {
		cma_phase_ns[e->phase[l]] += d;
		cma_segs[e->phase[l]]++;
	}
	if (e->fn[l])
		cma_fns[e->fn[l] - 1].ns += d;
}

static void cma_push_locked(u8 cat, u8 phase, u8 fn)
{
	struct cma_task *e;

	cma_charge();
	e = cma_task_find(current, true);
	cma_cur = e;
	if (!e || e->depth == CMA_DEPTH) {
		cma_lost++;
		return;
	}
	e->cat[e->depth] = cat;
	e->phase[e->depth] = phase;
	e->fn[e->depth] = fn;
	e->depth++;
}

void cm_acct_push(enum cm_acct_cat cat, enum cm_acct_phase phase)
{
	unsigned long flags;

	if (!READ_ONCE(cma_on) || !in_task())
		return;
	raw_spin_lock_irqsave(&cma_lock, flags);
	if (cma_on)
		cma_push_locked(cat, phase, 0);
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}
EXPORT_SYMBOL_GPL(cm_acct_push);

void cm_acct_pop(void)
{
	unsigned long flags;
	struct cma_task *e;

	if (!READ_ONCE(cma_on) || !in_task())
		return;
	raw_spin_lock_irqsave(&cma_lock, flags);
	if (cma_on) {
		cma_charge();
		e = cma_task_find(current, false);
		if (e && e->depth > e->wbase)
			e->depth--;
	}
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}
EXPORT_SYMBOL_GPL(cm_acct_pop);

/* ---- tracepoint probes --------------------------------------------------- */

static void cma_switch(void *data, bool preempt, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state)
{
	unsigned long flags;

	if (!READ_ONCE(cma_on))
		return;
	raw_spin_lock_irqsave(&cma_lock, flags);
	if (cma_on) {
		cma_charge();
		cma_idle = is_idle_task(next);
		cma_cur = cma_task_find(next, false);
	}
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

static unsigned int cma_work_slot(struct work_struct *work)
{
	return hash_ptr(work, CMA_WORKS_BITS);
}

/* A work item queued from a CM region inherits its phase. */
static void cma_queue(void *data, int req_cpu, struct pool_workqueue *pwq,
		      struct work_struct *work)
{
	unsigned long flags;
	struct cma_task *e;
	unsigned int s;

	if (!READ_ONCE(cma_on) || !in_task())
		return;
	raw_spin_lock_irqsave(&cma_lock, flags);
	e = cma_on ? cma_task_find(current, false) : NULL;
	if (e && e->depth && e->cat[e->depth - 1] == CMA_CM) {
		cma_queues[e->phase[e->depth - 1]]++;
		s = cma_work_slot(work);
		if (cma_works[s].work && cma_works[s].work != work)
			cma_lost++;
		cma_works[s].work = work;
		cma_works[s].phase = e->phase[e->depth - 1];
	}
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

static bool cma_mod_is(const char *name, const char *const *mods)
{
	for (; *mods; mods++)
		if (strstr(name, *mods))
			return true;
	return false;
}

/* The category of a work function, from the module it lives in. */
static u8 cma_fn_cat(const char *name)
{
	static const char *const cm[] = {
		"[rdma_cm]", "[iw_cm]", "[ib_cm]", "[ib_core]", "[rdma_ucm]",
		NULL
	};
	static const char *const drv[] = { "[null_rnic]", NULL };
	static const char *const cons[] = { "[cm_bench]", NULL };

	if (cma_mod_is(name, cm))
		return CMA_CM;
	if (cma_mod_is(name, drv))
		return CMA_DRIVER;
	if (cma_mod_is(name, cons))
		return CMA_CONSUMER;
	return CMA_OTHER;
}

/* Index + 1 of @func in cma_fns, added if new; 0 when the table is full. */
static u8 cma_fn_find(work_func_t func, const char *name)
{
	unsigned int i;

	lockdep_assert_held(&cma_lock);
	for (i = 0; i < cma_nfns; i++)
		if (cma_fns[i].func == func)
			return i + 1;
	if (cma_nfns == CMA_FNS || !name)
		return 0;
	cma_fns[cma_nfns].func = func;
	cma_fns[cma_nfns].cat = cma_fn_cat(name);
	strscpy(cma_fns[cma_nfns].name, name, sizeof(cma_fns[0].name));
	return ++cma_nfns;
}

static void cma_exec_start(void *data, struct work_struct *work)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long flags;
	struct cma_task *e;
	u8 fn, phase = CMA_P_ASYNC;
	unsigned int s;

	if (!READ_ONCE(cma_on))
		return;
	/* work->func is the function about to run. */
	sprint_symbol_no_offset(name, (unsigned long)work->func);
	raw_spin_lock_irqsave(&cma_lock, flags);
	if (!cma_on)
		goto out;
	fn = cma_fn_find(work->func, name);
	if (!fn)
		fn = cma_fn_find(work->func, NULL);
	s = cma_work_slot(work);
	if (cma_works[s].work == work) {
		phase = cma_works[s].phase;
		cma_works[s].work = NULL;
	}
	e = cma_task_find(current, true);
	if (e)
		e->wbase = 0;
	cma_push_locked(fn ? cma_fns[fn - 1].cat : CMA_OTHER, phase, fn);
	if (e && e->depth) {
		e->wbase = e->depth;
		cma_works_run[e->cat[e->depth - 1]]++;
	}
	if (fn)
		cma_fns[fn - 1].count++;
out:
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

static void cma_exec_end(void *data, struct work_struct *work,
			 work_func_t func)
{
	unsigned long flags;
	struct cma_task *e;

	if (!READ_ONCE(cma_on))
		return;
	raw_spin_lock_irqsave(&cma_lock, flags);
	if (cma_on) {
		cma_charge();
		e = cma_task_find(current, false);
		if (e) {
			/* The work item's region and whatever it left open. */
			e->depth = e->wbase ? e->wbase - 1 : e->depth;
			e->wbase = 0;
		}
	}
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

/*
 * Count an allocation or a lock acquisition made inside a CM region, by
 * phase (the running task's; one CPU, so no lock: a count lost to an
 * interrupt is noise).
 */
static void cma_count(u64 *counts)
{
	struct cma_task *e = READ_ONCE(cma_cur);

	if (!READ_ONCE(cma_on) || !in_task() || !e || e->task != current ||
	    !e->depth)
		return;
	if (e->cat[e->depth - 1] == CMA_CM)
		counts[e->phase[e->depth - 1]]++;
}

static void cma_kmalloc(void *data, unsigned long call_site, const void *ptr,
			size_t req, size_t alloc, gfp_t gfp, int node)
{
	cma_count(cma_allocs);
}

static void cma_cache_alloc(void *data, unsigned long call_site,
			    const void *ptr, struct kmem_cache *s, gfp_t gfp,
			    int node)
{
	cma_count(cma_allocs);
}

/* Lockdep-tracked acquisitions (spinlocks, mutexes, RCU read sections). */
static void cma_lock_acquire(void *data, struct lockdep_map *lock,
			     unsigned int subclass, int trylock, int read,
			     int check, struct lockdep_map *next_lock,
			     unsigned long ip)
{
	cma_count(cma_locks);
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool optional;		/* lock_acquire: lockdep kernels only */
} cma_tps[] = {
	{ "sched_switch", cma_switch },
	{ "workqueue_queue_work", cma_queue },
	{ "workqueue_execute_start", cma_exec_start },
	{ "workqueue_execute_end", cma_exec_end },
	{ "kmalloc", cma_kmalloc },
	{ "kmem_cache_alloc", cma_cache_alloc },
	{ "lock_acquire", cma_lock_acquire, NULL, true },
};

static void cma_tp_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cma_tps); i++)
		if (!strcmp(tp->name, cma_tps[i].name))
			cma_tps[i].tp = tp;
}

/* ---- control ------------------------------------------------------------- */

/* Zero the counters and turn accounting on. */
static void cma_reset_on(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&cma_lock, flags);
	memset(cma_tasks, 0, sizeof(cma_tasks));
	memset(cma_works, 0, sizeof(cma_works));
	memset(cma_fns, 0, sizeof(cma_fns));
	memset(cma_cat_ns, 0, sizeof(cma_cat_ns));
	memset(cma_phase_ns, 0, sizeof(cma_phase_ns));
	memset(cma_works_run, 0, sizeof(cma_works_run));
	memset(cma_allocs, 0, sizeof(cma_allocs));
	memset(cma_locks, 0, sizeof(cma_locks));
	memset(cma_segs, 0, sizeof(cma_segs));
	memset(cma_queues, 0, sizeof(cma_queues));
	cma_nfns = 0;
	cma_lost = 0;
	cma_cur = NULL;
	cma_idle = false;
	cma_last = ktime_get_ns();
	cma_start_ns = cma_last;
	cma_stop_ns = 0;
	WRITE_ONCE(cma_on, true);
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

static void cma_stop(void);

#define CMA_CAL_OPS	2048
#define CMA_CAL_ROUNDS	5

/*
 * One calibration batch on the calling task: CMA_CAL_OPS empty CM regions
 * holding @inner probe calls each (0: none; 1: queue_work; 2: kmalloc).
 * Returns the CM time charged per region, in ns.
 */
static u64 cma_cal_batch(int inner)
{
	static struct work_struct dummy;
	unsigned int i;

	cma_reset_on();
	for (i = 0; i < CMA_CAL_OPS; i++) {
		cm_acct_push(CMA_CM, CMA_P_OTHER);
		if (inner == 1)
			cma_queue(NULL, 0, NULL, &dummy);
		else if (inner == 2)
			cma_kmalloc(NULL, 0, NULL, 0, 0, 0, 0);
		cm_acct_pop();
	}
	cma_stop();
	return div_u64(cma_phase_ns[CMA_P_OTHER], CMA_CAL_OPS);
}

/*
 * Measure the probes' cost charged to a CM region: per segment, per queue
 * probe, per allocation probe (each the least of a few batches: the cost
 * with warm caches, so the correction errs small).
 */
static void cma_calibrate(void)
{
	u64 seg = U64_MAX, queue = U64_MAX, alloc = U64_MAX;
	unsigned int r;

	for (r = 0; r < CMA_CAL_ROUNDS; r++) {
		seg = min(seg, cma_cal_batch(0));
		queue = min(queue, cma_cal_batch(1));
		alloc = min(alloc, cma_cal_batch(2));
	}
	cma_seg_ns = seg;
	cma_queue_ns = queue > seg ? queue - seg : 0;
	cma_alloc_ns = alloc > seg ? alloc - seg : 0;
}

static void cma_start(void)
{
	cma_calibrate();
	cma_reset_on();
}

static void cma_stop(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&cma_lock, flags);
	if (cma_on) {
		cma_charge();
		cma_stop_ns = cma_last;
		WRITE_ONCE(cma_on, false);
	}
	raw_spin_unlock_irqrestore(&cma_lock, flags);
}

static int cma_show(struct seq_file *m, void *v)
{
	unsigned int i;

	cma_stop();
	seq_printf(m, "wall_ns=%llu", cma_stop_ns - cma_start_ns);
	seq_printf(m, " probe_seg_ns=%llu probe_queue_ns=%llu probe_alloc_ns=%llu",
		   cma_seg_ns, cma_queue_ns, cma_alloc_ns);
	for (i = 0; i < CMA_NCAT; i++)
		seq_printf(m, " %s_ns=%llu", cma_cat_names[i], cma_cat_ns[i]);
	for (i = 0; i < CMA_NPHASE; i++)
		seq_printf(m, " cm_%s_ns=%llu cm_%s_allocs=%llu cm_%s_locks=%llu cm_%s_segs=%llu cm_%s_queues=%llu",
			   cma_phase_names[i], cma_phase_ns[i],
			   cma_phase_names[i], cma_allocs[i],
			   cma_phase_names[i], cma_locks[i],
			   cma_phase_names[i], cma_segs[i],
			   cma_phase_names[i], cma_queues[i]);
	seq_printf(m, " cm_works=%llu driver_works=%llu consumer_works=%llu",
		   cma_works_run[CMA_CM], cma_works_run[CMA_DRIVER],
		   cma_works_run[CMA_CONSUMER]);
	seq_printf(m, " lost=%llu fns=", cma_lost);
	/* name:category:ns:count, comma-separated, no spaces */
	for (i = 0; i < cma_nfns; i++) {
		char *sp = strchr(cma_fns[i].name, ' ');

		if (sp)
			*sp = '@';
		seq_printf(m, "%s%s:%s:%llu:%llu", i ? "," : "",
			   cma_fns[i].name, cma_cat_names[cma_fns[i].cat],
			   cma_fns[i].ns, cma_fns[i].count);
	}
	seq_puts(m, "\n");
	return 0;
}

static int cma_open(struct inode *inode, struct file *file)
{
	return single_open(file, cma_show, NULL);
}

static ssize_t cma_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[16];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "start"))
		cma_start();
	else if (sysfs_streq(buf, "stop"))
		cma_stop();
	else
		return -EINVAL;
	return len;
}

static const struct file_operations cma_fops = {
	.owner = THIS_MODULE,
	.open = cma_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cma_write,
};

static struct dentry *cma_dir;

static void cma_unregister(unsigned int n)
{
	while (n--)
		if (cma_tps[n].tp)
			tracepoint_probe_unregister(cma_tps[n].tp,
						    cma_tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int __init cma_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(cma_tp_find, NULL);
	for (i = 0; i < ARRAY_SIZE(cma_tps); i++) {
		if (cma_tps[i].optional && (!cma_tps[i].tp || !count_locks)) {
			cma_tps[i].tp = NULL;
			continue;
		}
		if (!cma_tps[i].tp) {
			pr_err("no tracepoint %s\n", cma_tps[i].name);
			ret = -ENOENT;
			goto err;
		}
		ret = tracepoint_probe_register(cma_tps[i].tp,
						cma_tps[i].probe, NULL);
		if (ret)
			goto err;
	}
	cma_dir = debugfs_create_file("cm_acct", 0600, NULL, NULL, &cma_fops);
	return 0;

err:
	cma_unregister(i);
	return ret;
}

static void __exit cma_exit(void)
{
	debugfs_remove(cma_dir);
	cma_stop();
	cma_unregister(ARRAY_SIZE(cma_tps));
}

module_init(cma_init);
module_exit(cma_exit);
MODULE_DESCRIPTION("CPU time by category (CM, driver, consumer) for CM benchmarks");
MODULE_LICENSE("GPL");
