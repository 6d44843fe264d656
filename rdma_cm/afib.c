// SPDX-License-Identifier: GPL-2.0
/*
 * AF_IB addresses (struct sockaddr_ib of <rdma/ib.h>): an InfiniBand GID, a
 * P_Key, a flow label and a service id in place of an IP address and a
 * port. What a caller sees follows the in-tree CM:
 *
 * - The service id names the port space (bits 63:16, RDMA_IB_IP_PS_*) and
 *   the port (bits 15:0); sib_sid_mask says which bits the caller chose.
 *   Binding picks the port space the significant bits allow for the id's
 *   own (an RDMA_PS_IB id may take the IB, TCP or UDP space; a TCP or UDP
 *   id only its own) and rewrites the id's service id as that space's
 *   prefix and the port, with the prefix made significant;
 *   cma_afib_select_ps(). An IPOIB id, or bits that name no space, get
 *   -EPROTONOSUPPORT.
 * - A specific source GID binds the InfiniBand port whose GID table holds
 *   it (never a RoCE or iWARP port: -ENODEV), without address resolution.
 * - A destination GID is resolved without ARP: the id's port if it is
 *   bound, else the first port (device order, then port order) with AF_IB
 *   addressing and the destination's P_Key whose GID table holds the
 *   destination GID or, if the port is ACTIVE, a GID of the same subnet
 *   prefix; that GID becomes the source. The zero and loopback GIDs go to
 *   the first device with an IB CM (an ACTIVE port if it has one).
 * - Requests carry no rdma_cm header: the consumer's private data is the
 *   whole of the REQ's (92 bytes) or SIDR_REQ's (216), and a listener
 *   bound to AF_IB gets all of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/if_arp.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "cma_priv.h"
#include "ib.h"

/* The port spaces a service id may name, in the order they are tried. */
static const struct {
	enum rdma_ucm_port_space	ps;
	u64				prefix;
} cma_afib_spaces[] = {
	{ RDMA_PS_IB,	RDMA_IB_IP_PS_IB },
	{ RDMA_PS_TCP,	RDMA_IB_IP_PS_TCP },
	{ RDMA_PS_UDP,	RDMA_IB_IP_PS_UDP },
};

enum rdma_ucm_port_space
cma_afib_select_ps(enum rdma_ucm_port_space id_ps, struct sockaddr_ib *sib)
{
	u64 mask = be64_to_cpu(sib->sib_sid_mask) & RDMA_IB_IP_PS_MASK;
	u64 bits = be64_to_cpu(sib->sib_sid) & mask;
	u16 port = ntohs(cma_port((struct sockaddr *)sib));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cma_afib_spaces); i++) {
		u64 prefix = cma_afib_spaces[i].prefix;

		if (id_ps != RDMA_PS_IB && id_ps != cma_afib_spaces[i].ps)
			continue;
		if (bits != (prefix & mask))
			continue;
		sib->sib_sid = cpu_to_be64(prefix | port);
		sib->sib_sid_mask = cpu_to_be64(be64_to_cpu(sib->sib_sid_mask) |
						RDMA_IB_IP_PS_MASK);
		return cma_afib_spaces[i].ps;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_afib_select_ps);

/* The device address of a source @sib: IB link, its GID and P_Key. */
void cma_afib_translate(const struct sockaddr_ib *sib,
			struct rdma_dev_addr *dev_addr)
{
	union ib_gid gid;

	memcpy(&gid, &sib->sib_addr, sizeof(gid));
	dev_addr->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(dev_addr, &gid);
	ib_addr_set_pkey(dev_addr, ntohs(sib->sib_pkey));
}
EXPORT_SYMBOL_IF_KUNIT(cma_afib_translate);

/*
 * The InfiniBand port whose GID table holds @gid, of a device @net may
 * use, with the GID's entry in *@attr; cma_lock. NULL if there is none.
 */
static struct cma_device *cma_afib_gid_port(struct net *net,
					    const union ib_gid *gid, u32 *port,
					    const struct ib_gid_attr **attr)
{
	struct cma_device *cma_dev;
	u32 p;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (cma_dev->removing ||
		    !rdma_dev_access_netns(cma_dev->device, net))
			continue;
		rdma_for_each_port(cma_dev->device, p) {
			if (!rdma_protocol_ib(cma_dev->device, p))
				continue;
			*attr = rdma_find_gid_by_port(cma_dev->device, gid,
						      IB_GID_TYPE_IB, p, NULL);
			if (!IS_ERR(*attr)) {
				*port = p;
				return cma_dev;
			}
		}
	}
	return NULL;
}

int cma_afib_bind_dev(struct rdma_id_private *id_priv, bool attach)
{
	const struct sockaddr_ib *sib = (void *)cma_src_addr(id_priv);
	const struct ib_gid_attr *attr;
	struct cma_device *cma_dev;
	union ib_gid gid;
	u32 port;

	memcpy(&gid, &sib->sib_addr, sizeof(gid));
	mutex_lock(&cma_lock);
	cma_dev = cma_afib_gid_port(cma_net(id_priv), &gid, &port, &attr);
	if (cma_dev && attach && !id_priv->cma_dev) {
		cma_attach_dev(id_priv, cma_dev, port);
		cma_set_sgid_attr(id_priv, attr);
		id_priv->gid_type = IB_GID_TYPE_IB;
		attr = NULL;
	}
	mutex_unlock(&cma_lock);
	if (cma_dev && attr)
		rdma_put_gid_attr(attr);
	return cma_dev ? 0 : -ENODEV;
}

/*
 * The GID of @port of @device that a destination @dgid is reached from:
 * @dgid itself if the port has it, else (ACTIVE ports only) the first GID
 * of @dgid's subnet prefix, whichever comes first in the table. Its index,
 * or -1.
 */
static int cma_afib_port_sgid(struct ib_device *device, u32 port,
			      const union ib_gid *dgid, union ib_gid *sgid)
{
	enum ib_port_state state;
	int i;

	if (ib_get_cached_port_state(device, port, &state))
		return -1;
	for (i = 0; i < device->port_data[port].immutable.gid_tbl_len; i++) {
		if (rdma_query_gid(device, port, i, sgid))
			continue;
		if (!memcmp(sgid, dgid, sizeof(*sgid)))
			return i;
		if (state == IB_PORT_ACTIVE &&
		    sgid->global.subnet_prefix == dgid->global.subnet_prefix)
			return i;
	}
	return -1;
}

/* Bind an id without a device to the port that reaches its destination. */
static int cma_afib_resolve_dev(struct rdma_id_private *id_priv)
{
	struct sockaddr_ib *dst = (void *)cma_dst_addr(id_priv);
	struct sockaddr_ib *src = (void *)cma_src_addr(id_priv);
	const struct ib_gid_attr *attr = NULL;
	struct cma_device *cma_dev, *found = NULL;
	union ib_gid dgid, sgid;
	u16 pkey_index;
	u32 port;
	int idx = -1;

	memcpy(&dgid, &dst->sib_addr, sizeof(dgid));
	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (cma_dev->removing)
			continue;
		rdma_for_each_port(cma_dev->device, port) {
			if (!rdma_cap_af_ib(cma_dev->device, port) ||
			    ib_find_cached_pkey(cma_dev->device, port,
						ntohs(dst->sib_pkey),
						&pkey_index))
				continue;
			idx = cma_afib_port_sgid(cma_dev->device, port, &dgid,
						 &sgid);
			if (idx >= 0) {
				found = cma_dev;
				goto found;
			}
		}
	}
found:
	if (found) {
		attr = rdma_get_gid_attr(found->device, port, idx);
		cma_attach_dev(id_priv, found, port);
	}
	mutex_unlock(&cma_lock);
	if (!found)
		return -ENODEV;
	if (!IS_ERR(attr)) {
		cma_set_sgid_attr(id_priv, attr);
		id_priv->gid_type = IB_GID_TYPE_IB;
	}
	memcpy(&src->sib_addr, &sgid, sizeof(sgid));
	cma_afib_translate(src, &id_priv->id.route.addr.dev_addr);
	return 0;
}

/*
 * A zero or loopback destination on an id without a device: the first
 * device with an IB CM, at its first ACTIVE port or else port 1; GID and
 * P_Key are the port's first; the source becomes the loopback GID.
 */
static int cma_afib_bind_loopback(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr_ib *src = (void *)cma_src_addr(id_priv);
	struct cma_device *cma_dev, *found = NULL;
	enum ib_port_state state;
	union ib_gid gid;
	u32 port = 0, p;
	u16 pkey;
	int ret = -ENODEV;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_dev_list, list) {
		if (cma_dev->removing ||
		    !rdma_cap_ib_cm(cma_dev->device,
				    rdma_start_port(cma_dev->device)))
			continue;
		if (!found) {
			found = cma_dev;
			port = rdma_start_port(cma_dev->device);
		}
		rdma_for_each_port(cma_dev->device, p) {
			if (!ib_get_cached_port_state(cma_dev->device, p,
						      &state) &&
			    state == IB_PORT_ACTIVE) {
				found = cma_dev;
				port = p;
				goto found;
			}
		}
	}
found:
	if (!found)
		goto out_unlock;
	ret = rdma_query_gid(found->device, port, 0, &gid);
	if (!ret)
		ret = ib_get_cached_pkey(found->device, port, 0, &pkey);
	if (ret)
		goto out_unlock;
	dev_addr->dev_type = rdma_protocol_ib(found->device, port) ?
			     ARPHRD_INFINIBAND : ARPHRD_ETHER;
	rdma_addr_set_sgid(dev_addr, &gid);
	ib_addr_set_pkey(dev_addr, pkey);
	cma_attach_dev(id_priv, found, port);
	memset(&src->sib_addr, 0, sizeof(src->sib_addr));
	src->sib_addr.sib_addr32[3] = htonl(1);
out_unlock:
	mutex_unlock(&cma_lock);
	return ret;
}

int cma_afib_resolve_addr(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct sockaddr_ib *dst = (void *)cma_dst_addr(id_priv);
	union ib_gid gid;
	int ret = 0;

	if (cma_any_addr(cma_dst_addr(id_priv)) ||
	    cma_loopback_addr(cma_dst_addr(id_priv))) {
		if (!id_priv->cma_dev)
			ret = cma_afib_bind_loopback(id_priv);
		if (ret)
			return ret;
		rdma_addr_get_sgid(dev_addr, &gid);
	} else {
		if (!id_priv->cma_dev)
			ret = cma_afib_resolve_dev(id_priv);
		if (ret)
			return ret;
		memcpy(&gid, &dst->sib_addr, sizeof(gid));
	}
	rdma_addr_set_dgid(dev_addr, &gid);
	cma_queue_event(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED,
			&ev);
	return 0;
}

void cma_afib_req_addrs(struct rdma_id_private *conn_id,
			const struct sockaddr_ib *listen,
			const struct sa_path_rec *path)
{
	struct sockaddr_ib *src = (void *)cma_src_addr(conn_id);
	struct sockaddr_ib *dst = (void *)cma_dst_addr(conn_id);

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	src->sib_family = AF_IB;
	dst->sib_family = AF_IB;
	if (path) {
		src->sib_pkey = path->pkey;
		src->sib_flowinfo = path->flow_label;
		memcpy(&src->sib_addr, &path->sgid, sizeof(src->sib_addr));
		src->sib_sid = path->service_id;
		dst->sib_pkey = path->pkey;
		dst->sib_flowinfo = path->flow_label;
		memcpy(&dst->sib_addr, &path->dgid, sizeof(dst->sib_addr));
	} else {
		src->sib_pkey = listen->sib_pkey;
		src->sib_flowinfo = listen->sib_flowinfo;
		src->sib_addr = listen->sib_addr;
		src->sib_sid = listen->sib_sid;
		src->sib_scope_id = listen->sib_scope_id;
	}
	src->sib_sid_mask = cpu_to_be64(U64_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(cma_afib_req_addrs);
