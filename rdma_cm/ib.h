/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IB/RoCE half of the connection manager: the rdma_cm header that
 * prefixes REQ and SIDR_REQ private data (ib_hdr.c), RoCE address and route
 * resolution (roce.c), the ib_cm glue (ib.c) and UD ids over SIDR (ud.c).
 */
#ifndef _RDMA_CM_IB_H
#define _RDMA_CM_IB_H

#include <linux/if_ether.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>

struct rdma_id_private;

/*
 * The rdma_cm header: the first CMA_IB_HDR_LEN bytes of the private data of
 * a REQ or SIDR_REQ that rdma_cm sends. Wire layout (network order):
 * byte 0 version (CMA_IB_HDR_VERSION), byte 1 IP version in bits 7:4 (4 or
 * 6), bytes 2-3 the sender's source port, bytes 4-19 the source IP and
 * bytes 20-35 the destination IP (an IPv4 address in the last 4 bytes of
 * its 16, the first 12 zero).
 */
#define CMA_IB_HDR_LEN		36
#define CMA_IB_HDR_VERSION	0

union cma_ib_hdr_ip {
	struct in6_addr	ip6;
	struct {
		__be32	pad[3];
		__be32	addr;
	} ip4;
};

struct cma_ib_hdr {
	u8			version;
	u8			ip_version;	/* bits 7:4 */
	__be16			port;
	union cma_ib_hdr_ip	src;
	union cma_ib_hdr_ip	dst;
} __packed;

/* Write the header for a request from @src to @dst into @buf. */
int cma_ib_hdr_encode(struct cma_ib_hdr *hdr, const struct sockaddr *src,
		      const struct sockaddr *dst);
u8 *cma_ib_req_pdata(struct rdma_id_private *id_priv,
		     const struct rdma_conn_param *conn_param, u8 *len);

/*
 * Parse the header of request private data @pd (@len bytes) for service id
 * @sid: @local gets the destination IP with the port of @sid, @remote the
 * source IP and port. -EINVAL when @len is short or the version is
 * unknown; -EAFNOSUPPORT when the IP version is neither 4 nor 6, which is
 * how the in-tree CM tells the request of an AF_IB id (it has no header).
 */
int cma_ib_hdr_parse(const void *pd, size_t len, __be64 sid,
		     struct sockaddr_storage *local,
		     struct sockaddr_storage *remote);

/* Service id of port @port (network order) in port space @ps. */
__be64 cma_ib_service_id(enum rdma_ucm_port_space ps, __be16 port);
enum rdma_ucm_port_space cma_ib_sid_ps(__be64 sid);
__be16 cma_ib_sid_port(__be64 sid);

/*
 * Does a listener bound to @listen (afonly as given) take a request for the
 * local address @dst? Wildcards take their family, and an IPv6 wildcard
 * that is not afonly takes IPv4 too; a specific address takes itself. As
 * in-tree, an AF_IB listener takes any request, an IP listener no AF_IB
 * one (@dst of family AF_IB).
 */
bool cma_ib_listen_match(const struct sockaddr *listen, bool afonly,
			 const struct sockaddr *dst);

/* RoCE (roce.c). */
struct cma_roce_path_in {
	enum ib_gid_type	gid_type;
	union ib_gid		sgid;
	union ib_gid		dgid;
	u8			dmac[ETH_ALEN];
	u8			hop_limit;
	u8			tos;
	u8			sl;	/* the netdev's VLAN priority of @tos */
	int			netdev_mtu;
	u8			packet_life_time;
};

#define CMA_ROCE_PACKET_LIFETIME	16	/* 4.096 us * 2^16 = 268 ms */

int cma_roce_fill_path(struct sa_path_rec *rec,
		       const struct cma_roce_path_in *in);
int cma_roce_set_sgid(struct rdma_id_private *id_priv);
int cma_roce_resolve_route(struct rdma_id_private *id_priv);
int cma_roce_set_path_l2(struct rdma_id_private *id_priv,
			 struct sa_path_rec *rec);

/* ib_cm glue (ib.c). */
#if IS_ENABLED(CONFIG_KUNIT)
int cma_ib_listen_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ib_ev);
int cma_ib_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ib_ev);
#endif
int cma_ib_listen(struct rdma_id_private *id_priv);
int cma_ib_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_ib_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param);
int cma_ib_reject(struct rdma_id_private *id_priv, const void *pd,
		  u8 pd_len, u8 reason);
int cma_ib_disconnect(struct rdma_id_private *id_priv);
int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			struct ib_qp_attr *qp_attr, int *qp_attr_mask);
int cma_ib_qp_modify(struct rdma_id_private *id_priv,
		     enum ib_qp_state state);
void cma_ib_apply_timers(struct rdma_id_private *id_priv,
			 struct ib_qp_attr *qp_attr, int qp_attr_mask);

/* InfiniBand source GIDs and routes from the subnet administrator (sa.c). */
extern struct ib_sa_client cma_sa_client;
int cma_ib_set_sgid(struct rdma_id_private *id_priv);
void cma_ib_path_query(struct sa_path_rec *rec, ib_sa_comp_mask *mask,
		       struct rdma_dev_addr *dev_addr, __be64 sid,
		       bool tos_set, u8 tos);
int cma_ib_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms);
void cma_ib_cancel_route(struct rdma_id_private *id_priv);
void cma_sa_init(void);
void cma_sa_exit(void);

/* AF_IB addresses (afib.c). */
struct sockaddr_ib;
/*
 * The port space a bind of an @id_ps id to @sib takes (0: none, which
 * binding refuses with -EPROTONOSUPPORT); rewrites @sib's service id and
 * mask to that space's prefix and the port.
 */
enum rdma_ucm_port_space cma_afib_select_ps(enum rdma_ucm_port_space id_ps,
					    struct sockaddr_ib *sib);
/* The device address of source @sib: IB link layer, its GID and P_Key. */
void cma_afib_translate(const struct sockaddr_ib *sib,
			struct rdma_dev_addr *dev_addr);
/*
 * Whether an InfiniBand port holds the id's source GID (-ENODEV if not);
 * with @attach, bind the id to it (and its GID entry) unless it is bound.
 */
int cma_afib_bind_dev(struct rdma_id_private *id_priv, bool attach);
/*
 * rdma_resolve_addr() of an AF_IB destination, the id in ADDR_QUERY:
 * bind a port if the id has none, set the destination GID, and queue
 * ADDR_RESOLVED. Errors are synchronous (-ENODEV: no port reaches it).
 */
int cma_afib_resolve_addr(struct rdma_id_private *id_priv);
/*
 * The addresses of the new id of an AF_IB request: from the REQ's primary
 * @path, or for a SIDR_REQ (@path NULL) the listener's own (@listen) and
 * an unspecified destination.
 */
void cma_afib_req_addrs(struct rdma_id_private *conn_id,
			const struct sockaddr_ib *listen,
			const struct sa_path_rec *path);
/* Bytes of rdma_cm header in the requests of @id_priv: none for AF_IB. */
u8 cma_ib_hdr_len(struct rdma_id_private *id_priv);

/* UD ids (ud.c). */
int cma_ud_set_qkey(struct rdma_id_private *id_priv, u32 qkey);
int cma_ud_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_ud_reply(struct rdma_id_private *id_priv,
		 enum ib_cm_sidr_status status, u32 qkey,
		 const void *pd, u8 pd_len);
int cma_ud_qp_to_rts(struct rdma_id_private *id_priv, struct ib_qp *qp);
int cma_ud_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev);

#endif /* _RDMA_CM_IB_H */
