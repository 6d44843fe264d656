/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cm_parity: the scenario toolkit shared by the scenario files. Every
 * helper logs what a caller can observe into the trace (pt_log()).
 */
#ifndef _CM_PARITY_PT_H
#define _CM_PARITY_PT_H

#include <linux/socket.h>
#include <rdma/rdma_cm.h>

#define PARITY_A	"198.18.1.1"
#define PARITY_B	"198.18.1.2"
#define PARITY_NOBODY	"198.18.1.99"
#define PARITY_A6	"2001:2:0:1::1"		/* RFC 5180 benchmarking */
#define PARITY_B6	"2001:2:0:1::2"
/* RoCE: one rxe device on its own veth end, both addresses on it. */
#define PARITY_RA	"198.18.5.1"
#define PARITY_RB	"198.18.5.2"
#define PARITY_RA6	"2001:2:0:5::1"
#define PARITY_RB6	"2001:2:0:5::2"
/* InfiniBand: softib ib0's IPoIB netdev holds both (the CA's loopback). */
#define PARITY_IA	"198.18.6.1"
#define PARITY_IB	"198.18.6.2"
#define PARITY_IA6	"2001:2:0:6::1"
#define PARITY_IB6	"2001:2:0:6::2"
#define PT_PORT		7300
#define PT_MAX_EV	16
#define PT_NO_EVENT	(-1)

/* What a listener does with a CONNECT_REQUEST. */
enum pt_mode { PT_ACCEPT, PT_REJECT, PT_REFUSE, PT_KEEP };

struct pt_id {
	struct rdma_cm_id *id;		/* NULL once destroyed */
	const char *name;
	int n_ev;
	enum rdma_cm_event_type ev[PT_MAX_EV];
	enum pt_mode mode;		/* listeners */
	int pdlen;			/* listeners: accept/reject pd length */
	int destroy_on;			/* return 1 from the handler on it */
	bool no_qp;			/* listeners: accept without a QP */
	struct pt_id *child;		/* from the last CONNECT_REQUEST */
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *orphan_qp;	/* of an id its handler destroyed */
};

struct pt_scenario {
	char name[48];
	void (*fn)(int arg);
	int arg;
	bool narrow;	/* run by "narrow": the guest narrows the port range */
};

__printf(1, 2) void pt_log(const char *fmt, ...);
void pt_add(const char *name, void (*fn)(int arg), int arg, bool narrow);

struct sockaddr_storage pt_sa(const char *ip, u16 port);
#define SA(ss) ((struct sockaddr *)&(ss))
/* pt_sa() in one of a few scratch buffers (scenarios run one at a time). */
struct sockaddr *pt_psa(const char *ip, u16 port);

int pt_create_ps(struct pt_id *p, const char *name,
		 enum rdma_ucm_port_space ps, enum ib_qp_type qpt);
int pt_create(struct pt_id *p, const char *name);
void pt_destroy(struct pt_id *p);
int pt_qp(struct pt_id *p);
void pt_call(struct pt_id *p, const char *what, int ret);
bool pt_wait(struct pt_id *p, enum rdma_cm_event_type event);
bool pt_wait_n(struct pt_id *p, enum rdma_cm_event_type event, int n);
int pt_wait_any(struct pt_id *p, enum rdma_cm_event_type a,
		enum rdma_cm_event_type b);
bool pt_resolve(struct pt_id *p, const char *dst, u16 port);
void pt_listen(struct pt_id *l, const char *ip, u16 port, enum pt_mode mode);
int pt_connect(struct pt_id *c, const char *dst, u16 port, u8 pdlen);
int pt_connect_param(struct pt_id *c, u8 pdlen, u8 ird, u8 ord);
struct pt_id *pt_child(int i);
void pt_destroy_children(void);

void pt_register_calls(void);
void pt_register_bind(void);
void pt_register_conn(void);
void pt_register_roce(void);
void pt_register_track(void);
void pt_register_ibcm(void);

#endif /* _CM_PARITY_PT_H */
