// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: the host-stack CM model (include/openrdma/iw_host.h).
 *
 * For a device that registered a hand-off (orcm_iw_host_register()) and
 * merged orcm_iw_host_device_ops, iw_cm's iw_connect ... iw_destroy_listen
 * calls land here: connections are made with real host TCP sockets in the
 * id's network namespace, MPA runs here (host_conn.c, mpa.c) and the
 * driver gets the connected socket through ->attach().
 *
 * A listener is a real host socket, bound and listening from
 * iw_create_listen() on: its port is taken in the host's port space. Its
 * accepted connections are "half-open" until their MPA request is in;
 * above max_half_open of them per listener, or above
 * max_half_open_per_addr of them from one source (an IPv4 address, an
 * IPv6 /64), a new TCP connection is closed at once and counted
 * (half_open_refused): one peer that connects and stays silent cannot
 * take the slots of the others.
 *
 * Locking: hcm_devs_lock (a spinlock, never held across a call out)
 * protects the device list; a listener's and a connection's own locks are
 * described next to their data in host.h. No mutex is taken on the
 * connect path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/tcp.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <openrdma/compat.h>

#include "host.h"
#include "iwcm.h"

/* ---- module parameters ---- */

static int hcm_param_set_rev(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 2);
}

static const struct kernel_param_ops hcm_rev_ops = {
	.set = hcm_param_set_rev,
	.get = param_get_uint,
};

static int hcm_param_set_rtr(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, ORCM_IW_RTR_SEND,
				     ORCM_IW_RTR_READ);
}

static const struct kernel_param_ops hcm_rtr_ops = {
	.set = hcm_param_set_rtr,
	.get = param_get_uint,
};

unsigned int hcm_mpa_rev = 2;
EXPORT_SYMBOL_IF_KUNIT(hcm_mpa_rev);
module_param_cb(mpa_rev, &hcm_rev_ops, &hcm_mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "Host-stack CM: MPA revision to offer, 1 (RFC 5044) or 2 (RFC 6581, default)");

bool hcm_crc;
EXPORT_SYMBOL_IF_KUNIT(hcm_crc);
module_param_named(crc, hcm_crc, bool, 0644);
MODULE_PARM_DESC(crc,
		 "Host-stack CM: ask for MPA CRC32c (default off; used whenever the peer asks)");

bool hcm_markers;
EXPORT_SYMBOL_IF_KUNIT(hcm_markers);
module_param_named(markers, hcm_markers, bool, 0644);
MODULE_PARM_DESC(markers,
		 "Host-stack CM: ask the peer for MPA markers (default off; sent whenever the peer asks)");

bool hcm_peer2peer = true;
EXPORT_SYMBOL_IF_KUNIT(hcm_peer2peer);
module_param_named(peer2peer, hcm_peer2peer, bool, 0644);
MODULE_PARM_DESC(peer2peer,
		 "Host-stack CM: RFC 6581 peer-to-peer mode with an RTR message (default on)");

unsigned int hcm_p2p_type = ORCM_IW_RTR_WRITE;
EXPORT_SYMBOL_IF_KUNIT(hcm_p2p_type);
module_param_cb(p2p_type, &hcm_rtr_ops, &hcm_p2p_type, 0644);
MODULE_PARM_DESC(p2p_type,
		 "Host-stack CM: RTR the initiator offers, 1 zero-length SEND, 2 WRITE (default), 3 READ; as responder all three are taken");

unsigned int hcm_connect_timeout_ms = 20000;
EXPORT_SYMBOL_IF_KUNIT(hcm_connect_timeout_ms);
module_param_named(connect_timeout_ms, hcm_connect_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connect_timeout_ms,
		 "Host-stack CM: TCP handshake timeout, ms (default 20000; a namespace's net.iw_cm sysctl of the same name, when not 0, overrides it)");

unsigned int hcm_mpa_req_timeout_ms = 10000;
EXPORT_SYMBOL_IF_KUNIT(hcm_mpa_req_timeout_ms);
module_param_named(mpa_req_timeout_ms, hcm_mpa_req_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_req_timeout_ms,
		 "Host-stack CM: time a responder waits for the whole MPA request, ms (default 10000; a namespace's net.iw_cm sysctl of the same name, when not 0, overrides it)");

unsigned int hcm_mpa_rep_timeout_ms = 5000;
EXPORT_SYMBOL_IF_KUNIT(hcm_mpa_rep_timeout_ms);
module_param_named(mpa_rep_timeout_ms, hcm_mpa_rep_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_rep_timeout_ms,
		 "Host-stack CM: time an initiator waits for the whole MPA reply, ms (default 5000; a namespace's net.iw_cm sysctl of the same name, when not 0, overrides it)");

unsigned int hcm_rtr_timeout_ms = 5000;
EXPORT_SYMBOL_IF_KUNIT(hcm_rtr_timeout_ms);
module_param_named(rtr_timeout_ms, hcm_rtr_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rtr_timeout_ms,
		 "Host-stack CM: time a peer-to-peer responder waits for the RTR after its reply, ms (default 5000; a namespace's net.iw_cm sysctl of the same name, when not 0, overrides it)");

unsigned int hcm_max_half_open = 256;
EXPORT_SYMBOL_IF_KUNIT(hcm_max_half_open);
module_param_named(max_half_open, hcm_max_half_open, uint, 0644);
MODULE_PARM_DESC(max_half_open,
		 "Host-stack CM: TCP connections per listener whose MPA request is not in yet; more are closed (default 256)");

unsigned int hcm_max_half_open_per_addr;
EXPORT_SYMBOL_IF_KUNIT(hcm_max_half_open_per_addr);
module_param_named(max_half_open_per_addr, hcm_max_half_open_per_addr, uint,
		   0644);
MODULE_PARM_DESC(max_half_open_per_addr,
		 "Host-stack CM: half-open connections per listener from one source (IPv4 address, IPv6 /64); 0 (default): a quarter of max_half_open, at least 1");

atomic_long_t hcm_half_open_refused = ATOMIC_LONG_INIT(0);
EXPORT_SYMBOL_IF_KUNIT(hcm_half_open_refused);

static int hcm_param_get_refused(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&hcm_half_open_refused));
}

static const struct kernel_param_ops hcm_refused_ops = {
	.get = hcm_param_get_refused,
};

module_param_cb(half_open_refused, &hcm_refused_ops, NULL, 0444);
MODULE_PARM_DESC(half_open_refused,
		 "Host-stack CM: connections closed over the max_half_open or max_half_open_per_addr cap (read only)");

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int hcm_race_delay_ms;
EXPORT_SYMBOL_IF_KUNIT(hcm_race_delay_ms);
module_param_named(race_delay_ms, hcm_race_delay_ms, uint, 0644);
MODULE_PARM_DESC(race_delay_ms,
		 "Host-stack CM, test kernels only: sleep this long (ms) in the windows where a passive connection races its user (default 0)");

static unsigned int hcm_race_windows = ~0U;
module_param_named(race_windows, hcm_race_windows, uint, 0644);
MODULE_PARM_DESC(race_windows,
		 "Host-stack CM, test kernels only: the windows race_delay_ms widens, bit 0 leaving the listener, bit 1 waiting for the answer (default all)");

void (*hcm_race_hook)(struct orcm_iw_conn *conn, enum hcm_race where);
EXPORT_SYMBOL_IF_KUNIT(hcm_race_hook);

void hcm_race_window(struct orcm_iw_conn *conn, enum hcm_race where)
{
	void (*hook)(struct orcm_iw_conn *conn, enum hcm_race where);
	unsigned int ms = READ_ONCE(hcm_race_delay_ms);

	hook = READ_ONCE(hcm_race_hook);
	if (hook)
		hook(conn, where);
	else if (ms && (READ_ONCE(hcm_race_windows) & BIT(where)))
		msleep(ms);
}
#endif

struct workqueue_struct *hcm_wq;

/* ---- devices ---- */

struct hcm_dev {
	struct list_head entry;		/* on hcm_devs */
	struct ib_device *dev;
	const struct orcm_iw_host_ops *ops;
};

/* hcm_devs_lock protects hcm_devs; held only around list operations. */
static LIST_HEAD(hcm_devs);
static DEFINE_SPINLOCK(hcm_devs_lock);

static struct hcm_dev *hcm_dev_find(struct ib_device *dev)
{
	struct hcm_dev *hd;

	lockdep_assert_held(&hcm_devs_lock);
	list_for_each_entry(hd, &hcm_devs, entry)
		if (hd->dev == dev)
			return hd;
	return NULL;
}

static const struct orcm_iw_host_ops *hcm_dev_ops(struct ib_device *dev)
{
	const struct orcm_iw_host_ops *ops = NULL;
	struct hcm_dev *hd;

	spin_lock(&hcm_devs_lock);
	hd = hcm_dev_find(dev);
	if (hd)
		ops = hd->ops;
	spin_unlock(&hcm_devs_lock);
	return ops;
}

/**
 * orcm_iw_host_register - make @dev a host-stack CM device
 * @dev: the device, before ib_register_device()
 * @ops: its hand-off; ->attach is required
 *
 * Return: 0, -EINVAL, -EEXIST or -ENOMEM.
 */
int orcm_iw_host_register(struct ib_device *dev,
			  const struct orcm_iw_host_ops *ops)
{
	struct hcm_dev *hd;
	int ret = 0;

	if (!dev || !ops || !ops->attach)
		return -EINVAL;
	hd = kzalloc(sizeof(*hd), GFP_KERNEL);
	if (!hd)
		return -ENOMEM;
	hd->dev = dev;
	hd->ops = ops;
	spin_lock(&hcm_devs_lock);
	if (hcm_dev_find(dev))
		ret = -EEXIST;
	else
		list_add(&hd->entry, &hcm_devs);
	spin_unlock(&hcm_devs_lock);
	if (ret)
		kfree(hd);
	return ret;
}
EXPORT_SYMBOL(orcm_iw_host_register);

/* After ib_unregister_device(): no op of @dev runs any more. */
void orcm_iw_host_unregister(struct ib_device *dev)
{
	struct hcm_dev *hd;

	spin_lock(&hcm_devs_lock);
	hd = hcm_dev_find(dev);
	if (hd)
		list_del(&hd->entry);
	spin_unlock(&hcm_devs_lock);
	kfree(hd);
}
EXPORT_SYMBOL(orcm_iw_host_unregister);

/* ---- namespaces and sockets ---- */

void orcm_iw_cm_set_net(struct iw_cm_id *cm_id, struct net *net)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);
	struct net *old = priv->net;

	priv->net = net ? get_net(net) : NULL;
	if (old)
		put_net(old);
}
EXPORT_SYMBOL(orcm_iw_cm_set_net);

void iwcm_host_put_net(struct iwcm_id_priv *priv)
{
	if (priv->net)
		put_net(priv->net);
	priv->net = NULL;
}

/*
 * The namespace of @cm_id's sockets: the one rdma_cm set, else the calling
 * task's (the host CM and the port mapper's kernel mode).
 */
struct net *iwcm_id_net(struct iw_cm_id *cm_id)
{
	struct iwcm_id_priv *priv = to_iwcm(cm_id);

	return priv->net ?: current->nsproxy->net_ns;
}

/*
 * A TCP socket in @net that holds a reference on it, as a user's would
 * (__sock_create() with kern 0): the namespace outlives our connections.
 */
int hcm_sock_create(struct net *net, int family, struct socket **res)
{
	int ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP, res, 0);
	if (ret)
		return ret;
	(*res)->sk->sk_reuse = SK_CAN_REUSE;
	tcp_sock_set_nodelay((*res)->sk);
	return 0;
}

/*
 * An id the port mapper mapped is on an offloaded-CM device (one without
 * IW_F_NO_PORT_MAP): its socket stands for the card's own TCP endpoint on
 * the mapped port, which the mapper holds in the host stack (a socket of
 * ours in kernel mode, iwpmd's in daemon mode). The endpoint shares the
 * port with that hold, as a card's TCP would: its bind() and listen() skip
 * the host's conflict check (SK_FORCE_REUSE, as TCP_REPAIR does), while
 * everyone else still finds the port taken by the hold. Unmapped ids bind
 * as host sockets do.
 */
void hcm_sock_share_mapped(struct socket *sock, const struct iw_cm_id *cm_id)
{
	if (cm_id->mapped)
		sock->sk->sk_reuse = SK_FORCE_REUSE;
}

/* Once bound (and listening): back to a host socket's setting. */
void hcm_sock_unshare(struct socket *sock)
{
	sock->sk->sk_reuse = SK_CAN_REUSE;
}

/* ---- listeners ---- */

static void hcm_listener_free(struct kref *kref)
{
	kfree(container_of(kref, struct hcm_listener, kref));
}

void hcm_listener_put(struct hcm_listener *lis)
{
	kref_put(&lis->kref, hcm_listener_free);
}

/*
 * A connection is ready to accept. Accepted sockets inherit this callback
 * and sk_user_data from the listener (sk_clone): on those it does nothing
 * until hcm_listener_take() gives them back the defaults.
 */
static void hcm_listen_data_ready(struct sock *sk)
{
	struct hcm_listener *lis;

	if (READ_ONCE(sk->sk_state) != TCP_LISTEN)
		return;
	read_lock_bh(&sk->sk_callback_lock);
	lis = sk->sk_user_data;
	if (lis)
		queue_work(hcm_wq, &lis->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * One source, as the half-open cap per source counts it: an IPv4 address
 * (also v4-mapped), or an IPv6 /64, which one host has all of to pick its
 * addresses from.
 */
static bool hcm_same_source(const struct sockaddr_storage *a,
			    const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family != AF_INET6)
		return false;
	if (ipv6_addr_v4mapped(&a6->sin6_addr) ||
	    ipv6_addr_v4mapped(&b6->sin6_addr))
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
	return ipv6_prefix_equal(&a6->sin6_addr, &b6->sin6_addr, 64);
}

/* The cap per source: the parameter, or a quarter of the listener's. */
static unsigned int hcm_half_open_per_addr(void)
{
	unsigned int n = READ_ONCE(hcm_max_half_open_per_addr);

	return n ?: max(READ_ONCE(hcm_max_half_open) / 4, 1U);
}

/* Whether @lis has room for one more half-open connection from @src. */
static bool hcm_listener_room(struct hcm_listener *lis,
			      const struct sockaddr_storage *src)
{
	unsigned int cap = hcm_half_open_per_addr(), n = 0;
	struct orcm_iw_conn *conn;

	lockdep_assert_held(&lis->lock);
	if (lis->nr_half_open >= READ_ONCE(hcm_max_half_open))
		return false;
	/* At most max_half_open entries: the accept work walks them all. */
	list_for_each_entry(conn, &lis->half_open, lis_entry)
		if (hcm_same_source(&conn->raddr, src) && ++n >= cap)
			return false;
	return true;
}

/* Take one accepted socket in, or refuse it over a half-open cap. */
static void hcm_listener_take(struct hcm_listener *lis, struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct orcm_iw_conn *conn;
	bool refuse;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = lis->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	conn = hcm_conn_alloc(lis->dev, lis->ops, false);
	/*
	 * The source, before the connection is on the list: only this work
	 * writes the raddr of a listener's half-open connections.
	 */
	if (conn && kernel_getpeername(sock, (struct sockaddr *)&conn->raddr) < 0)
		conn->raddr.ss_family = AF_UNSPEC;
	spin_lock_bh(&lis->lock);
	refuse = !conn || !lis->cm_id || !hcm_listener_room(lis, &conn->raddr);
	if (refuse) {
		lis->refused++;
	} else {
		lis->nr_half_open++;
		list_add_tail(&conn->lis_entry, &lis->half_open);
		kref_get(&lis->kref);
	}
	spin_unlock_bh(&lis->lock);
	if (refuse) {
		atomic_long_inc(&hcm_half_open_refused);
		if (conn) {
			pr_info_ratelimited("listener %p: half-open cap reached, connection from %pISc refused\n",
					    lis, &conn->raddr);
			hcm_conn_put(conn);
		}
		sock_no_linger(sock->sk);	/* RST, not FIN */
		sock_release(sock);
		return;
	}
	hcm_conn_passive_start(conn, lis, sock);
}

static void hcm_accept_work(struct work_struct *work)
{
	struct hcm_listener *lis = container_of(work, struct hcm_listener,
						accept_work);
	struct socket *sock;

	while (!kernel_accept(lis->sock, &sock, O_NONBLOCK))
		hcm_listener_take(lis, sock);
}

static bool hcm_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return ipv4_is_zeronet(sin->sin_addr.s_addr);
	return ipv6_addr_any(&sin6->sin6_addr);
}

/*
 * A wildcard listen is one device's share of rdma_cm's listen on every
 * device: as siw does, the socket takes only what arrives on the device's
 * netdev (SO_BINDTODEVICE), so that the listeners of several RNICs, ours
 * or siw's, share the port. A netdev in another namespace than the socket
 * can deliver nothing here: the listener then stays without a port (1).
 * A specific address needs nothing (0).
 */
static int hcm_listen_bind_dev(struct hcm_listener *lis,
			       struct iw_cm_id *cm_id)
{
	struct sock *sk = lis->sock->sk;
	struct net_device *ndev;
	int ret = 0;

	if (!hcm_addr_any(&cm_id->m_local_addr))
		return 0;
	ndev = ib_device_get_netdev(cm_id->device, 1);
	if (!ndev)
		return 0;	/* no netdev (a test's device): the whole host */
	if (net_eq(dev_net(ndev), sock_net(sk)))
		sk->sk_bound_dev_if = ndev->ifindex;
	else
		ret = 1;
	dev_put(ndev);
	return ret;
}

static int hcm_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	/* The mapped address: the id's own unless the port mapper mapped it. */
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	const struct orcm_iw_host_ops *ops;
	struct hcm_listener *lis;
	struct sockaddr_storage bound;
	struct sock *sk;
	int ret;

	ops = hcm_dev_ops(cm_id->device);
	if (!ops)
		return -EOPNOTSUPP;
	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return -ENOMEM;
	kref_init(&lis->kref);
	spin_lock_init(&lis->lock);
	INIT_LIST_HEAD(&lis->half_open);
	INIT_WORK(&lis->accept_work, hcm_accept_work);
	lis->dev = cm_id->device;
	lis->ops = ops;

	ret = hcm_sock_create(iwcm_id_net(cm_id), laddr->ss_family, &lis->sock);
	if (ret)
		goto out_free;
	sk = lis->sock->sk;
	if (laddr->ss_family == AF_INET6 && cm_id->afonly) {
		ret = ip6_sock_set_v6only(sk);
		if (ret)
			goto out_sock;
	}
	ret = hcm_listen_bind_dev(lis, cm_id);
	if (ret < 0)
		goto out_sock;
	if (ret > 0)
		goto dormant;
	hcm_sock_share_mapped(lis->sock, cm_id);
	ret = kernel_bind(lis->sock, (struct sockaddr *)laddr, sizeof(*laddr));
	if (ret)
		goto out_sock;
	ret = kernel_listen(lis->sock, backlog);
	if (ret)
		goto out_sock;
	hcm_sock_unshare(lis->sock);
	/* Port 0 (never mapped): the host picked one; the id reports it. */
	memset(&bound, 0, sizeof(bound));
	if (!cm_id->mapped &&
	    kernel_getsockname(lis->sock, (struct sockaddr *)&bound) >= 0) {
		cm_id->local_addr = bound;
		cm_id->m_local_addr = bound;
	}
dormant:

	cm_id->add_ref(cm_id);
	lis->cm_id = cm_id;
	cm_id->provider_data = lis;
	write_lock_bh(&sk->sk_callback_lock);
	lis->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = lis;
	sk->sk_data_ready = hcm_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	queue_work(hcm_wq, &lis->accept_work);
	return 0;

out_sock:
	sock_release(lis->sock);
out_free:
	kfree(lis);
	return ret;
}

static int hcm_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct hcm_listener *lis = cm_id->provider_data;
	struct orcm_iw_conn *conn, *tmp;
	struct sock *sk = lis->sock->sk;
	LIST_HEAD(conns);

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = lis->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&lis->accept_work);

	spin_lock_bh(&lis->lock);
	lis->cm_id = NULL;
	list_for_each_entry_safe(conn, tmp, &lis->half_open, lis_entry) {
		list_del_init(&conn->lis_entry);
		kref_get(&conn->kref);
		list_add_tail(&conn->abort_entry, &conns);
	}
	lis->nr_half_open = 0;
	spin_unlock_bh(&lis->lock);

	/* Closes the port and resets what is still in the accept queue. */
	sock_release(lis->sock);
	lis->sock = NULL;
	/* Each keeps a listener reference until its work has run. */
	list_for_each_entry_safe(conn, tmp, &conns, abort_entry) {
		list_del(&conn->abort_entry);
		hcm_conn_abort(conn);
		hcm_conn_put(conn);
	}
	cm_id->provider_data = NULL;
	cm_id->rem_ref(cm_id);
	hcm_listener_put(lis);
	return 0;
}

/* ---- connections ---- */

static int hcm_iw_connect(struct iw_cm_id *cm_id,
			  struct iw_cm_conn_param *param)
{
	const struct orcm_iw_host_ops *ops;
	struct orcm_iw_conn *conn;

	ops = hcm_dev_ops(cm_id->device);
	if (!ops)
		return -EOPNOTSUPP;
	conn = hcm_conn_alloc(cm_id->device, ops, true);
	if (!conn)
		return -ENOMEM;
	return hcm_conn_connect(conn, cm_id, param, iwcm_id_net(cm_id));
}

/* The child id's connection, and its reference, taken once. */
static struct orcm_iw_conn *hcm_take_conn(struct iw_cm_id *cm_id)
{
	struct orcm_iw_conn *conn = cm_id->provider_data;

	cm_id->provider_data = NULL;
	return conn;
}

static int hcm_iw_accept(struct iw_cm_id *cm_id,
			 struct iw_cm_conn_param *param)
{
	struct orcm_iw_conn *conn = hcm_take_conn(cm_id);

	if (!conn)
		return -EINVAL;
	return hcm_conn_accept(conn, cm_id, param);
}

static int hcm_iw_reject(struct iw_cm_id *cm_id, const void *pd, u8 pd_len)
{
	struct orcm_iw_conn *conn = hcm_take_conn(cm_id);

	if (!conn)
		return 0;
	return hcm_conn_reject(conn, pd, pd_len);
}

const struct ib_device_ops orcm_iw_host_device_ops = {
	.iw_connect = hcm_iw_connect,
	.iw_accept = hcm_iw_accept,
	.iw_reject = hcm_iw_reject,
	.iw_create_listen = hcm_iw_create_listen,
	.iw_destroy_listen = hcm_iw_destroy_listen,
};
EXPORT_SYMBOL(orcm_iw_host_device_ops);

#if IS_ENABLED(CONFIG_KUNIT)
/* References on the listener of @cm_id: 1 + its half-open connections. */
unsigned int orcm_iw_host_listener_refs(struct iw_cm_id *cm_id)
{
	struct hcm_listener *lis = cm_id->provider_data;

	return kref_read(&lis->kref);
}
EXPORT_SYMBOL_IF_KUNIT(orcm_iw_host_listener_refs);

/* The listener of @cm_id: half-open connections now, and refused ones. */
void orcm_iw_host_listener_stats(struct iw_cm_id *cm_id,
				 unsigned int *half_open,
				 unsigned long *refused, u32 *backlog)
{
	struct hcm_listener *lis = cm_id->provider_data;

	*backlog = READ_ONCE(lis->sock->sk->sk_max_ack_backlog);
	spin_lock_bh(&lis->lock);
	*half_open = lis->nr_half_open;
	*refused = lis->refused;
	spin_unlock_bh(&lis->lock);
}
EXPORT_SYMBOL_IF_KUNIT(orcm_iw_host_listener_stats);

/* Wait until the work queued so far on hcm_wq has run. */
void orcm_iw_host_flush(void)
{
	flush_workqueue(hcm_wq);
}
EXPORT_SYMBOL_IF_KUNIT(orcm_iw_host_flush);
#endif

int iwcm_host_init(void)
{
	hcm_wq = alloc_workqueue("iw_cm_host", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return hcm_wq ? 0 : -ENOMEM;
}

void iwcm_host_exit(void)
{
	destroy_workqueue(hcm_wq);
	/*
	 * Every user and driver is gone: a connection still here is held by
	 * a leak or by an armed timer, which would fire into the workqueue
	 * just destroyed.
	 */
	WARN_ON(atomic_read(&hcm_conns_live));
}
