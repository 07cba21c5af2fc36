/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_wait_cq_wr: two loopback RC connections on one device; a send on
 * the second waits, through a "wait for CQ" work request, until the first
 * connection's CQ has produced a completion, so it forwards data that the
 * first connection delivered.
 */
#ifndef VERBS_WAIT_CQ_WR_H_
#define VERBS_WAIT_CQ_WR_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#define WAIT_CQ_DEVICE_NAME_SIZE 128 /* -d: at most 127 characters */

struct wait_cq_config {
	char device_name[WAIT_CQ_DEVICE_NAME_SIZE]; /* -d, mandatory */
	uint32_t gid_index;			    /* -gi */
	bool ipv6;				    /* --ipv6: IPv6 address type instead of IPv4 */
};

/* Build both connections, run the three transfers, check the data, tear down. */
doca_error_t verbs_wait_cq_wr(const struct wait_cq_config *cfg);

#endif /* VERBS_WAIT_CQ_WR_H_ */
