/* SPDX-License-Identifier: BSD-3-Clause */
/* The out-of-band TCP channel of doca_verbs_server_client. */
#ifndef VERBS_SERVER_CLIENT_OOB_H_
#define VERBS_SERVER_CLIENT_OOB_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

/*
 * Listen on 0.0.0.0:port (SO_REUSEADDR | SO_REUSEPORT), log that it waits, and
 * accept one client.  Both descriptors are returned on success.
 */
doca_error_t verbs_oob_server_accept(uint16_t port, int *listen_fd, int *conn_fd);

/* Connect to server_ip:port; a refused, unreachable or silent (10 s) server is an error. */
doca_error_t verbs_oob_client_connect(const char *server_ip, uint16_t port, int *conn_fd);

/* Send len bytes of local, then receive len bytes into remote; what names the field in errors. */
doca_error_t verbs_oob_exchange(int fd, const void *local, void *remote, size_t len, const char *what);

/* SUCCESS while the peer keeps the connection open; CONNECTION_ABORTED (logged) once it closed it. */
doca_error_t verbs_oob_peer_alive(int fd);

/* Close *fd when open and mark it closed (-1). */
void verbs_oob_close(int *fd);

#endif /* VERBS_SERVER_CLIENT_OOB_H_ */
