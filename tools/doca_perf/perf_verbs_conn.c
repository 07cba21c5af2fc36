/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs, out of band: descriptor files in --oob-dir.  The server
 * writes verbs.server (with this run's nonce), the client answers with
 * verbs.client carrying the same nonce, and the server writes verbs.go once
 * its QP is RTS and its receives are posted.  Each side connects its QP to the
 * other's descriptor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_verbs.h"

#define DESC_MAGIC 0x56524253u /* "SBRV" */

/* Remove the descriptor files a run leaves in dir. */
void
perf_verbs_oob_clean(const char *dir)
{
	static const char *const names[] = {"verbs.server", "verbs.client", "verbs.go"};
	char path[4200];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
}

static void
take_desc(struct perf_verbs *v, void *blob, size_t len, const char *what)
{
	if (len != sizeof(v->remote) || ((struct perf_verbs_desc *)blob)->magic != DESC_MAGIC) {
		free(blob);
		perf_verbs_die(v, what);
	}
	memcpy(&v->remote, blob, sizeof(v->remote));
	free(blob);
}

/* Descriptors out, the peer's in, the QP connected and the receive ring posted on both sides. */
void
perf_verbs_exchange(struct perf_verbs *v)
{
	const char *dir = v->o->oob_dir;
	size_t len;
	void *blob;

	v->local.magic = DESC_MAGIC;
	if (v->server) {
		perf_oob_put(dir, "verbs.server", &v->local, sizeof(v->local));
		/* The client that answers this run's nonce. */
		for (;;) {
			blob = perf_oob_wait(dir, "verbs.client", &len, 3600, "client");
			if (len == sizeof(v->remote) && ((struct perf_verbs_desc *)blob)->nonce == v->local.nonce)
				break;
			free(blob);
			usleep(10000);
		}
		take_desc(v, blob, len, "the client's descriptor is malformed");
		perf_verbs_connect_qp(v);
		for (uint32_t i = 0; i < PERF_VERBS_NRECV; i++)
			perf_verbs_post_recv_slot(v, i);
		perf_oob_put(dir, "verbs.go", &v->local.nonce, sizeof(v->local.nonce));
		return;
	}
	blob = perf_oob_wait(dir, "verbs.server", &len, 60, "server");
	take_desc(v, blob, len, "the server's descriptor is malformed");
	v->local.nonce = v->remote.nonce;
	perf_oob_put(dir, "verbs.client", &v->local, sizeof(v->local));
	perf_verbs_connect_qp(v);
	for (uint32_t i = 0; i < PERF_VERBS_NRECV; i++)
		perf_verbs_post_recv_slot(v, i);
	for (;;) {
		uint32_t *nonce = perf_oob_wait(dir, "verbs.go", &len, 60, "server");
		bool ok = len == sizeof(*nonce) && *nonce == v->local.nonce;

		free(nonce);
		if (ok)
			break;
		usleep(2000);
	}
}
