/* SPDX-License-Identifier: BSD-3-Clause */
/* What rdma_cm.c (the CM path of doca_rdma) and rdma_cm_addr.c (its address object) share. */
#ifndef SD_RDMA_CM_INTERNAL_H_
#define SD_RDMA_CM_INTERNAL_H_

#include <arpa/inet.h>
#include <sys/socket.h>

#include <doca_rdma.h>

struct doca_rdma_addr {
	enum doca_rdma_addr_type type;
	char text[INET6_ADDRSTRLEN + 64];
	uint16_t port;
	struct sockaddr_storage ss;
	socklen_t ss_len;
};
/* A new address object holding ss (NO_MEMORY). */
doca_error_t sd_rdma_cm_addr_from_sockaddr(const struct sockaddr_storage *ss, socklen_t len,
					   struct doca_rdma_addr **out);

#endif /* SD_RDMA_CM_INTERNAL_H_ */
