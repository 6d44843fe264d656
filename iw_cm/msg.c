// SPDX-License-Identifier: GPL-2.0
/*
 * openrdma-cm iw_cm: text for the status of a failed connection.
 *
 * iWARP reports why a connection was not made as a negative errno in the
 * CONNECT_REPLY status (rdma_cm passes it on as the REJECTED status).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/* No <openrdma/symvers.h> in iw_cm: see the note in id.c. */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "iwcm.h"

struct iwcm_reason {
	int status;
	const char *text;
};

/*
 * The in-tree texts, word for word: ULPs log them and scripts grep for
 * them. Every other status (0 included) is "unrecognized reason".
 */
static const struct iwcm_reason iwcm_reasons[] = {
	{ -ECONNRESET,	 "reset by remote host" },
	{ -ECONNREFUSED, "refused by remote application" },
	{ -ETIMEDOUT,	 "setup timeout" },
};

/**
 * iwcm_reject_msg - describe the status of a failed iWARP connection
 * @reason: the (negative errno) status of a CONNECT_REPLY event
 *
 * Return: a constant string; "unrecognized reason" for unknown values.
 */
const char *__attribute_const__ iwcm_reject_msg(int reason)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(iwcm_reasons); i++)
		if (iwcm_reasons[i].status == reason)
			return iwcm_reasons[i].text;
	return "unrecognized reason";
}
EXPORT_SYMBOL(iwcm_reject_msg);
