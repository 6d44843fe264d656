// SPDX-License-Identifier: GPL-2.0
/*
 * cm_parity: differential scenarios for the in-kernel RDMA CM API. The same
 * module (exported rdma_cm and verbs calls only, so it loads on the in-tree
 * rdma_cm.ko and on ours) runs each scenario and writes a trace of what a
 * caller can observe: return codes, events with status and private data
 * (length and CRC), the id states and the device and port that `rdma res
 * show cm_id` reports (read through the 6.12 layout of rdma_id_private,
 * which both stacks share). The guest script runs it on both stacks in one
 * boot and compares the traces.
 *
 * Setup (the guest script): siw on one veth end in the initial namespace
 * with PARITY_A, PARITY_B, PARITY_A6 and PARITY_B6 on it; rxe on another
 * with PARITY_RA, PARITY_RB, PARITY_RA6 and PARITY_RB6; softib ib0 and
 * ib1 on a veth pair under opensm, ib0's IPoIB netdev with PARITY_IA,
 * PARITY_IB, PARITY_IA6 and PARITY_IB6.
 *
 *   echo all >/sys/kernel/debug/cm_parity/run	   (or a scenario name)
 *   echo narrow >/sys/kernel/debug/cm_parity/run	   (port range narrowed)
 *   cat /sys/kernel/debug/cm_parity/trace
 *
 * This file: the toolkit (pt.h) and the debugfs front end. The scenarios
 * live in sc_calls.c, sc_bind.c, sc_conn.c, sc_roce.c (RoCE and IB, through
 * ib_cm) and sc_ibcm.c (ib_cm's own API on IB: alternate paths, LAP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "rdma_cm/cma_priv.h"
#include "pt.h"

#define PT_WAIT		(8 * HZ)
#define PT_BUF		(1024 * 1024)
#define PT_MAX_SC	384
#define PT_MAX_QP	16
#define PT_MAX_CHILD	16

static const char * const pt_states[] = {
	"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
	"CONNECT", "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL",
	"DESTROYING",
};

static DEFINE_MUTEX(pt_lock);		/* one run at a time; the trace */
static DECLARE_WAIT_QUEUE_HEAD(pt_wq);
static char *pt_buf;
static size_t pt_len;
static DEFINE_SPINLOCK(pt_buf_lock);	/* handlers log too */
static struct pt_id pt_children[PT_MAX_CHILD];
static atomic_t pt_nchildren;
static u8 pt_pattern[256];		/* private data: byte i is i + 1 */
/* QP numbers of this scenario's QPs: traces name them qp0, qp1, ... */
static u32 pt_qpns[PT_MAX_QP];
static atomic_t pt_nqps;

static struct pt_scenario *pt_scenarios;	/* filled at load */
static int pt_nscenarios;

void pt_log(const char *fmt, ...)
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

void pt_add(const char *name, void (*fn)(int arg), int arg, bool narrow)
{
	struct pt_scenario *sc;

	if (WARN_ON(pt_nscenarios >= PT_MAX_SC))
		return;
	sc = &pt_scenarios[pt_nscenarios++];
	strscpy(sc->name, name, sizeof(sc->name));
	sc->fn = fn;
	sc->arg = arg;
	sc->narrow = narrow;
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

struct sockaddr_storage pt_sa(const char *ip, u16 port)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	if (ip && strchr(ip, ':')) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		in6_pton(ip, -1, sin6->sin6_addr.s6_addr, -1, NULL);
		return ss;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
	return ss;
}

struct sockaddr *pt_psa(const char *ip, u16 port)
{
	static struct sockaddr_storage ring[8];
	static unsigned int next;
	struct sockaddr_storage *ss = &ring[next++ % ARRAY_SIZE(ring)];

	*ss = pt_sa(ip, port);
	return SA(*ss);
}

int pt_qp(struct pt_id *p)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int ret;

	if (!p->id->device)
		return -ENODEV;
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
	attr.qp_type = p->id->qp_type;	/* RC, or UD for RDMA_PS_UDP */
	ret = rdma_create_qp(p->id, p->pd, &attr);
	if (!ret) {
		int i = atomic_inc_return(&pt_nqps) - 1;

		if (i < PT_MAX_QP)
			pt_qpns[i] = p->id->qp->qp_num;
	}
	return ret;
}

/* A QP number as the trace shows it: which of ours, 0, or the number. */
static void pt_qpn(char *out, size_t n, u32 qpn)
{
	int i, nqp = min(atomic_read(&pt_nqps), PT_MAX_QP);

	for (i = 0; i < nqp; i++) {
		if (pt_qpns[i] == qpn) {
			snprintf(out, n, "qp%d", i);
			return;
		}
	}
	snprintf(out, n, "%#x", qpn);
}

/*
 * What IB and RoCE events carry beyond iWARP's: the UD parameters (SIDR,
 * multicast), the connection parameters, the consumer reject data.
 */
static void pt_log_ib(struct pt_id *p, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev)
{
	static const u8 no_gid[16];
	char qpn[16];

	if (rdma_protocol_iwarp(id->device, id->port_num))
		return;
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
	    (id->qp_type == IB_QPT_UD &&
	     ev->event == RDMA_CM_EVENT_ESTABLISHED)) {
		const struct rdma_ah_attr *ah = &ev->param.ud.ah_attr;
		const struct ib_global_route *grh = &ah->grh;
		bool has_grh = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;

		pt_qpn(qpn, sizeof(qpn), ev->param.ud.qp_num);
		pt_log("    ud: qpn=%s qkey=%#x type=%d port=%u sl=%u grh=%d\n",
		       qpn, ev->param.ud.qkey, ah->type, ah->port_num, ah->sl,
		       has_grh);
		pt_log("    ud: dgid=%pI6 sgid_index=%u hop=%u tclass=%u\n",
		       has_grh ? grh->dgid.raw : no_gid,
		       has_grh ? grh->sgid_index : 0,
		       has_grh ? grh->hop_limit : 0,
		       has_grh ? grh->traffic_class : 0);
		/* (A multicast LID is the SM's choice of the moment.) */
		if (ah->type == RDMA_AH_ATTR_TYPE_IB &&
		    rdma_ah_get_dlid(ah) >= be16_to_cpu(IB_MULTICAST_LID_BASE))
			pt_log("    ud: dlid=multicast path_bits=%u rate=%u\n",
			       rdma_ah_get_path_bits(ah),
			       rdma_ah_get_static_rate(ah));
		else if (ah->type == RDMA_AH_ATTR_TYPE_IB)
			pt_log("    ud: dlid=%u path_bits=%u rate=%u\n",
			       rdma_ah_get_dlid(ah),
			       rdma_ah_get_path_bits(ah),
			       rdma_ah_get_static_rate(ah));
	} else if (id->qp_type == IB_QPT_RC &&
		   (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
		    ev->event == RDMA_CM_EVENT_ESTABLISHED)) {
		const struct rdma_conn_param *c = &ev->param.conn;

		pt_qpn(qpn, sizeof(qpn), c->qp_num);
		pt_log("    conn: resp=%u init=%u flow=%u retry=%u rnr=%u srq=%u qpn=%s\n",
		       c->responder_resources, c->initiator_depth,
		       c->flow_control, c->retry_count, c->rnr_retry_count,
		       c->srq, qpn);
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const u8 *d;
		u8 len = 0;

		d = rdma_consumer_reject_data(id, ev, &len);
		pt_log("    reject: \"%s\" data=%u:%08x\n",
		       rdma_reject_msg(id, ev->status), len,
		       d && len ? crc32_le(~0, d, len) : 0);
	}
}

/* The QP, CQ and PD of @p, also when its id went with a handler. */
static void pt_free_qp(struct pt_id *p)
{
	if (p->id && p->id->qp)
		rdma_destroy_qp(p->id);
	if (!p->id && p->orphan_qp)
		ib_destroy_qp(p->orphan_qp);
	p->orphan_qp = NULL;
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
	p->cq = NULL;
	p->pd = NULL;
}

static int pt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static struct pt_id *pt_new_child(struct pt_id *l, struct rdma_cm_id *id)
{
	int i = atomic_inc_return(&pt_nchildren) - 1;
	struct pt_id *c;

	if (i >= PT_MAX_CHILD)
		return NULL;
	c = &pt_children[i];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->name = "conn";
	c->destroy_on = l->destroy_on == RDMA_CM_EVENT_CONNECT_REQUEST ?
			PT_NO_EVENT : l->destroy_on;
	id->context = c;
	l->child = c;
	return c;
}

static void pt_on_request(struct pt_id *l, struct rdma_cm_id *id, int *ret)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.private_data = pt_pattern, .private_data_len = l->pdlen,
	};
	struct pt_id *c = pt_new_child(l, id);

	if (!c) {
		*ret = 1;
		return;
	}
	switch (l->mode) {
	case PT_ACCEPT:
		if (!l->no_qp)
			pt_log("  conn: create_qp -> %d\n", pt_qp(c));
		pt_log("  conn: accept pd=%d -> %d state=%s\n", l->pdlen,
		       rdma_accept(id, &param), pt_state(id));
		break;
	case PT_REJECT:
		pt_log("  conn: reject pd=%d -> %d\n", l->pdlen,
		       rdma_reject(id, pt_pattern, l->pdlen,
				   IB_CM_REJ_CONSUMER_DEFINED));
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

		/*
		 * iWARP carries exactly what was sent: its length and CRC
		 * (whether an empty one comes with a pointer is no matter).
		 */
		snprintf(pds, sizeof(pds), " pd=%u:%08x", len,
			 pd && len ? crc32_le(~0, pd, len) : 0);
	}
	/* Event names compare trimmed: scenarios event-msg-N have the raw ones. */
	pt_log("  %s: event %.*s status=%d%s state=%s\n", p->name,
	       pt_trimmed_len(rdma_event_msg(ev->event)),
	       rdma_event_msg(ev->event), ev->status, pds, pt_state(id));
	if (id->device)
		pt_log_ib(p, id, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (p->destroy_on == RDMA_CM_EVENT_CONNECT_REQUEST)
			p->mode = PT_REFUSE;
		pt_on_request(p, id, &ret);
	}
	if (p->n_ev < PT_MAX_EV)
		p->ev[p->n_ev++] = ev->event;
	if (!ret && (int)ev->event == p->destroy_on) {
		pt_log("  %s: handler returns 1\n", p->name);
		/*
		 * The QP outlives the id: destroying it here would wait (in
		 * siw) for the connection that this very handler holds.
		 */
		p->orphan_qp = id->qp;
		p->id = NULL;
		ret = 1;
	}
	wake_up_all(&pt_wq);
	return ret;
}

/* Wait until @p got @event @n times; log a timeout. */
bool pt_wait_n(struct pt_id *p, enum rdma_cm_event_type event, int n)
{
	long left;

	left = wait_event_timeout(pt_wq, ({
		int i, seen = 0;

		for (i = 0; i < READ_ONCE(p->n_ev); i++)
			seen += p->ev[i] == event;
		seen >= n;
	}), PT_WAIT);
	if (!left)
		pt_log("  %s: timed out waiting for %s\n", p->name,
		       rdma_event_msg(event));
	return left;
}

/* Wait until @p got @event; log a timeout. */
bool pt_wait(struct pt_id *p, enum rdma_cm_event_type event)
{
	return pt_wait_n(p, event, 1);
}

/* Wait until @p got @a or @b; log a timeout. Which one, or -1. */
int pt_wait_any(struct pt_id *p, enum rdma_cm_event_type a,
		enum rdma_cm_event_type b)
{
	int got = -1;

	wait_event_timeout(pt_wq, ({
		int i;

		for (i = 0; i < READ_ONCE(p->n_ev); i++)
			if (p->ev[i] == a || p->ev[i] == b)
				got = p->ev[i];
		got >= 0;
	}), PT_WAIT);
	if (got < 0)
		pt_log("  %s: timed out waiting for %s or %s\n", p->name,
		       rdma_event_msg(a), rdma_event_msg(b));
	return got;
}

int pt_create_ps(struct pt_id *p, const char *name,
		 enum rdma_ucm_port_space ps, enum ib_qp_type qpt)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->destroy_on = PT_NO_EVENT;
	p->pdlen = 8;
	p->id = rdma_create_id(&init_net, pt_handler, p, ps, qpt);
	if (IS_ERR(p->id)) {
		/*
		 * A TCP or UDP id is every scenario's set-up: without it the
		 * scenario shows nothing (tests/e2e/parity.sh fails on "## FAIL").
		 */
		pt_log("  %s%s: create -> %ld\n",
		       ps == RDMA_PS_TCP || ps == RDMA_PS_UDP ? "## FAIL: " : "",
		       name, PTR_ERR(p->id));
		p->id = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pt_create(struct pt_id *p, const char *name)
{
	return pt_create_ps(p, name, RDMA_PS_TCP, IB_QPT_RC);
}

void pt_destroy(struct pt_id *p)
{
	pt_free_qp(p);
	if (!p->id)
		return;
	rdma_destroy_id(p->id);
	p->id = NULL;
}

/* The child of the @i-th CONNECT_REQUEST of this scenario. */
struct pt_id *pt_child(int i)
{
	return &pt_children[clamp(i, 0, PT_MAX_CHILD - 1)];
}

void pt_destroy_children(void)
{
	int i, n = min(atomic_read(&pt_nchildren), PT_MAX_CHILD);

	for (i = 0; i < n; i++)
		pt_destroy(&pt_children[i]);
	atomic_set(&pt_nchildren, 0);
}

void pt_call(struct pt_id *p, const char *what, int ret)
{
	struct rdma_cm_id *id = p->id;
	char port[8];

	if (!id) {
		pt_log("  %s: %s -> %d (destroyed)\n", p->name, what, ret);
		return;
	}
	pt_port(port, sizeof(port), SA(id->route.addr.src_addr));
	/*
	 * The device (the script's siw or rxe device) and port as restrack
	 * shows them; without a device the port is nobody's business.
	 */
	if (id->device)
		pt_log("  %s: %s -> %d state=%s port=%s dev=%s/%u\n", p->name,
		       what, ret, pt_state(id), port,
		       rdma_protocol_iwarp(id->device, id->port_num) ? "siw" :
		       rdma_protocol_roce(id->device, id->port_num) ? "rxe" :
		       "ib", id->port_num);
	else
		pt_log("  %s: %s -> %d state=%s port=%s dev=-\n", p->name,
		       what, ret, pt_state(id), port);
}

bool pt_resolve(struct pt_id *p, const char *dst, u16 port)
{
	struct sockaddr_storage d = pt_sa(dst, port);

	pt_call(p, "resolve_addr", rdma_resolve_addr(p->id, NULL, SA(d), 2000));
	if (!pt_wait(p, RDMA_CM_EVENT_ADDR_RESOLVED) || !p->id)
		return false;
	pt_call(p, "resolve_route", rdma_resolve_route(p->id, 2000));
	return pt_wait(p, RDMA_CM_EVENT_ROUTE_RESOLVED) && p->id;
}

void pt_listen(struct pt_id *l, const char *ip, u16 port, enum pt_mode mode)
{
	struct sockaddr_storage a = pt_sa(ip, port);

	l->mode = mode;
	pt_call(l, "bind", rdma_bind_addr(l->id, SA(a)));
	pt_call(l, "listen", rdma_listen(l->id, 4));
}

/* rdma_connect() on a resolved @c with a QP: its result. */
int pt_connect_param(struct pt_id *c, u8 pdlen, u8 ird, u8 ord)
{
	struct rdma_conn_param param = {
		.responder_resources = ird, .initiator_depth = ord,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = pt_pattern, .private_data_len = pdlen,
	};
	char what[40];
	int ret;

	ret = rdma_connect(c->id, &param);
	snprintf(what, sizeof(what), "connect pd=%u ird=%u ord=%u", pdlen, ird,
		 ord);
	pt_call(c, what, ret);
	return ret;
}

/*
 * Resolve @c to @dst:@port, create its QP and connect with @pdlen bytes of
 * private data; the result of rdma_connect() (siw refuses synchronously
 * when nothing listens), or -EAGAIN when resolution failed.
 */
int pt_connect(struct pt_id *c, const char *dst, u16 port, u8 pdlen)
{
	if (!pt_resolve(c, dst, port))
		return -EAGAIN;
	pt_log("  %s: create_qp -> %d\n", c->name, pt_qp(c));
	return pt_connect_param(c, pdlen, 1, 1);
}

static int pt_run(const char *cmd)
{
	bool narrow = !strcmp(cmd, "narrow");
	bool all = !strcmp(cmd, "all");
	int i, n = 0;

	for (i = 0; i < pt_nscenarios; i++) {
		struct pt_scenario *sc = &pt_scenarios[i];

		if ((all && sc->narrow) || (narrow && !sc->narrow) ||
		    (!all && !narrow && strcmp(cmd, sc->name)))
			continue;
		pt_log("scenario %s\n", sc->name);
		sc->fn(sc->arg);
		pt_destroy_children();	/* none left for the next one */
		atomic_set(&pt_nqps, 0);
		n++;
	}
	return n;
}

static ssize_t pt_run_write(struct file *f, const char __user *ubuf,
			    size_t n, loff_t *ppos)
{
	char cmd[64];
	int ran;

	if (n >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);

	mutex_lock(&pt_lock);
	pt_len = 0;
	ran = pt_run(strim(cmd));
	mutex_unlock(&pt_lock);
	return ran ? n : -ENOENT;
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

static int pt_list_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < pt_nscenarios; i++)
		seq_printf(m, "%s%s\n", pt_scenarios[i].name,
			   pt_scenarios[i].narrow ? " (narrow)" : "");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_list);

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
	int i;

	for (i = 0; i < ARRAY_SIZE(pt_pattern); i++)
		pt_pattern[i] = i + 1;
	pt_buf = kvzalloc(PT_BUF, GFP_KERNEL);
	if (!pt_buf)
		return -ENOMEM;
	pt_scenarios = kcalloc(PT_MAX_SC, sizeof(*pt_scenarios), GFP_KERNEL);
	if (!pt_scenarios) {
		kvfree(pt_buf);
		return -ENOMEM;
	}
	pt_register_calls();
	pt_register_bind();
	pt_register_conn();
	pt_register_roce();
	pt_register_track();
	pt_register_ibcm();

	pt_dir = debugfs_create_dir("cm_parity", NULL);
	debugfs_create_file("run", 0200, pt_dir, NULL, &pt_run_fops);
	debugfs_create_file("trace", 0400, pt_dir, NULL, &pt_trace_fops);
	debugfs_create_file("list", 0400, pt_dir, NULL, &pt_list_fops);
	return 0;
}

static void __exit pt_exit(void)
{
	debugfs_remove(pt_dir);
	kfree(pt_scenarios);
	kvfree(pt_buf);
}

module_init(pt_init);
module_exit(pt_exit);
MODULE_DESCRIPTION("Differential scenarios for the in-kernel RDMA CM API");
MODULE_LICENSE("GPL");
