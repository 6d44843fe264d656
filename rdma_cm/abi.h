/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The headers whose types the in-tree rdma_cm translation unit sees.
 *
 * genksyms expands every type reachable from an exported prototype as far
 * as the exporting file knows it (struct ib_device reaches struct net, and
 * struct net reaches much of the IPv4/IPv6/TCP stack). For our exports to
 * carry the in-tree CRCs, every file that exports includes this header
 * (through cma_priv.h) so it knows exactly the types the in-tree file knew.
 */
#ifndef _RDMA_CM_ABI_H
#define _RDMA_CM_ABI_H

#include <openrdma/symvers.h>

#include <linux/cgroup_rdma.h>
#include <linux/completion.h>
#include <linux/igmp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netevent.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/tcp.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_smi.h>
#include <rdma/iw_cm.h>
#include <rdma/opa_addr.h>
#include <rdma/opa_smi.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <trace/misc/rdma.h>

#endif /* _RDMA_CM_ABI_H */
