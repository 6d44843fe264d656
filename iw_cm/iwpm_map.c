// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: port mappings of ids, kernel-mode reservations,
 * remote info, and the hooks iw_cm calls (see iwpm.h for the modes).
 *
 * Only ids of devices without IW_F_NO_PORT_MAP are mapped (siw and the
 * host-stack model use host ports already). A host-stack device that
 * leaves the flag unset is an offloaded-CM device whose "card" TCP is the
 * host CM: it is mapped like any other (include/openrdma/iw_host.h). A listener is mapped at
 * iw_cm_listen(), an active id at iw_cm_connect() (daemon mode also asks
 * for the peer listener's mapping then), and the mapping goes at destroy.
 *
 * Kernel mode: the mapped address is a real host port, reserved by a
 * kernel TCP socket bound to it (not listening, no SO_REUSEADDR) in the
 * network namespace of the task calling iw_cm_listen()/iw_cm_connect():
 * the host stack then refuses that port to bind() and never picks it as
 * an ephemeral port. A listener reserves its own port (m_local_addr ==
 * local_addr), so peers need no port mapper to find it; a port the host
 * holds already makes the listen fail with -EADDRINUSE. An active id
 * tries its own port, and another one from the host when that is taken.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <openrdma/compat.h>

#include "iwcm.h"
#include "iwpm.h"

/* ---- iwpm_mode ---- */

static const char * const iwpm_mode_names[] = {
	[IWPM_MODE_AUTO]	= "auto",
	[IWPM_MODE_DAEMON]	= "daemon",
	[IWPM_MODE_KERNEL]	= "kernel",
	[IWPM_MODE_OFF]		= "off",
};

static int iwpm_mode = IWPM_MODE_AUTO;	/* READ_ONCE; set by the param */

static int iwpm_mode_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(iwpm_mode_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, i);
	return 0;
}

static int iwpm_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", iwpm_mode_names[READ_ONCE(*(int *)kp->arg)]);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Set the mode, return the old one (tests restore it). */
int iwpm_test_set_mode(int mode)
{
	return xchg(&iwpm_mode, mode);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_test_set_mode);
#endif

static const struct kernel_param_ops iwpm_mode_ops = {
	.set = iwpm_mode_set,
	.get = iwpm_mode_get,
};
module_param_cb(iwpm_mode, &iwpm_mode_ops, &iwpm_mode, 0644);
MODULE_PARM_DESC(iwpm_mode,
		 "Port mapper for RNICs without IW_F_NO_PORT_MAP: auto (iwpmd when it is there, else kernel; default), daemon (iwpmd only), kernel (host ports reserved by iw_cm), off");

/* ---- kernel-mode reservations ---- */

/*
 * A host port held for one or more ids (a wildcard listener on several
 * devices, or ids sharing a local address share one reservation).
 */
struct iwpm_resv {
	struct list_head node;		/* on iwpm_resvs */
	unsigned int users;
	struct net *net;		/* pinned by the socket */
	struct sockaddr_storage want;	/* what was asked for */
	struct sockaddr_storage bound;	/* what the socket holds */
	struct socket *sock;
};

/* One id's mapping. */
struct iwpm_mapping {
	struct list_head node;		/* on iwpm_maps */
	enum iwpm_mode mode;		/* IWPM_MODE_DAEMON or _KERNEL */
	bool listener;
	bool mapped;			/* iwpmd answered with addresses */
	char dev[IB_DEVICE_NAME_MAX];
	struct sockaddr_storage local, m_local, remote, m_remote;
	struct iwpm_resv *resv;		/* kernel mode */
};

/* iwpm_map_mutex protects iwpm_maps, iwpm_resvs and every entry's users. */
static DEFINE_MUTEX(iwpm_map_mutex);
static LIST_HEAD(iwpm_maps);
static LIST_HEAD(iwpm_resvs);

static int iwpm_addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

static __be16 iwpm_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)a)->sin6_port;
	return ((const struct sockaddr_in *)a)->sin_port;
}

static void iwpm_set_port(struct sockaddr_storage *a, __be16 port)
{
	if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = port;
	else
		((struct sockaddr_in *)a)->sin_port = port;
}

/* A bound, non-listening TCP socket holding @addr's port; ERR_PTR. */
static struct socket *iwpm_hold_port(struct net *net,
				     struct sockaddr_storage *addr)
{
	struct socket *sock;
	int err, len;

	/* The reservation pins its namespace, as a user's socket would. */
	err = orcm_sock_create_pinned(net, addr->ss_family, SOCK_STREAM,
				      IPPROTO_TCP, &sock);
	if (err)
		return ERR_PTR(err);
	err = kernel_bind(sock, (struct sockaddr *)addr, iwpm_addr_len(addr));
	if (err)
		goto out_release;
	len = kernel_getsockname(sock, (struct sockaddr *)addr);
	if (len < 0) {
		err = len;
		goto out_release;
	}
	return sock;

out_release:
	sock_release(sock);
	return ERR_PTR(err);
}

/**
 * iwpm_resv_get - reserve the host port of @addr in @net
 * @net: the network namespace
 * @addr: address and port (port 0: any)
 * @any_port: when @addr's port is taken, take another one
 * @bound: the address reserved
 *
 * Return: the reservation, or ERR_PTR (-EADDRINUSE: port taken,
 * -EADDRNOTAVAIL: not a local address, -EAFNOSUPPORT, -ENOMEM).
 */
struct iwpm_resv *iwpm_resv_get(struct net *net,
				const struct sockaddr_storage *addr,
				bool any_port, struct sockaddr_storage *bound)
{
	struct sockaddr_storage want;
	struct iwpm_resv *resv;
	struct socket *sock;

	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return ERR_PTR(-EAFNOSUPPORT);
	memset(&want, 0, sizeof(want));
	memcpy(&want, addr, iwpm_addr_len(addr));

	/* Held across the bind: two takers of one port share it. */
	mutex_lock(&iwpm_map_mutex);
	list_for_each_entry(resv, &iwpm_resvs, node) {
		if (resv->net == net && iwpm_port(addr) &&
		    (iwpm_addr_equal(&resv->want, &want) ||
		     iwpm_addr_equal(&resv->bound, &want))) {
			resv->users++;
			goto out;
		}
	}
	resv = kzalloc(sizeof(*resv), GFP_KERNEL);
	if (!resv) {
		resv = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	resv->bound = want;
	sock = iwpm_hold_port(net, &resv->bound);
	if (IS_ERR(sock) && PTR_ERR(sock) == -EADDRINUSE && any_port) {
		resv->bound = want;
		iwpm_set_port(&resv->bound, 0);
		sock = iwpm_hold_port(net, &resv->bound);
	}
	if (IS_ERR(sock)) {
		kfree(resv);
		resv = ERR_CAST(sock);
		goto out_unlock;
	}
	resv->users = 1;
	resv->net = net;
	resv->want = want;
	resv->sock = sock;
	list_add(&resv->node, &iwpm_resvs);
out:
	*bound = resv->bound;
out_unlock:
	mutex_unlock(&iwpm_map_mutex);
	return resv;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_resv_get);

void iwpm_resv_put(struct iwpm_resv *resv)
{
	bool last;

	mutex_lock(&iwpm_map_mutex);
	last = !--resv->users;
	if (last)
		list_del(&resv->node);
	mutex_unlock(&iwpm_map_mutex);
	if (!last)
		return;
	sock_release(resv->sock);
	kfree(resv);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_resv_put);

/* ---- remote info (daemon mode, passive side) ---- */

#define IWPM_REMOTE_INFO_MAX	1024

struct iwpm_remote_info {
	struct list_head node;
	struct sockaddr_storage m_local, m_remote, remote;
};

/* iwpm_ri_lock protects iwpm_ri and iwpm_ri_count; any context. */
static DEFINE_SPINLOCK(iwpm_ri_lock);
static LIST_HEAD(iwpm_ri);
static unsigned int iwpm_ri_count;

void iwpm_remote_info_add(const struct sockaddr_storage *mapped_local,
			  const struct sockaddr_storage *mapped_remote,
			  const struct sockaddr_storage *remote)
{
	struct iwpm_remote_info *ri, *old = NULL;

	ri = kzalloc(sizeof(*ri), GFP_KERNEL);
	if (!ri)
		return;
	ri->m_local = *mapped_local;
	ri->m_remote = *mapped_remote;
	ri->remote = *remote;
	spin_lock_bh(&iwpm_ri_lock);
	/* Bounded: the oldest notice goes (its peer never connected). */
	if (iwpm_ri_count >= IWPM_REMOTE_INFO_MAX) {
		old = list_first_entry(&iwpm_ri, struct iwpm_remote_info, node);
		list_del(&old->node);
		iwpm_ri_count--;
	}
	list_add_tail(&ri->node, &iwpm_ri);
	iwpm_ri_count++;
	spin_unlock_bh(&iwpm_ri_lock);
	kfree(old);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_remote_info_add);

bool iwpm_remote_info_take(const struct sockaddr_storage *mapped_local,
			   const struct sockaddr_storage *mapped_remote,
			   struct sockaddr_storage *remote)
{
	struct iwpm_remote_info *ri, *found = NULL;

	spin_lock_bh(&iwpm_ri_lock);
	list_for_each_entry(ri, &iwpm_ri, node) {
		if (iwpm_addr_equal(&ri->m_local, mapped_local) &&
		    iwpm_addr_equal(&ri->m_remote, mapped_remote)) {
			found = ri;
			list_del(&ri->node);
			iwpm_ri_count--;
			break;
		}
	}
	spin_unlock_bh(&iwpm_ri_lock);
	if (!found)
		return false;
	*remote = found->remote;
	kfree(found);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_remote_info_take);

static void iwpm_remote_info_flush(void)
{
	struct iwpm_remote_info *ri, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&iwpm_ri_lock);
	list_splice_init(&iwpm_ri, &gone);
	iwpm_ri_count = 0;
	spin_unlock_bh(&iwpm_ri_lock);
	list_for_each_entry_safe(ri, tmp, &gone, node)
		kfree(ri);
}

/* ---- the hooks ---- */

/*
 * The namespace of the id's host ports. rdma_cm does not tell iw_cm the
 * id's namespace (orcm_iw_cm_set_net() of <openrdma/iw_host.h> will), so:
 * that of the task listening or connecting, as siw does.
 */
static void iwpm_copy_ip(struct sockaddr_storage *to,
			 const struct sockaddr_storage *from)
{
	if (to->ss_family != from->ss_family)
		return;
	if (to->ss_family == AF_INET)
		((struct sockaddr_in *)to)->sin_addr =
			((const struct sockaddr_in *)from)->sin_addr;
	else if (to->ss_family == AF_INET6)
		((struct sockaddr_in6 *)to)->sin6_addr =
			((const struct sockaddr_in6 *)from)->sin6_addr;
}

static int iwpm_map_kernel(struct iw_cm_id *id, struct iwpm_mapping *m,
			   bool active)
{
	struct sockaddr_storage bound;
	struct iwpm_resv *resv;

	resv = iwpm_resv_get(iwcm_id_net(id), &id->local_addr, active, &bound);
	if (IS_ERR(resv)) {
		if (PTR_ERR(resv) == -EADDRINUSE && !active)
			return -EADDRINUSE;
		/* Not a host address here, say: as with no port mapper. */
		pr_info_ratelimited("%s: %pISpc not reserved (%ld): unmapped\n",
				    m->dev, &id->local_addr, PTR_ERR(resv));
		return -ENOENT;
	}
	m->mode = IWPM_MODE_KERNEL;
	m->resv = resv;
	m->mapped = true;
	id->m_local_addr = bound;
	return 0;
}

/* 0: @m filled in, -ENOENT: no iwpmd answered. */
static int iwpm_map_daemon(struct iw_cm_id *id, struct iwpm_mapping *m,
			   bool active)
{
	struct iwpm_daemon_map out;
	int ret;

	ret = iwpm_daemon_map(m->dev, id->device->iw_ifname, &id->local_addr,
			      active ? &id->remote_addr : NULL, &out);
	if (ret == -ENOENT)
		return ret;
	/* iwpmd took the request: it may hold a mapping until we remove it. */
	m->mode = IWPM_MODE_DAEMON;
	if (ret)
		return 0;	/* refused: unmapped, as in-tree */
	m->mapped = true;
	id->m_local_addr = out.mapped_local;
	if (active) {
		id->m_remote_addr = out.mapped_remote;
		/* The peer's port mapper may leave the address out. */
		if (iwpm_addr_any(&out.mapped_remote))
			iwpm_copy_ip(&id->m_remote_addr, &id->remote_addr);
	}
	return 0;
}

static int iwpm_map(struct iwcm_id_priv *priv, bool active)
{
	struct iw_cm_id *id = &priv->id;
	struct iwpm_mapping *m;
	int mode, ret;

	iwpm_unmap(priv);
	id->m_local_addr = id->local_addr;
	id->m_remote_addr = id->remote_addr;
	id->mapped = false;
	mode = READ_ONCE(iwpm_mode);
	if ((id->device->iw_driver_flags & IW_F_NO_PORT_MAP) ||
	    mode == IWPM_MODE_OFF)
		return 0;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	/* An unregistered device (a test's fake) has no name yet. */
	strscpy(m->dev, dev_name(&id->device->dev) ?: "", sizeof(m->dev));
	m->listener = !active;

	ret = -ENOENT;
	if (mode == IWPM_MODE_DAEMON ||
	    (mode == IWPM_MODE_AUTO && iwpm_daemon_reachable()))
		ret = iwpm_map_daemon(id, m, active);
	if (ret == -ENOENT && mode != IWPM_MODE_DAEMON)
		ret = iwpm_map_kernel(id, m, active);
	if (ret) {
		kfree(m);
		return ret == -ENOENT ? 0 : ret;
	}

	id->mapped = true;
	m->local = id->local_addr;
	m->m_local = id->m_local_addr;
	m->remote = id->remote_addr;
	m->m_remote = id->m_remote_addr;
	mutex_lock(&iwpm_map_mutex);
	list_add_tail(&m->node, &iwpm_maps);
	mutex_unlock(&iwpm_map_mutex);
	priv->pm = m;
	return 0;
}

int iwpm_map_listen(struct iwcm_id_priv *priv)
{
	return iwpm_map(priv, false);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_map_listen);

int iwpm_map_connect(struct iwcm_id_priv *priv)
{
	return iwpm_map(priv, true);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_map_connect);

void iwpm_unmap(struct iwcm_id_priv *priv)
{
	struct iwpm_mapping *m = priv->pm;

	if (priv->pm_conn_resv) {
		iwpm_resv_put(priv->pm_conn_resv);
		priv->pm_conn_resv = NULL;
	}
	if (!m)
		return;
	priv->pm = NULL;
	mutex_lock(&iwpm_map_mutex);
	list_del(&m->node);
	mutex_unlock(&iwpm_map_mutex);
	if (m->mode == IWPM_MODE_DAEMON)
		iwpm_daemon_unmap(&m->local);
	else
		iwpm_resv_put(m->resv);
	kfree(m);
}
EXPORT_SYMBOL_IF_KUNIT(iwpm_unmap);

/*
 * As in-tree: when iwpmd said where this peer really comes from, the new
 * id and the event carry the peer's own address and our listener's own
 * port (with the address the request came to, for a wildcard listener).
 * Reads only the listener's id, which the worker holds a reference on.
 */
/*
 * A connection accepted on a kernel-mode mapped listener runs on the
 * listener's host port: it keeps the reservation while it lives. Its
 * socket (the host CM's stand-in for the card's TCP) sits in the port's
 * bind bucket, so a fresh reservation of that port (a new listener of a
 * ULP that closed the old one but keeps its connections, as perftest's
 * server does) would collide with it; sharing the held one does not. The
 * listener's mapping is looked up on the table under iwpm_map_mutex: a
 * destroy that races with this work takes it off the table first.
 */
static void iwpm_conn_share_resv(struct iwcm_id_priv *listener,
				 struct iwcm_id_priv *child)
{
	struct iwpm_mapping *m, *lm = READ_ONCE(listener->pm);

	if (!lm || child->pm_conn_resv)
		return;
	mutex_lock(&iwpm_map_mutex);
	list_for_each_entry(m, &iwpm_maps, node) {
		if (m != lm)
			continue;
		if (m->mode == IWPM_MODE_KERNEL && m->resv) {
			m->resv->users++;
			child->pm_conn_resv = m->resv;
		}
		break;
	}
	mutex_unlock(&iwpm_map_mutex);
}

void iwpm_conn_request(struct iwcm_id_priv *listener,
		       struct iwcm_id_priv *child, struct iw_cm_event *event)
{
	struct sockaddr_storage remote, local;

	iwpm_conn_share_resv(listener, child);
	if (!listener->id.mapped ||
	    !iwpm_remote_info_take(&listener->id.m_local_addr,
				   &event->remote_addr, &remote))
		return;
	local = listener->id.local_addr;
	if (iwpm_addr_any(&listener->id.m_local_addr))
		iwpm_copy_ip(&local, &event->local_addr);
	child->id.local_addr = local;
	child->id.remote_addr = remote;
	event->local_addr = local;
	event->remote_addr = remote;
}

int iwpm_mapinfo_fill(u16 abi, int (*send)(struct sk_buff *skb, void *arg),
		      void *arg)
{
	struct iwpm_mapping *m;
	struct sk_buff *skb;
	int n = 0, err = 0;

	skb = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	mutex_lock(&iwpm_map_mutex);
	list_for_each_entry(m, &iwpm_maps, node) {
		if (m->mode != IWPM_MODE_DAEMON || !m->mapped)
			continue;
		err = iwpm_msg_put_mapinfo(skb, abi, &m->local, &m->m_local, 0);
		if (err == -EMSGSIZE) {
			/* Full (room for NLMSG_DONE is kept): next skb. */
			err = send(skb, arg);
			skb = err ? NULL : nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
			if (!skb) {
				err = err ?: -ENOMEM;
				break;
			}
			err = iwpm_msg_put_mapinfo(skb, abi, &m->local,
						   &m->m_local, 0);
		}
		if (err)
			break;
		n++;
	}
	mutex_unlock(&iwpm_map_mutex);
	if (err || !n) {
		nlmsg_free(skb);
		return err ?: 0;
	}
	err = send(skb, arg);
	return err ?: n;
}

/* ---- debugfs: /sys/kernel/debug/iw_cm/port_map ---- */

static int iwpm_show(struct seq_file *s, void *unused)
{
	unsigned int bad, timeouts, ri;
	struct iwpm_mapping *m;
	bool registered;
	u32 pid;
	u16 abi;

	iwpm_nl_stats(&pid, &abi, &registered, &bad, &timeouts);
	spin_lock_bh(&iwpm_ri_lock);
	ri = iwpm_ri_count;
	spin_unlock_bh(&iwpm_ri_lock);
	seq_printf(s, "mode %s\n", iwpm_mode_names[READ_ONCE(iwpm_mode)]);
	seq_printf(s, "iwpmd port %u abi %u registered %d bad_msgs %u timeouts %u remote_info %u\n",
		   pid, abi, registered, bad, timeouts, ri);
	mutex_lock(&iwpm_map_mutex);
	list_for_each_entry(m, &iwpm_maps, node) {
		seq_printf(s, "%s %s %s local %pISpc mapped %pISpc",
			   iwpm_mode_names[m->mode],
			   m->listener ? "listen" : "connect", m->dev,
			   &m->local, &m->m_local);
		if (!m->listener)
			seq_printf(s, " remote %pISpc mapped_remote %pISpc",
				   &m->remote, &m->m_remote);
		seq_printf(s, "%s\n", m->mapped ? "" : " refused");
	}
	mutex_unlock(&iwpm_map_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(iwpm);

static struct dentry *iwpm_dir;

int iwpm_init(void)
{
	int ret;

	ret = iwpm_nl_init();
	if (ret)
		return ret;
	iwpm_dir = debugfs_create_dir("iw_cm", NULL);
	debugfs_create_file("port_map", 0444, iwpm_dir, NULL, &iwpm_fops);
	return 0;
}

void iwpm_exit(void)
{
	debugfs_remove(iwpm_dir);
	iwpm_nl_exit();
	iwpm_remote_info_flush();
	WARN_ON(!list_empty(&iwpm_maps) || !list_empty(&iwpm_resvs));
}
