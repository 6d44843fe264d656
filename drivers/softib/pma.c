// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the performance management agent of a port (IBA vol 1 16.1):
 * ClassPortInfo, PortCounters and PortCountersExtended, from the port's
 * struct softib_counters. The counters only grow; a PMA Set (clear) records
 * what they read then (port->pma, under rvp.lock) and a Get reports the
 * difference, saturated at the width of the field. PortCounters and
 * PortCountersExtended clear independently, as two sets of counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <rdma/ib_pma.h>

#include "softib.h"

#define SOFTIB_PMA_RESP_TIME	18

/* The raw, ever-growing value behind a PortCounters field. */
static u64 softib_pc_raw(struct softib_port *port, enum softib_pc which)
{
	struct softib_counters *cnt = &port->cnt;

	switch (which) {
	case SOFTIB_PC_RCV_ERRORS:
		return atomic64_read(&cnt->rcv_errors);
	case SOFTIB_PC_XMIT_DISCARDS:
		return atomic64_read(&cnt->xmit_discards);
	case SOFTIB_PC_VL15_DROPPED:
		return READ_ONCE(port->rvp.n_vl15_dropped);
	case SOFTIB_PC_XMIT_DATA:
		return atomic64_read(&cnt->xmit_data);
	case SOFTIB_PC_RCV_DATA:
		return atomic64_read(&cnt->rcv_data);
	case SOFTIB_PC_XMIT_PKTS:
		return atomic64_read(&cnt->xmit_pkts);
	case SOFTIB_PC_RCV_PKTS:
		return atomic64_read(&cnt->rcv_pkts);
	default:
		return 0;
	}
}

static u64 softib_pcx_raw(struct softib_port *port, enum softib_pcx which)
{
	struct softib_counters *cnt = &port->cnt;

	switch (which) {
	case SOFTIB_PCX_XMIT_DATA:
		return atomic64_read(&cnt->xmit_data);
	case SOFTIB_PCX_RCV_DATA:
		return atomic64_read(&cnt->rcv_data);
	case SOFTIB_PCX_XMIT_PKTS:
		return atomic64_read(&cnt->xmit_pkts);
	case SOFTIB_PCX_RCV_PKTS:
		return atomic64_read(&cnt->rcv_pkts);
	case SOFTIB_PCX_UNI_XMIT:
		return atomic64_read(&cnt->xmit_pkts) -
		       atomic64_read(&cnt->xmit_mcast_pkts);
	case SOFTIB_PCX_UNI_RCV:
		return atomic64_read(&cnt->rcv_pkts) -
		       atomic64_read(&cnt->rcv_mcast_pkts);
	case SOFTIB_PCX_MC_XMIT:
		return atomic64_read(&cnt->xmit_mcast_pkts);
	case SOFTIB_PCX_MC_RCV:
		return atomic64_read(&cnt->rcv_mcast_pkts);
	default:
		return 0;
	}
}

static u64 softib_pc(struct softib_port *port, enum softib_pc which, u64 max)
{
	lockdep_assert_held(&port->rvp.lock);
	return min_t(u64, softib_pc_raw(port, which) - port->pma.pc[which],
		     max);
}

static __be64 softib_pcx(struct softib_port *port, enum softib_pcx which)
{
	lockdep_assert_held(&port->rvp.lock);
	return cpu_to_be64(softib_pcx_raw(port, which) - port->pma.pcx[which]);
}

/* CounterSelect bits of PortCounters, and what each clears. */
static const struct {
	__be16 sel;
	enum softib_pc which;
} softib_pc_sel[] = {
	{ IB_PMA_SEL_PORT_RCV_ERRORS, SOFTIB_PC_RCV_ERRORS },
	{ IB_PMA_SEL_PORT_XMIT_DISCARDS, SOFTIB_PC_XMIT_DISCARDS },
	{ IB_PMA_SEL_PORT_VL15_DROPPED, SOFTIB_PC_VL15_DROPPED },
	{ IB_PMA_SEL_PORT_XMIT_DATA, SOFTIB_PC_XMIT_DATA },
	{ IB_PMA_SEL_PORT_RCV_DATA, SOFTIB_PC_RCV_DATA },
	{ IB_PMA_SEL_PORT_XMIT_PACKETS, SOFTIB_PC_XMIT_PKTS },
	{ IB_PMA_SEL_PORT_RCV_PACKETS, SOFTIB_PC_RCV_PKTS },
};

static const __be16 softib_pcx_sel[SOFTIB_PCX_NR] = {
	[SOFTIB_PCX_XMIT_DATA] = IB_PMA_SELX_PORT_XMIT_DATA,
	[SOFTIB_PCX_RCV_DATA] = IB_PMA_SELX_PORT_RCV_DATA,
	[SOFTIB_PCX_XMIT_PKTS] = IB_PMA_SELX_PORT_XMIT_PACKETS,
	[SOFTIB_PCX_RCV_PKTS] = IB_PMA_SELX_PORT_RCV_PACKETS,
	[SOFTIB_PCX_UNI_XMIT] = IB_PMA_SELX_PORT_UNI_XMIT_PACKETS,
	[SOFTIB_PCX_UNI_RCV] = IB_PMA_SELX_PORT_UNI_RCV_PACKETS,
	[SOFTIB_PCX_MC_XMIT] = IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS,
	[SOFTIB_PCX_MC_RCV] = IB_PMA_SELX_PORT_MULTI_RCV_PACKETS,
};

static u16 softib_pma_counters(struct softib_port *port, bool set,
			       const u8 *in, u8 *data)
{
	const struct ib_pma_portcounters *req = (const void *)in;
	struct ib_pma_portcounters *pc = (void *)data;
	unsigned int i;

	lockdep_assert_held(&port->rvp.lock);
	if (req->port_select != port->port_num)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (set) {
		for (i = 0; i < ARRAY_SIZE(softib_pc_sel); i++)
			if (req->counter_select & softib_pc_sel[i].sel)
				port->pma.pc[softib_pc_sel[i].which] =
					softib_pc_raw(port,
						      softib_pc_sel[i].which);
		if (req->counter_select & IB_PMA_SEL_LINK_DOWNED)
			port->link_downed = 0;
	}
	pc->port_select = req->port_select;
	pc->counter_select = req->counter_select;
	pc->link_downed_counter = port->link_downed;
	pc->port_rcv_errors =
		cpu_to_be16(softib_pc(port, SOFTIB_PC_RCV_ERRORS, U16_MAX));
	pc->port_xmit_discards =
		cpu_to_be16(softib_pc(port, SOFTIB_PC_XMIT_DISCARDS, U16_MAX));
	pc->vl15_dropped =
		cpu_to_be16(softib_pc(port, SOFTIB_PC_VL15_DROPPED, U16_MAX));
	pc->port_xmit_data =
		cpu_to_be32(softib_pc(port, SOFTIB_PC_XMIT_DATA, U32_MAX));
	pc->port_rcv_data =
		cpu_to_be32(softib_pc(port, SOFTIB_PC_RCV_DATA, U32_MAX));
	pc->port_xmit_packets =
		cpu_to_be32(softib_pc(port, SOFTIB_PC_XMIT_PKTS, U32_MAX));
	pc->port_rcv_packets =
		cpu_to_be32(softib_pc(port, SOFTIB_PC_RCV_PKTS, U32_MAX));
	return 0;
}

static u16 softib_pma_counters_ext(struct softib_port *port, bool set,
				   const u8 *in, u8 *data)
{
	const struct ib_pma_portcounters_ext *req = (const void *)in;
	struct ib_pma_portcounters_ext *pc = (void *)data;
	unsigned int i;

	lockdep_assert_held(&port->rvp.lock);
	if (req->port_select != port->port_num)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (set)
		for (i = 0; i < SOFTIB_PCX_NR; i++)
			if (req->counter_select & softib_pcx_sel[i])
				port->pma.pcx[i] = softib_pcx_raw(port, i);
	pc->port_select = req->port_select;
	pc->counter_select = req->counter_select;
	pc->port_xmit_data = softib_pcx(port, SOFTIB_PCX_XMIT_DATA);
	pc->port_rcv_data = softib_pcx(port, SOFTIB_PCX_RCV_DATA);
	pc->port_xmit_packets = softib_pcx(port, SOFTIB_PCX_XMIT_PKTS);
	pc->port_rcv_packets = softib_pcx(port, SOFTIB_PCX_RCV_PKTS);
	pc->port_unicast_xmit_packets = softib_pcx(port, SOFTIB_PCX_UNI_XMIT);
	pc->port_unicast_rcv_packets = softib_pcx(port, SOFTIB_PCX_UNI_RCV);
	pc->port_multicast_xmit_packets = softib_pcx(port, SOFTIB_PCX_MC_XMIT);
	pc->port_multicast_rcv_packets = softib_pcx(port, SOFTIB_PCX_MC_RCV);
	return 0;
}

static void softib_pma_class_port_info(u8 *data)
{
	struct ib_class_port_info *cpi = (void *)data;

	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	/* PortCountersExtended, with the unicast and multicast counters */
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	ib_set_cpi_resp_time(cpi, SOFTIB_PMA_RESP_TIME);
}

static int softib_pma_reply(struct ib_mad *out, u16 status)
{
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/**
 * softib_pma_process - answer a PerfMgt GMP
 * @port: the port it arrived on
 * @in: the request
 * @out: the reply
 *
 * Return: IB_MAD_RESULT_* for process_mad.
 */
int softib_pma_process(struct softib_port *port, const struct ib_mad *in,
		       struct ib_mad *out)
{
	const struct ib_pma_mad *req = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *resp = (struct ib_pma_mad *)out;
	bool set = in->mad_hdr.method == IB_MGMT_METHOD_SET;
	unsigned long flags;
	u16 status = 0;

	if (in->mad_hdr.method & IB_MGMT_METHOD_RESP)
		return IB_MAD_RESULT_SUCCESS;	/* for a perf manager here */
	memcpy(out, in, sizeof(*out));
	if (!set && in->mad_hdr.method != IB_MGMT_METHOD_GET)
		return softib_pma_reply(out,
					IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	if (in->mad_hdr.class_version != 1)
		return softib_pma_reply(out, IB_MGMT_MAD_STATUS_BAD_VERSION);

	memset(resp->data, 0, sizeof(resp->data));
	switch (in->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		if (set)
			return softib_pma_reply(out,
				IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		softib_pma_class_port_info(resp->data);
		break;
	case IB_PMA_PORT_COUNTERS:
		spin_lock_irqsave(&port->rvp.lock, flags);
		status = softib_pma_counters(port, set, req->data, resp->data);
		spin_unlock_irqrestore(&port->rvp.lock, flags);
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		spin_lock_irqsave(&port->rvp.lock, flags);
		status = softib_pma_counters_ext(port, set, req->data,
						 resp->data);
		spin_unlock_irqrestore(&port->rvp.lock, flags);
		break;
	default:	/* PortSamplesControl/Result among them */
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		break;
	}
	return softib_pma_reply(out, status);
}
