/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_aes_gcm_encrypt: encrypt a file with DOCA AES-GCM (aes_gcm_common.c).
 * Flags: -p -f (required) -o -k -i -t -a -ns -nd (docs/aes_gcm.md).
 */
#include "aes_gcm_common.h"

int
main(int argc, char **argv)
{
	return aes_gcm_sample_main(AES_GCM_MODE_ENCRYPT, argc, argv);
}
