// SPDX-License-Identifier: GPL-2.0
/*
 * hostcm_peer.ko: a test-only host-stack iWARP "RNIC" for the e2e tests
 * (tests/e2e/iwhost-siw.sh), so that iw_cm's host CM can be checked on
 * the wire against stock siw without the softrnic driver.
 *
 * It is not registered with ib_core: it has one QP, no data path, and
 * drives iw_cm directly, in the network namespace of the task loading it.
 *   mode=connect: connect to addr:port (an RDMA listener on siw) with
 *     pd_len bytes of private data (byte i is (i + 1) & 0xff).
 *   mode=listen: listen on addr:port and accept every request (one
 *     connection at a time), with pd_len bytes in the reply.
 * Its ->attach() keeps the socket and, as a peer-to-peer initiator, sends
 * the RTR itself: a zero-length RDMA WRITE (20 bytes) or RDMA READ
 * request (52 bytes) written by hand as one MPA FPDU with the CRC field
 * zero, so only for connections that negotiated no CRC and no markers; it
 * cannot parse an RTR either, so it refuses to be a peer-to-peer
 * responder (siw as initiator is never peer-to-peer). It watches the
 * socket for the peer's close, and closes it when iw_cm moves the QP to
 * SQD or ERR.
 *
 * What happened is in /sys/module/hostcm_peer/parameters/: result (the
 * first event, its status, and the negotiated MPA parameters) and events
 * (every event's name, in order).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <openrdma/iw_host.h>

static char *mode = "connect";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "connect or listen");
static char *addr = "198.18.0.2";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address to connect to or listen on");
static int port = 7400;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "TCP port");
static int pd_len;
module_param(pd_len, int, 0444);
MODULE_PARM_DESC(pd_len, "private data bytes in the request or reply");

/* Written by the event handler (one at a time, iw_cm's worker). */
static char result[160] = "pending";
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "the first event and the negotiated parameters");
static char events[256];
module_param_string(events, events, sizeof(events), 0444);
MODULE_PARM_DESC(events, "every event, in order");

struct hp_dev {
	struct ib_device dev;
	struct ib_port_data port_data[2];
	struct ib_qp qp;
	struct iw_cm_id *id;		/* the listener or the connecting id */
	struct work_struct close_work;	/* the peer closed: tell iw_cm */

	/*
	 * @lock protects the connection below: ->attach() sets it, the QP
	 * moving to SQD/ERR or the peer's close ends it.
	 */
	spinlock_t lock;
	struct socket *sock;
	struct orcm_iw_conn *conn;
	struct orcm_iw_mpa_params params;
	struct iw_cm_id *child;		/* the accepted id (listen mode) */
	void (*saved_state_change)(struct sock *sk);
};

static struct hp_dev *hp;
static u8 hp_pd[512];

static void hp_iw_add_ref(struct ib_qp *qp)
{
}

static void hp_iw_rem_ref(struct ib_qp *qp)
{
}

static struct ib_qp *hp_iw_get_qp(struct ib_device *dev, int qpn)
{
	return qpn == 1 ? &hp->qp : NULL;
}

/* Take the connection off the device (once); the caller closes it. */
static struct orcm_iw_conn *hp_take(struct socket **sockp)
{
	struct orcm_iw_conn *conn;
	struct sock *sk;

	spin_lock_bh(&hp->lock);
	conn = hp->conn;
	*sockp = hp->sock;
	hp->conn = NULL;
	hp->sock = NULL;
	spin_unlock_bh(&hp->lock);
	if (!conn)
		return NULL;
	sk = (*sockp)->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_state_change = hp->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	return conn;
}

static void hp_close(int status, bool peer)
{
	struct orcm_iw_conn *conn;
	struct socket *sock;

	conn = hp_take(&sock);
	if (!conn)
		return;
	if (peer)
		orcm_iw_conn_peer_closed(conn);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
	orcm_iw_conn_released(conn, status);
}

static void hp_close_work(struct work_struct *work)
{
	hp_close(0, true);
}

static void hp_state_change(struct sock *sk)
{
	int state = READ_ONCE(sk->sk_state);

	if (state == TCP_CLOSE_WAIT || state == TCP_CLOSE)
		schedule_work(&hp->close_work);
}

static int hp_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			struct ib_udata *udata)
{
	if ((mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_SQD || attr->qp_state == IB_QPS_ERR))
		hp_close(0, false);
	return 0;
}

/* The RTR, one FPDU: ULPDU_Length, DDP/RDMAP header, pad, CRC (zero). */
static int hp_send_rtr(struct socket *sock, enum orcm_iw_rtr rtr)
{
	static const u8 write_rtr[20] = {
		0x00, 0x0e,		/* ULPDU_Length 14 */
		0xc1,			/* DDP: tagged, last, version 1 */
		0x40,			/* RDMAP: version 1, RDMA Write */
		0, 0, 0, 0,		/* STag 0 */
		0, 0, 0, 0, 0, 0, 0, 0,	/* TO 0 */
		0, 0, 0, 0,		/* CRC (not negotiated) */
	};
	static const u8 read_rtr[52] = {
		0x00, 0x2e,		/* ULPDU_Length 46 */
		0x41,			/* DDP: untagged, last, version 1 */
		0x41,			/* RDMAP: version 1, RDMA Read Request */
		0, 0, 0, 0,		/* reserved */
		0, 0, 0, 1,		/* QN 1: RDMA Read Requests */
		0, 0, 0, 1,		/* MSN 1 */
		0, 0, 0, 0,		/* MO 0 */
		/* Sink STag, Sink TO, size 0, Source STag, Source TO: 0 */
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec vec;

	switch (rtr) {
	case ORCM_IW_RTR_WRITE:
		vec.iov_base = (void *)write_rtr;
		vec.iov_len = sizeof(write_rtr);
		break;
	case ORCM_IW_RTR_READ:
		vec.iov_base = (void *)read_rtr;
		vec.iov_len = sizeof(read_rtr);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return kernel_sendmsg(sock, &msg, &vec, 1, vec.iov_len) ==
	       vec.iov_len ? 0 : -EIO;
}

static int hp_attach(struct ib_qp *qp, struct socket *sock,
		     const struct orcm_iw_mpa_params *params,
		     struct orcm_iw_conn *conn)
{
	struct sock *sk = sock->sk;
	int ret;

	/* No FPDU engine here: no CRC, no markers, no RTR to wait for. */
	if (params->crc || params->markers_tx || params->markers_rx ||
	    (!params->initiator && params->p2p))
		return -EOPNOTSUPP;
	spin_lock_bh(&hp->lock);
	if (hp->conn) {
		spin_unlock_bh(&hp->lock);
		return -EBUSY;
	}
	spin_unlock_bh(&hp->lock);
	if (params->initiator && params->p2p) {
		ret = hp_send_rtr(sock, params->rtr);
		if (ret)
			return ret;
	}
	spin_lock_bh(&hp->lock);
	hp->sock = sock;
	hp->conn = conn;
	hp->params = *params;
	spin_unlock_bh(&hp->lock);
	write_lock_bh(&sk->sk_callback_lock);
	hp->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = hp;
	sk->sk_state_change = hp_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	/* A close that came before the callback. */
	hp_state_change(sk);
	return 0;
}

static const struct orcm_iw_host_ops hp_host_ops = {
	.attach = hp_attach,
};

static const char *const hp_ev_names[] = {
	[IW_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[IW_CM_EVENT_CONNECT_REPLY] = "CONNECT_REPLY",
	[IW_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[IW_CM_EVENT_DISCONNECT] = "DISCONNECT",
	[IW_CM_EVENT_CLOSE] = "CLOSE",
};

static int hp_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct iw_cm_conn_param p = { .qpn = 1, .ird = 1, .ord = 1,
				      .private_data = hp_pd,
				      .private_data_len = pd_len };
	const char *name = hp_ev_names[ev->event];
	size_t n = strlen(events);

	snprintf(events + n, sizeof(events) - n, "%s%s", n ? "," : "", name);
	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		if (hp->child)
			return -EBUSY;	/* one at a time: destroyed, rejected */
		snprintf(result, sizeof(result), "CONNECT_REQUEST pd %u",
			 ev->private_data_len);
		if (iw_cm_accept(id, &p))
			return 1;	/* iw_cm destroys it */
		hp->child = id;
		return 0;
	case IW_CM_EVENT_CONNECT_REPLY:
	case IW_CM_EVENT_ESTABLISHED:
		spin_lock_bh(&hp->lock);
		snprintf(result, sizeof(result),
			 "%s status %d pd %u rev %u p2p %d rtr %d crc %d ird %u ord %u",
			 name, ev->status, ev->private_data_len,
			 hp->params.rev, hp->params.p2p, hp->params.rtr,
			 hp->params.crc, hp->params.ird, hp->params.ord);
		spin_unlock_bh(&hp->lock);
		return 0;
	default:
		return 0;
	}
}

static void hp_set_sin(struct sockaddr_storage *ss, __be32 ip, u16 p)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip;
	sin->sin_port = htons(p);
}

static int __init hp_init(void)
{
	struct iw_cm_conn_param p = { .qpn = 1, .ird = 1, .ord = 1,
				      .private_data = hp_pd };
	__be32 ip;
	int i, ret;

	if (!in4_pton(addr, -1, (u8 *)&ip, -1, NULL) || port <= 0 ||
	    port > 65535 || pd_len < 0 || pd_len > 512)
		return -EINVAL;
	for (i = 0; i < sizeof(hp_pd); i++)
		hp_pd[i] = i + 1;
	hp = kzalloc(sizeof(*hp), GFP_KERNEL);
	if (!hp)
		return -ENOMEM;
	spin_lock_init(&hp->lock);
	INIT_WORK(&hp->close_work, hp_close_work);
	ib_set_device_ops(&hp->dev, &orcm_iw_host_device_ops);
	hp->dev.ops.iw_add_ref = hp_iw_add_ref;
	hp->dev.ops.iw_rem_ref = hp_iw_rem_ref;
	hp->dev.ops.iw_get_qp = hp_iw_get_qp;
	hp->dev.ops.modify_qp = hp_modify_qp;
	/* Host-stack devices own real host ports: no port mapper. */
	hp->dev.iw_driver_flags = IW_F_NO_PORT_MAP;
	hp->dev.attrs.max_qp_rd_atom = 1;
	hp->dev.attrs.max_qp_init_rd_atom = 1;
	hp->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IWARP;
	hp->dev.port_data = hp->port_data;
	hp->dev.phys_port_cnt = 1;
	hp->qp.device = &hp->dev;
	hp->qp.real_qp = &hp->qp;
	hp->qp.qp_type = IB_QPT_RC;
	hp->qp.qp_num = 1;
	hp->qp.port = 1;
	ret = orcm_iw_host_register(&hp->dev, &hp_host_ops);
	if (ret)
		goto out_free;
	hp->id = iw_create_cm_id(&hp->dev, hp_handler, hp);
	if (IS_ERR(hp->id)) {
		ret = PTR_ERR(hp->id);
		goto out_unregister;
	}
	/* The socket is made here: in the loading task's namespace. */
	if (!strcmp(mode, "listen")) {
		hp_set_sin(&hp->id->local_addr, ip, port);
		ret = iw_cm_listen(hp->id, 8);
	} else {
		hp_set_sin(&hp->id->remote_addr, ip, port);
		p.private_data_len = pd_len;
		ret = iw_cm_connect(hp->id, &p);
	}
	if (ret)
		goto out_destroy;
	return 0;

out_destroy:
	iw_destroy_cm_id(hp->id);
out_unregister:
	orcm_iw_host_unregister(&hp->dev);
out_free:
	kfree(hp);
	return ret;
}

static void __exit hp_exit(void)
{
	if (hp->child)
		iw_destroy_cm_id(hp->child);
	iw_destroy_cm_id(hp->id);
	flush_work(&hp->close_work);
	hp_close(-ECONNABORTED, false);
	orcm_iw_host_unregister(&hp->dev);
	kfree(hp);
}

module_init(hp_init);
module_exit(hp_exit);

MODULE_DESCRIPTION("openrdma-cm test device: iw_cm's host-stack CM on the wire");
MODULE_LICENSE("GPL");
