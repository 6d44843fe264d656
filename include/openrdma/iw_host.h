/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-stack iWARP CM model: iw_cm <-> RNIC driver hand-off.
 *
 * A driver of this model does no TCP and no MPA. It merges
 * orcm_iw_host_device_ops into its ib_device ops (ib_set_device_ops()), so
 * that the iw_connect/iw_accept/iw_reject/iw_create_listen/iw_destroy_listen
 * calls of iw_cm land in iw_cm's own host CM, and registers its hand-off
 * with orcm_iw_host_register() before ib_register_device(). It keeps its own
 * iw_add_ref/iw_rem_ref/iw_get_qp, and sets IW_F_NO_PORT_MAP: its ports are
 * real host ports.
 *
 * A driver that leaves IW_F_NO_PORT_MAP unset plays an offloaded-CM RNIC
 * (softrnic's offload_cm): iw_cm treats it as a card that runs TCP and MPA
 * itself and maps its ids' ports (iwpmd, or host ports iw_cm holds), and
 * the host CM, as the card's TCP, binds its sockets to the mapped
 * addresses beside the port mapper's hold on them.
 *
 * The host CM makes the TCP connection with in-kernel sockets in the id's
 * network namespace (orcm_iw_cm_set_net(), else the caller's), runs the MPA
 * exchange (RFC 5044 revision 1, RFC 6581 revision 2) and then calls
 * ->attach() with the connected socket, positioned exactly after the MPA
 * request/reply frames (the next byte is the first FPDU or, in
 * peer-to-peer mode, the RTR), and with the negotiated parameters.
 *
 * Disconnection is what it is for any iWARP RNIC: iw_cm moves the QP to SQD
 * (graceful: the driver sends FIN) or ERR (abortive: RST), and the driver
 * reports what happens through the orcm_iw_conn_*() calls below.
 */
#ifndef _OPENRDMA_IW_HOST_H
#define _OPENRDMA_IW_HOST_H

#include <linux/types.h>

struct ib_device;
struct ib_device_ops;
struct ib_qp;
struct iw_cm_id;
struct net;
struct socket;

/* The zero-length RTR message of RFC 6581 peer-to-peer mode. */
enum orcm_iw_rtr {
	ORCM_IW_RTR_NONE,	/* not peer-to-peer, or revision 1 */
	ORCM_IW_RTR_SEND,	/* zero-length SEND (untagged, QN 0) */
	ORCM_IW_RTR_WRITE,	/* zero-length RDMA WRITE, STag 0 */
	ORCM_IW_RTR_READ,	/* zero-length RDMA READ request, STag 0 */
};

/* What the MPA exchange negotiated, from this end's point of view. */
struct orcm_iw_mpa_params {
	u8 rev;			/* 1 or 2 */
	bool initiator;		/* this end sent the MPA request */
	bool crc;		/* CRC32c on every FPDU, both directions */
	bool markers_tx;	/* the peer wants markers: insert them */
	bool markers_rx;	/* we asked for markers: strip them */
	bool p2p;		/* RFC 6581 peer-to-peer mode */
	enum orcm_iw_rtr rtr;	/* the RTR both agreed on (p2p only) */
	u16 ird;		/* inbound RDMA READs this end serves */
	u16 ord;		/* outbound RDMA READs this end may issue */
};

/* iw_cm's connection: opaque to the driver, valid until released. */
struct orcm_iw_conn;

struct orcm_iw_host_ops {
	/*
	 * Take over @sock for @qp (a QP of this device, bound to the id by
	 * iw_cm_accept()/iw_cm_connect()). Process context, may sleep.
	 *
	 * On success the driver owns the socket (it releases it when the
	 * connection ends), has moved the QP to RTS and has installed its
	 * own socket callbacks. An initiator in peer-to-peer mode sends the
	 * RTR before returning. A responder in peer-to-peer mode transmits
	 * nothing until the RTR has arrived, then calls
	 * orcm_iw_conn_rtr_received(). On error the socket stays the host
	 * CM's, which closes it and fails the connection.
	 */
	int (*attach)(struct ib_qp *qp, struct socket *sock,
		      const struct orcm_iw_mpa_params *params,
		      struct orcm_iw_conn *conn);
};

/*
 * Upcalls of an attached driver, in any context (softirq, with driver
 * locks held): they only queue. The host CM delivers the iw_cm events in
 * order: CONNECT_REPLY or ESTABLISHED first, then DISCONNECT, then CLOSE.
 */
/* Responder, peer-to-peer: the RTR arrived (ESTABLISHED is delivered). */
void orcm_iw_conn_rtr_received(struct orcm_iw_conn *conn);
/* The peer closed (FIN) or sent TERMINATE: DISCONNECT is delivered. */
void orcm_iw_conn_peer_closed(struct orcm_iw_conn *conn);
/*
 * The driver has let go of the socket (closed, reset or failed): CLOSE is
 * delivered. The last call for @conn; @conn is invalid afterwards.
 */
void orcm_iw_conn_released(struct orcm_iw_conn *conn, int status);

/**
 * orcm_iw_conn_cm_id() - the iw_cm_id of an attached connection
 * @conn: the connection ->attach() was given
 *
 * For orcm_iw_track_subscribe() (<openrdma/offload_track.h>). Valid from
 * ->attach() until orcm_iw_conn_released(): the connection holds a
 * reference on the id until then.
 *
 * Return: the id, or NULL once the connection has delivered its end.
 */
struct iw_cm_id *orcm_iw_conn_cm_id(struct orcm_iw_conn *conn);

/* iw_connect ... iw_destroy_listen of the host CM, for ib_set_device_ops(). */
extern const struct ib_device_ops orcm_iw_host_device_ops;

int orcm_iw_host_register(struct ib_device *dev,
			  const struct orcm_iw_host_ops *ops);
void orcm_iw_host_unregister(struct ib_device *dev);

/*
 * The network namespace the host CM makes @cm_id's sockets in; rdma_cm
 * passes its id's before iw_cm_connect() or iw_cm_listen(). Without it, the
 * namespace of the task calling iw_cm_connect()/iw_cm_listen().
 */
void orcm_iw_cm_set_net(struct iw_cm_id *cm_id, struct net *net);

#endif /* _OPENRDMA_IW_HOST_H */
