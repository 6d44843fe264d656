// SPDX-License-Identifier: GPL-2.0
/*
 * The iw_cm trace events (trace.h) are instantiated here.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
