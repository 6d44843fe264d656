// SPDX-License-Identifier: GPL-2.0
/*
 * dp_bench: data-path benchmark over one rdma_cm connection, for comparing
 * RNICs (softrnic against siw) on the same path. Kernel verbs only, so the
 * figures do not depend on a userspace clock (perftest's is unreliable
 * under UML).
 *
 * Control: one command per write(2) to /sys/kernel/debug/dp_bench/ctl, run
 * in the writing task's network namespace; the write returns when the
 * command is done. Each finished run appends a line of key=value pairs to
 * /sys/kernel/debug/dp_bench/results ("clear" empties it).
 *
 *   serve addr=IP port=P
 *	one listener; every request gets its own PD, CQ, QP and buffers, as
 *	the client's request (private data) asks, and is accepted.
 *   unserve
 *	destroy the listener (and wait for its connections to be gone); its
 *	result line counts the SENDs received and those whose payload was
 *	not what the client sent (bad=).
 *   run dst=IP port=P op=write|send size=S count=N depth=D
 *	connect, then N messages of S bytes, D in flight: RDMA WRITEs into the
 *	server's buffer, or SENDs into the server's D posted receives (in
 *	batches of D, each acknowledged by a zero-length SEND from the server
 *	once it has reposted them: iWARP has no receiver-not-ready retry).
 *	Every WR is signaled. For SEND, N is a multiple of D. The time runs
 *	from the first post to the last completion (the last
 *	acknowledgment for SEND).
 *   clear
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define DP_MAGIC	0x64704231	/* "dpB1" */
#define DP_MAX_SIZE	BIT(20)
#define DP_MAX_DEPTH	256U
#define DP_MAX_BUF	(4U << 20)
#define DP_TIMEOUT_MS	5000
#define DP_RESULTS_MAX	8192

enum dp_op { DP_WRITE = 1, DP_SEND = 2 };

/* The client's request and the server's answer, in private data. */
struct dp_req {
	__be32 magic;
	__be32 op;
	__be32 size;
	__be32 depth;
};

struct dp_rep {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

/* ---- results ---- */

static DEFINE_MUTEX(dp_results_lock);	/* dp_results, dp_results_len */
static char dp_results[DP_RESULTS_MAX];
static size_t dp_results_len;

static __printf(1, 2) void dp_result(const char *fmt, ...)
{
	va_list ap;
	int n;

	mutex_lock(&dp_results_lock);
	va_start(ap, fmt);
	n = vscnprintf(dp_results + dp_results_len,
		       DP_RESULTS_MAX - dp_results_len, fmt, ap);
	va_end(ap);
	dp_results_len += n;
	if (dp_results_len < DP_RESULTS_MAX - 1)
		dp_results[dp_results_len++] = '\n';
	mutex_unlock(&dp_results_lock);
}

/* ---- one end's verbs resources ---- */

struct dp_end {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *buf;
	size_t buf_len;
	u64 dma;
	bool mapped, has_qp;
};

static int dp_end_setup(struct dp_end *e, size_t buf_len, unsigned int cqe,
			unsigned int send_wr, unsigned int recv_wr)
{
	struct ib_device *dev = e->id->device;
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int ret;

	e->pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(e->pd)) {
		ret = PTR_ERR(e->pd);
		e->pd = NULL;
		return ret;
	}
	e->cq = ib_alloc_cq(dev, e, cqe, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(e->cq)) {
		ret = PTR_ERR(e->cq);
		e->cq = NULL;
		return ret;
	}
	e->buf = kzalloc(buf_len, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->buf_len = buf_len;
	e->dma = ib_dma_map_single(dev, e->buf, buf_len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, e->dma))
		return -ENOMEM;
	e->mapped = true;
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	ret = rdma_create_qp(e->id, e->pd, &attr);
	if (ret)
		return ret;
	e->has_qp = true;
	return 0;
}

/* Everything but the id. */
static void dp_end_free(struct dp_end *e)
{
	if (e->has_qp) {
		ib_drain_qp(e->id->qp);
		rdma_destroy_qp(e->id);
		e->has_qp = false;
	}
	if (e->mapped)
		ib_dma_unmap_single(e->id->device, e->dma, e->buf_len,
				    DMA_BIDIRECTIONAL);
	e->mapped = false;
	kfree(e->buf);
	e->buf = NULL;
	if (e->cq)
		ib_free_cq(e->cq);
	e->cq = NULL;
	if (e->pd)
		ib_dealloc_pd(e->pd);
	e->pd = NULL;
}

static int dp_post_recv(struct dp_end *e, struct ib_cqe *cqe, u64 off,
			u32 len)
{
	struct ib_sge sge = {
		.addr = e->dma + off,
		.length = len,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = cqe,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
	};

	return ib_post_recv(e->id->qp, &wr, NULL);
}

/* ---- server ---- */

struct dp_sconn;

struct dp_rx {
	struct ib_cqe cqe;
	struct dp_sconn *sc;
	unsigned int slot;
};

/*
 * A server connection. Its recv completions (softirq) repost, check and
 * count; DISCONNECTED or an error queues @free_work, which tears it down.
 */
struct dp_sconn {
	struct dp_end end;
	struct list_head entry;		/* on dp_sconns, dp_server_lock */
	struct work_struct free_work;
	struct ib_cqe ack_cqe;
	struct dp_rx *rx;
	u32 size, depth;
	u32 received;			/* completion context only */
	bool dying;			/* dp_server_lock */
};

static DEFINE_MUTEX(dp_server_lock);	/* the listener, dp_sconns */
static struct rdma_cm_id *dp_listener;
static LIST_HEAD(dp_sconns);
static atomic_t dp_srv_received, dp_srv_bad;
static DECLARE_WAIT_QUEUE_HEAD(dp_srv_wq);
static struct workqueue_struct *dp_wq;

static void dp_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
}

static void dp_srv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_rx *rx = container_of(wc->wr_cqe, struct dp_rx, cqe);
	struct dp_sconn *sc = rx->sc;
	u8 *p = sc->end.buf + (size_t)rx->slot * sc->size;
	struct ib_send_wr ack = {
		.wr_cqe = &sc->ack_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	if (wc->status != IB_WC_SUCCESS)
		return;		/* flushed, or the connection failed */
	if (sc->size >= 4 && get_unaligned_le32(p) != sc->received)
		atomic_inc(&dp_srv_bad);
	sc->received++;
	atomic_inc(&dp_srv_received);
	if (dp_post_recv(&sc->end, &rx->cqe, (u64)rx->slot * sc->size,
			 sc->size))
		return;
	if (sc->received % sc->depth == 0)
		ib_post_send(sc->end.id->qp, &ack, NULL);
}

static void dp_sconn_free_fn(struct work_struct *work)
{
	struct dp_sconn *sc = container_of(work, struct dp_sconn, free_work);

	rdma_disconnect(sc->end.id);
	dp_end_free(&sc->end);
	rdma_destroy_id(sc->end.id);
	mutex_lock(&dp_server_lock);
	list_del(&sc->entry);
	mutex_unlock(&dp_server_lock);
	kfree(sc->rx);
	kfree(sc);
	wake_up_all(&dp_srv_wq);
}

static void dp_sconn_kill(struct dp_sconn *sc)
{
	bool queue;

	mutex_lock(&dp_server_lock);
	queue = !sc->dying;
	sc->dying = true;
	mutex_unlock(&dp_server_lock);
	if (queue)
		queue_work(dp_wq, &sc->free_work);
}

/* CONNECT_REQUEST: the new id gets what the client asks for. */
static int dp_srv_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct dp_req *req = ev->param.conn.private_data;
	struct rdma_conn_param param = {};
	struct dp_sconn *sc;
	struct dp_rep rep;
	u32 op, i;
	int ret;

	if (ev->param.conn.private_data_len < sizeof(*req) ||
	    be32_to_cpu(req->magic) != DP_MAGIC)
		return -EINVAL;		/* rejected, the id destroyed */
	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	op = be32_to_cpu(req->op);
	sc->size = be32_to_cpu(req->size);
	sc->depth = be32_to_cpu(req->depth);
	if ((op != DP_WRITE && op != DP_SEND) || !sc->size ||
	    sc->size > DP_MAX_SIZE || !sc->depth ||
	    sc->depth > DP_MAX_DEPTH ||
	    (op == DP_SEND && (size_t)sc->size * sc->depth > DP_MAX_BUF)) {
		kfree(sc);
		return -EINVAL;
	}
	if (op == DP_WRITE)
		sc->depth = 1;	/* one target buffer, no receives */
	sc->end.id = id;
	id->context = sc;
	INIT_WORK(&sc->free_work, dp_sconn_free_fn);
	INIT_LIST_HEAD(&sc->entry);
	sc->ack_cqe.done = dp_ack_done;
	sc->rx = kcalloc(sc->depth, sizeof(*sc->rx), GFP_KERNEL);
	ret = sc->rx ? 0 : -ENOMEM;
	if (!ret)
		ret = dp_end_setup(&sc->end, (size_t)sc->size * sc->depth,
				   2 * sc->depth + 4, sc->depth + 1,
				   sc->depth + 1);
	for (i = 0; !ret && op == DP_SEND && i < sc->depth; i++) {
		sc->rx[i].cqe.done = dp_srv_recv_done;
		sc->rx[i].sc = sc;
		sc->rx[i].slot = i;
		ret = dp_post_recv(&sc->end, &sc->rx[i].cqe, (u64)i * sc->size,
				   sc->size);
	}
	if (ret)
		goto fail;
	rep.addr = cpu_to_be64(sc->end.dma);
	rep.rkey = cpu_to_be32(sc->end.pd->unsafe_global_rkey);
	rep.len = cpu_to_be32(sc->size);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	mutex_lock(&dp_server_lock);
	list_add_tail(&sc->entry, &dp_sconns);
	mutex_unlock(&dp_server_lock);
	ret = rdma_accept(id, &param);
	if (ret) {
		/* Torn down by the work; the id is ours to destroy there. */
		dp_sconn_kill(sc);
	}
	return 0;

fail:
	dp_end_free(&sc->end);
	kfree(sc->rx);
	kfree(sc);
	id->context = NULL;
	return ret;		/* rejected, the id destroyed */
}

static int dp_srv_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return dp_srv_request(id, ev);
	if (id == dp_listener || !id->context)
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		dp_sconn_kill(id->context);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- client ---- */

struct dp_client {
	struct dp_end end;
	wait_queue_head_t wq;
	struct completion step;
	int step_status;
	enum rdma_cm_event_type want;
	struct dp_rep rep;
	struct ib_cqe send_cqe, ack_cqe;
	atomic_t inflight;
	atomic_t acks;
	atomic_t errors;
	u64 t_last;
};

static int dp_cli_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct dp_client *c = id->context;

	if (ev->event == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= sizeof(c->rep))
		memcpy(&c->rep, ev->param.conn.private_data, sizeof(c->rep));
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
		return 0;	/* ours, or the server's: nothing waits */
	c->step_status = ev->event == c->want ? 0 : -ECONNABORTED;
	if (ev->status && !c->step_status)
		c->step_status = ev->status;
	complete(&c->step);
	return 0;
}

static int dp_cli_wait(struct dp_client *c)
{
	if (!wait_for_completion_timeout(&c->step,
					 msecs_to_jiffies(DP_TIMEOUT_MS)))
		return -ETIMEDOUT;
	return c->step_status;
}

/* A message's completion, or (ack_cqe) the receive of the server's ack. */
static void dp_cli_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_client *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&c->errors);
	c->t_last = ktime_get_ns();
	if (wc->wr_cqe == &c->ack_cqe)
		atomic_inc(&c->acks);
	else
		atomic_dec(&c->inflight);
	wake_up(&c->wq);
}

/*
 * One message. A SEND carries its sequence number in its first bytes, from
 * a slot of its own (slot seq % depth: a batch's messages are all in
 * flight at once); every WRITE goes from the start of the buffer.
 */
static int dp_cli_post(struct dp_client *c, u32 op, u32 size, u32 seq,
		       u32 depth)
{
	size_t off = op == DP_SEND ? (size_t)(seq % depth) * size : 0;
	struct ib_sge sge = {
		.addr = c->end.dma + off,
		.length = size,
		.lkey = c->end.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &c->send_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op == DP_WRITE ? IB_WR_RDMA_WRITE :
						   IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int ret;

	if (op == DP_WRITE) {
		wr.remote_addr = be64_to_cpu(c->rep.addr);
		wr.rkey = be32_to_cpu(c->rep.rkey);
	} else if (size >= 4) {
		put_unaligned_le32(seq, c->end.buf + off);
	}
	atomic_inc(&c->inflight);
	ret = ib_post_send(c->end.id->qp, &wr.wr, NULL);
	if (ret)
		atomic_dec(&c->inflight);
	return ret;
}

/* Wait (bounded) until @cond or an error completion: 0, -EIO, -ETIMEDOUT. */
#define dp_cli_wait_for(cl, cond) ({				\
	struct dp_client *__c = (cl);					\
	long __left = wait_event_timeout(__c->wq,			\
			(cond) || atomic_read(&__c->errors),		\
			msecs_to_jiffies(DP_TIMEOUT_MS));		\
	atomic_read(&__c->errors) ? -EIO : __left ? 0 : -ETIMEDOUT;	\
})

/*
 * @count messages, @depth in flight; SENDs in acknowledged batches of
 * @depth (@count is a multiple of it).
 */
static int dp_cli_transfer(struct dp_client *c, u32 op, u32 size, u32 count,
			   u32 depth)
{
	u32 i, batches = 0;
	int ret = 0;

	for (i = 0; i < count && !ret; i++) {
		if (op == DP_SEND && i % depth == 0) {
			/* The batch before must be in and reposted. */
			ret = dp_cli_wait_for(c, atomic_read(&c->acks) >= batches);
			if (!ret)
				ret = dp_post_recv(&c->end, &c->ack_cqe, 0, 0);
			batches++;
		}
		if (!ret)
			ret = dp_cli_wait_for(c, atomic_read(&c->inflight) < depth);
		if (!ret)
			ret = dp_cli_post(c, op, size, i, depth);
	}
	if (!ret)
		ret = dp_cli_wait_for(c, !atomic_read(&c->inflight));
	if (!ret && op == DP_SEND)	/* the last batch's acknowledgment */
		ret = dp_cli_wait_for(c, atomic_read(&c->acks) >= batches);
	return ret;
}

struct dp_args {
	struct sockaddr_in addr;
	u32 op, size, count, depth;
};

static int dp_cmd_run(struct dp_args *a)
{
	struct dp_req req = {
		.magic = cpu_to_be32(DP_MAGIC),
		.op = cpu_to_be32(a->op),
		.size = cpu_to_be32(a->size),
		.depth = cpu_to_be32(a->depth),
	};
	struct rdma_conn_param param = {
		.private_data = &req,
		.private_data_len = sizeof(req),
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct dp_client *c;
	const char *what;
	u64 t0, ns, bytes;
	int ret;

	if ((a->op != DP_WRITE && a->op != DP_SEND) || !a->size ||
	    a->size > DP_MAX_SIZE || !a->depth || a->depth > DP_MAX_DEPTH ||
	    !a->count || (size_t)a->size * a->depth > DP_MAX_BUF ||
	    (a->op == DP_SEND && a->count % a->depth))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	init_waitqueue_head(&c->wq);
	init_completion(&c->step);
	c->send_cqe.done = dp_cli_done;
	c->ack_cqe.done = dp_cli_done;
	c->end.id = rdma_create_id(current->nsproxy->net_ns, dp_cli_handler, c,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->end.id)) {
		ret = PTR_ERR(c->end.id);
		kfree(c);
		return ret;
	}
	what = "resolve_addr";
	c->want = RDMA_CM_EVENT_ADDR_RESOLVED;
	ret = rdma_resolve_addr(c->end.id, NULL, (struct sockaddr *)&a->addr,
				DP_TIMEOUT_MS);
	if (!ret)
		ret = dp_cli_wait(c);
	if (ret)
		goto out;
	what = "resolve_route";
	reinit_completion(&c->step);
	c->want = RDMA_CM_EVENT_ROUTE_RESOLVED;
	ret = rdma_resolve_route(c->end.id, DP_TIMEOUT_MS);
	if (!ret)
		ret = dp_cli_wait(c);
	if (ret)
		goto out;
	what = "setup";
	ret = dp_end_setup(&c->end, (size_t)a->size *
			   (a->op == DP_SEND ? a->depth : 1),
			   2 * a->depth + 4, a->depth + 1, 2);
	if (ret)
		goto out;
	what = "connect";
	reinit_completion(&c->step);
	c->want = RDMA_CM_EVENT_ESTABLISHED;
	ret = rdma_connect(c->end.id, &param);
	if (!ret)
		ret = dp_cli_wait(c);
	if (!ret && !c->rep.len && a->op == DP_WRITE)
		ret = -EPROTO;
	if (ret)
		goto out;

	what = "transfer";
	t0 = ktime_get_ns();
	ret = dp_cli_transfer(c, a->op, a->size, a->count, a->depth);
	ns = c->t_last > t0 ? c->t_last - t0 : 1;
	if (!ret) {
		bytes = (u64)a->size * a->count;
		dp_result("run op=%s size=%u count=%u depth=%u ns=%llu mbps=%llu kmps=%llu",
			  a->op == DP_WRITE ? "write" : "send", a->size,
			  a->count, a->depth, ns,
			  div64_u64(bytes * 1000, ns),
			  div64_u64((u64)a->count * 1000000, ns));
	}
	rdma_disconnect(c->end.id);
out:
	if (ret) {
		dp_result("run op=%s size=%u error=%s:%d",
			  a->op == DP_WRITE ? "write" : "send", a->size, what,
			  ret);
		pr_warn("run op=%u size=%u count=%u: %s failed: %d\n", a->op,
			a->size, a->count, what, ret);
	}
	dp_end_free(&c->end);
	rdma_destroy_id(c->end.id);
	kfree(c);
	return ret;
}

/* ---- server commands ---- */

static int dp_cmd_serve(struct dp_args *a)
{
	struct rdma_cm_id *id;
	int ret;

	mutex_lock(&dp_server_lock);
	ret = -EBUSY;
	if (dp_listener)
		goto out;
	id = rdma_create_id(current->nsproxy->net_ns, dp_srv_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	ret = PTR_ERR_OR_ZERO(id);
	if (ret)
		goto out;
	ret = rdma_bind_addr(id, (struct sockaddr *)&a->addr);
	if (!ret)
		ret = rdma_listen(id, 16);
	if (ret) {
		rdma_destroy_id(id);
		goto out;
	}
	dp_listener = id;
	atomic_set(&dp_srv_received, 0);
	atomic_set(&dp_srv_bad, 0);
out:
	mutex_unlock(&dp_server_lock);
	return ret;
}

static bool dp_sconns_gone(void)
{
	bool gone;

	mutex_lock(&dp_server_lock);
	gone = list_empty(&dp_sconns);
	mutex_unlock(&dp_server_lock);
	return gone;
}

static int dp_cmd_unserve(void)
{
	struct rdma_cm_id *id;
	struct dp_sconn *sc;

	mutex_lock(&dp_server_lock);
	id = dp_listener;
	dp_listener = NULL;
	mutex_unlock(&dp_server_lock);
	if (!id)
		return -ENOENT;
	rdma_destroy_id(id);
	mutex_lock(&dp_server_lock);
	list_for_each_entry(sc, &dp_sconns, entry)
		if (!sc->dying) {
			sc->dying = true;
			queue_work(dp_wq, &sc->free_work);
		}
	mutex_unlock(&dp_server_lock);
	wait_event(dp_srv_wq, dp_sconns_gone());
	dp_result("serve received=%d bad=%d", atomic_read(&dp_srv_received),
		  atomic_read(&dp_srv_bad));
	return 0;
}

/* ---- control ---- */

static int dp_parse(char *line, struct dp_args *a)
{
	char *tok, *val;
	u32 port = 0;
	int ret = 0;

	a->addr.sin_family = AF_INET;
	while (!ret && (tok = strsep(&line, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "addr") || !strcmp(tok, "dst"))
			ret = in4_pton(val, -1, (u8 *)&a->addr.sin_addr.s_addr,
				       -1, NULL) ? 0 : -EINVAL;
		else if (!strcmp(tok, "port"))
			ret = kstrtou32(val, 0, &port);
		else if (!strcmp(tok, "op"))
			a->op = !strcmp(val, "write") ? DP_WRITE :
				!strcmp(val, "send") ? DP_SEND : 0;
		else if (!strcmp(tok, "size"))
			ret = kstrtou32(val, 0, &a->size);
		else if (!strcmp(tok, "count"))
			ret = kstrtou32(val, 0, &a->count);
		else if (!strcmp(tok, "depth"))
			ret = kstrtou32(val, 0, &a->depth);
		else
			ret = -EINVAL;
	}
	if (port > U16_MAX)
		return -EINVAL;
	a->addr.sin_port = htons(port);
	return ret;
}

static ssize_t dp_ctl_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct dp_args a = {};
	char *buf, *cmd, *rest;
	int ret;

	if (len > 255)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rest = strim(buf);
	cmd = strsep(&rest, " ");
	ret = dp_parse(rest, &a);
	if (ret)
		goto out;
	if (!strcmp(cmd, "serve")) {
		ret = dp_cmd_serve(&a);
	} else if (!strcmp(cmd, "unserve")) {
		ret = dp_cmd_unserve();
	} else if (!strcmp(cmd, "run")) {
		ret = dp_cmd_run(&a);
	} else if (!strcmp(cmd, "clear")) {
		mutex_lock(&dp_results_lock);
		dp_results_len = 0;
		mutex_unlock(&dp_results_lock);
	} else {
		ret = -EINVAL;
	}
out:
	kfree(buf);
	return ret ?: len;
}

static ssize_t dp_results_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&dp_results_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, dp_results,
				      dp_results_len);
	mutex_unlock(&dp_results_lock);
	return ret;
}

static const struct file_operations dp_ctl_fops = {
	.owner = THIS_MODULE,
	.write = dp_ctl_write,
};

static const struct file_operations dp_results_fops = {
	.owner = THIS_MODULE,
	.read = dp_results_read,
};

static struct dentry *dp_dir;

static int __init dp_init(void)
{
	dp_wq = alloc_workqueue("dp_bench", 0, 0);
	if (!dp_wq)
		return -ENOMEM;
	dp_dir = debugfs_create_dir("dp_bench", NULL);
	debugfs_create_file("ctl", 0200, dp_dir, NULL, &dp_ctl_fops);
	debugfs_create_file("results", 0444, dp_dir, NULL, &dp_results_fops);
	return 0;
}

static void __exit dp_exit(void)
{
	debugfs_remove(dp_dir);
	if (dp_listener)
		dp_cmd_unserve();
	destroy_workqueue(dp_wq);
}

module_init(dp_init);
module_exit(dp_exit);
MODULE_DESCRIPTION("Data-path benchmark over one rdma_cm connection");
MODULE_LICENSE("GPL");
