/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA context: creation on an RDMA-capable device, properties, and the ctx
 * ops core's state machine calls (start, progress, flush, stopped, arm).
 */
#include "../core/sd_log.h"
#include "rdma_internal.h"

SD_LOG_REGISTER(rdma);
