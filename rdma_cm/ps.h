/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Port spaces: for each network namespace and each enum rdma_ucm_port_space
 * (TCP, UDP, IB, IPOIB) the set of bound ports and the ids that own them.
 */
#ifndef _RDMA_CM_PS_H
#define _RDMA_CM_PS_H

#include <linux/types.h>
#include <rdma/rdma_user_cm.h>

struct rdma_id_private;

/*
 * Bind @id_priv to the port of its source address in its port space and
 * namespace. Port 0 allocates an ephemeral port from the namespace's local
 * port range and writes it into the source address. Errors: -EADDRINUSE
 * (conflict), -EACCES (privileged port without CAP_NET_BIND_SERVICE),
 * -EPROTONOSUPPORT (unknown port space), -EINVAL (already bound),
 * -EADDRNOTAVAIL (no free ephemeral port), -ENOMEM.
 */
int cma_ps_bind(struct rdma_id_private *id_priv);

/*
 * Called by rdma_listen() on an id that was bound with reuseaddr: a
 * listener needs the address to itself. -EADDRINUSE on conflict, -EINVAL
 * if the id is not bound.
 */
int cma_ps_check_listen(struct rdma_id_private *id_priv);

/* Release the port (no-op if not bound). */
void cma_ps_unbind(struct rdma_id_private *id_priv);

/*
 * The first owner of @port in port space @ps of @net that @match accepts,
 * with a reference the caller drops with cma_id_put(); NULL if none. An
 * owner whose last reference is gone (being released) is skipped. @match
 * runs under the port space lock: it may take an id's spinlock, no mutex.
 */
struct rdma_id_private *cma_ps_find(struct net *net,
				    enum rdma_ucm_port_space ps, u16 port,
				    bool (*match)(struct rdma_id_private *,
						  void *),
				    void *arg);

int cma_ps_init(void);
void cma_ps_exit(void);

/*
 * What cma_ps_bind() reads from the id's namespace: the local port range
 * and, for a port below net.ipv4.ip_unprivileged_port_start, the
 * CAP_NET_BIND_SERVICE decision. Kept apart so that tests can choose it.
 */
struct cma_ps_policy {
	int	low;			/* ephemeral range, inclusive */
	int	high;
	bool	may_bind_service;	/* may bind a privileged port */
};

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Internals for tests/kunit/cma_ps_kunit.c (EXPORTED_FOR_KUNIT_TESTING).
 * A table is the four port spaces of one namespace; cma_ps_bind() is
 * cma_ps_bind_table() on the table of the id's namespace.
 */
struct cma_ps_net;

struct cma_ps_net *cma_ps_table_alloc(void);
/* Frees the table; returns the number of bind records it still held. */
unsigned int cma_ps_table_free(struct cma_ps_net *pn);
int cma_ps_bind_table(struct cma_ps_net *pn, struct rdma_id_private *id_priv,
		      const struct cma_ps_policy *pol);
#endif

#endif /* _RDMA_CM_PS_H */
