/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What doca_aes_gcm_encrypt and doca_aes_gcm_decrypt share: their flags and
 * defaults, and the run itself - one file through one task of the chosen
 * direction, the result written to the output file and shown as a hex dump.
 */
#ifndef AES_GCM_COMMON_H_
#define AES_GCM_COMMON_H_

#include <stdint.h>

#include <doca_aes_gcm.h>
#include <doca_dev.h>
#include <doca_error.h>

#define AES_GCM_MAX_PATH 255
#define AES_GCM_MAX_KEY 32
#define AES_GCM_MAX_IV 12

enum aes_gcm_mode {
	AES_GCM_MODE_ENCRYPT,
	AES_GCM_MODE_DECRYPT,
};

struct aes_gcm_cfg {
	char file_path[AES_GCM_MAX_PATH + 1];	      /* -f, mandatory */
	char output_path[AES_GCM_MAX_PATH + 1];	      /* -o, /tmp/out.txt */
	char pci_address[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p, 03:00.0 */
	uint8_t raw_key[AES_GCM_MAX_KEY];	      /* -k, 256 zero bits */
	enum doca_aes_gcm_key_type raw_key_type;
	uint8_t iv[AES_GCM_MAX_IV]; /* -i, 12 zero bytes */
	uint32_t iv_length;
	uint32_t tag_size; /* -t, 12 */
	uint32_t aad_size; /* -a, 0 */
	int num_src_buf;   /* -ns, 1 */
	int num_dst_buf;   /* -nd, 1 */
};

/* The sample's main(): logging, ARGP with the flags above, the run, DOCA's last line. */
int aes_gcm_sample_main(enum aes_gcm_mode mode, int argc, char **argv);

#endif /* AES_GCM_COMMON_H_ */
