/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Socket addresses of the Verbs address service (fabric_addr_internal.h): what
 * a device listens on, what a GID points at, and how both print.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "../util/sd_env.h"
#include "fabric_addr_internal.h"
#include "fabric_addr_proto.h"

uint16_t
sd_fabric_addr_port_base(void)
{
	return (uint16_t)sd_env_u64("SOFTDOCA_VERBS_PORT_BASE", SD_FABRIC_ADDR_PORT_BASE_DEFAULT,
				    SD_FABRIC_ADDR_PORT_BASE_MIN, SD_FABRIC_ADDR_PORT_BASE_MAX);
}

void
sd_fabric_addr_ip_set_port(struct sd_fabric_addr_ip *ip, uint16_t port)
{
	if (ip->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ip->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&ip->ss)->sin6_port = htons(port);
}

bool
sd_fabric_addr_ip_equal(const struct sd_fabric_addr_ip *a, const struct sd_fabric_addr_ip *b)
{
	if (a->ss.ss_family != b->ss.ss_family)
		return false;
	if (a->ss.ss_family == AF_INET)
		return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&b->ss)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
		      &((const struct sockaddr_in6 *)&b->ss)->sin6_addr, 16) == 0;
}

const char *
sd_fabric_addr_ip_str(const struct sd_fabric_addr_ip *ip, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ip->ss.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&ip->ss;

		inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(s->sin_port));
	} else {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&ip->ss;

		inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(s->sin6_port));
	}
	return buf;
}

static void
ip_from_v4(struct sd_fabric_addr_ip *ip, const uint8_t a[4])
{
	struct sockaddr_in *s = (struct sockaddr_in *)&ip->ss;

	memset(ip, 0, sizeof(*ip));
	s->sin_family = AF_INET;
	memcpy(&s->sin_addr, a, 4);
	ip->len = sizeof(*s);
}

static void
ip_from_v6(struct sd_fabric_addr_ip *ip, const uint8_t a[16], const char *netdev)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ip->ss;

	memset(ip, 0, sizeof(*ip));
	s->sin6_family = AF_INET6;
	memcpy(&s->sin6_addr, a, 16);
	/* A link-local address means nothing without the link it is on: the device's netdev. */
	if (IN6_IS_ADDR_LINKLOCAL(&s->sin6_addr))
		s->sin6_scope_id = if_nametoindex(netdev);
	ip->len = sizeof(*s);
}

/* ::1 is the one ::/96 address (besides IPv4-mapped ones) a GID may be. */
const char *
sd_fabric_addr_ip_of_gid(struct sd_fabric_addr_ip *ip, const uint8_t gid[16], const char *netdev)
{
	static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t zero[12];

	if (memcmp(gid, v4_prefix, sizeof(v4_prefix)) == 0) {
		ip_from_v4(ip, gid + 12);
		return NULL;
	}
	if (gid[0] == 0xff)
		return "GID is a multicast address";
	if (memcmp(gid, zero, sizeof(zero)) == 0 && !(gid[12] == 0 && gid[13] == 0 && gid[14] == 0 && gid[15] == 1))
		return "GID is neither IPv4-mapped (::ffff:a.b.c.d) nor a unicast IPv6 address";
	ip_from_v6(ip, gid, netdev);
	return NULL;
}

bool
sd_fabric_addr_ip_of_dev(struct sd_fabric_addr_ip *ip, const struct doca_devinfo *devinfo)
{
	const uint8_t *v4 = sd_devinfo_ipv4(devinfo), *v6 = sd_devinfo_ipv6(devinfo);

	if (v4 != NULL)
		ip_from_v4(ip, v4);
	else if (v6 != NULL)
		ip_from_v6(ip, v6, sd_devinfo_netdev(devinfo));
	else
		return false;
	return true;
}
