/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Verbs address service: how a peer that knows only (GID, QPN), as a
 * program gives them at INIT -> RTR, obtains the connection blob of the fabric
 * queue pair behind that QP (docs/verbs.md "Addressing").  A QPN encodes the
 * TCP port its owner listens on (fabric_addr_proto.h); one resolver thread per
 * process ("sdfab-addr") answers queries.  It lives in libsoftdoca_fabric, so a
 * process has one service whichever libraries load it; libdoca_verbs calls it.
 * The blob is opaque here (the caller's fabric_ep export); every call is
 * thread-safe.
 */
#ifndef SD_FABRIC_ADDR_H_
#define SD_FABRIC_ADDR_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "../core/sd_core.h"
#include "../util/sd_util.h"

/*
 * Take a fresh QPN on devinfo's address service (the listener on the device's
 * IPv4 address, else its IPv6 one, and the resolver thread start on first use).
 * Devices with the same IP address share one listener.  Errors: INVALID_VALUE
 * (NULL argument), NOT_SUPPORTED (the device has no IP address), FULL (16383
 * QPNs in use on that address, or all 1023 ports of the range taken),
 * NO_MEMORY, OPERATING_SYSTEM (socket, bind, thread).
 */
SD_EXPORT doca_error_t sd_fabric_addr_add(const struct doca_devinfo *devinfo, uint32_t *qpn);

/*
 * What a peer resolving qpn receives (copied; 1..4096 bytes, a later call
 * replaces it).  Until then a query is answered "not ready".  Errors:
 * INVALID_VALUE (NULL blob, len 0 or over 4096), NOT_FOUND (qpn not added), NO_MEMORY.
 */
SD_EXPORT doca_error_t sd_fabric_addr_publish(uint32_t qpn, const void *blob, size_t len);

/*
 * The QP is bound to its peer (RTR): from now on only a resolver presenting
 * (peer_gid, peer_qpn) gets the blob; others are answered "bound to another
 * peer".  A second call rebinds.  Unknown qpn: ignored.
 */
SD_EXPORT void sd_fabric_addr_bind(uint32_t qpn, const uint8_t peer_gid[16], uint32_t peer_qpn);

/*
 * Give the QPN back: queries are answered "no such QP".  The number is not
 * handed out again before the other 16382 of its listener were.  The last QPN
 * of the process stops the resolver thread (joined here) and closes the
 * listeners.  Unknown qpn: ignored.
 */
SD_EXPORT void sd_fabric_addr_remove(uint32_t qpn);

/*
 * Ask the process owning (gid, qpn) for its blob, from the local device's
 * address (the IP in local's GID: the connection's source, which the owner
 * checks against the request) and local QPN src_qpn.  Retries "not ready",
 * "no such QP" and connection refused every ~10 ms until timeout_ms elapsed
 * (at least one attempt is made).  On success blob holds *len bytes; on
 * failure blob and *len are untouched and *reason (may be NULL) names the
 * cause, for the caller to log once (the string stays valid until the calling
 * thread's next resolve).  Errors:
 *   NOT_FOUND            no such QP, not published, nobody listening, until the timeout
 *   CONNECTION_ABORTED   the QP is bound to another peer
 *   TIME_OUT             no answer (unreachable, silent, or connection cut) before the timeout
 *   INVALID_VALUE        NULL argument, gid neither IPv4-mapped nor a unicast IPv6
 *                        address, local and remote GID of different families,
 *                        local GID not an address of this host, malformed answer
 *   UNSUPPORTED_VERSION  the owner speaks another protocol version
 *   TOO_BIG              the blob is larger than cap
 */
SD_EXPORT doca_error_t sd_fabric_addr_resolve(const struct doca_devinfo *local, const uint8_t gid[16], uint32_t qpn,
					      uint32_t src_qpn, void *blob, size_t cap, size_t *len,
					      uint32_t timeout_ms, const char **reason);

#endif /* SD_FABRIC_ADDR_H_ */
