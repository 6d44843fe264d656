// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench: connection-setup benchmark for the in-kernel RDMA CM API
 * (include/rdma/rdma_cm.h), plus a kernel TCP baseline on the same path.
 * It uses only exported rdma_cm and verbs calls, so one build loads against
 * the in-tree rdma_cm.ko and against ours (same symbol CRCs).
 *
 * Control: write one command per write(2) to /sys/kernel/debug/cm_bench/ctl.
 * A command runs in the context of the writing task and in its network
 * namespace: siw creates its TCP sockets in the namespace of the task that
 * calls rdma_listen() and rdma_connect(), so run the writer under
 * `ip netns exec`. The write returns when the command is done; each command
 * appends one line of "key=value" pairs to /sys/kernel/debug/cm_bench/results.
 * /sys/kernel/debug/cm_bench/status shows the server's counters.
 *
 *   listen tag=T addr=IP port=P [count=N] [backlog=B]
 *	N listening ids, bound to IP, on ports P .. P+N-1. Incoming requests
 *	get a QP and are accepted from the CONNECT_REQUEST handler; a
 *	disconnected id is destroyed by a work item.
 *   unlisten tag=T
 *	destroy the listeners of T and every connection they accepted.
 *   connect tag=T dst=IP port=P [src=IP] [count=N] [window=W] [timeout=S]
 *	   [stop=route] [hold=1] [cm_timeout=T] [cm_retries=R]
 *	N connections, at most W of them being set up at a time:
 *	create id, resolve address, resolve route, create QP, connect, wait
 *	for ESTABLISHED. Then tear them down (W at a time): disconnect, wait
 *	for DISCONNECTED, destroy QP and id. stop=route stops each id after
 *	ROUTE_RESOLVED (no QP, no connection); hold=1 keeps the ids until
 *	"release tag=T" (for memory measurements). Its result line has
 *	per-connection percentiles of the setup time (setup_*), of its
 *	phases, and of the wall time the rdma_connect() call itself took
 *	(connect_call_*: the time the caller spent in it; _slept and
 *	_preempted count the connections whose caller slept, or was only
 *	preempted, inside the call). cm_timeout/cm_retries (IB/RoCE: 0-31
 *	and 0-15, -1 the port's or namespace's) set each id's CM reply
 *	timeout and retries through orcm_rdma_set_cm_timers() before
 *	rdma_connect(), as a kernel ULP does on openrdma-cm's rdma_cm; on a
 *	CM without that call (in-tree) the connect fails with EOPNOTSUPP.
 *   release tag=T
 *   tcp_listen tag=T addr=IP port=P [backlog=B]
 *   tcp_unlisten tag=T
 *   tcp_connect tag=T dst=IP port=P [count=N] [window=W] [timeout=S]
 *	kernel TCP: connect, send a 64-byte request, receive a 64-byte reply,
 *	close; W connections at a time.
 *   clear
 *	forget the result lines.
 *
 * Times are ktime_get_ns() values; the result lines carry the raw start and
 * end of each phase so that runs made by parallel writers can be combined.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tcp.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cm_acct.h"

/*
 * CPU time accounting (cm_acct.ko): the writer tasks, the handlers and the
 * reaper are the consumer's; each rdma_cm call they make is a CM region
 * for the part of a connection it serves (enum cm_acct_phase).
 */
#define CB_CM(phase, call) ({						\
	typeof(call) __r;						\
	cm_acct_push(CMA_CM, phase);					\
	__r = (call);							\
	cm_acct_pop();							\
	__r;								\
})
#define CB_CM_VOID(phase, call) do {					\
	cm_acct_push(CMA_CM, phase);					\
	call;								\
	cm_acct_pop();							\
} while (0)

static unsigned int max_server_conns = 24576;
module_param(max_server_conns, uint, 0444);
MODULE_PARM_DESC(max_server_conns, "connections the server can hold at once");

static unsigned int max_count = 100000;
module_param(max_count, uint, 0644);
MODULE_PARM_DESC(max_count, "largest count= a command accepts");

#define CB_TAG_LEN	32
#define CB_ERR_LEN	96
#define CB_LINE_LEN	1024
#define CB_CMD_LEN	512
#define CB_MAX_DEVS	4
#define CB_MSG_LEN	64
#define CB_MAX_WINDOW	4096
#define CB_TCP_MAX_WINDOW 256

/* ------------------------------------------------------------------------ */
/* Result lines                                                              */

struct cb_line {
	struct list_head node;
	size_t len;
	char text[CB_LINE_LEN];
};

static LIST_HEAD(cb_lines);
static DEFINE_MUTEX(cb_lines_mutex);

/* Build a result line with cb_add(), then cb_commit() it (NULL-safe). */
static struct cb_line *cb_line_new(void)
{
	struct cb_line *line = kmalloc(sizeof(*line), GFP_KERNEL);

	if (line) {
		line->len = 0;
		line->text[0] = '\0';
	}
	return line;
}

static __printf(2, 3) void cb_add(struct cb_line *line, const char *fmt, ...)
{
	va_list ap;

	if (!line)
		return;
	va_start(ap, fmt);
	line->len += vscnprintf(line->text + line->len,
				sizeof(line->text) - line->len, fmt, ap);
	va_end(ap);
}

static void cb_commit(struct cb_line *line)
{
	if (!line)
		return;
	pr_info("%s\n", line->text);
	mutex_lock(&cb_lines_mutex);
	list_add_tail(&line->node, &cb_lines);
	mutex_unlock(&cb_lines_mutex);
}

static __printf(1, 2) void cb_result(const char *fmt, ...)
{
	struct cb_line *line = cb_line_new();
	va_list ap;

	if (!line)
		return;
	va_start(ap, fmt);
	line->len = vscnprintf(line->text, sizeof(line->text), fmt, ap);
	va_end(ap);
	cb_commit(line);
}

static void cb_clear_results(void)
{
	struct cb_line *line, *tmp;

	mutex_lock(&cb_lines_mutex);
	list_for_each_entry_safe(line, tmp, &cb_lines, node) {
		list_del(&line->node);
		kfree(line);
	}
	mutex_unlock(&cb_lines_mutex);
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                                */

static int cb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct cb_stat {
	u64 p50, p90, p99, max, mean;
};

/* Nearest-rank percentiles of @v (sorted in place). */
static void cb_stats(u64 *v, unsigned int n, struct cb_stat *st)
{
	u64 sum = 0;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	sort(v, n, sizeof(*v), cb_cmp_u64, NULL);
	for (i = 0; i < n; i++)
		sum += v[i];
	st->p50 = v[DIV_ROUND_UP(n * 50, 100) - 1];
	st->p90 = v[DIV_ROUND_UP(n * 90, 100) - 1];
	st->p99 = v[DIV_ROUND_UP(n * 99, 100) - 1];
	st->max = v[n - 1];
	st->mean = div_u64(sum, n);
}

static void cb_add_stat(struct cb_line *line, const char *name,
			const struct cb_stat *st)
{
	cb_add(line, " %s_p50_ns=%llu %s_p90_ns=%llu %s_p99_ns=%llu", name,
	       st->p50, name, st->p90, name, st->p99);
	cb_add(line, " %s_max_ns=%llu %s_mean_ns=%llu", name, st->max, name,
	       st->mean);
}

/*
 * The wall clock's offset from the clock of start_ns/end_ns: the host's
 * sampler (tools/bench/profile.py) places a run in its wall-clock samples.
 */
static void cb_add_real_off(struct cb_line *line)
{
	cb_add(line, " real_off_ns=%lld",
	       (s64)(ktime_get_real_ns() - ktime_get_ns()));
}

/* ------------------------------------------------------------------------ */
/* Command arguments                                                         */

struct cb_args {
	char tag[CB_TAG_LEN];
	struct sockaddr_in addr, src, dst;
	bool has_addr, has_src, has_dst, hold, stop_route, cm_timers;
	u32 port, count, window, threads, backlog, timeout_s;
	int cm_timeout, cm_retries;
};

static int cb_parse_ip(const char *s, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (!in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	return 0;
}

static int cb_parse(char *line, struct cb_args *a)
{
	char *tok, *val;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->count = 1;
	a->window = 1;
	a->threads = 1;
	a->backlog = 1024;
	a->timeout_s = 120;
	a->cm_timeout = -1;
	a->cm_retries = -1;
	while ((tok = strsep(&line, " \t")) && !ret) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "tag")) {
			if (strscpy(a->tag, val, sizeof(a->tag)) < 0)
				ret = -EINVAL;
		} else if (!strcmp(tok, "addr")) {
			ret = cb_parse_ip(val, &a->addr);
			a->has_addr = true;
		} else if (!strcmp(tok, "src")) {
			ret = cb_parse_ip(val, &a->src);
			a->has_src = true;
		} else if (!strcmp(tok, "dst")) {
			ret = cb_parse_ip(val, &a->dst);
			a->has_dst = true;
		} else if (!strcmp(tok, "port")) {
			ret = kstrtou32(val, 0, &a->port);
		} else if (!strcmp(tok, "count")) {
			ret = kstrtou32(val, 0, &a->count);
		} else if (!strcmp(tok, "window")) {
			ret = kstrtou32(val, 0, &a->window);
		} else if (!strcmp(tok, "threads")) {
			ret = kstrtou32(val, 0, &a->threads);
		} else if (!strcmp(tok, "backlog")) {
			ret = kstrtou32(val, 0, &a->backlog);
		} else if (!strcmp(tok, "timeout")) {
			ret = kstrtou32(val, 0, &a->timeout_s);
		} else if (!strcmp(tok, "hold")) {
			ret = kstrtobool(val, &a->hold);
		} else if (!strcmp(tok, "stop") && !strcmp(val, "route")) {
			a->stop_route = true;
		} else if (!strcmp(tok, "cm_timeout")) {
			ret = kstrtoint(val, 0, &a->cm_timeout);
			a->cm_timers = true;
		} else if (!strcmp(tok, "cm_retries")) {
			ret = kstrtoint(val, 0, &a->cm_retries);
			a->cm_timers = true;
		} else {
			ret = -EINVAL;
		}
	}
	if (ret)
		return ret;
	if (!a->count || a->count > max_count || !a->window ||
	    a->window > CB_MAX_WINDOW || !a->threads || a->threads > 64 ||
	    a->port > 65535 || !a->timeout_s)
		return -EINVAL;
	if (!a->tag[0])
		strscpy(a->tag, "-", sizeof(a->tag));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Verbs resources: one PD and one CQ per device, shared by the QPs of a run  */
/* (client) or of a listener group (server). No work request is ever posted.  */

struct cb_dev {
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cq *cq;
};

static struct cb_dev *cb_get_dev(struct cb_dev *devs, struct ib_device *device)
{
	struct cb_dev *d;
	int i;

	for (i = 0; i < CB_MAX_DEVS; i++) {
		d = &devs[i];
		if (d->device == device)
			return d;
		if (d->device)
			continue;
		d->pd = ib_alloc_pd(device, 0);
		if (IS_ERR(d->pd))
			return ERR_CAST(d->pd);
		d->cq = ib_alloc_cq(device, NULL, 16, 0, IB_POLL_DIRECT);
		if (IS_ERR(d->cq)) {
			struct ib_cq *cq = d->cq;

			ib_dealloc_pd(d->pd);
			d->pd = NULL;
			d->cq = NULL;
			return ERR_CAST(cq);
		}
		d->device = device;
		return d;
	}
	return ERR_PTR(-ENOSPC);
}

static void cb_put_devs(struct cb_dev *devs)
{
	int i;

	for (i = 0; i < CB_MAX_DEVS; i++) {
		if (!devs[i].device)
			continue;
		ib_free_cq(devs[i].cq);
		ib_dealloc_pd(devs[i].pd);
		devs[i].device = NULL;
	}
}

static int cb_create_qp(struct rdma_cm_id *id, struct cb_dev *d,
			enum cm_acct_phase phase)
{
	struct ib_qp_init_attr attr = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return CB_CM(phase, rdma_create_qp(id, d->pd, &attr));
}

/* ------------------------------------------------------------------------ */
/* Server                                                                    */

enum { CB_KIND_GROUP = 1, CB_KIND_SCONN };
enum { CB_SC_FREE, CB_SC_ACTIVE, CB_SC_DYING };

struct cb_group;

struct cb_sconn {
	u32 kind;
	u8 state;
	bool has_qp;
	struct rdma_cm_id *id;
	struct cb_group *group;
	struct list_head node;	/* free list or reap list */
};

struct cb_group {
	u32 kind;
	char tag[CB_TAG_LEN];
	struct list_head node;
	unsigned int n;
	struct rdma_cm_id **ids;
	struct mutex dev_mutex;	/* devs; innermost lock */
	struct cb_dev devs[CB_MAX_DEVS];
};

static struct cb_sconn *cb_pool;
static LIST_HEAD(cb_pool_free);
static LIST_HEAD(cb_reap_list);
static DEFINE_SPINLOCK(cb_pool_lock);
static LIST_HEAD(cb_groups);
static DEFINE_MUTEX(cb_server_mutex);	/* cb_groups, cb_tcp_servers */

static atomic_t cb_srv_active, cb_srv_accepted, cb_srv_established,
	cb_srv_reaped, cb_srv_rejected;

static void cb_reap_fn(struct work_struct *work);
static DECLARE_WORK(cb_reap_work, cb_reap_fn);

static void cb_sconn_destroy(struct cb_sconn *sc)
{
	cm_acct_push(CMA_CM, CMA_P_PDOWN);
	rdma_disconnect(sc->id);
	if (sc->has_qp)
		rdma_destroy_qp(sc->id);
	rdma_destroy_id(sc->id);
	cm_acct_pop();
	spin_lock(&cb_pool_lock);
	sc->id = NULL;
	sc->group = NULL;
	sc->has_qp = false;
	sc->state = CB_SC_FREE;
	list_add(&sc->node, &cb_pool_free);
	spin_unlock(&cb_pool_lock);
	atomic_dec(&cb_srv_active);
	atomic_inc(&cb_srv_reaped);
}

static void cb_reap_fn(struct work_struct *work)
{
	struct cb_sconn *sc;

	for (;;) {
		spin_lock(&cb_pool_lock);
		sc = list_first_entry_or_null(&cb_reap_list, struct cb_sconn,
					      node);
		if (sc)
			list_del_init(&sc->node);
		spin_unlock(&cb_pool_lock);
		if (!sc)
			return;
		cb_sconn_destroy(sc);
	}
}

/* Called from the id's event handler: destroy it, from a work item. */
static void cb_sconn_reap(struct cb_sconn *sc)
{
	bool queue = false;

	spin_lock(&cb_pool_lock);
	if (sc->state == CB_SC_ACTIVE) {
		sc->state = CB_SC_DYING;
		list_add_tail(&sc->node, &cb_reap_list);
		queue = true;
	}
	spin_unlock(&cb_pool_lock);
	if (queue)
		queue_work(system_unbound_wq, &cb_reap_work);
}

static int cb_server_request(struct cb_group *g, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct cb_sconn *sc;
	struct cb_dev *d;
	int ret;

	spin_lock(&cb_pool_lock);
	sc = list_first_entry_or_null(&cb_pool_free, struct cb_sconn, node);
	if (sc)
		list_del_init(&sc->node);
	spin_unlock(&cb_pool_lock);
	if (!sc) {
		ret = -ENOSPC;
		goto err;
	}

	mutex_lock(&g->dev_mutex);
	d = cb_get_dev(g->devs, id->device);
	mutex_unlock(&g->dev_mutex);
	if (IS_ERR(d)) {
		ret = PTR_ERR(d);
		goto err_sc;
	}
	ret = cb_create_qp(id, d, CMA_P_ACCEPT);
	if (ret)
		goto err_sc;

	spin_lock(&cb_pool_lock);
	sc->id = id;
	sc->group = g;
	sc->has_qp = true;
	sc->state = CB_SC_ACTIVE;
	spin_unlock(&cb_pool_lock);
	id->context = sc;
	atomic_inc(&cb_srv_active);
	ret = CB_CM(CMA_P_ACCEPT, rdma_accept(id, &param));
	if (ret)
		goto err_qp;
	atomic_inc(&cb_srv_accepted);
	return 0;

err_qp:
	atomic_dec(&cb_srv_active);
	id->context = g;
	CB_CM_VOID(CMA_P_ACCEPT, rdma_destroy_qp(id));
err_sc:
	spin_lock(&cb_pool_lock);
	sc->id = NULL;
	sc->group = NULL;
	sc->has_qp = false;
	sc->state = CB_SC_FREE;
	list_add(&sc->node, &cb_pool_free);
	spin_unlock(&cb_pool_lock);
err:
	atomic_inc(&cb_srv_rejected);
	pr_warn_ratelimited("rejecting a connection request: %d\n", ret);
	/* Non-zero: rdma_cm destroys the new id. */
	return ret;
}

static int cb_server_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	u32 kind = *(u32 *)id->context;
	struct cb_sconn *sc;

	if (kind == CB_KIND_GROUP) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return cb_server_request(id->context, id, ev);
		return 0;
	}
	sc = id->context;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		atomic_inc(&cb_srv_established);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		cb_sconn_reap(sc);
		break;
	default:
		break;
	}
	return 0;
}

static int cb_server_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	int ret;

	cm_acct_push(CMA_CONSUMER, CMA_P_ASYNC);
	ret = cb_server_event(id, ev);
	cm_acct_pop();
	return ret;
}

static struct cb_group *cb_find_group(const char *tag)
{
	struct cb_group *g;

	list_for_each_entry(g, &cb_groups, node)
		if (!strcmp(g->tag, tag))
			return g;
	return NULL;
}

/* Destroy the listeners of @g, then every connection they accepted. */
static void cb_group_destroy(struct cb_group *g)
{
	struct cb_sconn *sc;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		rdma_destroy_id(g->ids[i]);
	flush_work(&cb_reap_work);
	for (i = 0; i < max_server_conns; i++) {
		sc = &cb_pool[i];
		spin_lock(&cb_pool_lock);
		if (sc->group != g || sc->state != CB_SC_ACTIVE) {
			spin_unlock(&cb_pool_lock);
			continue;
		}
		sc->state = CB_SC_DYING;
		spin_unlock(&cb_pool_lock);
		cb_sconn_destroy(sc);
	}
	flush_work(&cb_reap_work);
	cb_put_devs(g->devs);
	mutex_destroy(&g->dev_mutex);
	kvfree(g->ids);
	kfree(g);
}

static int cb_cmd_listen(struct cb_args *a)
{
	struct net *net = current->nsproxy->net_ns;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	struct cb_group *g;
	u64 t0, t1;
	int ret;

	if (!a->has_addr || !a->port || a->port + a->count > 65536)
		return -EINVAL;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->kind = CB_KIND_GROUP;
	strscpy(g->tag, a->tag, sizeof(g->tag));
	mutex_init(&g->dev_mutex);
	g->ids = kvcalloc(a->count, sizeof(*g->ids), GFP_KERNEL);
	if (!g->ids) {
		ret = -ENOMEM;
		goto err_group;
	}

	mutex_lock(&cb_server_mutex);
	if (cb_find_group(a->tag)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	t0 = ktime_get_ns();
	for (g->n = 0; g->n < a->count; g->n++) {
		id = rdma_create_id(net, cb_server_handler, g, RDMA_PS_TCP,
				    IB_QPT_RC);
		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			goto err_ids;
		}
		sin = a->addr;
		sin.sin_port = htons(a->port + g->n);
		ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
		if (!ret)
			ret = rdma_listen(id, a->backlog);
		if (ret) {
			rdma_destroy_id(id);
			goto err_ids;
		}
		g->ids[g->n] = id;
	}
	t1 = ktime_get_ns();
	list_add(&g->node, &cb_groups);
	mutex_unlock(&cb_server_mutex);
	cb_result("kind=rdma op=listen tag=%s count=%u port=%u start_ns=%llu end_ns=%llu",
		  a->tag, a->count, a->port, t0, t1);
	return 0;

err_ids:
	pr_warn("listen %s: listener %u of %u on %pI4:%u: %d\n", a->tag,
		g->n, a->count, &a->addr.sin_addr, a->port + g->n, ret);
	cb_group_destroy(g);
	mutex_unlock(&cb_server_mutex);
	return ret;
err_unlock:
	mutex_unlock(&cb_server_mutex);
	kvfree(g->ids);
err_group:
	mutex_destroy(&g->dev_mutex);
	kfree(g);
	return ret;
}

static int cb_cmd_unlisten(struct cb_args *a)
{
	struct cb_group *g;
	u64 t0;

	mutex_lock(&cb_server_mutex);
	g = cb_find_group(a->tag);
	if (g)
		list_del(&g->node);
	mutex_unlock(&cb_server_mutex);
	if (!g)
		return -ENOENT;
	t0 = ktime_get_ns();
	cb_group_destroy(g);
	cb_result("kind=rdma op=unlisten tag=%s start_ns=%llu end_ns=%llu",
		  a->tag, t0, ktime_get_ns());
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Client                                                                    */
/*                                                                           */
/* A run is a set of connections driven by one or more writer tasks (threads=) */
/* that share it: each task starts new connections while fewer than window=   */
/* are in flight, and acts on the events of any connection (a connection is   */
/* handled by one task at a time). The handler only records the time and      */
/* queues the connection: the verbs and CM calls happen in the tasks, in their */
/* network namespace.                                                         */

enum {
	CB_C_NEW, CB_C_ADDR, CB_C_ROUTE, CB_C_CONN, CB_C_UP, CB_C_DISC,
	CB_C_DONE,
};

enum { CB_P_JOIN, CB_P_CONNECT, CB_P_HELD, CB_P_TEARDOWN, CB_P_DONE };

#define CB_EV_ADDR	BIT(0)
#define CB_EV_ROUTE	BIT(1)
#define CB_EV_EST	BIT(2)
#define CB_EV_DISC	BIT(3)
#define CB_EV_ERR	BIT(4)

struct cb_run;

struct cb_conn {
	struct cb_run *run;
	struct rdma_cm_id *id;
	struct list_head ready;		/* on run->ready; under run->lock */
	unsigned int events;		/* CB_EV_*; under run->lock */
	bool busy;			/* a task works on it; under run->lock */
	int err_event, err_status;	/* set with CB_EV_ERR */
	u8 state;			/* owned by the busy task */
	bool has_qp, up, disc_seen;
	bool down_claimed;		/* under run->lock */
	/* The caller slept / was preempted inside rdma_connect(). */
	bool call_slept, call_preempted;
	/* Set by the event handler before it sets the event bit. */
	u64 t_addr, t_route, t_est;
	/* Set by the task that handles the connection. */
	u64 t0, t_route_call, t_qp, t_conn_call, t_conn_ret, t_down0, t_down1;
};

struct cb_run {
	struct list_head node;		/* cb_runs; under cb_runs_mutex */
	struct kref ref;
	char tag[CB_TAG_LEN];
	struct sockaddr_in src, dst;
	bool has_src, stop_route, hold, cm_timers;
	int cm_timeout, cm_retries;
	u32 count, timeout_ms;
	struct cb_conn *conns;
	struct mutex dev_mutex;		/* protects devs */
	struct cb_dev devs[CB_MAX_DEVS];
	wait_queue_head_t wq;
	spinlock_t lock;		/* protects the rest, and conn events */
	int phase;
	u32 threads, joined, workers, window;
	bool aborted;
	u64 deadline;
	struct list_head ready;
	u32 started, inflight, done, ok, failed, lost;
	u32 down_todo, down_next, down_inflight, down_ok, down_forced;
	u64 start_ns, end_ns, down_start_ns, down_end_ns;
	char err[CB_ERR_LEN];
};

static LIST_HEAD(cb_runs);
static DEFINE_MUTEX(cb_runs_mutex);

static void cb_run_free(struct kref *ref)
{
	struct cb_run *run = container_of(ref, struct cb_run, ref);

	mutex_destroy(&run->dev_mutex);
	kvfree(run->conns);
	kfree(run);
}

static void cb_run_put(struct cb_run *run)
{
	kref_put(&run->ref, cb_run_free);
}

/* Take @run off cb_runs (once) and drop the list's reference. */
static void cb_run_unlist(struct cb_run *run)
{
	bool listed;

	mutex_lock(&cb_runs_mutex);
	listed = !list_empty(&run->node);
	list_del_init(&run->node);
	mutex_unlock(&cb_runs_mutex);
	if (listed)
		cb_run_put(run);
}

static int cb_client_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cb_conn *c = id->context;
	struct cb_run *run = c->run;
	u64 now = ktime_get_ns();
	unsigned int bit;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		c->t_addr = now;
		bit = CB_EV_ADDR;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		c->t_route = now;
		bit = CB_EV_ROUTE;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->t_est = now;
		bit = CB_EV_EST;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		bit = CB_EV_DISC;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		bit = CB_EV_ERR;
		break;
	default:
		return 0;
	}
	spin_lock(&run->lock);
	if (bit == CB_EV_ERR && !(c->events & CB_EV_ERR)) {
		c->err_event = ev->event;
		c->err_status = ev->status;
	}
	c->events |= bit;
	if (!c->busy && list_empty(&c->ready))
		list_add_tail(&c->ready, &run->ready);
	spin_unlock(&run->lock);
	wake_up(&run->wq);
	return 0;
}

static int cb_client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	int ret;

	cm_acct_push(CMA_CONSUMER, CMA_P_ASYNC);
	ret = cb_client_event(id, ev);
	cm_acct_pop();
	return ret;
}

/* Keep the first error, as one word for the result line. */
static void cb_set_error(char *buf, size_t len, const char *what, int err)
{
	if (buf[0])
		return;
	snprintf(buf, len, "%s:%d", what, err);
	strreplace(buf, ' ', '_');
}

static void cb_run_error(struct cb_run *run, const char *what, int err)
{
	spin_lock(&run->lock);
	cb_set_error(run->err, sizeof(run->err), what, err);
	spin_unlock(&run->lock);
}

/* The busy task is done with @c for now: requeue it if events came meanwhile. */
static void cb_conn_unbusy(struct cb_conn *c)
{
	struct cb_run *run = c->run;
	bool queued = false;

	spin_lock(&run->lock);
	c->busy = false;
	if (c->events && c->state != CB_C_DONE && list_empty(&c->ready)) {
		list_add_tail(&c->ready, &run->ready);
		queued = true;
	}
	spin_unlock(&run->lock);
	if (queued)
		wake_up(&run->wq);
}

/* Destroy what @c holds; no handler runs for it afterwards. */
static void cb_conn_destroy(struct cb_conn *c)
{
	struct cb_run *run = c->run;

	if (c->id) {
		cm_acct_push(CMA_CM, CMA_P_DESTROY);
		if (c->has_qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		cm_acct_pop();
	}
	spin_lock(&run->lock);
	list_del_init(&c->ready);
	c->events = 0;
	spin_unlock(&run->lock);
	c->id = NULL;
	c->has_qp = false;
	c->state = CB_C_DONE;
}

static void cb_conn_fail(struct cb_conn *c, const char *what, int err)
{
	struct cb_run *run = c->run;

	cb_run_error(run, what, err);
	cb_conn_destroy(c);
	spin_lock(&run->lock);
	run->inflight--;
	run->done++;
	run->failed++;
	spin_unlock(&run->lock);
	wake_up(&run->wq);
}

static void cb_conn_up(struct cb_conn *c, u64 t)
{
	struct cb_run *run = c->run;

	c->state = CB_C_UP;
	c->up = true;
	spin_lock(&run->lock);
	run->inflight--;
	run->done++;
	run->ok++;
	if (c->disc_seen)
		run->lost++;
	if (t > run->end_ns)
		run->end_ns = t;
	spin_unlock(&run->lock);
	wake_up(&run->wq);
}

static void cb_conn_start(struct cb_conn *c)
{
	struct cb_run *run = c->run;
	struct rdma_cm_id *id;
	int ret;

	INIT_LIST_HEAD(&c->ready);
	c->t0 = ktime_get_ns();
	id = CB_CM(CMA_P_CREATE_ID,
		   rdma_create_id(current->nsproxy->net_ns, cb_client_handler,
				  c, RDMA_PS_TCP, IB_QPT_RC));
	if (IS_ERR(id)) {
		cb_conn_fail(c, "create_id", PTR_ERR(id));
		return;
	}
	c->id = id;
	c->state = CB_C_ADDR;
	ret = CB_CM(CMA_P_ADDR,
		    rdma_resolve_addr(id, run->has_src ?
				      (struct sockaddr *)&run->src : NULL,
				      (struct sockaddr *)&run->dst,
				      run->timeout_ms));
	if (ret)
		cb_conn_fail(c, "resolve_addr", ret);
}

/*
 * openrdma-cm's per-id CM timers (<openrdma/rdma_cm_timers.h>), looked up
 * at run time as a ULP that also runs on in-tree's rdma_cm would: the
 * module loads on either CM.
 */
typedef int (*cb_set_cm_timers_fn)(struct rdma_cm_id *id, int timeout,
				   int retries);

static int cb_set_cm_timers(struct rdma_cm_id *id, int timeout, int retries)
{
	cb_set_cm_timers_fn fn;
	int ret;

	fn = (cb_set_cm_timers_fn)__symbol_get("orcm_rdma_set_cm_timers");
	if (!fn)
		return -EOPNOTSUPP;
	ret = fn(id, timeout, retries);
	__symbol_put("orcm_rdma_set_cm_timers");
	return ret;
}

static void cb_conn_connect(struct cb_conn *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct cb_run *run = c->run;
	unsigned long nvcsw, nivcsw;
	struct cb_dev *d;
	int ret;

	mutex_lock(&run->dev_mutex);
	d = cb_get_dev(run->devs, c->id->device);
	mutex_unlock(&run->dev_mutex);
	if (IS_ERR(d)) {
		cb_conn_fail(c, "alloc_pd_cq", PTR_ERR(d));
		return;
	}
	ret = cb_create_qp(c->id, d, CMA_P_QP);
	c->t_qp = ktime_get_ns();
	if (ret) {
		cb_conn_fail(c, "create_qp", ret);
		return;
	}
	c->has_qp = true;
	c->state = CB_C_CONN;
	if (run->cm_timers) {
		ret = cb_set_cm_timers(c->id, run->cm_timeout, run->cm_retries);
		if (ret) {
			cb_conn_fail(c, "set_cm_timers", ret);
			return;
		}
	}
	/*
	 * Wall time alone cannot tell waiting from working: the task's
	 * context switch counts say whether it slept in the call (waited,
	 * e.g. for a TCP handshake) or was only preempted.
	 */
	nvcsw = READ_ONCE(current->nvcsw);
	nivcsw = READ_ONCE(current->nivcsw);
	c->t_conn_call = ktime_get_ns();
	ret = CB_CM(CMA_P_CONNECT, rdma_connect(c->id, &param));
	c->t_conn_ret = ktime_get_ns();
	c->call_slept = READ_ONCE(current->nvcsw) != nvcsw;
	c->call_preempted = READ_ONCE(current->nivcsw) != nivcsw;
	if (ret)
		cb_conn_fail(c, "connect", ret);
}

static const char *cb_err_what(struct cb_conn *c, unsigned int ev)
{
	return ev & CB_EV_ERR ? rdma_event_msg(c->err_event) : "disconnected";
}

/* Connect phase: act on the events of @c. */
static void cb_conn_step(struct cb_conn *c, unsigned int ev)
{
	struct cb_run *run = c->run;
	int ret;

	if (ev & CB_EV_DISC)
		c->disc_seen = true;
	switch (c->state) {
	case CB_C_ADDR:
		if (ev & CB_EV_ERR) {
			cb_conn_fail(c, cb_err_what(c, ev), c->err_status);
		} else if (ev & CB_EV_ADDR) {
			c->state = CB_C_ROUTE;
			c->t_route_call = ktime_get_ns();
			ret = CB_CM(CMA_P_ROUTE,
				    rdma_resolve_route(c->id, run->timeout_ms));
			if (ret)
				cb_conn_fail(c, "resolve_route", ret);
		}
		break;
	case CB_C_ROUTE:
		if (ev & CB_EV_ERR)
			cb_conn_fail(c, cb_err_what(c, ev), c->err_status);
		else if ((ev & CB_EV_ROUTE) && run->stop_route)
			cb_conn_up(c, c->t_route);
		else if (ev & CB_EV_ROUTE)
			cb_conn_connect(c);
		break;
	case CB_C_CONN:
		if (ev & CB_EV_EST)
			cb_conn_up(c, c->t_est);
		else if (ev & (CB_EV_ERR | CB_EV_DISC))
			cb_conn_fail(c, cb_err_what(c, ev), c->err_status);
		break;
	case CB_C_UP:
		if (ev & (CB_EV_DISC | CB_EV_ERR)) {
			spin_lock(&run->lock);
			run->lost++;
			spin_unlock(&run->lock);
		}
		break;
	default:
		break;
	}
}

/* Teardown phase: @c is down; @forced: without waiting for DISCONNECTED. */
static void cb_down_finish(struct cb_conn *c, bool forced)
{
	struct cb_run *run = c->run;
	bool inflight = c->state == CB_C_DISC;

	cb_conn_destroy(c);
	c->t_down1 = ktime_get_ns();
	spin_lock(&run->lock);
	if (inflight)
		run->down_inflight--;
	if (c->t_down1 > run->down_end_ns)
		run->down_end_ns = c->t_down1;
	if (forced)
		run->down_forced++;
	else
		run->down_ok++;
	spin_unlock(&run->lock);
	wake_up(&run->wq);
}

/* Teardown phase: disconnect @c (counted in down_inflight by the caller). */
static void cb_down_start(struct cb_conn *c, unsigned int ev)
{
	struct cb_run *run = c->run;
	int ret;

	if (ev & CB_EV_DISC)
		c->disc_seen = true;
	c->t_down0 = ktime_get_ns();
	spin_lock(&run->lock);
	if (!run->down_start_ns || c->t_down0 < run->down_start_ns)
		run->down_start_ns = c->t_down0;
	spin_unlock(&run->lock);
	c->state = CB_C_DISC;
	if (!c->has_qp || c->disc_seen) {
		cb_down_finish(c, false);
		return;
	}
	ret = CB_CM(CMA_P_DISC, rdma_disconnect(c->id));
	if (ret) {
		cb_run_error(run, "disconnect", ret);
		cb_down_finish(c, false);
	}
}

static void cb_down_step(struct cb_conn *c, unsigned int ev)
{
	if (ev & CB_EV_DISC)
		c->disc_seen = true;
	if (c->state == CB_C_DISC && (ev & (CB_EV_DISC | CB_EV_ERR)))
		cb_down_finish(c, false);
}

static bool cb_phase_complete(struct cb_run *run)
{
	if (run->phase == CB_P_CONNECT)
		return run->done >= run->count;
	return run->down_ok + run->down_forced >= run->down_todo;
}

/*
 * Under run->lock: claim the next piece of work of the current phase.
 * Returns the conn to work on (marked busy) with *start set when it is a new
 * one, or NULL when there is nothing to do now.
 */
static struct cb_conn *cb_claim(struct cb_run *run, bool *start,
				unsigned int *ev)
{
	struct cb_conn *c;

	*start = false;
	if (run->phase == CB_P_CONNECT && run->inflight < run->window &&
	    run->started < run->count) {
		c = &run->conns[run->started++];
		run->inflight++;
		if (!run->start_ns)
			run->start_ns = ktime_get_ns();
		c->busy = true;
		*start = true;
		return c;
	}
	if (run->phase == CB_P_TEARDOWN) {
		while (run->down_inflight < run->window &&
		       run->down_next < run->started) {
			c = &run->conns[run->down_next++];
			if (c->state != CB_C_UP || c->down_claimed)
				continue;
			c->down_claimed = true;
			c->busy = true;
			run->down_inflight++;
			*ev = 0;
			*start = true;
			return c;
		}
	}
	c = list_first_entry_or_null(&run->ready, struct cb_conn, ready);
	if (c) {
		list_del_init(&c->ready);
		c->busy = true;
		*ev = c->events;
		c->events = 0;
		/* Events on a connection whose teardown has not begun: begin it. */
		if (run->phase == CB_P_TEARDOWN && c->state == CB_C_UP &&
		    !c->down_claimed) {
			c->down_claimed = true;
			run->down_inflight++;
			*start = true;
		}
	}
	return c;
}

static bool cb_can_work(struct cb_run *run)
{
	bool ret;

	spin_lock(&run->lock);
	ret = run->aborted || cb_phase_complete(run) ||
	      !list_empty(&run->ready) ||
	      (run->phase == CB_P_CONNECT && run->inflight < run->window &&
	       run->started < run->count) ||
	      (run->phase == CB_P_TEARDOWN &&
	       run->down_inflight < run->window &&
	       run->down_next < run->started);
	spin_unlock(&run->lock);
	return ret;
}

/* One task's share of the current phase (connect or teardown). */
static void cb_work(struct cb_run *run)
{
	unsigned int ev = 0;
	struct cb_conn *c;
	long left, ret;
	bool start;
	u64 now;

	for (;;) {
		spin_lock(&run->lock);
		if (run->aborted || cb_phase_complete(run)) {
			spin_unlock(&run->lock);
			return;
		}
		c = cb_claim(run, &start, &ev);
		spin_unlock(&run->lock);
		if (c) {
			if (run->phase == CB_P_CONNECT && start)
				cb_conn_start(c);
			else if (run->phase == CB_P_CONNECT)
				cb_conn_step(c, ev);
			else if (start)
				cb_down_start(c, ev);
			else
				cb_down_step(c, ev);
			cb_conn_unbusy(c);
			continue;
		}
		now = ktime_get_ns();
		left = now < run->deadline ?
		       nsecs_to_jiffies(run->deadline - now) + 1 : 0;
		ret = left ? wait_event_interruptible_timeout(run->wq,
							      cb_can_work(run),
							      left) : 0;
		if (ret > 0)
			continue;
		cb_run_error(run, ret ? "interrupted" : "timeout",
			     ret ? -EINTR : -ETIMEDOUT);
		spin_lock(&run->lock);
		run->aborted = true;
		spin_unlock(&run->lock);
		wake_up_all(&run->wq);
		return;
	}
}

static void cb_report_connect(struct cb_run *run)
{
	struct cb_stat setup, addr, route, qp, conn, call;
	unsigned int n = 0, i, k, slept = 0, preempted = 0;
	struct cb_line *line;
	u64 *v[6];
	struct cb_conn *c;

	for (k = 0; k < ARRAY_SIZE(v); k++) {
		v[k] = kvcalloc(max(run->ok, 1U), sizeof(u64), GFP_KERNEL);
		if (!v[k])
			goto out;
	}
	for (i = 0; i < run->started && n < run->ok; i++) {
		c = &run->conns[i];
		if (!c->up)
			continue;
		v[1][n] = c->t_addr - c->t0;
		v[2][n] = c->t_route - c->t_route_call;
		if (run->stop_route) {
			v[0][n] = c->t_route - c->t0;
		} else {
			v[0][n] = c->t_est - c->t0;
			v[3][n] = c->t_qp - c->t_route;
			v[4][n] = c->t_est - c->t_conn_call;
			v[5][n] = c->t_conn_ret - c->t_conn_call;
			slept += c->call_slept;
			preempted += c->call_preempted;
		}
		n++;
	}
	cb_stats(v[0], n, &setup);
	cb_stats(v[1], n, &addr);
	cb_stats(v[2], n, &route);
	cb_stats(v[3], n, &qp);
	cb_stats(v[4], n, &conn);
	cb_stats(v[5], n, &call);
	line = cb_line_new();
	cb_add(line, "kind=rdma op=%s tag=%s count=%u threads=%u window=%u",
	       run->stop_route ? "resolve" : "connect", run->tag, run->count,
	       run->threads, run->window);
	cb_add(line, " ok=%u fail=%u lost=%u held=%d start_ns=%llu end_ns=%llu",
	       run->ok, run->failed, run->lost, run->hold && !run->aborted,
	       run->start_ns, run->end_ns);
	cb_add_real_off(line);
	cb_add_stat(line, "setup", &setup);
	cb_add(line, " addr_p50_ns=%llu route_p50_ns=%llu qp_p50_ns=%llu",
	       addr.p50, route.p50, qp.p50);
	cb_add(line, " connect_p50_ns=%llu", conn.p50);
	/*
	 * How long rdma_connect() itself kept the calling task: an RNIC that
	 * makes the TCP connection inside the call (siw) blocks its caller
	 * for the handshake, a host-stack one (softrnic) only starts it.
	 */
	cb_add_stat(line, "connect_call", &call);
	cb_add(line, " connect_call_slept=%u connect_call_preempted=%u", slept,
	       preempted);
	cb_add(line, " err=%s", run->err[0] ? run->err : "-");
	cb_commit(line);
out:
	for (k = 0; k < ARRAY_SIZE(v); k++)
		kvfree(v[k]);
}

static void cb_report_teardown(struct cb_run *run)
{
	struct cb_line *line;
	struct cb_stat down;
	unsigned int n = 0, i;
	u64 *v;

	v = kvcalloc(max(run->started, 1U), sizeof(u64), GFP_KERNEL);
	if (!v)
		return;
	for (i = 0; i < run->started; i++)
		if (run->conns[i].t_down1)
			v[n++] = run->conns[i].t_down1 - run->conns[i].t_down0;
	cb_stats(v, n, &down);
	kvfree(v);
	line = cb_line_new();
	cb_add(line, "kind=rdma op=teardown tag=%s count=%u threads=%u window=%u",
	       run->tag, n, run->threads, run->window);
	cb_add(line, " ok=%u forced=%u start_ns=%llu end_ns=%llu", run->down_ok,
	       run->down_forced, run->down_start_ns, run->down_end_ns);
	cb_add_real_off(line);
	cb_add_stat(line, "down", &down);
	cb_add(line, " err=%s", run->err[0] ? run->err : "-");
	cb_commit(line);
}

/* Under run->lock: start @phase with run->threads tasks. */
static void cb_phase_start(struct cb_run *run, int phase)
{
	run->phase = phase;
	run->workers = run->threads;
	run->joined = 0;
	run->aborted = false;
	run->deadline = ktime_get_ns() + (u64)run->timeout_ms * NSEC_PER_MSEC;
	if (phase == CB_P_TEARDOWN) {
		run->down_todo = run->ok;
		run->down_next = 0;
		run->down_inflight = 0;
	}
}

/*
 * Wait until run->threads tasks have joined @run in @phase, which then moves
 * to @next. Returns 0 once it has moved.
 */
static int cb_join(struct cb_run *run, int phase, int next)
{
	long ret;

	spin_lock(&run->lock);
	if (run->phase != phase) {
		spin_unlock(&run->lock);
		return -EBUSY;
	}
	if (++run->joined == run->threads)
		cb_phase_start(run, next);
	spin_unlock(&run->lock);
	wake_up_all(&run->wq);

	ret = wait_event_interruptible_timeout(run->wq,
					       READ_ONCE(run->phase) != phase,
					       60 * HZ);
	if (ret > 0)
		return 0;
	spin_lock(&run->lock);
	if (run->phase != phase) {
		spin_unlock(&run->lock);
		return 0;
	}
	run->joined--;
	spin_unlock(&run->lock);
	return ret ? -EINTR : -ETIMEDOUT;
}

/* The last task out of the connect phase: report, then hold or tear down. */
static void cb_connect_done(struct cb_run *run)
{
	struct cb_conn *c;

	if (run->aborted) {
		/* No task works on any connection any more. */
		for (c = run->conns; c < run->conns + run->started; c++) {
			if (c->state == CB_C_UP || c->state == CB_C_DONE)
				continue;
			cb_conn_destroy(c);
			run->failed++;
		}
		run->inflight = 0;
	}
	cb_report_connect(run);
	spin_lock(&run->lock);
	if (run->hold && !run->aborted)
		run->phase = CB_P_HELD;
	else
		cb_phase_start(run, CB_P_TEARDOWN);
	spin_unlock(&run->lock);
	wake_up_all(&run->wq);
}

/* The last task out of the teardown phase: report and free. */
static void cb_teardown_done(struct cb_run *run)
{
	struct cb_conn *c;

	if (run->aborted) {
		for (c = run->conns; c < run->conns + run->started; c++) {
			if (c->state != CB_C_UP && c->state != CB_C_DISC)
				continue;
			if (!c->t_down0)
				c->t_down0 = ktime_get_ns();
			cb_down_finish(c, true);
		}
	}
	cb_report_teardown(run);
	cb_put_devs(run->devs);
	spin_lock(&run->lock);
	run->phase = CB_P_DONE;
	spin_unlock(&run->lock);
	wake_up_all(&run->wq);
	cb_run_unlist(run);
}

/* A task leaves the current phase; the last one finishes it. */
static void cb_leave(struct cb_run *run)
{
	bool last;
	int phase;

	spin_lock(&run->lock);
	last = --run->workers == 0;
	phase = run->phase;
	spin_unlock(&run->lock);
	if (!last)
		return;
	if (phase == CB_P_CONNECT)
		cb_connect_done(run);
	else
		cb_teardown_done(run);
}

/* Work on the teardown phase of @run, if it gets there. */
static void cb_teardown(struct cb_run *run)
{
	wait_event(run->wq, READ_ONCE(run->phase) != CB_P_CONNECT);
	if (READ_ONCE(run->phase) != CB_P_TEARDOWN)
		return;
	cb_work(run);
	cb_leave(run);
}

static int cb_run_result(struct cb_run *run)
{
	int ret;

	spin_lock(&run->lock);
	ret = run->err[0] ? -EIO : 0;
	spin_unlock(&run->lock);
	return ret;
}

static int cb_cmd_connect(struct cb_args *a)
{
	struct cb_run *run, *r;
	int ret;

	if (!a->has_dst || !a->port || a->threads > a->window)
		return -EINVAL;
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->conns = kvcalloc(a->count, sizeof(*run->conns), GFP_KERNEL);
	if (!run->conns) {
		kfree(run);
		return -ENOMEM;
	}
	kref_init(&run->ref);
	strscpy(run->tag, a->tag, sizeof(run->tag));
	run->dst = a->dst;
	run->dst.sin_port = htons(a->port);
	run->src = a->src;
	run->has_src = a->has_src;
	run->stop_route = a->stop_route;
	run->cm_timers = a->cm_timers;
	run->cm_timeout = a->cm_timeout;
	run->cm_retries = a->cm_retries;
	run->hold = a->hold;
	run->count = a->count;
	run->threads = a->threads;
	run->window = a->window;
	run->timeout_ms = a->timeout_s * MSEC_PER_SEC;
	run->phase = CB_P_JOIN;
	mutex_init(&run->dev_mutex);
	spin_lock_init(&run->lock);
	INIT_LIST_HEAD(&run->ready);
	init_waitqueue_head(&run->wq);
	for (ret = 0; ret < a->count; ret++)
		run->conns[ret].run = run;

	/* The first task of a run creates it; the others join it. */
	mutex_lock(&cb_runs_mutex);
	list_for_each_entry(r, &cb_runs, node) {
		if (strcmp(r->tag, a->tag))
			continue;
		if (r->phase != CB_P_JOIN || r->count != a->count ||
		    r->threads != a->threads) {
			mutex_unlock(&cb_runs_mutex);
			cb_run_put(run);
			return -EBUSY;
		}
		kref_get(&r->ref);
		mutex_unlock(&cb_runs_mutex);
		cb_run_put(run);
		run = r;
		goto join;
	}
	kref_get(&run->ref);	/* the list's */
	list_add(&run->node, &cb_runs);
	mutex_unlock(&cb_runs_mutex);

join:
	ret = cb_join(run, CB_P_JOIN, CB_P_CONNECT);
	if (ret) {
		bool orphan;

		/* Nobody else waits: the run never starts. */
		spin_lock(&run->lock);
		orphan = run->phase == CB_P_JOIN && !run->joined;
		if (orphan)
			run->phase = CB_P_DONE;
		spin_unlock(&run->lock);
		if (orphan)
			cb_run_unlist(run);
		cb_run_put(run);
		return ret;
	}
	cb_work(run);
	cb_leave(run);
	cb_teardown(run);
	ret = cb_run_result(run);
	cb_run_put(run);
	return ret;
}

/* A writer task runs the consumer's code (cm_acct). */
static int cb_cmd_connect_acct(struct cb_args *a)
{
	int ret;

	cm_acct_push(CMA_CONSUMER, CMA_P_ASYNC);
	ret = cb_cmd_connect(a);
	cm_acct_pop();
	return ret;
}

static int cb_cmd_release(struct cb_args *a)
{
	struct cb_run *run = NULL, *r;
	int ret;

	mutex_lock(&cb_runs_mutex);
	list_for_each_entry(r, &cb_runs, node) {
		if (!strcmp(r->tag, a->tag)) {
			run = r;
			kref_get(&run->ref);
			break;
		}
	}
	mutex_unlock(&cb_runs_mutex);
	if (!run)
		return -ENOENT;
	spin_lock(&run->lock);
	if (run->phase == CB_P_HELD && !run->joined) {
		run->threads = a->threads;
		run->window = a->window;
		run->timeout_ms = a->timeout_s * MSEC_PER_SEC;
		run->err[0] = '\0';
	}
	spin_unlock(&run->lock);
	ret = cb_join(run, CB_P_HELD, CB_P_TEARDOWN);
	if (!ret) {
		cb_work(run);
		cb_leave(run);
		ret = cb_run_result(run);
	}
	cb_run_put(run);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Kernel TCP baseline                                                       */

struct cb_tcp_server {
	struct list_head node;
	char tag[CB_TAG_LEN];
	struct net *net;
	struct socket *lsock;
	struct task_struct *thread;
};

struct cb_tcp_sconn {
	struct work_struct work;
	struct socket *sock;
};

static LIST_HEAD(cb_tcp_servers);
static struct workqueue_struct *cb_tcp_wq;	/* server connections */
static struct workqueue_struct *cb_tcp_cwq;	/* client workers */
static atomic_t cb_tcp_srv_active, cb_tcp_srv_served;

static int cb_sock_io(struct socket *s, void *buf, size_t len, bool send)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = send ? MSG_NOSIGNAL : MSG_WAITALL };
	int ret;

	if (send)
		ret = kernel_sendmsg(s, &msg, &iov, 1, len);
	else
		ret = kernel_recvmsg(s, &msg, &iov, 1, len, msg.msg_flags);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EPIPE;
}

static void cb_tcp_sconn_fn(struct work_struct *work)
{
	struct cb_tcp_sconn *tc = container_of(work, struct cb_tcp_sconn, work);
	u8 buf[CB_MSG_LEN];

	/* Request, reply, then wait for the client's close. */
	if (!cb_sock_io(tc->sock, buf, sizeof(buf), false) &&
	    !cb_sock_io(tc->sock, buf, sizeof(buf), true)) {
		atomic_inc(&cb_tcp_srv_served);
		cb_sock_io(tc->sock, buf, 1, false);
	}
	sock_release(tc->sock);
	kfree(tc);
	atomic_dec(&cb_tcp_srv_active);
}

static int cb_tcp_accept_fn(void *arg)
{
	struct cb_tcp_server *srv = arg;
	struct cb_tcp_sconn *tc;
	struct socket *s;
	int ret;

	while (!kthread_should_stop()) {
		ret = kernel_accept(srv->lsock, &s, 0);
		if (ret) {
			if (ret != -EAGAIN)
				schedule_timeout_interruptible(HZ / 20);
			continue;
		}
		tc = kzalloc(sizeof(*tc), GFP_KERNEL);
		if (!tc) {
			sock_release(s);
			continue;
		}
		s->sk->sk_rcvtimeo = 30 * HZ;
		s->sk->sk_sndtimeo = 30 * HZ;
		tcp_sock_set_nodelay(s->sk);
		tc->sock = s;
		INIT_WORK(&tc->work, cb_tcp_sconn_fn);
		atomic_inc(&cb_tcp_srv_active);
		queue_work(cb_tcp_wq, &tc->work);
	}
	return 0;
}

static void cb_tcp_server_destroy(struct cb_tcp_server *srv)
{
	kthread_stop(srv->thread);
	put_task_struct(srv->thread);
	kernel_sock_shutdown(srv->lsock, SHUT_RDWR);
	sock_release(srv->lsock);
	flush_workqueue(cb_tcp_wq);
	put_net(srv->net);
	kfree(srv);
}

static int cb_cmd_tcp_listen(struct cb_args *a)
{
	struct cb_tcp_server *srv, *other;
	struct sockaddr_in sin;
	int ret;

	if (!a->has_addr || !a->port)
		return -EINVAL;
	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return -ENOMEM;
	strscpy(srv->tag, a->tag, sizeof(srv->tag));
	srv->net = get_net(current->nsproxy->net_ns);
	ret = sock_create_kern(srv->net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &srv->lsock);
	if (ret)
		goto err_net;
	sock_set_reuseaddr(srv->lsock->sk);
	/* accept() wakes up every 200 ms to look at kthread_should_stop(). */
	srv->lsock->sk->sk_rcvtimeo = HZ / 5;
	sin = a->addr;
	sin.sin_port = htons(a->port);
	ret = kernel_bind(srv->lsock, (struct sockaddr *)&sin, sizeof(sin));
	if (!ret)
		ret = kernel_listen(srv->lsock, a->backlog);
	if (ret)
		goto err_sock;

	mutex_lock(&cb_server_mutex);
	list_for_each_entry(other, &cb_tcp_servers, node) {
		if (!strcmp(other->tag, srv->tag)) {
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	srv->thread = kthread_run(cb_tcp_accept_fn, srv, "cm_bench_tcp");
	if (IS_ERR(srv->thread)) {
		ret = PTR_ERR(srv->thread);
		goto err_unlock;
	}
	get_task_struct(srv->thread);
	list_add(&srv->node, &cb_tcp_servers);
	mutex_unlock(&cb_server_mutex);
	cb_result("kind=tcp op=listen tag=%s port=%u", a->tag, a->port);
	return 0;

err_unlock:
	mutex_unlock(&cb_server_mutex);
err_sock:
	sock_release(srv->lsock);
err_net:
	put_net(srv->net);
	kfree(srv);
	return ret;
}

static int cb_cmd_tcp_unlisten(struct cb_args *a)
{
	struct cb_tcp_server *srv = NULL, *s;

	mutex_lock(&cb_server_mutex);
	list_for_each_entry(s, &cb_tcp_servers, node) {
		if (!strcmp(s->tag, a->tag)) {
			srv = s;
			list_del(&srv->node);
			break;
		}
	}
	mutex_unlock(&cb_server_mutex);
	if (!srv)
		return -ENOENT;
	cb_tcp_server_destroy(srv);
	cb_result("kind=tcp op=unlisten tag=%s", a->tag);
	return 0;
}

struct cb_tcp_run;

struct cb_tcp_worker {
	struct work_struct work;
	struct cb_tcp_run *run;
};

struct cb_tcp_run {
	struct net *net;
	struct sockaddr_in dst;
	u32 count;
	u64 deadline;
	atomic_t next, ok, failed, running;
	bool abort;
	u64 *setup, *conn, *down, *t_start, *t_end;
	wait_queue_head_t wq;
	spinlock_t lock;	/* protects err */
	char err[CB_ERR_LEN];
	struct cb_tcp_worker *workers;
};

static void cb_tcp_error(struct cb_tcp_run *run, const char *what, int err)
{
	spin_lock(&run->lock);
	cb_set_error(run->err, sizeof(run->err), what, err);
	spin_unlock(&run->lock);
}

static void cb_tcp_one(struct cb_tcp_run *run, u32 i)
{
	u8 buf[CB_MSG_LEN] = { 1 };
	struct socket *s;
	u64 t0, t1, t2;
	int ret;

	t0 = ktime_get_ns();
	ret = sock_create_kern(run->net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &s);
	if (ret) {
		cb_tcp_error(run, "socket", ret);
		goto fail;
	}
	s->sk->sk_rcvtimeo = 10 * HZ;
	s->sk->sk_sndtimeo = 10 * HZ;
	ret = kernel_connect(s, (struct sockaddr *)&run->dst, sizeof(run->dst), 0);
	if (ret) {
		cb_tcp_error(run, "connect", ret);
		goto fail_sock;
	}
	tcp_sock_set_nodelay(s->sk);
	t1 = ktime_get_ns();
	ret = cb_sock_io(s, buf, sizeof(buf), true);
	if (!ret)
		ret = cb_sock_io(s, buf, sizeof(buf), false);
	if (ret) {
		cb_tcp_error(run, "request/reply", ret);
		goto fail_sock;
	}
	t2 = ktime_get_ns();
	sock_release(s);
	run->t_start[i] = t0;
	run->t_end[i] = t2;
	run->setup[i] = t2 - t0;
	run->conn[i] = t1 - t0;
	run->down[i] = ktime_get_ns() - t2;
	atomic_inc(&run->ok);
	return;

fail_sock:
	sock_release(s);
fail:
	atomic_inc(&run->failed);
}

static void cb_tcp_worker_fn(struct work_struct *work)
{
	struct cb_tcp_worker *w = container_of(work, struct cb_tcp_worker, work);
	struct cb_tcp_run *run = w->run;
	u32 i;

	while (!READ_ONCE(run->abort)) {
		i = atomic_inc_return(&run->next) - 1;
		if (i >= run->count)
			break;
		if (ktime_get_ns() > run->deadline) {
			cb_tcp_error(run, "timeout", -ETIMEDOUT);
			atomic_inc(&run->failed);
			continue;
		}
		cb_tcp_one(run, i);
	}
	if (atomic_dec_and_test(&run->running))
		wake_up(&run->wq);
}

static int cb_cmd_tcp_connect(struct cb_args *a)
{
	struct cb_stat setup, conn, down;
	struct cb_line *line;
	struct cb_tcp_run *run;
	u64 start = U64_MAX, end = 0;
	u32 i, n = 0, window;
	int ret = -ENOMEM;

	if (!a->has_dst || !a->port)
		return -EINVAL;
	window = min3(a->window, a->count, (u32)CB_TCP_MAX_WINDOW);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->setup = kvcalloc(a->count, sizeof(u64), GFP_KERNEL);
	run->conn = kvcalloc(a->count, sizeof(u64), GFP_KERNEL);
	run->down = kvcalloc(a->count, sizeof(u64), GFP_KERNEL);
	run->t_start = kvcalloc(a->count, sizeof(u64), GFP_KERNEL);
	run->t_end = kvcalloc(a->count, sizeof(u64), GFP_KERNEL);
	run->workers = kcalloc(window, sizeof(*run->workers), GFP_KERNEL);
	if (!run->setup || !run->conn || !run->down || !run->t_start ||
	    !run->t_end || !run->workers)
		goto out;
	run->net = get_net(current->nsproxy->net_ns);
	run->dst = a->dst;
	run->dst.sin_port = htons(a->port);
	run->count = a->count;
	run->deadline = ktime_get_ns() + (u64)a->timeout_s * NSEC_PER_SEC;
	init_waitqueue_head(&run->wq);
	spin_lock_init(&run->lock);
	atomic_set(&run->running, window);
	for (i = 0; i < window; i++) {
		run->workers[i].run = run;
		INIT_WORK(&run->workers[i].work, cb_tcp_worker_fn);
		queue_work(cb_tcp_cwq, &run->workers[i].work);
	}
	ret = wait_event_interruptible(run->wq, !atomic_read(&run->running));
	if (ret) {
		WRITE_ONCE(run->abort, true);
		cb_tcp_error(run, "interrupted", ret);
		wait_event(run->wq, !atomic_read(&run->running));
	}
	for (i = 0; i < a->count; i++) {
		if (!run->t_end[i])
			continue;
		start = min(start, run->t_start[i]);
		end = max(end, run->t_end[i]);
		run->setup[n] = run->setup[i];
		run->conn[n] = run->conn[i];
		run->down[n] = run->down[i];
		n++;
	}
	cb_stats(run->setup, n, &setup);
	cb_stats(run->conn, n, &conn);
	cb_stats(run->down, n, &down);
	line = cb_line_new();
	cb_add(line, "kind=tcp op=connect tag=%s count=%u window=%u ok=%u fail=%u",
	       a->tag, a->count, window, atomic_read(&run->ok),
	       atomic_read(&run->failed));
	cb_add(line, " start_ns=%llu end_ns=%llu", n ? start : 0, end);
	cb_add_real_off(line);
	cb_add_stat(line, "setup", &setup);
	cb_add(line, " connect_p50_ns=%llu", conn.p50);
	cb_add_stat(line, "down", &down);
	cb_add(line, " err=%s", run->err[0] ? run->err : "-");
	cb_commit(line);
	put_net(run->net);
out:
	kfree(run->workers);
	kvfree(run->t_end);
	kvfree(run->t_start);
	kvfree(run->down);
	kvfree(run->conn);
	kvfree(run->setup);
	kfree(run);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* debugfs                                                                   */

static struct dentry *cb_dir;

static ssize_t cb_ctl_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char *buf, *cmd, *rest, empty[1] = "";
	struct cb_args a;
	int ret;

	if (len >= CB_CMD_LEN)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rest = strim(buf);
	cmd = strsep(&rest, " \t");
	ret = cb_parse(rest ?: empty, &a);
	if (ret)
		goto out;
	if (!strcmp(cmd, "listen"))
		ret = cb_cmd_listen(&a);
	else if (!strcmp(cmd, "unlisten"))
		ret = cb_cmd_unlisten(&a);
	else if (!strcmp(cmd, "connect"))
		ret = cb_cmd_connect_acct(&a);
	else if (!strcmp(cmd, "release"))
		ret = cb_cmd_release(&a);
	else if (!strcmp(cmd, "tcp_listen"))
		ret = cb_cmd_tcp_listen(&a);
	else if (!strcmp(cmd, "tcp_unlisten"))
		ret = cb_cmd_tcp_unlisten(&a);
	else if (!strcmp(cmd, "tcp_connect"))
		ret = cb_cmd_tcp_connect(&a);
	else if (!strcmp(cmd, "clear"))
		cb_clear_results();
	else
		ret = -EINVAL;
out:
	kfree(buf);
	return ret ?: len;
}

static const struct file_operations cb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = cb_ctl_write,
	.llseek = noop_llseek,
};

static int cb_results_show(struct seq_file *m, void *v)
{
	struct cb_line *line;

	mutex_lock(&cb_lines_mutex);
	list_for_each_entry(line, &cb_lines, node)
		seq_printf(m, "%s\n", line->text);
	mutex_unlock(&cb_lines_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cb_results);

static int cb_status_show(struct seq_file *m, void *v)
{
	struct cb_group *g;
	struct cb_run *r;
	u32 listeners = 0, held = 0;

	mutex_lock(&cb_server_mutex);
	list_for_each_entry(g, &cb_groups, node)
		listeners += g->n;
	mutex_unlock(&cb_server_mutex);
	mutex_lock(&cb_runs_mutex);
	list_for_each_entry(r, &cb_runs, node)
		if (READ_ONCE(r->phase) == CB_P_HELD)
			held += r->ok;
	mutex_unlock(&cb_runs_mutex);
	seq_printf(m, "listeners=%u srv_active=%d srv_accepted=%d srv_established=%d srv_reaped=%d srv_rejected=%d held=%u tcp_srv_active=%d tcp_srv_served=%d\n",
		   listeners, atomic_read(&cb_srv_active),
		   atomic_read(&cb_srv_accepted),
		   atomic_read(&cb_srv_established),
		   atomic_read(&cb_srv_reaped), atomic_read(&cb_srv_rejected),
		   held, atomic_read(&cb_tcp_srv_active),
		   atomic_read(&cb_tcp_srv_served));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cb_status);

static int __init cb_init(void)
{
	unsigned int i;

	if (!max_server_conns)
		return -EINVAL;
	cb_pool = kvcalloc(max_server_conns, sizeof(*cb_pool), GFP_KERNEL);
	if (!cb_pool)
		return -ENOMEM;
	for (i = 0; i < max_server_conns; i++) {
		cb_pool[i].kind = CB_KIND_SCONN;
		list_add_tail(&cb_pool[i].node, &cb_pool_free);
	}
	cb_tcp_wq = alloc_workqueue("cm_bench_tcp_srv", WQ_UNBOUND, WQ_MAX_ACTIVE);
	if (!cb_tcp_wq)
		goto err_pool;
	cb_tcp_cwq = alloc_workqueue("cm_bench_tcp_cli", WQ_UNBOUND,
				     CB_TCP_MAX_WINDOW);
	if (!cb_tcp_cwq)
		goto err_wq;
	cb_dir = debugfs_create_dir("cm_bench", NULL);
	debugfs_create_file("ctl", 0200, cb_dir, NULL, &cb_ctl_fops);
	debugfs_create_file("results", 0444, cb_dir, NULL, &cb_results_fops);
	debugfs_create_file("status", 0444, cb_dir, NULL, &cb_status_fops);
	return 0;

err_wq:
	destroy_workqueue(cb_tcp_wq);
err_pool:
	kvfree(cb_pool);
	return -ENOMEM;
}

static void __exit cb_exit(void)
{
	struct cb_tcp_server *srv, *stmp;
	struct cb_group *g, *gtmp;
	struct cb_run *run;

	debugfs_remove(cb_dir);
	/* No command runs (each holds the module): only held runs are left. */
	for (;;) {
		mutex_lock(&cb_runs_mutex);
		run = list_first_entry_or_null(&cb_runs, struct cb_run, node);
		if (run)
			kref_get(&run->ref);
		mutex_unlock(&cb_runs_mutex);
		if (!run)
			break;
		spin_lock(&run->lock);
		run->threads = 1;
		run->window = 64;
		run->timeout_ms = 10 * MSEC_PER_SEC;
		cb_phase_start(run, CB_P_TEARDOWN);
		spin_unlock(&run->lock);
		cb_work(run);
		cb_leave(run);
		cb_run_put(run);
	}
	list_for_each_entry_safe(g, gtmp, &cb_groups, node) {
		list_del(&g->node);
		cb_group_destroy(g);
	}
	list_for_each_entry_safe(srv, stmp, &cb_tcp_servers, node) {
		list_del(&srv->node);
		cb_tcp_server_destroy(srv);
	}
	destroy_workqueue(cb_tcp_cwq);
	destroy_workqueue(cb_tcp_wq);
	flush_work(&cb_reap_work);
	cb_clear_results();
	kvfree(cb_pool);
}

module_init(cb_init);
module_exit(cb_exit);

MODULE_DESCRIPTION("openrdma-cm connection-setup benchmark driver");
MODULE_LICENSE("GPL");
