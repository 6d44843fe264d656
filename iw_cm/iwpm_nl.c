// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: the netlink client of rdma-core's iwpmd.
 *
 * ib_core hands every RDMA_NL_IWCM message iwpmd sends to the .dump
 * callback of our table (in iwpmd's sendmsg, process context). The
 * conversation, as iwpmd (rdma-core iwpmd/iwarp_pm_server.c) has it:
 *
 *   iwpmd -> HELLO(abi)          we learn its port id, answer HELLO(min abi)
 *   iwpmd -> MAPINFO request     we resend the mappings it made before a
 *                                restart (MAPINFO records, DONE, MAPINFO_NUM)
 *   REG_PID -> iwpmd             before the first mapping (multicast to
 *                                RDMA_NL_GROUP_IWPM when its port id is not
 *                                known); the answer registers us
 *   ADD_MAPPING / QUERY_MAPPING  answered with the mapped address(es) or a
 *                                HANDLE_ERR; matched by sequence number
 *   REMOVE_MAPPING               no answer
 *   iwpmd -> REMOTE_INFO         where a peer that will connect to one of
 *                                our mapped listeners really comes from
 *
 * A request waits at most iwpm_timeout_ms for its answer. iwpmd gone (a
 * send fails), silent (a timeout) or absent (nobody in the multicast
 * group): the daemon is forgotten and the id is not mapped, as in-tree; an
 * iwpmd that talks again (HELLO, or answers a later REG_PID) is taken back.
 * Only a sender with CAP_NET_ADMIN is heard (in-tree hears anyone).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <net/net_namespace.h>
#include <rdma/rdma_netlink.h>

#include "iwpm.h"

static unsigned int iwpm_timeout_ms = 10000;
module_param(iwpm_timeout_ms, uint, 0644);
MODULE_PARM_DESC(iwpm_timeout_ms,
		 "How long a request waits for iwpmd's answer (default 10000, as in-tree)");

/* One request awaiting iwpmd's answer; lives on the requester's stack. */
struct iwpm_req {
	struct list_head node;		/* on iwpm_reqs while awaited */
	u32 seq;			/* its nlmsg_seq, echoed by iwpmd */
	unsigned int op;
	struct completion done;
	int status;			/* 0, or -EREMOTEIO: iwpmd refused */
	const char *devname;		/* REG_PID: must come back */
	const struct sockaddr_storage *local, *remote;
	struct iwpm_daemon_map *out;	/* ADD/QUERY: the answer */
};

/*
 * iwpm_nl_lock protects everything below and each awaited iwpm_req; an
 * answer is copied and completed under it, so a requester that timed out
 * and finds its request off the list knows the copy is over.
 */
static DEFINE_SPINLOCK(iwpm_nl_lock);
static u32 iwpm_pid;			/* iwpmd's netlink port id; 0: none */
static u16 iwpm_abi = IWPM_UABI_VERSION_MIN;
static bool iwpm_registered;		/* REG_PID answered by iwpm_pid */
static u32 iwpm_echo_seq;		/* last nlmsg_seq iwpmd used */
static LIST_HEAD(iwpm_reqs);
static unsigned long iwpm_quiet_until;	/* no multicast probe before */
static atomic_t iwpm_seq = ATOMIC_INIT(0);
static atomic_t iwpm_bad_msgs = ATOMIC_INIT(0);
static atomic_t iwpm_timeouts = ATOMIC_INIT(0);

/* Not after a timeout: a stopped iwpmd would cost every id a timeout. */
static bool iwpm_may_probe(void)
{
	lockdep_assert_held(&iwpm_nl_lock);
	return time_after_eq(jiffies, iwpm_quiet_until) &&
	       rdma_nl_chk_listeners(RDMA_NL_GROUP_IWPM);
}

bool iwpm_daemon_reachable(void)
{
	bool reachable;

	spin_lock_bh(&iwpm_nl_lock);
	reachable = iwpm_pid || iwpm_may_probe();
	spin_unlock_bh(&iwpm_nl_lock);
	return reachable;
}

void iwpm_nl_stats(u32 *pid, u16 *abi, bool *registered,
		   unsigned int *bad, unsigned int *timeouts)
{
	spin_lock_bh(&iwpm_nl_lock);
	*pid = iwpm_pid;
	*abi = iwpm_abi;
	*registered = iwpm_registered;
	spin_unlock_bh(&iwpm_nl_lock);
	*bad = atomic_read(&iwpm_bad_msgs);
	*timeouts = atomic_read(&iwpm_timeouts);
}

/*
 * iwpmd went away (or never answered): map nothing through it any more;
 * after a timeout (@quiet) do not even probe for a while.
 */
static void iwpm_daemon_lost(u32 pid, bool quiet)
{
	spin_lock_bh(&iwpm_nl_lock);
	if (iwpm_pid == pid) {
		iwpm_pid = 0;
		iwpm_registered = false;
	}
	if (quiet)
		iwpm_quiet_until = jiffies + 3 *
			msecs_to_jiffies(READ_ONCE(iwpm_timeout_ms));
	spin_unlock_bh(&iwpm_nl_lock);
}

static u32 iwpm_next_seq(void)
{
	u32 seq;

	do {
		seq = atomic_inc_return(&iwpm_seq);
	} while (!seq);		/* 0 is iwpmd's "no request" */
	return seq;
}

/* Send to iwpmd (@pid 0: multicast); consumes @skb. */
static int iwpm_send(struct sk_buff *skb, u32 pid)
{
	int err;

	if (!pid)
		return rdma_nl_multicast(&init_net, skb, RDMA_NL_GROUP_IWPM,
					 GFP_KERNEL);
	err = rdma_nl_unicast(&init_net, skb, pid);
	if (err)
		iwpm_daemon_lost(pid, false);
	return err;
}

/* Send @skb (built with @req->seq) to @pid and wait for the answer. */
static int iwpm_transact(struct iwpm_req *req, struct sk_buff *skb, u32 pid)
{
	long left;
	int err;

	init_completion(&req->done);
	spin_lock_bh(&iwpm_nl_lock);
	list_add_tail(&req->node, &iwpm_reqs);
	spin_unlock_bh(&iwpm_nl_lock);

	err = iwpm_send(skb, pid);
	if (!err) {
		unsigned long tmo = msecs_to_jiffies(READ_ONCE(iwpm_timeout_ms));

		left = wait_for_completion_killable_timeout(&req->done, tmo);
		if (left > 0)
			return req->status;
		err = left ? (int)left : -ETIMEDOUT;
	}

	spin_lock_bh(&iwpm_nl_lock);
	if (list_empty(&req->node)) {
		/* Answered after all, under the lock: take it. */
		spin_unlock_bh(&iwpm_nl_lock);
		return req->status;
	}
	list_del_init(&req->node);
	spin_unlock_bh(&iwpm_nl_lock);
	if (err == -ETIMEDOUT) {
		atomic_inc(&iwpm_timeouts);
		pr_info_ratelimited("iwpmd (port %u) did not answer request %u in %u ms: no mapping\n",
				    pid, req->seq, READ_ONCE(iwpm_timeout_ms));
		iwpm_daemon_lost(pid, true);
	}
	return err;
}

/* Register with iwpmd unless done; -ENOENT when there is none. */
static int iwpm_register(const char *devname, const char *ifname)
{
	struct iwpm_msg_req r = { .devname = devname, .ifname = ifname };
	struct iwpm_req req = { .op = RDMA_NL_IWPM_REG_PID,
				.devname = devname };
	struct sk_buff *skb;
	u32 pid;
	int err;

	spin_lock_bh(&iwpm_nl_lock);
	pid = iwpm_pid;
	r.echo_seq = iwpm_echo_seq;
	if (pid && iwpm_registered) {
		spin_unlock_bh(&iwpm_nl_lock);
		return 0;
	}
	if (!pid && !iwpm_may_probe()) {
		spin_unlock_bh(&iwpm_nl_lock);
		return -ENOENT;
	}
	spin_unlock_bh(&iwpm_nl_lock);

	req.seq = iwpm_next_seq();
	skb = iwpm_msg_reg_pid(req.seq, &r);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	err = iwpm_transact(&req, skb, pid);
	return err ? -ENOENT : 0;
}

int iwpm_daemon_map(const char *devname, const char *ifname,
		    const struct sockaddr_storage *local,
		    const struct sockaddr_storage *remote,
		    struct iwpm_daemon_map *out)
{
	struct iwpm_msg_req r = { .local = local, .remote = remote };
	struct iwpm_req req = { .local = local, .remote = remote, .out = out };
	struct sk_buff *skb;
	u32 pid;
	int err;

	err = iwpm_register(devname, ifname);
	if (err)
		return -ENOENT;
	spin_lock_bh(&iwpm_nl_lock);
	pid = iwpm_pid;
	r.abi = iwpm_abi;
	r.echo_seq = iwpm_echo_seq;
	spin_unlock_bh(&iwpm_nl_lock);
	if (!pid)
		return -ENOENT;

	req.seq = iwpm_next_seq();
	if (remote) {
		req.op = RDMA_NL_IWPM_QUERY_MAPPING;
		skb = iwpm_msg_query_mapping(req.seq, &r);
	} else {
		req.op = RDMA_NL_IWPM_ADD_MAPPING;
		skb = iwpm_msg_add_mapping(req.seq, &r);
	}
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	err = iwpm_transact(&req, skb, pid);
	/* Not even sent: iwpmd holds nothing for us. */
	if (err == -ECONNREFUSED || err == -EAGAIN)
		return -ENOENT;
	return err;
}

void iwpm_daemon_unmap(const struct sockaddr_storage *local)
{
	struct iwpm_msg_req r = { .local = local };
	struct sk_buff *skb;
	u32 pid;

	spin_lock_bh(&iwpm_nl_lock);
	pid = iwpm_pid;
	r.echo_seq = iwpm_echo_seq;
	spin_unlock_bh(&iwpm_nl_lock);
	if (!pid)
		return;		/* a restarted iwpmd learns from MAPINFO */
	skb = iwpm_msg_remove_mapping(iwpm_next_seq(), &r);
	if (!IS_ERR(skb))
		iwpm_send(skb, pid);
}

/* ---- messages from iwpmd ---- */

/* The awaited request @seq of operation @op (any, for errors), or NULL. */
static struct iwpm_req *iwpm_find_req(u32 seq, int op)
{
	struct iwpm_req *req;

	lockdep_assert_held(&iwpm_nl_lock);
	list_for_each_entry(req, &iwpm_reqs, node)
		if (req->seq == seq && (op < 0 || req->op == op))
			return req;
	return NULL;
}

static void iwpm_finish(struct iwpm_req *req, int status)
{
	lockdep_assert_held(&iwpm_nl_lock);
	req->status = status;
	list_del_init(&req->node);
	complete(&req->done);
}

/* An answer to REG_PID, ADD_MAPPING or QUERY_MAPPING. */
static void iwpm_on_answer(unsigned int op, const struct iwpm_msg_resp *m,
			   u32 portid)
{
	struct iwpm_req *req;
	int status = 0;

	spin_lock_bh(&iwpm_nl_lock);
	req = iwpm_find_req(m->seq, op);
	if (!req) {
		spin_unlock_bh(&iwpm_nl_lock);
		pr_debug("answer %u to unknown request %u\n", op, m->seq);
		return;
	}
	switch (op) {
	case RDMA_NL_IWPM_REG_PID:
		if (m->err || strcmp(m->ulib_name, IWPM_ULIB_NAME) ||
		    strncmp(m->dev_name, req->devname, IWPM_DEVNAME_LEN - 1) ||
		    m->abi < IWPM_UABI_VERSION_MIN) {
			status = -EREMOTEIO;
			break;
		}
		iwpm_pid = portid;
		iwpm_abi = min_t(u16, m->abi, IWPM_UABI_VERSION);
		iwpm_registered = true;
		iwpm_quiet_until = jiffies;
		break;
	case RDMA_NL_IWPM_ADD_MAPPING:
		if (m->err || !iwpm_addr_equal(m->local, req->local)) {
			status = -EREMOTEIO;
			break;
		}
		req->out->mapped_local = *m->mapped_local;
		req->out->mapped_remote = *m->mapped_local;	/* unused */
		break;
	case RDMA_NL_IWPM_QUERY_MAPPING:
		if (m->err || !iwpm_addr_equal(m->local, req->local) ||
		    !iwpm_addr_equal(m->remote, req->remote)) {
			status = -EREMOTEIO;
			break;
		}
		req->out->mapped_local = *m->mapped_local;
		req->out->mapped_remote = *m->mapped_remote;
		break;
	}
	iwpm_finish(req, status);
	spin_unlock_bh(&iwpm_nl_lock);
}

static void iwpm_on_error(const struct iwpm_msg_resp *m)
{
	struct iwpm_req *req;

	pr_debug("iwpmd error %u for request %u\n", m->err, m->seq);
	spin_lock_bh(&iwpm_nl_lock);
	req = iwpm_find_req(m->seq, -1);
	if (req)
		iwpm_finish(req, -EREMOTEIO);
	spin_unlock_bh(&iwpm_nl_lock);
}

/* A (new) iwpmd at @portid: it knows nothing of us yet. */
static void iwpm_adopt(u32 portid, u16 abi, u32 seq)
{
	spin_lock_bh(&iwpm_nl_lock);
	iwpm_pid = portid;
	iwpm_abi = min_t(u16, abi, IWPM_UABI_VERSION);
	iwpm_registered = false;
	iwpm_echo_seq = seq;
	iwpm_quiet_until = jiffies;
	spin_unlock_bh(&iwpm_nl_lock);
}

static void iwpm_on_hello(const struct iwpm_msg_resp *m, u32 portid, u32 seq)
{
	struct sk_buff *skb;

	if (m->abi < IWPM_UABI_VERSION_MIN)
		return;
	iwpm_adopt(portid, m->abi, seq);
	pr_info("iwpmd (port %u) is up, ABI version %u\n", portid,
		min_t(u16, m->abi, IWPM_UABI_VERSION));
	skb = iwpm_msg_hello(iwpm_next_seq(),
			     min_t(u16, m->abi, IWPM_UABI_VERSION));
	if (!IS_ERR(skb))
		iwpm_send(skb, portid);
}

struct iwpm_mapinfo_ctx {
	u32 pid;
	int err;
};

static int iwpm_mapinfo_send(struct sk_buff *skb, void *arg)
{
	struct iwpm_mapinfo_ctx *ctx = arg;
	int err;

	err = iwpm_msg_put_done(skb);
	if (err) {
		nlmsg_free(skb);
		return err;
	}
	err = iwpm_send(skb, ctx->pid);
	if (err)
		ctx->err = err;
	return err;
}

/* iwpmd (re)started: give it the mappings its predecessor made for us. */
static void iwpm_on_mapinfo_req(const struct iwpm_msg_resp *m, u32 portid,
				u32 seq)
{
	struct iwpm_mapinfo_ctx ctx = { .pid = portid };
	struct sk_buff *skb;
	int n;

	if (strcmp(m->ulib_name, IWPM_ULIB_NAME) ||
	    m->abi < IWPM_UABI_VERSION_MIN)
		return;
	iwpm_adopt(portid, m->abi, seq);
	n = iwpm_mapinfo_fill(min_t(u16, m->abi, IWPM_UABI_VERSION),
			      iwpm_mapinfo_send, &ctx);
	if (n <= 0 || ctx.err)
		return;
	skb = iwpm_msg_mapinfo_num(iwpm_next_seq(), n);
	if (!IS_ERR(skb))
		iwpm_send(skb, portid);
}

static int iwpm_nl_cb(struct netlink_callback *cb, unsigned int op)
{
	const struct nlmsghdr *nlh = cb->nlh;
	u32 portid = NETLINK_CB(cb->skb).portid;
	struct iwpm_msg_resp m;

	if (iwpm_msg_parse(nlh, op, &m)) {
		atomic_inc(&iwpm_bad_msgs);
		pr_info_ratelimited("malformed port mapper message (op %u) from port %u dropped\n",
				    op, portid);
		return -EINVAL;
	}
	if (op != RDMA_NL_IWPM_HELLO && op != RDMA_NL_IWPM_MAPINFO) {
		spin_lock_bh(&iwpm_nl_lock);
		iwpm_echo_seq = nlh->nlmsg_seq;
		spin_unlock_bh(&iwpm_nl_lock);
	}
	switch (op) {
	case RDMA_NL_IWPM_REG_PID:
	case RDMA_NL_IWPM_ADD_MAPPING:
	case RDMA_NL_IWPM_QUERY_MAPPING:
		iwpm_on_answer(op, &m, portid);
		break;
	case RDMA_NL_IWPM_REMOTE_INFO:
		iwpm_remote_info_add(m.mapped_local, m.mapped_remote, m.remote);
		break;
	case RDMA_NL_IWPM_HANDLE_ERR:
		iwpm_on_error(&m);
		break;
	case RDMA_NL_IWPM_MAPINFO:
		iwpm_on_mapinfo_req(&m, portid, nlh->nlmsg_seq);
		break;
	case RDMA_NL_IWPM_MAPINFO_NUM:
		if (m.send_num != m.ack_num)
			pr_info("iwpmd took %u of %u mappings\n", m.ack_num,
				m.send_num);
		break;
	case RDMA_NL_IWPM_HELLO:
		iwpm_on_hello(&m, portid, nlh->nlmsg_seq);
		break;
	}
	return 0;
}

/* One callback for all: the operation is in the message type. */
static int iwpm_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return iwpm_nl_cb(cb, RDMA_NL_GET_OP(cb->nlh->nlmsg_type));
}

/* ib_core runs RDMA_NL_IWCM messages through .dump (netlink.c). */
static const struct rdma_nl_cbs iwpm_nl_cbs[RDMA_NL_IWPM_NUM_OPS] = {
	[RDMA_NL_IWPM_REG_PID]	= { .dump = iwpm_nl_dump,
				    .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_ADD_MAPPING] = { .dump = iwpm_nl_dump,
				       .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_QUERY_MAPPING] = { .dump = iwpm_nl_dump,
					 .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_REMOTE_INFO] = { .dump = iwpm_nl_dump,
				       .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_HANDLE_ERR] = { .dump = iwpm_nl_dump,
				      .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_MAPINFO]	= { .dump = iwpm_nl_dump,
				    .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_MAPINFO_NUM] = { .dump = iwpm_nl_dump,
				       .flags = RDMA_NL_ADMIN_PERM },
	[RDMA_NL_IWPM_HELLO]	= { .dump = iwpm_nl_dump,
				    .flags = RDMA_NL_ADMIN_PERM },
};

int iwpm_nl_init(void)
{
	iwpm_quiet_until = jiffies;
	rdma_nl_register(RDMA_NL_IWCM, iwpm_nl_cbs);
	return 0;
}

void iwpm_nl_exit(void)
{
	/* Waits for callbacks in flight (ib_core's per-client rwsem). */
	rdma_nl_unregister(RDMA_NL_IWCM);
}
