/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA-CM address object (doca_rdma_addr_*): an IPv4 / IPv6 address or a
 * host name resolved at create, and the peer address of a CM connection.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../core/sd_core.h"
#include "rdma_cm_internal.h"

SD_LOG_REGISTER(rdma.cm.addr);

doca_error_t
sd_rdma_cm_addr_from_sockaddr(const struct sockaddr_storage *ss, socklen_t len, struct doca_rdma_addr **out)
{
	struct doca_rdma_addr *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(&a->ss, ss, sizeof(a->ss));
	a->ss_len = len;
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		a->type = DOCA_RDMA_ADDR_TYPE_IPv6;
		inet_ntop(AF_INET6, &s6->sin6_addr, a->text, sizeof(a->text));
		a->port = ntohs(s6->sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		a->type = DOCA_RDMA_ADDR_TYPE_IPv4;
		inet_ntop(AF_INET, &s4->sin_addr, a->text, sizeof(a->text));
		a->port = ntohs(s4->sin_port);
	}
	*out = a;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address, uint16_t port,
		      struct doca_rdma_addr **addr)
{
	struct addrinfo hints = {0}, *res = NULL;
	struct doca_rdma_addr *a;
	int rc;

	if (address == NULL || addr == NULL || (unsigned)addr_type > DOCA_RDMA_ADDR_TYPE_GID ||
	    strlen(address) >= sizeof(a->text)) {
		DOCA_LOG_ERR("doca_rdma_addr_create: address (%p) and addr (%p) are required, type %d must be "
			     "IPv4 (0), IPv6 (1) or GID (2), address shorter than %zu characters",
			     (const void *)address, (void *)addr, (int)addr_type, sizeof(a->text));
		return DOCA_ERROR_INVALID_VALUE;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		DOCA_LOG_ERR("doca_rdma_addr_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	a->type = addr_type;
	a->port = port;
	snprintf(a->text, sizeof(a->text), "%s", address);
	if (addr_type == DOCA_RDMA_ADDR_TYPE_GID) {
		struct in6_addr gid;
		static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

		/* A RoCE GID is an IPv6 address, IPv4-mapped for RoCE over IPv4. */
		if (inet_pton(AF_INET6, address, &gid) != 1) {
			DOCA_LOG_ERR("doca_rdma_addr_create: GID \"%s\" is not in IPv6 notation (e.g. "
				     "::ffff:192.168.1.2 or fe80::1%%eth0)",
				     address);
			free(a);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (memcmp(gid.s6_addr, v4mapped, sizeof(v4mapped)) == 0) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons(port);
			memcpy(&s4->sin_addr, gid.s6_addr + 12, 4);
			a->ss_len = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(port);
			s6->sin6_addr = gid;
			a->ss_len = sizeof(*s6);
		}
		*addr = a;
		return DOCA_SUCCESS;
	}
	hints.ai_family = addr_type == DOCA_RDMA_ADDR_TYPE_IPv4 ? AF_INET : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(address, NULL, &hints, &res);
	if (rc != 0 || res == NULL || res->ai_addrlen > sizeof(a->ss)) {
		DOCA_LOG_ERR("doca_rdma_addr_create: \"%s\" is not a valid %s address (%s)", address,
			     addr_type == DOCA_RDMA_ADDR_TYPE_IPv4 ? "IPv4" : "IPv6",
			     rc != 0 ? gai_strerror(rc) : "no result");
		if (res != NULL)
			freeaddrinfo(res);
		free(a);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->ss_len = res->ai_addrlen;
	freeaddrinfo(res);
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	*addr = a;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_addr_destroy(struct doca_rdma_addr *addr)
{
	if (addr == NULL) {
		DOCA_LOG_ERR("doca_rdma_addr_destroy: addr is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* connections keep copies: an address is never in use after connect_to_addr() returned */
	free(addr);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_addr_get_params(struct doca_rdma_addr *addr, enum doca_rdma_addr_type *addr_type, const char **address,
			  uint16_t *port)
{
	if (addr == NULL || addr_type == NULL || address == NULL || port == NULL) {
		DOCA_LOG_ERR("doca_rdma_addr_get_params: addr (%p), addr_type (%p), address (%p) and port (%p) are "
			     "required",
			     (void *)addr, (void *)addr_type, (void *)address, (void *)port);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*addr_type = addr->type;
	*address = addr->text;
	*port = addr->port;
	return DOCA_SUCCESS;
}
