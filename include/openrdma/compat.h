/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shims over the differences between the kernels we build for, keyed by what
 * the target kernel has (ORCM_HAVE_*, probed at build time by compat/probe.sh
 * against the target's own headers), never by its version number. A kernel
 * with a new difference gets a probe there and a shim here; the code keeps
 * using the newest kernel's interface.
 */
#ifndef _OPENRDMA_COMPAT_H
#define _OPENRDMA_COMPAT_H

#include <openrdma/compat_config.h>

/*
 * Only headers that every file of ours including this one sees anyway:
 * genksyms hashes every type a file sees defined, so one more header here
 * (say <rdma/uverbs_ioctl.h>) would change the CRC of every export of the
 * files that include it (DESIGN.md, "Symbol CRCs").
 */
#include <linux/device.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

/*
 * Without <kunit/static_stub.h> (its stand-in includes this file) there is
 * no stub to redirect to: the function runs as it is.
 */
#ifndef ORCM_HAVE_KUNIT_STATIC_STUB_H
#ifndef KUNIT_STATIC_STUB_REDIRECT
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do { } while (0)
#endif
#endif

/*
 * __assign_str() in a TP_fast_assign: the field alone, or (older kernels) the
 * field and the source its __string() named again.
 */
#ifdef ORCM_HAVE_ASSIGN_STR_1ARG
#define orcm_assign_str(dst, src) __assign_str(dst)
#else
#define orcm_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * ORCM_CTL_TABLE_END after the last entry of a ctl_table array: nothing where
 * the kernel registers a table with its size (and, since 6.11, would take an
 * empty entry for one more sysctl), the empty entry that ends the table where
 * it walks to the first entry without a procname (6.1 runs off the end of a
 * table without one: an oops in __register_sysctl_table()).
 */
#ifdef ORCM_HAVE_SYSCTL_TABLE_SIZE
#define ORCM_CTL_TABLE_END
#else
#define ORCM_CTL_TABLE_END { }
#endif

/* register_net_sysctl() of a table given by pointer and entry count. */
#ifdef ORCM_HAVE_SYSCTL_TABLE_SIZE
#define orcm_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz(net, path, table, n)
#else
#define orcm_register_net_sysctl(net, path, table, n) \
	register_net_sysctl(net, path, table)
#endif

/* The type of ib_sa_path_rec_get()'s record count in its callback. */
#ifdef ORCM_HAVE_SA_PATH_REC_CB_UINT
typedef unsigned int orcm_num_prs_t;
#else
typedef int orcm_num_prs_t;
#endif

#ifndef ORCM_HAVE_IB_DEVICE_GET_NETDEV
/*
 * The netdev of @port with a reference held, or NULL: from the driver's
 * get_netdev op when it has one, else what the driver registered with
 * ib_device_set_netdev() (ib_core keeps it, RCU-protected, per port).
 */
static inline struct net_device *ib_device_get_netdev(struct ib_device *dev,
						      u32 port)
{
	struct net_device *ndev;

	if (!rdma_is_port_valid(dev, port))
		return NULL;
	if (dev->ops.get_netdev)
		return dev->ops.get_netdev(dev, port);
	rcu_read_lock();
	ndev = rcu_dereference(dev->port_data[port].netdev);
	if (ndev)
		dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}
#endif

/*
 * orcm_sock_create_pinned(): a TCP/IP socket of the kernel's own that holds
 * a reference on @net as a user's socket does. Without
 * sk_net_refcnt_upgrade() it is made as a user-style socket (kern=0), which
 * pins its namespace from the start.
 */
static inline int orcm_sock_create_pinned(struct net *net, int family,
					  int type, int proto,
					  struct socket **res)
{
#ifdef ORCM_HAVE_SK_NET_REFCNT_UPGRADE
	int err = sock_create_kern(net, family, type, proto, res);

	if (!err)
		sk_net_refcnt_upgrade((*res)->sk);
	return err;
#else
	return __sock_create(net, family, type, proto, res, 0);
#endif
}

/*
 * static ORCM_CLASS_ATTR_RW(name): static CLASS_ATTR_RW(name) for
 * name_show() and name_store() written with const class and attribute
 * pointers, as the newer kernels call them; where the kernel passes them
 * non-const, through adapters (the "static" before it declares the first).
 */
#ifdef ORCM_HAVE_CONST_CLASS_ATTR
#define ORCM_CLASS_ATTR_RW(_name) CLASS_ATTR_RW(_name)
#else
#define ORCM_CLASS_ATTR_RW(_name)					\
ssize_t orcm_##_name##_show(struct class *c,				\
			    struct class_attribute *a, char *buf);	\
static ssize_t orcm_##_name##_show(struct class *c,			\
				   struct class_attribute *a, char *buf) \
{									\
	return _name##_show(c, a, buf);					\
}									\
static ssize_t orcm_##_name##_store(struct class *c,			\
				    struct class_attribute *a,		\
				    const char *buf, size_t count)	\
{									\
	return _name##_store(c, a, buf, count);				\
}									\
static struct class_attribute class_attr_##_name =			\
	__ATTR(_name, 0644, orcm_##_name##_show, orcm_##_name##_store)
#endif

/*
 * ORCM_CREATE_CQ(fn): the create_cq op for @fn, written as the newer kernels
 * call it (with the uverbs_attr_bundle, NULL for a kernel CQ). Where the op
 * takes the udata, an adapter (ORCM_DEFINE_CREATE_CQ(fn) beside @fn's ops
 * table) hands @fn the bundle that holds the udata: every user CQ's udata is
 * the driver_udata of its bundle. The file using it includes
 * <rdma/uverbs_ioctl.h>.
 */
#ifdef ORCM_HAVE_CREATE_CQ_ATTRS
#define ORCM_DEFINE_CREATE_CQ(fn)
#define ORCM_CREATE_CQ(fn) (fn)
#else
#define ORCM_DEFINE_CREATE_CQ(fn)					\
static int orcm_##fn(struct ib_cq *cq, const struct ib_cq_init_attr *attr, \
		     struct ib_udata *udata)				\
{									\
	return fn(cq, attr, udata ? container_of(udata,			\
			struct uverbs_attr_bundle, driver_udata) : NULL); \
}

#define ORCM_CREATE_CQ(fn) (orcm_##fn)
#endif

#endif /* _OPENRDMA_COMPAT_H */
