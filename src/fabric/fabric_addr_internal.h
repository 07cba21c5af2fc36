/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Verbs address service's files share (fabric_addr.c: the owner side
 * and the resolver thread; fabric_addr_resolve.c: the asking side): socket
 * addresses made from devices and GIDs (fabric_addr_ip.c) and the port range.
 */
#ifndef SD_FABRIC_ADDR_INTERNAL_H_
#define SD_FABRIC_ADDR_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../core/sd_core.h"

/* An IPv4 or IPv6 socket address (port in network order inside ss). */
struct sd_fabric_addr_ip {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* Room for "[v6 address]:port". */
#define SD_FABRIC_ADDR_IP_STRLEN 56

/* SOFTDOCA_VERBS_PORT_BASE: slot s listens on port base + s (docs/knobs.md). */
uint16_t sd_fabric_addr_port_base(void);

void sd_fabric_addr_ip_set_port(struct sd_fabric_addr_ip *ip, uint16_t port);

/* Same family and address (ports and scopes not compared). */
bool sd_fabric_addr_ip_equal(const struct sd_fabric_addr_ip *a, const struct sd_fabric_addr_ip *b);

/* "a.b.c.d:port" or "[v6]:port" into buf (SD_FABRIC_ADDR_IP_STRLEN bytes); returns buf. */
const char *sd_fabric_addr_ip_str(const struct sd_fabric_addr_ip *ip, char *buf, size_t size);

/*
 * The address a device's listener binds: its IPv4 address, else its IPv6 one
 * (link-local: scoped to its netdev).  False when it has neither.
 */
bool sd_fabric_addr_ip_of_dev(struct sd_fabric_addr_ip *ip, const struct doca_devinfo *devinfo);

/*
 * The address a GID stands for: IPv4-mapped (::ffff:a.b.c.d) -> IPv4, another
 * unicast IPv6 address -> itself (link-local: scoped to netdev).  NULL, or why
 * the GID is neither (unspecified, multicast, other ::/96 forms).
 */
const char *sd_fabric_addr_ip_of_gid(struct sd_fabric_addr_ip *ip, const uint8_t gid[16], const char *netdev);

#endif /* SD_FABRIC_ADDR_INTERNAL_H_ */
