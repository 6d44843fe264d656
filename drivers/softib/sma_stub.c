// SPDX-License-Identifier: GPL-2.0
/*
 * softib: placeholders for the subnet management agent and the PMA (sma.c,
 * pma.c), so that the driver links before they arrive. Replaced at merge.
 * No SMA: MADs to the local port get no reply, the port stays in INIT.
 */
#include "softib.h"

int softib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		       const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		       const struct ib_mad *in, struct ib_mad *out,
		       size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	return IB_MAD_RESULT_SUCCESS;
}

void softib_sma_port_init(struct softib_port *port)
{
}

/* The physical link: LinkUp and INIT when the carrier is up, else DOWN. */
void softib_sma_link_change(struct softib_port *port, bool up)
{
	struct ib_event ev = {
		.device = &port->sdev->rdi.ibdev,
		.element.port_num = port->port_num,
		.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR,
	};
	unsigned long flags;
	bool was_up;

	spin_lock_irqsave(&port->rvp.lock, flags);
	was_up = port->state >= IB_PORT_INIT;
	port->state = up ? IB_PORT_INIT : IB_PORT_DOWN;
	port->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_POLLING;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	/* ib_core hears of a port going down; up is for the SM (ACTIVE). */
	if (was_up && !up)
		ib_dispatch_event(&ev);
}

int softib_pma_process(struct softib_port *port, const struct ib_mad *in,
		       struct ib_mad *out)
{
	return IB_MAD_RESULT_SUCCESS;
}
