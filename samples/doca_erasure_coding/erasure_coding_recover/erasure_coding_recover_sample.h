/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_erasure_coding_recover: encode a file into k data and m redundancy
 * block files, or recover a file from such blocks, or both with some data
 * blocks deleted in between (docs/erasure_coding.md).
 */
#ifndef ERASURE_CODING_RECOVER_SAMPLE_H_
#define ERASURE_CODING_RECOVER_SAMPLE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_erasure_coding.h>
#include <doca_error.h>

#define EC_USER_MAX_PATH 255		   /* longest path a flag takes */
#define EC_MAX_PATH (EC_USER_MAX_PATH + 1) /* with its NUL */
#define EC_MAX_BLOCKS (128 + 32)	   /* up to 128 data and 32 redundancy blocks */

struct ec_recover_cfg {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p, default 03:00.0 */
	char input_path[EC_MAX_PATH];		   /* -i: a file to encode or a block directory to decode */
	char output_path[EC_MAX_PATH];		   /* -o: the block directory, or the recovered file (decode) */
	bool do_both;				   /* -b: encode, delete -d, decode */
	enum doca_ec_matrix_type matrix;	   /* -x */
	uint32_t data_blocks;			   /* -t, k */
	uint32_t rdnc_blocks;			   /* -r, m */
	uint32_t delete_indices[EC_MAX_BLOCKS];	   /* -d */
	size_t n_delete;
	int num_src_buf; /* -ns: segments of the source list */
	int num_dst_buf; /* -nd: segments of the destination list */
};

/* Run the mode the configuration asks for. */
doca_error_t ec_recover(const struct ec_recover_cfg *cfg);

#endif /* ERASURE_CODING_RECOVER_SAMPLE_H_ */
