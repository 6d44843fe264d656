// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for softib's neighbour table and its SM binding
 * (drivers/softib/net.c, issue 42): a unicast LID is learned from a
 * frame's SLID and Ethernet source and looked up for the frames to it;
 * the port's own LIDs, multicast LIDs, the permissive LID, LID 0 and
 * non-unicast MACs are never learned, and the last three always go to
 * broadcast; an entry ages out after SOFTIB_NEIGH_AGE, a flush empties the
 * table (and, when asked, forgets the SM), and so does a change of the
 * port's own LID (not the SM); the table never holds more than
 * SOFTIB_NEIGH_MAX entries, the one seen longest ago making room. The SM
 * binding of mgmt_policy sm-only takes the first source and refuses every
 * other until a link-down flush; a non-zero M_Key leaves the decision to
 * IBA's check.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "drivers/softib/softib.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const u8 mac_a[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0a };
static const u8 mac_b[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0b };
static const u8 mac_mc[ETH_ALEN] = { 0x01, 0, 0x5e, 0, 0, 1 };
static const u8 mac_zero[ETH_ALEN];

/* a time well past jiffies' wrap, so that ageing is tested across it */
#define T0	((unsigned long)-5 * HZ)

static struct softib_neigh *sibn_new(struct kunit *test)
{
	struct softib_neigh *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, n);
	softib_neigh_init(n);
	return n;
}

static void sibn_learn_lookup(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	u8 mac[ETH_ALEN];

	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 5, mac, T0));
	softib_neigh_learn(n, 5, 1, 0, mac_a, T0);
	KUNIT_ASSERT_TRUE(test, softib_neigh_lookup(n, 5, mac, T0 + 1));
	KUNIT_EXPECT_MEMEQ(test, mac, mac_a, ETH_ALEN);
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 6, mac, T0 + 1));
	/* the LID moved: the newer frame wins */
	softib_neigh_learn(n, 5, 1, 0, mac_b, T0 + 2);
	KUNIT_ASSERT_TRUE(test, softib_neigh_lookup(n, 5, mac, T0 + 3));
	KUNIT_EXPECT_MEMEQ(test, mac, mac_b, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0 + 3), 1U);
}

/* No frame re-points a LID of the port's own (LMC range included). */
static void sibn_own_lid(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	u8 mac[ETH_ALEN];
	u16 lid;

	for (lid = 0x10; lid < 0x14; lid++)
		softib_neigh_learn(n, lid, 0x10, 3, mac_a, T0);
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0), 0U);
	softib_neigh_learn(n, 0x14, 0x10, 3, mac_a, T0);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 0x14, mac, T0));
	/* a port without a LID yet has none to protect */
	softib_neigh_learn(n, 0x10, 0, 0, mac_a, T0);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 0x10, mac, T0));
}

/* Multicast stays broadcast; so do the permissive LID and LID 0. */
static void sibn_mcast_broadcast(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	static const u16 lids[] = { 0, 0xc000, 0xc001, 0xfffe, 0xffff };
	u8 mac[ETH_ALEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lids); i++) {
		softib_neigh_learn(n, lids[i], 1, 0, mac_a, T0);
		KUNIT_EXPECT_FALSE_MSG(test,
				       softib_neigh_lookup(n, lids[i], mac, T0),
				       "LID 0x%x", lids[i]);
	}
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0), 0U);
	/* a multicast or zero source teaches nothing */
	softib_neigh_learn(n, 7, 1, 0, mac_mc, T0);
	softib_neigh_learn(n, 8, 1, 0, mac_zero, T0);
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0), 0U);
}

static void sibn_age(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	u8 mac[ETH_ALEN];

	softib_neigh_learn(n, 9, 1, 0, mac_a, T0);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 9, mac,
						    T0 + SOFTIB_NEIGH_AGE - 1));
	/* a frame refreshes it */
	softib_neigh_learn(n, 9, 1, 0, mac_a, T0 + SOFTIB_NEIGH_AGE - 1);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 9, mac,
						    T0 + 2 * SOFTIB_NEIGH_AGE - 2));
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 9, mac,
						     T0 + 2 * SOFTIB_NEIGH_AGE));
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0 + 2 * SOFTIB_NEIGH_AGE),
			0U);
}

static void sibn_flush(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	u8 mac[ETH_ALEN];

	softib_neigh_learn(n, 3, 1, 0, mac_a, T0);
	KUNIT_EXPECT_TRUE(test, softib_neigh_sm_ok(n, mac_a));
	/* the port's LID changed: the neighbours go, the SM stays */
	softib_neigh_flush(n, false);
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 3, mac, T0));
	KUNIT_EXPECT_FALSE(test, softib_neigh_sm_ok(n, mac_b));
	/* the link went down: the SM goes too */
	softib_neigh_learn(n, 3, 1, 0, mac_a, T0);
	softib_neigh_flush(n, true);
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 3, mac, T0));
	KUNIT_EXPECT_TRUE(test, softib_neigh_sm_ok(n, mac_b));
}

/* The port's own LID changed (a new subnet): the table starts anew. */
static void sibn_own_change(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	u8 mac[ETH_ALEN];

	softib_neigh_learn(n, 3, 1, 0, mac_a, T0);
	KUNIT_EXPECT_TRUE(test, softib_neigh_sm_ok(n, mac_a));
	softib_neigh_own(n, 1);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 3, mac, T0));
	softib_neigh_own(n, 2);
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 3, mac, T0));
	KUNIT_EXPECT_FALSE(test, softib_neigh_sm_ok(n, mac_b));
	softib_neigh_learn(n, 3, 1, 0, mac_a, T0);
	softib_neigh_learn(n, 4, 2, 0, mac_a, T0);
	KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 3, mac, T0));
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 4, mac, T0));
}

/* Never more than SOFTIB_NEIGH_MAX: the one seen longest ago goes. */
static void sibn_cap(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);
	unsigned int i, extra = 8, found = 0;
	u8 mac[ETH_ALEN];

	for (i = 0; i < SOFTIB_NEIGH_MAX + extra; i++)
		softib_neigh_learn(n, 100 + i, 1, 0, mac_a, T0 + i);
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0 + 2 * SOFTIB_NEIGH_MAX),
			SOFTIB_NEIGH_MAX);
	for (i = 0; i < extra; i++)
		KUNIT_EXPECT_FALSE(test, softib_neigh_lookup(n, 100 + i, mac,
							     T0 + 200));
	for (i = extra; i < SOFTIB_NEIGH_MAX + extra; i++)
		found += softib_neigh_lookup(n, 100 + i, mac, T0 + 200);
	KUNIT_EXPECT_EQ(test, found, SOFTIB_NEIGH_MAX);
	/* a known LID refreshed takes no new slot */
	softib_neigh_learn(n, 100 + extra, 1, 0, mac_b, T0 + 300);
	KUNIT_EXPECT_EQ(test, softib_neigh_count(n, T0 + 300),
			SOFTIB_NEIGH_MAX);
	KUNIT_EXPECT_TRUE(test, softib_neigh_lookup(n, 100 + extra + 1, mac,
						    T0 + 300));
}

/* sm-only (the default): the first SubnSet's source is the SM. */
static void sibn_sm_policy(struct kunit *test)
{
	struct softib_neigh *n = sibn_new(test);

	KUNIT_ASSERT_EQ(test, softib_mgmt_policy_get(), SOFTIB_MGMT_SM_ONLY);
	KUNIT_EXPECT_TRUE(test, softib_mgmt_set_ok(n, 0, mac_a));
	KUNIT_EXPECT_TRUE(test, softib_mgmt_set_ok(n, 0, mac_a));
	KUNIT_EXPECT_FALSE(test, softib_mgmt_set_ok(n, 0, mac_b));
	KUNIT_EXPECT_FALSE(test, softib_mgmt_set_ok(n, 0, mac_zero));
	/* a port with an M_Key: IBA's check decides, for anyone */
	KUNIT_EXPECT_TRUE(test, softib_mgmt_set_ok(n, cpu_to_be64(0x1234),
						   mac_b));
	softib_neigh_flush(n, true);
	KUNIT_EXPECT_TRUE(test, softib_mgmt_set_ok(n, 0, mac_b));
	KUNIT_EXPECT_FALSE(test, softib_mgmt_set_ok(n, 0, mac_a));
}

static struct kunit_case sibn_cases[] = {
	KUNIT_CASE(sibn_learn_lookup),
	KUNIT_CASE(sibn_own_lid),
	KUNIT_CASE(sibn_mcast_broadcast),
	KUNIT_CASE(sibn_age),
	KUNIT_CASE(sibn_flush),
	KUNIT_CASE(sibn_own_change),
	KUNIT_CASE(sibn_cap),
	KUNIT_CASE(sibn_sm_policy),
	{}
};

static struct kunit_suite sibn_suite = {
	.name = "softib_neigh",
	.test_cases = sibn_cases,
};

kunit_test_suite(sibn_suite);

MODULE_DESCRIPTION("KUnit tests for softib's neighbour table and SM binding");
MODULE_LICENSE("GPL");
