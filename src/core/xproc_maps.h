/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One line of /proc/<pid>/maps, parsed (xproc_maps.c): how the mapped path
 * (xproc_share.c) finds the object behind a registered range.  The parser is
 * pure and fuzzed (tests/fuzz/xproc).
 */
#ifndef SD_XPROC_MAPS_H_
#define SD_XPROC_MAPS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

struct sd_maps_ent {
	uint64_t start, end; /* [start, end) */
	uint64_t off;	     /* offset in the object of start */
	uint64_t ino;	     /* 0: anonymous */
	uint32_t dev_major, dev_minor;
	bool readable, writable, shared;
	const char *path; /* inside the line; NULL when the line names none */
	size_t path_len;
};

/*
 * Parse line[0..n) ("start-end perms offset major:minor inode [path]", an
 * optional trailing newline).  INVALID_VALUE with *reason for anything else
 * (e is then unspecified).
 */
doca_error_t sd_maps_line_parse(const char *line, size_t n, struct sd_maps_ent *e, const char **reason);

#endif /* SD_XPROC_MAPS_H_ */
