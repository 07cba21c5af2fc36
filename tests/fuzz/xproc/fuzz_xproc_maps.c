/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the /proc/<pid>/maps line parser (src/core/xproc_maps.c):
 * any bytes.  A refusal is INVALID_VALUE with a reason; an acceptance has a
 * non-empty range and a path, when there is one, that lies inside the line
 * and holds no newline or NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "xproc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *line = (const char *)data, *reason = NULL;
	struct sd_maps_ent e;
	doca_error_t err = sd_maps_line_parse(line, size, &e, &reason);

	if (err != DOCA_SUCCESS) {
		if (err != DOCA_ERROR_INVALID_VALUE || reason == NULL || reason[0] == '\0')
			abort();
		return 0;
	}
	if (e.end <= e.start)
		abort();
	if (e.path != NULL) {
		if (e.path < line || e.path_len == 0 || e.path + e.path_len > line + size ||
		    memchr(e.path, '\n', e.path_len) != NULL || memchr(e.path, '\0', e.path_len) != NULL)
			abort();
	} else if (e.path_len != 0) {
		abort();
	}
	return 0;
}
