// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity: differential scenarios for the in-kernel RDMA CM API. The same
 * module (exported rdma_cm and verbs calls only, so it loads on the in-tree
 * rdma_cm.ko and on ours) runs each scenario and writes a trace of what a
 * caller can observe: return codes, events with status and private data,
 * and the id states that `rdma res show cm_id` reports (read through the
 * 6.12 layout of rdma_id_private, which both stacks share). The guest
 * script runs it on both stacks in one boot and compares the traces.
 *
 * Setup (the guest script): siw devices on a veth pair in the initial
 * namespace, PARITY_A (198.18.1.1) and PARITY_B (198.18.1.2).
 *
 *   echo all >/sys/kernel/debug/cm_parity/run	   (or a scenario name)
 *   cat /sys/kernel/debug/cm_parity/trace
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rdma_cm/cma_priv.h"

#define PARITY_A	"198.18.1.1"
#define PARITY_B	"198.18.1.2"
#define PARITY_NOBODY	"198.18.1.99"
#define PT_PORT		7300
#define PT_WAIT		(8 * HZ)
#define PT_MAX_EV	16
#define PT_BUF		(256 * 1024)

static const char * const pt_states[] = {
	"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
	"CONNECT", "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL",
	"DESTROYING",
};

/* What a listener does with a CONNECT_REQUEST. */
enum pt_mode { PT_ACCEPT, PT_REJECT, PT_REFUSE, PT_KEEP };

struct pt_id {
	struct rdma_cm_id *id;
	const char *name;
	int n_ev;
	enum rdma_cm_event_type ev[PT_MAX_EV];
	enum pt_mode mode;
	struct pt_id *child;		/* from the last CONNECT_REQUEST */
	struct ib_pd *pd;
	struct ib_cq *cq;
};

static DEFINE_MUTEX(pt_lock);		/* one run at a time; the trace */
static DECLARE_WAIT_QUEUE_HEAD(pt_wq);
static char *pt_buf;
static size_t pt_len;
static DEFINE_SPINLOCK(pt_buf_lock);	/* handlers log too */
static struct pt_id pt_children[8];
static int pt_nchildren;

static __printf(1, 2) void pt_log(const char *fmt, ...)
{
	unsigned long flags;
	va_list ap;

	spin_lock_irqsave(&pt_buf_lock, flags);
	va_start(ap, fmt);
	if (pt_len < PT_BUF - 1)
		pt_len += vscnprintf(pt_buf + pt_len, PT_BUF - pt_len, fmt, ap);
	va_end(ap);
	spin_unlock_irqrestore(&pt_buf_lock, flags);
}

static const char *pt_state(struct rdma_cm_id *id)
{
	enum rdma_cm_state s = READ_ONCE(container_of(id, struct rdma_id_private,
						      id)->state);

	return s < ARRAY_SIZE(pt_states) ? pt_states[s] : "?";
}

/* A port as the trace shows it: ours to choose, or "eph". */
static void pt_port(char *out, size_t n, const struct sockaddr *sa)
{
	u16 p = ntohs(((const struct sockaddr_in *)sa)->sin_port);

	if (p >= PT_PORT && p < PT_PORT + 100)
		snprintf(out, n, "%u", p);
	else
		snprintf(out, n, "%s", p ? "eph" : "0");
}

static int pt_qp(struct pt_id *p)
{
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int ret;

	p->pd = ib_alloc_pd(p->id->device, 0);
	if (IS_ERR(p->pd)) {
		ret = PTR_ERR(p->pd);
		p->pd = NULL;
		return ret;
	}
	p->cq = ib_alloc_cq(p->id->device, NULL, 8, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(p->cq)) {
		ret = PTR_ERR(p->cq);
		p->cq = NULL;
		return ret;
	}
	attr.send_cq = p->cq;
	attr.recv_cq = p->cq;
	return rdma_create_qp(p->id, p->pd, &attr);
}

static void pt_free_qp(struct pt_id *p)
{
	if (p->id && p->id->qp)
		rdma_destroy_qp(p->id);
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
	p->cq = NULL;
	p->pd = NULL;
}

static int pt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static void pt_on_request(struct pt_id *l, struct rdma_cm_id *id,
			  struct rdma_cm_event *ev, int *ret)
{
	static const char rej[] = "no-thanks";
	static const char acc[] = "welcome";
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.private_data = acc, .private_data_len = sizeof(acc),
	};
	struct pt_id *c;

	if (pt_nchildren >= ARRAY_SIZE(pt_children)) {
		*ret = 1;
		return;
	}
	c = &pt_children[pt_nchildren++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->name = "conn";
	id->context = c;
	l->child = c;
	switch (l->mode) {
	case PT_ACCEPT:
		pt_log("  conn: create_qp -> %d\n", pt_qp(c));
		pt_log("  conn: accept pd=%zu -> %d state=%s\n", sizeof(acc),
		       rdma_accept(id, &param), pt_state(id));
		break;
	case PT_REJECT:
		pt_log("  conn: reject pd=%zu -> %d\n", sizeof(rej),
		       rdma_reject(id, rej, sizeof(rej), 0));
		c->id = NULL;
		*ret = 1;	/* the CM destroys it */
		break;
	case PT_REFUSE:
		c->id = NULL;
		*ret = 1;
		break;
	case PT_KEEP:
		break;
	}
}

static int pt_trimmed_len(const char *str)
{
	int n = strlen(str);

	while (n && str[n - 1] == ' ')
		n--;
	return n;
}

static int pt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pt_id *p = id->context;
	const u8 *pd = ev->param.conn.private_data;
	char pds[24] = "";
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	    ev->event == RDMA_CM_EVENT_REJECTED) {
		u8 len = ev->param.conn.private_data_len;

		/* iWARP carries exactly what was sent; show its start. */
		snprintf(pds, sizeof(pds), " pd=%u:%.*s", len,
			 pd ? (int)min_t(u8, len, 9) : 0, pd ? (char *)pd : "");
	}
	/* Event names compare trimmed: scenario event-msg has the raw ones. */
	pt_log("  %s: event %.*s status=%d%s state=%s\n", p->name,
	       pt_trimmed_len(rdma_event_msg(ev->event)),
	       rdma_event_msg(ev->event), ev->status, pds, pt_state(id));
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		pt_on_request(p, id, ev, &ret);
	else if (p->n_ev < PT_MAX_EV)
		p->ev[p->n_ev++] = ev->event;
	wake_up_all(&pt_wq);
	return ret;
}

/* Wait until @p got @event; log a timeout. */
static bool pt_wait(struct pt_id *p, enum rdma_cm_event_type event)
{
	bool seen = false;
	long left;

	left = wait_event_timeout(pt_wq, ({
		int i;

		seen = false;
		for (i = 0; i < READ_ONCE(p->n_ev); i++)
			seen |= p->ev[i] == event;
		seen;
	}), PT_WAIT);
	if (!left)
		pt_log("  %s: timed out waiting for %s\n", p->name,
		       rdma_event_msg(event));
	return left;
}

static int pt_create(struct pt_id *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->id = rdma_create_id(&init_net, pt_handler, p, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(p->id)) {
		pt_log("  %s: create -> %ld\n", name, PTR_ERR(p->id));
		p->id = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void pt_destroy(struct pt_id *p)
{
	if (!p->id)
		return;
	pt_free_qp(p);
	rdma_destroy_id(p->id);
	p->id = NULL;
}

static struct sockaddr_storage pt_sa(const char *ip, u16 port)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
	return ss;
}

#define SA(ss) ((struct sockaddr *)&(ss))

static void pt_call(struct pt_id *p, const char *what, int ret)
{
	char port[8];

	pt_port(port, sizeof(port), SA(p->id->route.addr.src_addr));
	pt_log("  %s: %s -> %d state=%s port=%s\n", p->name, what, ret,
	       pt_state(p->id), port);
}

/* Resolve @p to @dst: address, then route. */
static bool pt_resolve(struct pt_id *p, const char *dst, u16 port)
{
	struct sockaddr_storage d = pt_sa(dst, port);

	pt_call(p, "resolve_addr", rdma_resolve_addr(p->id, NULL, SA(d), 2000));
	if (!pt_wait(p, RDMA_CM_EVENT_ADDR_RESOLVED))
		return false;
	pt_call(p, "resolve_route", rdma_resolve_route(p->id, 2000));
	return pt_wait(p, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

static void pt_listen(struct pt_id *l, const char *ip, u16 port,
		      enum pt_mode mode)
{
	struct sockaddr_storage a = pt_sa(ip, port);

	l->mode = mode;
	pt_call(l, "bind", rdma_bind_addr(l->id, SA(a)));
	pt_call(l, "listen", rdma_listen(l->id, 4));
}

/*
 * Connect @c to PARITY_B:@port with @pdlen bytes of private data; the
 * result of rdma_connect() (siw refuses synchronously when nothing
 * listens), or -EAGAIN when resolution failed.
 */
static int pt_connect(struct pt_id *c, u16 port, u8 pdlen)
{
	int ret;

	static const char pd[] = "hello-from-the-active-side";
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = pd, .private_data_len = pdlen,
	};

	if (!pt_resolve(c, PARITY_B, port))
		return -EAGAIN;
	pt_log("  %s: create_qp -> %d\n", c->name, pt_qp(c));
	ret = rdma_connect(c->id, &param);
	pt_call(c, "connect", ret);
	return ret;
}

/* ---- scenarios ---- */

static void sc_idle(void)
{
	struct rdma_conn_param param = {};
	struct pt_id a;

	if (pt_create(&a, "a"))
		return;
	pt_call(&a, "resolve_route", rdma_resolve_route(a.id, 1000));
	pt_call(&a, "resolve_route(0)", rdma_resolve_route(a.id, 0));
	pt_call(&a, "connect", rdma_connect(a.id, &param));
	pt_call(&a, "disconnect", rdma_disconnect(a.id));
	pt_call(&a, "reject", rdma_reject(a.id, NULL, 0, 0));
	pt_call(&a, "set_reuseaddr(1)", rdma_set_reuseaddr(a.id, 1));
	pt_call(&a, "set_reuseaddr(0)", rdma_set_reuseaddr(a.id, 0));
	pt_call(&a, "set_afonly(1)", rdma_set_afonly(a.id, 1));
	pt_call(&a, "set_ack_timeout(14)", rdma_set_ack_timeout(a.id, 14));
	pt_call(&a, "set_min_rnr_timer(12)", rdma_set_min_rnr_timer(a.id, 12));
	pt_call(&a, "set_min_rnr_timer(40)", rdma_set_min_rnr_timer(a.id, 40));
	pt_destroy(&a);
}

static void sc_bind(void)
{
	struct sockaddr_storage any = pt_sa(NULL, PT_PORT + 1);
	struct sockaddr_storage spec = pt_sa(PARITY_A, PT_PORT + 1);
	struct sockaddr_storage other = pt_sa(PARITY_NOBODY, PT_PORT + 1);
	struct sockaddr_storage lo = pt_sa("127.0.0.1", PT_PORT + 2);
	struct pt_id a, b, c, d;

	if (pt_create(&a, "a") || pt_create(&b, "b") || pt_create(&c, "c") ||
	    pt_create(&d, "d"))
		goto out;
	pt_call(&a, "bind A:1", rdma_bind_addr(a.id, SA(spec)));
	pt_call(&a, "bind again", rdma_bind_addr(a.id, SA(spec)));
	pt_call(&b, "bind A:1", rdma_bind_addr(b.id, SA(spec)));
	pt_call(&c, "bind nobody:1", rdma_bind_addr(c.id, SA(other)));
	pt_call(&d, "bind 127.0.0.1:2", rdma_bind_addr(d.id, SA(lo)));
	pt_destroy(&b);
	if (!pt_create(&b, "b2"))
		pt_call(&b, "bind any:1", rdma_bind_addr(b.id, SA(any)));
out:
	pt_destroy(&a);
	pt_destroy(&b);
	pt_destroy(&c);
	pt_destroy(&d);
}

static void sc_listen(void)
{
	struct pt_id a, b;

	if (pt_create(&a, "a") || pt_create(&b, "b"))
		goto out;
	pt_call(&a, "listen (idle)", rdma_listen(a.id, 0));
	pt_call(&a, "listen again", rdma_listen(a.id, 0));
	pt_call(&a, "set_reuseaddr(1)", rdma_set_reuseaddr(a.id, 1));
	pt_call(&a, "set_afonly(0)", rdma_set_afonly(a.id, 0));
	pt_listen(&b, PARITY_B, PT_PORT + 3, PT_KEEP);
out:
	pt_destroy(&a);
	pt_destroy(&b);
}

static void sc_resolve_nobody(void)
{
	struct sockaddr_storage d = pt_sa(PARITY_NOBODY, PT_PORT);
	struct pt_id a;

	if (pt_create(&a, "a"))
		return;
	pt_call(&a, "resolve_addr nobody", rdma_resolve_addr(a.id, NULL, SA(d),
							     500));
	pt_wait(&a, RDMA_CM_EVENT_ADDR_ERROR);
	pt_call(&a, "after", 0);
	pt_destroy(&a);
}

static void sc_resolve(void)
{
	struct pt_id a;

	if (pt_create(&a, "a"))
		return;
	if (pt_resolve(&a, PARITY_B, PT_PORT + 4)) {
		pt_call(&a, "resolve_route again",
			rdma_resolve_route(a.id, 1000));
		pt_call(&a, "listen", rdma_listen(a.id, 1));
	}
	pt_destroy(&a);
}

/* Connect, accepted with private data; disconnect from @active_first. */
static void sc_connect(bool active_first)
{
	u16 port = PT_PORT + (active_first ? 5 : 6);
	struct pt_id l, c;

	pt_nchildren = 0;
	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_B, port, PT_ACCEPT);
	pt_connect(&c, port, 12);
	if (!pt_wait(&c, RDMA_CM_EVENT_ESTABLISHED) || !l.child)
		goto out;
	pt_wait(l.child, RDMA_CM_EVENT_ESTABLISHED);
	if (active_first) {
		pt_call(&c, "disconnect", rdma_disconnect(c.id));
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
	} else {
		pt_call(l.child, "disconnect", rdma_disconnect(l.child->id));
		pt_wait(l.child, RDMA_CM_EVENT_DISCONNECTED);
		pt_wait(&c, RDMA_CM_EVENT_DISCONNECTED);
	}
	pt_call(&c, "after", 0);
	pt_call(l.child, "after", 0);
	pt_call(&c, "disconnect again", rdma_disconnect(c.id));
out:
	if (l.child)
		pt_destroy(l.child);
	pt_destroy(&c);
	pt_destroy(&l);
}

static void sc_connect_active(void)
{
	sc_connect(true);
}

static void sc_connect_passive(void)
{
	sc_connect(false);
}

/* A listener that rejects with private data, or refuses. */
static void sc_reject(enum pt_mode mode)
{
	u16 port = PT_PORT + (mode == PT_REJECT ? 7 : 8);
	struct pt_id l, c;

	pt_nchildren = 0;
	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_B, port, mode);
	pt_connect(&c, port, 5);
	pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
out:
	pt_destroy(&c);
	pt_destroy(&l);
}

static void sc_reject_pd(void)
{
	sc_reject(PT_REJECT);
}

static void sc_refuse(void)
{
	sc_reject(PT_REFUSE);
}

/* Nothing listens on the port: the peer's TCP refuses. */
static void sc_no_listener(void)
{
	struct pt_id c;

	if (pt_create(&c, "client"))
		return;
	if (!pt_connect(&c, PT_PORT + 9, 0))
		pt_wait(&c, RDMA_CM_EVENT_REJECTED);
	pt_call(&c, "after", 0);
	pt_destroy(&c);
}

/* Private data beyond what the transport carries. */
static void sc_pd_limits(void)
{
	static char big[255];
	struct rdma_conn_param param = {
		.private_data = big, .private_data_len = sizeof(big),
	};
	struct pt_id c;

	if (pt_create(&c, "client"))
		return;
	if (pt_resolve(&c, PARITY_B, PT_PORT + 10)) {
		param.private_data = NULL;
		pt_call(&c, "connect pd=NULL/255", rdma_connect(c.id, &param));
	}
	pt_destroy(&c);
}

/* Options and calls on a resolved id, then on a connected one. */
static void sc_options_resolved(void)
{
	u16 port = PT_PORT + 11;
	struct pt_id l, c;

	pt_nchildren = 0;
	if (pt_create(&l, "listener") || pt_create(&c, "client"))
		goto out;
	pt_listen(&l, PARITY_B, port, PT_ACCEPT);
	if (!pt_resolve(&c, PARITY_B, port))
		goto out;
	pt_call(&c, "set_afonly(1)", rdma_set_afonly(c.id, 1));
	pt_call(&c, "set_reuseaddr(1)", rdma_set_reuseaddr(c.id, 1));
	pt_call(&c, "set_reuseaddr(0)", rdma_set_reuseaddr(c.id, 0));
	pt_call(&c, "notify", rdma_notify(c.id, IB_EVENT_COMM_EST));
	pt_call(&c, "disconnect", rdma_disconnect(c.id));
	pt_call(&c, "bind", rdma_bind_addr(c.id, SA(l.id->route.addr.src_addr)));
	pt_log("  client: create_qp -> %d\n", pt_qp(&c));
	rdma_lock_handler(c.id);	/* rdma_accept() wants it, as ucma does */
	pt_call(&c, "accept (not a request)", rdma_accept(c.id, NULL));
	rdma_unlock_handler(c.id);
out:
	pt_destroy(&c);
	pt_destroy(&l);
}

/* The strings rdma_event_msg() and rdma_reject_msg() give, quoted. */
static void sc_event_msg(void)
{
	int i;

	for (i = RDMA_CM_EVENT_ADDR_RESOLVED; i <= RDMA_CM_EVENT_TIMEWAIT_EXIT + 1;
	     i++)
		pt_log("  event %d: \"%s\"\n", i, rdma_event_msg(i));
}

struct pt_scenario {
	const char *name;
	void (*fn)(void);
};

static const struct pt_scenario pt_scenarios[] = {
	{ "idle-calls", sc_idle },
	{ "bind", sc_bind },
	{ "listen", sc_listen },
	{ "resolve", sc_resolve },
	{ "resolve-nobody", sc_resolve_nobody },
	{ "connect-active-disconnects", sc_connect_active },
	{ "connect-passive-disconnects", sc_connect_passive },
	{ "reject-with-pd", sc_reject_pd },
	{ "refuse-in-handler", sc_refuse },
	{ "no-listener", sc_no_listener },
	{ "pd-limits", sc_pd_limits },
	{ "options-resolved", sc_options_resolved },
	{ "event-msg", sc_event_msg },
};

static ssize_t pt_run_write(struct file *f, const char __user *ubuf,
			    size_t n, loff_t *ppos)
{
	char cmd[64];
	size_t i;

	if (n >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);

	mutex_lock(&pt_lock);
	pt_len = 0;
	for (i = 0; i < ARRAY_SIZE(pt_scenarios); i++) {
		if (strcmp(cmd, "all") && strcmp(cmd, pt_scenarios[i].name))
			continue;
		pt_log("scenario %s\n", pt_scenarios[i].name);
		pt_scenarios[i].fn();
	}
	mutex_unlock(&pt_lock);
	return n;
}

static ssize_t pt_trace_read(struct file *f, char __user *ubuf, size_t n,
			     loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pt_lock);
	ret = simple_read_from_buffer(ubuf, n, ppos, pt_buf, pt_len);
	mutex_unlock(&pt_lock);
	return ret;
}

static const struct file_operations pt_run_fops = {
	.owner = THIS_MODULE,
	.write = pt_run_write,
};

static const struct file_operations pt_trace_fops = {
	.owner = THIS_MODULE,
	.read = pt_trace_read,
};

static struct dentry *pt_dir;

static int __init pt_init(void)
{
	pt_buf = kvzalloc(PT_BUF, GFP_KERNEL);
	if (!pt_buf)
		return -ENOMEM;
	pt_dir = debugfs_create_dir("cm_parity", NULL);
	debugfs_create_file("run", 0200, pt_dir, NULL, &pt_run_fops);
	debugfs_create_file("trace", 0400, pt_dir, NULL, &pt_trace_fops);
	return 0;
}

static void __exit pt_exit(void)
{
	debugfs_remove(pt_dir);
	kvfree(pt_buf);
}

module_init(pt_init);
module_exit(pt_exit);
MODULE_DESCRIPTION("Differential scenarios for the in-kernel RDMA CM API");
MODULE_LICENSE("GPL");
