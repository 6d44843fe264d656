/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib's switch node: 2 to SOFTIB_SW_MAX_PORTS external ports, each riding
 * on one Ethernet netdev (a veth end), and a management port 0 whose SMA
 * answers the SM. It is not an ib_device (rdmavt makes only CAs, see
 * docs/softib-switch.md); /sys/class/softib_switch creates and binds it.
 *
 *   sw.c      lifetime, the sysfs control, port binding, the links' states
 *   sw_sma.c  the switch's SMA: SubnGet/SubnSet of its attributes
 *   sw_fwd.c  the receive path of a switch port: directed-route SMPs, SMPs
 *             to the switch's LID, LFT and MFT forwarding
 */
#ifndef SOFTIB_SW_H
#define SOFTIB_SW_H

#include <linux/device.h>
#include <linux/netdevice.h>
#include <rdma/ib_smi.h>
#include "softib.h"

#define SOFTIB_SW_MIN_PORTS	2
#define SOFTIB_SW_MAX_PORTS	32
#define SOFTIB_SW_LFT_CAP	49152	/* LinearFDBCap: unicast LIDs */
#define SOFTIB_SW_MFT_CAP	1024	/* MulticastFDBCap: MLIDs 0xc000.. */
#define SOFTIB_SW_DEVICE_ID	0x0002	/* NodeInfo DeviceID (CAs: 1) */
#define SOFTIB_SW_LFT_NONE	0xff	/* an LFT entry that forwards nowhere */
/*
 * The most switches a LID-routed packet may pass (sw_fwd.c, sw_hop()):
 * the hops are counted in the BTH, and the packet a switch would forward
 * for the SOFTIB_SW_HOP_LIMIT + 1st time is dropped (a loop dies). Five
 * switches are the longest path of a three-tier fat tree; a multicast
 * loop that doubles a packet at every hop sends it at most 2^8 times.
 */
#define SOFTIB_SW_HOP_LIMIT	8

/* Why a switch dropped a packet; counted per arrival port. */
enum softib_sw_drop {
	SOFTIB_SW_DROP_SHORT,	/* too short or malformed for its headers */
	SOFTIB_SW_DROP_LID,	/* DLID not in the LFT/MFT, or LFT says none */
	SOFTIB_SW_DROP_LOOP,	/* would leave on its arrival port */
	SOFTIB_SW_DROP_STATE,	/* input or output port not in a state for it */
	SOFTIB_SW_DROP_MTU,	/* larger than the output carrier takes */
	SOFTIB_SW_DROP_SMP,	/* a DR or LID-routed SMP C14-9/C14-13 discard */
	SOFTIB_SW_DROP_ICRC,	/* an SMP to the switch with a bad ICRC */
	SOFTIB_SW_DROP_HOPS,	/* forwarded SOFTIB_SW_HOP_LIMIT times: a loop */
	SOFTIB_SW_DROP_MGMT,	/* a SubnSet the management policy refuses */
	SOFTIB_SW_DROP_NR
};

struct softib_sw;

/*
 * One port, 1..nports (port[0] is the management port and has no netdev).
 * ndev is set and cleared under softib_sw_lock (the mutex) and read under
 * RCU by the receive path; claim holds the netdev against CAs and other
 * ports (main.c, under softib_lock) from before ndev is set until after it
 * is cleared. Link and PortInfo state are under sw->lock.
 */
struct softib_sw_port {
	struct softib_sw *sw;
	u8 num;
	struct net_device __rcu *ndev;
	netdevice_tracker tracker;
	struct list_head bound;		/* softib_sw_ports, while ndev is set */
	struct softib_claim claim;	/* while ndev is set */
	struct net_device *gone;	/* unbound by a deletion, still held */

	/* under sw->lock; read with READ_ONCE on the data path */
	bool carrier;
	u8 state;			/* enum ib_port_state */
	u8 phys_state;			/* enum ib_port_phys_state */
	u8 link_down_default;
	u8 mtu;				/* NeighborMTU, enum ib_mtu */
	u8 op_vls;
	u8 vl_high_limit;
	u8 vlstall_hoqlife;
	u8 phy_overrun_thresholds;
	u8 link_width_enabled;
	u8 link_speed_enabled;
	u8 vl_arb[4][IB_SMP_DATA_SIZE];	/* VLArbitrationTable blocks 1-4 */

	atomic64_t rx_pkts, tx_pkts, rx_words, tx_words;
	atomic64_t drops[SOFTIB_SW_DROP_NR];
	/* who is behind the port (net.c); its SM binding is unused */
	struct softib_neigh neigh;
};

/* The switch. Everything management is under lock (BH: the SMA's softirq). */
struct softib_sw {
	struct device dev;		/* /sys/class/softib_switch/NAME */
	struct list_head list;		/* softib_sw_list, under softib_sw_lock */
	spinlock_t lock;
	bool dead;			/* being deleted; under softib_sw_lock */
	u8 nports;
	__be64 guid;			/* node, system image and port 0 GUID */
	char desc[IB_DEVICE_NODE_DESC_MAX];

	/* port 0's PortInfo */
	u16 lid;
	u8 lmc;
	u16 sm_lid;
	u8 sm_sl;
	__be64 gid_prefix;
	__be64 mkey;
	u8 mkeyprot;
	u16 mkey_lease_period;
	unsigned long mkey_lease_timeout;	/* jiffies, 0: no lease running */
	u16 mkey_violations;
	/*
	 * mgmt_policy sm-only (net.c): the port (0: none yet) and Ethernet
	 * source the first SubnSet from the wire came by; forgotten when
	 * that port's link goes down.
	 */
	u8 sm_port;
	u8 sm_mac[ETH_ALEN];
	u8 subnet_timeout;
	u16 pkeys[SOFTIB_NPKEYS];		/* port 0's P_KeyTable */

	/* SwitchInfo */
	u16 lft_top;			/* LinearFDBTop */
	u8 default_port;
	u8 default_mcast_primary;
	u8 default_mcast_not_primary;
	u8 life_time;			/* LifeTimeValue, 5 bits */
	bool psc;			/* PortStateChange */

	u8 *lft;			/* SOFTIB_SW_LFT_CAP output ports */
	u64 *mft;			/* SOFTIB_SW_MFT_CAP port masks */
	u8 *sl2vl;			/* [in][out][8]: two SLs per byte */

	struct softib_sw_port port[];	/* 0..nports */
};

static inline struct softib_sw *dev_to_sw(struct device *dev)
{
	return container_of(dev, struct softib_sw, dev);
}

/* sw.c */
int softib_sw_init(void);
void softib_sw_exit(void);
struct softib_sw_port *softib_sw_port_find_rcu(struct net_device *ndev);
void softib_sw_netdev_event(struct net_device *ndev, unsigned long event);
void softib_sw_link_train(struct softib_sw_port *p);
void softib_sw_drop(struct softib_sw_port *p, enum softib_sw_drop why);
struct softib_sw *softib_sw_alloc(u8 nports, u32 idx);
void softib_sw_free(struct softib_sw *sw);

/* sw_sma.c: answer the SMP in place; false: send nothing back */
bool softib_sw_sma(struct softib_sw *sw, u8 in_port, struct ib_smp *smp);
void softib_sw_port_reset(struct softib_sw_port *p);

/* sw_fwd.c */
bool softib_sw_mgmt_ok(struct softib_sw_port *p, const struct ib_smp *smp,
		       const u8 *src);
void softib_sw_rcv(struct softib_sw_port *p, struct sk_buff *skb);

#endif /* SOFTIB_SW_H */
