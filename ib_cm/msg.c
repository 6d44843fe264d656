// SPDX-License-Identifier: GPL-2.0
/*
 * CM MADs on the wire: cm_msg_build() lays out a struct cm_msg as the
 * 256-byte MAD of IBTA vol. 1 chapter 12 (field definitions from
 * <rdma/ibta_vol1_c12.h>, accessed with IBA_GET/IBA_SET), and
 * cm_msg_parse() decodes and validates one that was received: a short
 * buffer, a foreign header, an unknown attribute or a field out of its
 * range is refused, so the state machine only ever sees sane values.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <rdma/iba.h>

#include "cm_priv.h"

const char *cm_attr_name(__be16 attr_id)
{
	switch (be16_to_cpu(attr_id)) {
	case 0x10: return "REQ";
	case 0x11: return "MRA";
	case 0x12: return "REJ";
	case 0x13: return "REP";
	case 0x14: return "RTU";
	case 0x15: return "DREQ";
	case 0x16: return "DREP";
	case 0x17: return "SIDR_REQ";
	case 0x18: return "SIDR_REP";
	case 0x19: return "LAP";
	case 0x1a: return "APR";
	default: return "unknown";
	}
}

#define SET_PD(field, m, src, n) \
	memcpy(_IBA_GET_MEM_PTR(field, m), src, n)
#define GET_PD(field, m, dst, n) \
	memcpy(dst, _IBA_GET_MEM_PTR(field, m), n)

static void build_req(struct cm_req_msg *m, const struct cm_req_info *r)
{
	IBA_SET(CM_REQ_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_REQ_VENDOR_ID, m, r->vendor_id);
	IBA_SET(CM_REQ_SERVICE_ID, m, be64_to_cpu(r->service_id));
	IBA_SET(CM_REQ_LOCAL_CA_GUID, m, be64_to_cpu(r->local_ca_guid));
	IBA_SET(CM_REQ_LOCAL_Q_KEY, m, r->local_qkey);
	IBA_SET(CM_REQ_LOCAL_QPN, m, r->local_qpn);
	IBA_SET(CM_REQ_RESPONDER_RESOURCES, m, r->responder_resources);
	IBA_SET(CM_REQ_LOCAL_EECN, m, r->local_eecn);
	IBA_SET(CM_REQ_INITIATOR_DEPTH, m, r->initiator_depth);
	IBA_SET(CM_REQ_REMOTE_EECN, m, r->remote_eecn);
	IBA_SET(CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT, m,
		r->remote_cm_response_timeout);
	IBA_SET(CM_REQ_TRANSPORT_SERVICE_TYPE, m, r->transport_type);
	IBA_SET(CM_REQ_END_TO_END_FLOW_CONTROL, m, r->flow_control);
	IBA_SET(CM_REQ_STARTING_PSN, m, r->starting_psn);
	IBA_SET(CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT, m,
		r->local_cm_response_timeout);
	IBA_SET(CM_REQ_RETRY_COUNT, m, r->retry_count);
	IBA_SET(CM_REQ_PARTITION_KEY, m, r->pkey);
	IBA_SET(CM_REQ_PATH_PACKET_PAYLOAD_MTU, m, r->path_mtu);
	IBA_SET(CM_REQ_RDC_EXISTS, m, r->rdc_exists);
	IBA_SET(CM_REQ_RNR_RETRY_COUNT, m, r->rnr_retry_count);
	IBA_SET(CM_REQ_MAX_CM_RETRIES, m, r->max_cm_retries);
	IBA_SET(CM_REQ_SRQ, m, r->srq);
	IBA_SET(CM_REQ_EXTENDED_TRANSPORT_TYPE, m, r->ext_transport_type);

	IBA_SET(CM_REQ_PRIMARY_LOCAL_PORT_LID, m,
		be16_to_cpu(r->primary.local_lid));
	IBA_SET(CM_REQ_PRIMARY_REMOTE_PORT_LID, m,
		be16_to_cpu(r->primary.remote_lid));
	*IBA_GET_MEM_PTR(CM_REQ_PRIMARY_LOCAL_PORT_GID, m) =
		r->primary.local_gid;
	*IBA_GET_MEM_PTR(CM_REQ_PRIMARY_REMOTE_PORT_GID, m) =
		r->primary.remote_gid;
	IBA_SET(CM_REQ_PRIMARY_FLOW_LABEL, m, r->primary.flow_label);
	IBA_SET(CM_REQ_PRIMARY_PACKET_RATE, m, r->primary.packet_rate);
	IBA_SET(CM_REQ_PRIMARY_TRAFFIC_CLASS, m, r->primary.traffic_class);
	IBA_SET(CM_REQ_PRIMARY_HOP_LIMIT, m, r->primary.hop_limit);
	IBA_SET(CM_REQ_PRIMARY_SL, m, r->primary.sl);
	IBA_SET(CM_REQ_PRIMARY_SUBNET_LOCAL, m, r->primary.subnet_local);
	IBA_SET(CM_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, m,
		r->primary.local_ack_timeout);

	IBA_SET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, m,
		be16_to_cpu(r->alternate.local_lid));
	IBA_SET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, m,
		be16_to_cpu(r->alternate.remote_lid));
	*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_LOCAL_PORT_GID, m) =
		r->alternate.local_gid;
	*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_REMOTE_PORT_GID, m) =
		r->alternate.remote_gid;
	IBA_SET(CM_REQ_ALTERNATE_FLOW_LABEL, m, r->alternate.flow_label);
	IBA_SET(CM_REQ_ALTERNATE_PACKET_RATE, m, r->alternate.packet_rate);
	IBA_SET(CM_REQ_ALTERNATE_TRAFFIC_CLASS, m,
		r->alternate.traffic_class);
	IBA_SET(CM_REQ_ALTERNATE_HOP_LIMIT, m, r->alternate.hop_limit);
	IBA_SET(CM_REQ_ALTERNATE_SL, m, r->alternate.sl);
	IBA_SET(CM_REQ_ALTERNATE_SUBNET_LOCAL, m, r->alternate.subnet_local);
	IBA_SET(CM_REQ_ALTERNATE_LOCAL_ACK_TIMEOUT, m,
		r->alternate.local_ack_timeout);
	SET_PD(CM_REQ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_req(struct cm_req_msg *m, struct cm_req_info *r)
{
	r->local_comm_id = cpu_to_be32(IBA_GET(CM_REQ_LOCAL_COMM_ID, m));
	r->vendor_id = IBA_GET(CM_REQ_VENDOR_ID, m);
	r->service_id = cpu_to_be64(IBA_GET(CM_REQ_SERVICE_ID, m));
	r->local_ca_guid = cpu_to_be64(IBA_GET(CM_REQ_LOCAL_CA_GUID, m));
	r->local_qkey = IBA_GET(CM_REQ_LOCAL_Q_KEY, m);
	r->local_qpn = IBA_GET(CM_REQ_LOCAL_QPN, m);
	r->responder_resources = IBA_GET(CM_REQ_RESPONDER_RESOURCES, m);
	r->local_eecn = IBA_GET(CM_REQ_LOCAL_EECN, m);
	r->initiator_depth = IBA_GET(CM_REQ_INITIATOR_DEPTH, m);
	r->remote_eecn = IBA_GET(CM_REQ_REMOTE_EECN, m);
	r->remote_cm_response_timeout =
		IBA_GET(CM_REQ_REMOTE_CM_RESPONSE_TIMEOUT, m);
	r->transport_type = IBA_GET(CM_REQ_TRANSPORT_SERVICE_TYPE, m);
	r->flow_control = IBA_GET(CM_REQ_END_TO_END_FLOW_CONTROL, m);
	r->starting_psn = IBA_GET(CM_REQ_STARTING_PSN, m);
	r->local_cm_response_timeout =
		IBA_GET(CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT, m);
	r->retry_count = IBA_GET(CM_REQ_RETRY_COUNT, m);
	r->pkey = IBA_GET(CM_REQ_PARTITION_KEY, m);
	r->path_mtu = IBA_GET(CM_REQ_PATH_PACKET_PAYLOAD_MTU, m);
	r->rdc_exists = IBA_GET(CM_REQ_RDC_EXISTS, m);
	r->rnr_retry_count = IBA_GET(CM_REQ_RNR_RETRY_COUNT, m);
	r->max_cm_retries = IBA_GET(CM_REQ_MAX_CM_RETRIES, m);
	r->srq = IBA_GET(CM_REQ_SRQ, m);
	r->ext_transport_type = IBA_GET(CM_REQ_EXTENDED_TRANSPORT_TYPE, m);

	r->primary.local_lid =
		cpu_to_be16(IBA_GET(CM_REQ_PRIMARY_LOCAL_PORT_LID, m));
	r->primary.remote_lid =
		cpu_to_be16(IBA_GET(CM_REQ_PRIMARY_REMOTE_PORT_LID, m));
	r->primary.local_gid = *IBA_GET_MEM_PTR(CM_REQ_PRIMARY_LOCAL_PORT_GID,
						m);
	r->primary.remote_gid =
		*IBA_GET_MEM_PTR(CM_REQ_PRIMARY_REMOTE_PORT_GID, m);
	r->primary.flow_label = IBA_GET(CM_REQ_PRIMARY_FLOW_LABEL, m);
	r->primary.packet_rate = IBA_GET(CM_REQ_PRIMARY_PACKET_RATE, m);
	r->primary.traffic_class = IBA_GET(CM_REQ_PRIMARY_TRAFFIC_CLASS, m);
	r->primary.hop_limit = IBA_GET(CM_REQ_PRIMARY_HOP_LIMIT, m);
	r->primary.sl = IBA_GET(CM_REQ_PRIMARY_SL, m);
	r->primary.subnet_local = IBA_GET(CM_REQ_PRIMARY_SUBNET_LOCAL, m);
	r->primary.local_ack_timeout =
		IBA_GET(CM_REQ_PRIMARY_LOCAL_ACK_TIMEOUT, m);

	r->alternate.local_lid =
		cpu_to_be16(IBA_GET(CM_REQ_ALTERNATE_LOCAL_PORT_LID, m));
	r->alternate.remote_lid =
		cpu_to_be16(IBA_GET(CM_REQ_ALTERNATE_REMOTE_PORT_LID, m));
	r->alternate.local_gid =
		*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_LOCAL_PORT_GID, m);
	r->alternate.remote_gid =
		*IBA_GET_MEM_PTR(CM_REQ_ALTERNATE_REMOTE_PORT_GID, m);
	r->alternate.flow_label = IBA_GET(CM_REQ_ALTERNATE_FLOW_LABEL, m);
	r->alternate.packet_rate = IBA_GET(CM_REQ_ALTERNATE_PACKET_RATE, m);
	r->alternate.traffic_class =
		IBA_GET(CM_REQ_ALTERNATE_TRAFFIC_CLASS, m);
	r->alternate.hop_limit = IBA_GET(CM_REQ_ALTERNATE_HOP_LIMIT, m);
	r->alternate.sl = IBA_GET(CM_REQ_ALTERNATE_SL, m);
	r->alternate.subnet_local = IBA_GET(CM_REQ_ALTERNATE_SUBNET_LOCAL, m);
	r->alternate.local_ack_timeout =
		IBA_GET(CM_REQ_ALTERNATE_LOCAL_ACK_TIMEOUT, m);
	GET_PD(CM_REQ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));

	/* RC, UC or XRC only (no RD); an MTU of 256..4096 bytes. */
	if (r->transport_type == 2)
		return -EPROTONOSUPPORT;
	if (r->transport_type == CM_TRANSPORT_EXT &&
	    r->ext_transport_type != CM_EXT_TRANSPORT_XRC)
		return -EPROTONOSUPPORT;
	if (r->path_mtu < IB_MTU_256 || r->path_mtu > IB_MTU_4096)
		return -EINVAL;
	/*
	 * A comm id of 0 is an id like any other (an index XOR a random
	 * value, here and in-tree): taken, as in-tree takes it.
	 */
	return 0;
}

static void build_rep(struct cm_rep_msg *m, const struct cm_rep_info *r)
{
	IBA_SET(CM_REP_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_REP_REMOTE_COMM_ID, m, be32_to_cpu(r->remote_comm_id));
	IBA_SET(CM_REP_LOCAL_Q_KEY, m, r->local_qkey);
	IBA_SET(CM_REP_LOCAL_QPN, m, r->local_qpn);
	IBA_SET(CM_REP_LOCAL_EE_CONTEXT_NUMBER, m, r->local_eecn);
	IBA_SET(CM_REP_STARTING_PSN, m, r->starting_psn);
	IBA_SET(CM_REP_VENDOR_ID_H, m, (r->vendor_id >> 16) & 0xff);
	IBA_SET(CM_REP_VENDOR_ID_M, m, (r->vendor_id >> 8) & 0xff);
	IBA_SET(CM_REP_VENDOR_ID_L, m, r->vendor_id & 0xff);
	IBA_SET(CM_REP_RESPONDER_RESOURCES, m, r->responder_resources);
	IBA_SET(CM_REP_INITIATOR_DEPTH, m, r->initiator_depth);
	IBA_SET(CM_REP_TARGET_ACK_DELAY, m, r->target_ack_delay);
	IBA_SET(CM_REP_FAILOVER_ACCEPTED, m, r->failover_accepted);
	IBA_SET(CM_REP_END_TO_END_FLOW_CONTROL, m, r->flow_control);
	IBA_SET(CM_REP_RNR_RETRY_COUNT, m, r->rnr_retry_count);
	IBA_SET(CM_REP_SRQ, m, r->srq);
	IBA_SET(CM_REP_LOCAL_CA_GUID, m, be64_to_cpu(r->local_ca_guid));
	SET_PD(CM_REP_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_rep(struct cm_rep_msg *m, struct cm_rep_info *r)
{
	r->local_comm_id = cpu_to_be32(IBA_GET(CM_REP_LOCAL_COMM_ID, m));
	r->remote_comm_id = cpu_to_be32(IBA_GET(CM_REP_REMOTE_COMM_ID, m));
	r->local_qkey = IBA_GET(CM_REP_LOCAL_Q_KEY, m);
	r->local_qpn = IBA_GET(CM_REP_LOCAL_QPN, m);
	r->local_eecn = IBA_GET(CM_REP_LOCAL_EE_CONTEXT_NUMBER, m);
	r->starting_psn = IBA_GET(CM_REP_STARTING_PSN, m);
	r->vendor_id = (u32)IBA_GET(CM_REP_VENDOR_ID_H, m) << 16 |
		       (u32)IBA_GET(CM_REP_VENDOR_ID_M, m) << 8 |
		       IBA_GET(CM_REP_VENDOR_ID_L, m);
	r->responder_resources = IBA_GET(CM_REP_RESPONDER_RESOURCES, m);
	r->initiator_depth = IBA_GET(CM_REP_INITIATOR_DEPTH, m);
	r->target_ack_delay = IBA_GET(CM_REP_TARGET_ACK_DELAY, m);
	r->failover_accepted = IBA_GET(CM_REP_FAILOVER_ACCEPTED, m);
	r->flow_control = IBA_GET(CM_REP_END_TO_END_FLOW_CONTROL, m);
	r->rnr_retry_count = IBA_GET(CM_REP_RNR_RETRY_COUNT, m);
	r->srq = IBA_GET(CM_REP_SRQ, m);
	r->local_ca_guid = cpu_to_be64(IBA_GET(CM_REP_LOCAL_CA_GUID, m));
	GET_PD(CM_REP_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	return 0;	/* comm id 0 taken: see parse_req() */
}

static void build_mra(struct cm_mra_msg *m, const struct cm_mra_info *r)
{
	IBA_SET(CM_MRA_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_MRA_REMOTE_COMM_ID, m, be32_to_cpu(r->remote_comm_id));
	IBA_SET(CM_MRA_MESSAGE_MRAED, m, r->msg_mraed);
	IBA_SET(CM_MRA_SERVICE_TIMEOUT, m, r->service_timeout);
	SET_PD(CM_MRA_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_mra(struct cm_mra_msg *m, struct cm_mra_info *r)
{
	r->local_comm_id = cpu_to_be32(IBA_GET(CM_MRA_LOCAL_COMM_ID, m));
	r->remote_comm_id = cpu_to_be32(IBA_GET(CM_MRA_REMOTE_COMM_ID, m));
	r->msg_mraed = IBA_GET(CM_MRA_MESSAGE_MRAED, m);
	r->service_timeout = IBA_GET(CM_MRA_SERVICE_TIMEOUT, m);
	GET_PD(CM_MRA_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	if (r->msg_mraed > CM_MSG_OTHER)
		return -EINVAL;
	return 0;
}

static void build_rej(struct cm_rej_msg *m, const struct cm_rej_info *r)
{
	IBA_SET(CM_REJ_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_REJ_REMOTE_COMM_ID, m, be32_to_cpu(r->remote_comm_id));
	IBA_SET(CM_REJ_MESSAGE_REJECTED, m, r->msg_rejected);
	IBA_SET(CM_REJ_REJECTED_INFO_LENGTH, m, r->ari_length);
	IBA_SET(CM_REJ_REASON, m, r->reason);
	SET_PD(CM_REJ_ARI, m, r->ari, sizeof(r->ari));
	SET_PD(CM_REJ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_rej(struct cm_rej_msg *m, struct cm_rej_info *r)
{
	r->local_comm_id = cpu_to_be32(IBA_GET(CM_REJ_LOCAL_COMM_ID, m));
	r->remote_comm_id = cpu_to_be32(IBA_GET(CM_REJ_REMOTE_COMM_ID, m));
	r->msg_rejected = IBA_GET(CM_REJ_MESSAGE_REJECTED, m);
	r->ari_length = IBA_GET(CM_REJ_REJECTED_INFO_LENGTH, m);
	r->reason = IBA_GET(CM_REJ_REASON, m);
	GET_PD(CM_REJ_ARI, m, r->ari, sizeof(r->ari));
	GET_PD(CM_REJ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	/* Reason 0 is no IBA reason, but what a consumer may send (in-tree). */
	if (r->msg_rejected > CM_MSG_OTHER ||
	    r->ari_length > IB_CM_REJ_ARI_LENGTH)
		return -EINVAL;
	return 0;
}

static void build_disc(struct ib_mad_hdr *hdr, __be16 attr,
		       const struct cm_disc_info *r)
{
	if (attr == CM_RTU_ATTR_ID) {
		struct cm_rtu_msg *m = (void *)hdr;

		IBA_SET(CM_RTU_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
		IBA_SET(CM_RTU_REMOTE_COMM_ID, m,
			be32_to_cpu(r->remote_comm_id));
		SET_PD(CM_RTU_PRIVATE_DATA, m, r->private_data,
		       IB_CM_RTU_PRIVATE_DATA_SIZE);
	} else if (attr == CM_DREQ_ATTR_ID) {
		struct cm_dreq_msg *m = (void *)hdr;

		IBA_SET(CM_DREQ_LOCAL_COMM_ID, m,
			be32_to_cpu(r->local_comm_id));
		IBA_SET(CM_DREQ_REMOTE_COMM_ID, m,
			be32_to_cpu(r->remote_comm_id));
		IBA_SET(CM_DREQ_REMOTE_QPN_EECN, m, r->remote_qpn);
		SET_PD(CM_DREQ_PRIVATE_DATA, m, r->private_data,
		       IB_CM_DREQ_PRIVATE_DATA_SIZE);
	} else {
		struct cm_drep_msg *m = (void *)hdr;

		IBA_SET(CM_DREP_LOCAL_COMM_ID, m,
			be32_to_cpu(r->local_comm_id));
		IBA_SET(CM_DREP_REMOTE_COMM_ID, m,
			be32_to_cpu(r->remote_comm_id));
		SET_PD(CM_DREP_PRIVATE_DATA, m, r->private_data,
		       IB_CM_DREP_PRIVATE_DATA_SIZE);
	}
}

static int parse_disc(struct ib_mad_hdr *hdr, __be16 attr,
		      struct cm_disc_info *r)
{
	if (attr == CM_RTU_ATTR_ID) {
		struct cm_rtu_msg *m = (void *)hdr;

		r->local_comm_id =
			cpu_to_be32(IBA_GET(CM_RTU_LOCAL_COMM_ID, m));
		r->remote_comm_id =
			cpu_to_be32(IBA_GET(CM_RTU_REMOTE_COMM_ID, m));
		GET_PD(CM_RTU_PRIVATE_DATA, m, r->private_data,
		       IB_CM_RTU_PRIVATE_DATA_SIZE);
	} else if (attr == CM_DREQ_ATTR_ID) {
		struct cm_dreq_msg *m = (void *)hdr;

		r->local_comm_id =
			cpu_to_be32(IBA_GET(CM_DREQ_LOCAL_COMM_ID, m));
		r->remote_comm_id =
			cpu_to_be32(IBA_GET(CM_DREQ_REMOTE_COMM_ID, m));
		r->remote_qpn = IBA_GET(CM_DREQ_REMOTE_QPN_EECN, m);
		GET_PD(CM_DREQ_PRIVATE_DATA, m, r->private_data,
		       IB_CM_DREQ_PRIVATE_DATA_SIZE);
	} else {
		struct cm_drep_msg *m = (void *)hdr;

		r->local_comm_id =
			cpu_to_be32(IBA_GET(CM_DREP_LOCAL_COMM_ID, m));
		r->remote_comm_id =
			cpu_to_be32(IBA_GET(CM_DREP_REMOTE_COMM_ID, m));
		GET_PD(CM_DREP_PRIVATE_DATA, m, r->private_data,
		       IB_CM_DREP_PRIVATE_DATA_SIZE);
	}
	return 0;	/* comm id 0 taken: see parse_req() */
}

static void build_lap(struct cm_lap_msg *m, const struct cm_lap_info *r)
{
	const struct cm_path_info *a = &r->alternate;

	IBA_SET(CM_LAP_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_LAP_REMOTE_COMM_ID, m, be32_to_cpu(r->remote_comm_id));
	IBA_SET(CM_LAP_REMOTE_QPN_EECN, m, r->remote_qpn);
	IBA_SET(CM_LAP_REMOTE_CM_RESPONSE_TIMEOUT, m,
		r->remote_cm_response_timeout);
	IBA_SET(CM_LAP_ALTERNATE_LOCAL_PORT_LID, m, be16_to_cpu(a->local_lid));
	IBA_SET(CM_LAP_ALTERNATE_REMOTE_PORT_LID, m,
		be16_to_cpu(a->remote_lid));
	IBA_SET_MEM(CM_LAP_ALTERNATE_LOCAL_PORT_GID, m, &a->local_gid,
		    sizeof(a->local_gid));
	IBA_SET_MEM(CM_LAP_ALTERNATE_REMOTE_PORT_GID, m, &a->remote_gid,
		    sizeof(a->remote_gid));
	IBA_SET(CM_LAP_ALTERNATE_FLOW_LABEL, m, a->flow_label);
	IBA_SET(CM_LAP_ALTERNATE_TRAFFIC_CLASS, m, a->traffic_class);
	IBA_SET(CM_LAP_ALTERNATE_HOP_LIMIT, m, a->hop_limit);
	IBA_SET(CM_LAP_ALTERNATE_PACKET_RATE, m, a->packet_rate);
	IBA_SET(CM_LAP_ALTERNATE_SL, m, a->sl);
	IBA_SET(CM_LAP_ALTERNATE_SUBNET_LOCAL, m, a->subnet_local);
	IBA_SET(CM_LAP_ALTERNATE_LOCAL_ACK_TIMEOUT, m, a->local_ack_timeout);
	SET_PD(CM_LAP_PRIVATE_DATA, m, r->private_data,
	       IB_CM_LAP_PRIVATE_DATA_SIZE);
}

static int parse_lap(struct cm_lap_msg *m, struct cm_lap_info *r)
{
	struct cm_path_info *a = &r->alternate;

	r->local_comm_id = cpu_to_be32(IBA_GET(CM_LAP_LOCAL_COMM_ID, m));
	r->remote_comm_id = cpu_to_be32(IBA_GET(CM_LAP_REMOTE_COMM_ID, m));
	r->remote_qpn = IBA_GET(CM_LAP_REMOTE_QPN_EECN, m);
	r->remote_cm_response_timeout =
		IBA_GET(CM_LAP_REMOTE_CM_RESPONSE_TIMEOUT, m);
	a->local_lid = cpu_to_be16(IBA_GET(CM_LAP_ALTERNATE_LOCAL_PORT_LID, m));
	a->remote_lid =
		cpu_to_be16(IBA_GET(CM_LAP_ALTERNATE_REMOTE_PORT_LID, m));
	a->local_gid = *IBA_GET_MEM_PTR(CM_LAP_ALTERNATE_LOCAL_PORT_GID, m);
	a->remote_gid = *IBA_GET_MEM_PTR(CM_LAP_ALTERNATE_REMOTE_PORT_GID, m);
	a->flow_label = IBA_GET(CM_LAP_ALTERNATE_FLOW_LABEL, m);
	a->traffic_class = IBA_GET(CM_LAP_ALTERNATE_TRAFFIC_CLASS, m);
	a->hop_limit = IBA_GET(CM_LAP_ALTERNATE_HOP_LIMIT, m);
	a->packet_rate = IBA_GET(CM_LAP_ALTERNATE_PACKET_RATE, m);
	a->sl = IBA_GET(CM_LAP_ALTERNATE_SL, m);
	a->subnet_local = IBA_GET(CM_LAP_ALTERNATE_SUBNET_LOCAL, m);
	a->local_ack_timeout = IBA_GET(CM_LAP_ALTERNATE_LOCAL_ACK_TIMEOUT, m);
	GET_PD(CM_LAP_PRIVATE_DATA, m, r->private_data,
	       IB_CM_LAP_PRIVATE_DATA_SIZE);
	return 0;
}

static void build_apr(struct cm_apr_msg *m, const struct cm_apr_info *r)
{
	IBA_SET(CM_APR_LOCAL_COMM_ID, m, be32_to_cpu(r->local_comm_id));
	IBA_SET(CM_APR_REMOTE_COMM_ID, m, be32_to_cpu(r->remote_comm_id));
	IBA_SET(CM_APR_ADDITIONAL_INFORMATION_LENGTH, m, r->info_length);
	IBA_SET(CM_APR_AR_STATUS, m, r->status);
	SET_PD(CM_APR_ADDITIONAL_INFORMATION, m, r->info, sizeof(r->info));
	SET_PD(CM_APR_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_apr(struct cm_apr_msg *m, struct cm_apr_info *r)
{
	r->local_comm_id = cpu_to_be32(IBA_GET(CM_APR_LOCAL_COMM_ID, m));
	r->remote_comm_id = cpu_to_be32(IBA_GET(CM_APR_REMOTE_COMM_ID, m));
	r->info_length = IBA_GET(CM_APR_ADDITIONAL_INFORMATION_LENGTH, m);
	r->status = IBA_GET(CM_APR_AR_STATUS, m);
	GET_PD(CM_APR_ADDITIONAL_INFORMATION, m, r->info, sizeof(r->info));
	GET_PD(CM_APR_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	if (r->info_length > IB_CM_APR_INFO_LENGTH)
		return -EINVAL;
	return 0;
}

static void build_sidr_req(struct cm_sidr_req_msg *m,
			   const struct cm_sidr_req_info *r)
{
	IBA_SET(CM_SIDR_REQ_REQUESTID, m, be32_to_cpu(r->request_id));
	IBA_SET(CM_SIDR_REQ_PARTITION_KEY, m, r->pkey);
	IBA_SET(CM_SIDR_REQ_SERVICEID, m, be64_to_cpu(r->service_id));
	SET_PD(CM_SIDR_REQ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_sidr_req(struct cm_sidr_req_msg *m,
			  struct cm_sidr_req_info *r)
{
	r->request_id = cpu_to_be32(IBA_GET(CM_SIDR_REQ_REQUESTID, m));
	r->pkey = IBA_GET(CM_SIDR_REQ_PARTITION_KEY, m);
	r->service_id = cpu_to_be64(IBA_GET(CM_SIDR_REQ_SERVICEID, m));
	GET_PD(CM_SIDR_REQ_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	return r->request_id ? 0 : -EINVAL;
}

static void build_sidr_rep(struct cm_sidr_rep_msg *m,
			   const struct cm_sidr_rep_info *r)
{
	IBA_SET(CM_SIDR_REP_REQUESTID, m, be32_to_cpu(r->request_id));
	IBA_SET(CM_SIDR_REP_STATUS, m, r->status);
	IBA_SET(CM_SIDR_REP_ADDITIONAL_INFORMATION_LENGTH, m, r->info_length);
	IBA_SET(CM_SIDR_REP_VENDOR_ID_H, m, r->vendor_id >> 8);
	IBA_SET(CM_SIDR_REP_VENDOR_ID_L, m, r->vendor_id & 0xff);
	IBA_SET(CM_SIDR_REP_QPN, m, r->qpn);
	IBA_SET(CM_SIDR_REP_SERVICEID, m, be64_to_cpu(r->service_id));
	IBA_SET(CM_SIDR_REP_Q_KEY, m, r->qkey);
	SET_PD(CM_SIDR_REP_ADDITIONAL_INFORMATION, m, r->info,
	       sizeof(r->info));
	SET_PD(CM_SIDR_REP_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
}

static int parse_sidr_rep(struct cm_sidr_rep_msg *m,
			  struct cm_sidr_rep_info *r)
{
	r->request_id = cpu_to_be32(IBA_GET(CM_SIDR_REP_REQUESTID, m));
	r->status = IBA_GET(CM_SIDR_REP_STATUS, m);
	r->info_length = IBA_GET(CM_SIDR_REP_ADDITIONAL_INFORMATION_LENGTH, m);
	r->vendor_id = (u32)IBA_GET(CM_SIDR_REP_VENDOR_ID_H, m) << 8 |
		       IBA_GET(CM_SIDR_REP_VENDOR_ID_L, m);
	r->qpn = IBA_GET(CM_SIDR_REP_QPN, m);
	r->service_id = cpu_to_be64(IBA_GET(CM_SIDR_REP_SERVICEID, m));
	r->qkey = IBA_GET(CM_SIDR_REP_Q_KEY, m);
	GET_PD(CM_SIDR_REP_ADDITIONAL_INFORMATION, m, r->info,
	       sizeof(r->info));
	GET_PD(CM_SIDR_REP_PRIVATE_DATA, m, r->private_data,
	       sizeof(r->private_data));
	if (r->info_length > IB_CM_SIDR_REP_INFO_LENGTH ||
	    r->status > IB_SIDR_UNSUPPORTED_VERSION || !r->request_id)
		return -EINVAL;
	return 0;
}

/**
 * cm_msg_build - lay out @msg as a CM MAD in @buf (CM_MAD_SIZE bytes)
 * @buf: the MAD, zeroed here first
 * @msg: the header fields and the attribute to send
 */
void cm_msg_build(void *buf, const struct cm_msg *msg)
{
	struct ib_mad_hdr *hdr = buf;

	memset(buf, 0, CM_MAD_SIZE);
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = CM_CLASS_VERSION;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = msg->attr_id;
	hdr->attr_mod = msg->attr_mod;
	hdr->tid = msg->tid;

	switch (be16_to_cpu(msg->attr_id)) {
	case 0x10:
		build_req(buf, &msg->req);
		break;
	case 0x11:
		build_mra(buf, &msg->mra);
		break;
	case 0x12:
		build_rej(buf, &msg->rej);
		break;
	case 0x13:
		build_rep(buf, &msg->rep);
		break;
	case 0x14: case 0x15: case 0x16:
		build_disc(hdr, msg->attr_id, &msg->disc);
		break;
	case 0x17:
		build_sidr_req(buf, &msg->sidr_req);
		break;
	case 0x18:
		build_sidr_rep(buf, &msg->sidr_rep);
		break;
	case 0x19:
		build_lap(buf, &msg->lap);
		break;
	case 0x1a:
		build_apr(buf, &msg->apr);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_msg_build);

/**
 * cm_msg_parse - decode and validate a received CM MAD
 * @buf: the MAD as received
 * @len: its length in bytes
 * @msg: filled in (zeroed first) on success
 *
 * Return: 0; -EMSGSIZE for a MAD shorter than 256 bytes;
 * -EPROTONOSUPPORT for a foreign base version, class, class version or
 * method, or a transport the CM does not carry; -ENOMSG for an unknown
 * attribute; -EINVAL for a field out of its range.
 */
int cm_msg_parse(const void *cbuf, size_t len, struct cm_msg *msg)
{
	/* IBA_GET_MEM_PTR() wants a non-const pointer; nothing is written. */
	void *buf = (void *)cbuf;
	struct ib_mad_hdr *hdr = buf;

	memset(msg, 0, sizeof(*msg));
	if (!buf || len < CM_MAD_SIZE)
		return -EMSGSIZE;
	if (hdr->base_version != IB_MGMT_BASE_VERSION ||
	    hdr->mgmt_class != IB_MGMT_CLASS_CM ||
	    hdr->class_version != CM_CLASS_VERSION ||
	    hdr->method != IB_MGMT_METHOD_SEND)
		return -EPROTONOSUPPORT;
	msg->attr_id = hdr->attr_id;
	msg->attr_mod = hdr->attr_mod;
	msg->tid = hdr->tid;

	switch (be16_to_cpu(hdr->attr_id)) {
	case 0x10:
		return parse_req(buf, &msg->req);
	case 0x11:
		return parse_mra(buf, &msg->mra);
	case 0x12:
		return parse_rej(buf, &msg->rej);
	case 0x13:
		return parse_rep(buf, &msg->rep);
	case 0x14: case 0x15: case 0x16:
		return parse_disc(hdr, hdr->attr_id, &msg->disc);
	case 0x17:
		return parse_sidr_req(buf, &msg->sidr_req);
	case 0x18:
		return parse_sidr_rep(buf, &msg->sidr_rep);
	case 0x19:
		return parse_lap(buf, &msg->lap);
	case 0x1a:
		return parse_apr(buf, &msg->apr);
	default:
		return -ENOMSG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cm_msg_parse);
