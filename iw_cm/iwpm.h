/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openrdma-cm iw_cm: the iWARP port mapper (private to iw_cm.ko).
 *
 * An offloaded-CM RNIC (cxgb4, irdma: no IW_F_NO_PORT_MAP) runs TCP on the
 * card with the host's IP addresses, so its ports must not collide with the
 * host stack's. The port mapper gives each id a "mapped" local address that
 * the RNIC uses on the wire (iw_cm_id.m_local_addr, and m_remote_addr for
 * the peer's), while the ULP keeps seeing its own addresses.
 *
 * Modes (module parameter iwpm_mode):
 *  - daemon: rdma-core's iwpmd maps, over netlink (client RDMA_NL_IWCM),
 *    as with the in-tree iw_cm; without a responsive iwpmd, no mapping;
 *  - kernel: no daemon; iw_cm reserves the port as a real host port by
 *    binding a kernel TCP socket to it (iwpm_map.c);
 *  - off: no mapping;
 *  - auto (default): daemon while iwpmd is registered, else kernel.
 *
 * Files: iwpm_msg.c (netlink message encode/decode), iwpm_nl.c (the iwpmd
 * client: requests, sequence numbers, timeouts, callbacks), iwpm_map.c
 * (mapping table, kernel-mode reservations, remote info, iw_cm hooks,
 * debugfs).
 */
#ifndef _OPENRDMA_IWPM_H
#define _OPENRDMA_IWPM_H

#include <linux/netlink.h>
#include <linux/socket.h>
#include <linux/types.h>

struct iw_cm_id;
struct iw_cm_event;
struct iwcm_id_priv;
struct net;
struct sk_buff;

/* Fixed-size strings of the REG_PID request, as iwpmd reads them. */
#define IWPM_IFNAME_LEN		16
#define IWPM_DEVNAME_LEN	32
#define IWPM_ULIBNAME_LEN	32
/* Both ends of the netlink protocol call themselves this (in-tree too). */
#define IWPM_ULIB_NAME		"iWarpPortMapperUser"
/* iwpmd's error code for a query the remote port mapper rejected. */
#define IWPM_ERR_REMOTE_QUERY_REJECT	0x0007

/* ---- iwpm_msg.c: messages; no state, any context that may allocate ---- */

/* What a request carries, besides its type and nlmsg sequence number. */
struct iwpm_msg_req {
	u32 echo_seq;			/* last nlmsg_seq iwpmd sent us */
	u16 abi;			/* negotiated ABI version (3 or 4) */
	u32 flags;			/* IWPM_FLAGS_*, sent from ABI 4 on */
	const char *ifname;		/* REG_PID */
	const char *devname;		/* REG_PID */
	const struct sockaddr_storage *local;
	const struct sockaddr_storage *remote;	/* QUERY_MAPPING */
};

struct sk_buff *iwpm_msg_reg_pid(u32 seq, const struct iwpm_msg_req *r);
struct sk_buff *iwpm_msg_add_mapping(u32 seq, const struct iwpm_msg_req *r);
struct sk_buff *iwpm_msg_query_mapping(u32 seq, const struct iwpm_msg_req *r);
struct sk_buff *iwpm_msg_remove_mapping(u32 seq,
					const struct iwpm_msg_req *r);
struct sk_buff *iwpm_msg_hello(u32 seq, u16 abi);
struct sk_buff *iwpm_msg_mapinfo_num(u32 seq, u32 count);
/* Append one MAPINFO record (NLM_F_MULTI) to @skb; -EMSGSIZE when full. */
int iwpm_msg_put_mapinfo(struct sk_buff *skb, u16 abi,
			 const struct sockaddr_storage *local,
			 const struct sockaddr_storage *mapped, u32 flags);
/* Close a MAPINFO batch with NLMSG_DONE. */
int iwpm_msg_put_done(struct sk_buff *skb);

/* A message from iwpmd, decoded. Addresses point into the message. */
struct iwpm_msg_resp {
	u32 seq;			/* the sequence attribute */
	u16 err;			/* error code attribute, 0 if none */
	u16 abi;			/* HELLO, REG_PID, MAPINFO request */
	const char *dev_name;		/* REG_PID */
	const char *ulib_name;		/* REG_PID, MAPINFO request */
	const struct sockaddr_storage *local, *remote;
	const struct sockaddr_storage *mapped_local, *mapped_remote;
	u32 send_num, ack_num;		/* MAPINFO_NUM */
};

/*
 * Decode a message of operation @op (RDMA_NL_IWPM_*) sent by iwpmd.
 * Every attribute of the operation must be present with its exact size;
 * strings must be NUL-terminated within their size; addresses must be
 * AF_INET or AF_INET6 and the local/mapped (remote/mapped) pairs of one
 * family. Return: 0 or -EINVAL.
 */
int iwpm_msg_parse(const struct nlmsghdr *nlh, unsigned int op,
		   struct iwpm_msg_resp *out);

bool iwpm_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b);
bool iwpm_addr_any(const struct sockaddr_storage *a);

/* ---- iwpm_nl.c: the iwpmd client ---- */

struct iwpm_daemon_map {
	struct sockaddr_storage mapped_local;
	struct sockaddr_storage mapped_remote;
};

int iwpm_nl_init(void);
void iwpm_nl_exit(void);
/*
 * True when an iwpmd may answer: one has talked to us and not gone away,
 * or a socket sits in its multicast group (and none timed out lately).
 */
bool iwpm_daemon_reachable(void);
void iwpm_nl_stats(u32 *pid, u16 *abi, bool *registered, unsigned int *bad,
		   unsigned int *timeouts);
/*
 * Ask iwpmd to map @local (ADD_MAPPING, @remote NULL) or to map @local and
 * look up @remote's mapping (QUERY_MAPPING). Registers first if needed.
 * Sleeps up to iwpm_timeout_ms per message. Return: 0 with *out filled,
 * -ENOENT when no iwpmd answers (nothing was mapped), or another negative
 * errno when iwpmd refused (it may hold a mapping: remove it).
 */
int iwpm_daemon_map(const char *devname, const char *ifname,
		    const struct sockaddr_storage *local,
		    const struct sockaddr_storage *remote,
		    struct iwpm_daemon_map *out);
void iwpm_daemon_unmap(const struct sockaddr_storage *local);

/* ---- iwpm_map.c: table, reservations, hooks ---- */

enum iwpm_mode {
	IWPM_MODE_AUTO,
	IWPM_MODE_DAEMON,
	IWPM_MODE_KERNEL,
	IWPM_MODE_OFF,
};

int iwpm_init(void);
void iwpm_exit(void);

/*
 * Hooks of iw_cm, process context. iwpm_map_listen()/iwpm_map_connect()
 * set m_local_addr and m_remote_addr (to the own addresses when nothing is
 * mapped) and cm_id->mapped. Return: 0, or -EADDRINUSE when kernel mode
 * cannot reserve a listener's port. iwpm_unmap() undoes them (idempotent).
 */
int iwpm_map_listen(struct iwcm_id_priv *priv);
int iwpm_map_connect(struct iwcm_id_priv *priv);
void iwpm_unmap(struct iwcm_id_priv *priv);
/* A CONNECT_REQUEST on @listener made @child: translate back, as in-tree. */
void iwpm_conn_request(struct iwcm_id_priv *listener,
		       struct iwcm_id_priv *child, struct iw_cm_event *event);

/* iwpmd said where a peer connecting to us comes from (REMOTE_INFO). */
void iwpm_remote_info_add(const struct sockaddr_storage *mapped_local,
			  const struct sockaddr_storage *mapped_remote,
			  const struct sockaddr_storage *remote);
bool iwpm_remote_info_take(const struct sockaddr_storage *mapped_local,
			   const struct sockaddr_storage *mapped_remote,
			   struct sockaddr_storage *remote);
/* Append the daemon mappings as MAPINFO records; returns how many. */
int iwpm_mapinfo_fill(u16 abi, int (*send)(struct sk_buff *skb, void *arg),
		      void *arg);

/* Kernel-mode reservation of a host port (exported for KUnit). */
struct iwpm_resv;
struct iwpm_resv *iwpm_resv_get(struct net *net,
				const struct sockaddr_storage *addr,
				bool any_port, struct sockaddr_storage *bound);
void iwpm_resv_put(struct iwpm_resv *resv);
#if IS_ENABLED(CONFIG_KUNIT)
int iwpm_test_set_mode(int mode);
#endif

#endif /* _OPENRDMA_IWPM_H */
