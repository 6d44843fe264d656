// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_cma trace events (trace.h) are instantiated here.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
