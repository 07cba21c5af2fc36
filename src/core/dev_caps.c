/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every capability a soft function can carry, as data (struct sd_dev_caps), and
 * the models: which engines and task families the card a device stands for has
 * (docs/devices.md "Models").  The default model, "soft", has them all, so every
 * DOCA program runs; the others let a program meet the card it will be deployed
 * on.  The topology's "caps" overrides apply on top of the model.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dev_internal.h"

#define CAP(field, kind, api)                                                                                          \
	{                                                                                                              \
#field, SD_DEV_CAP_##kind, offsetof(struct sd_dev_caps, field), api                                    \
	}

static const struct sd_dev_cap_desc cap_descs[] = {
	CAP(dma_memcpy, BOOL, "doca_dma_cap_task_memcpy_is_supported"),
	CAP(dma_max_buf_size, U64, "doca_dma_cap_task_memcpy_get_max_buf_size"),
	CAP(dma_max_buf_list_len, U32, "doca_dma_cap_task_memcpy_get_max_buf_list_len"),
	CAP(dma_max_num_tasks, U32, "doca_dma_cap_get_max_num_tasks"),
	CAP(pci_export, BOOL, "doca_mmap_cap_is_export_pci_supported"),
	CAP(pci_import, BOOL, "doca_mmap_cap_is_create_from_export_pci_supported"),
	CAP(rdma, BOOL, "doca_rdma_cap_task_*_is_supported"),
	CAP(rdma_max_send_queue_size, U32, "doca_rdma_cap_get_max_send_queue_size"),
	CAP(rdma_max_recv_queue_size, U32, "doca_rdma_cap_get_max_recv_queue_size"),
	CAP(rdma_max_send_buf_list_len, U32, "doca_rdma_cap_get_max_send_buf_list_len"),
	CAP(rdma_max_recv_buf_list_len, U32, "doca_rdma_cap_task_receive_get_max_dst_buf_list_len"),
	CAP(rdma_max_message_size, U32, "doca_rdma_cap_get_max_message_size"),
	CAP(rdma_max_connections, U32, "doca_rdma_set_max_num_connections (upper bound)"),
	CAP(rdma_dc, BOOL, "doca_rdma_cap_transport_type_is_supported (DC)"),
	CAP(gid_table_size, U32, "doca_rdma_cap_get_gid_table_size"),
	CAP(accelerate_resource_reclaim, BOOL, "doca_devinfo_cap_is_accelerate_resource_reclaim_supported"),
	CAP(notification_moderation, BOOL, "doca_devinfo_cap_is_notification_moderation_supported"),
	CAP(clock_nic_free_running, BOOL, "doca_clock_cap_nic_free_running_is_supported"),
	CAP(clock_nic_real_time, BOOL, "doca_clock_cap_nic_real_time_is_supported"),
	CAP(cache_invalidate, BOOL, "doca_mmap_advise_cap_task_cache_invalidate_is_supported"),
	CAP(cache_invalidate_max_buf_size, U64, "doca_mmap_advise_task_cache_invalidate_get_max_buf_size"),
	CAP(verbs, BOOL, "doca_verbs_context_create"),
	CAP(compress_deflate, BOOL, "doca_compress_cap_task_compress_deflate_is_supported"),
	CAP(decompress_deflate, BOOL, "doca_compress_cap_task_decompress_deflate_is_supported"),
	CAP(decompress_lz4_stream, BOOL, "doca_compress_cap_task_decompress_lz4_stream_is_supported"),
	CAP(decompress_lz4_block, BOOL, "doca_compress_cap_task_decompress_lz4_block_is_supported"),
	CAP(compress_max_buf_size, U64, "doca_compress_cap_task_compress_deflate_get_max_buf_size"),
	CAP(decompress_max_buf_size, U64, "doca_compress_cap_task_decompress_*_get_max_buf_size"),
	CAP(compress_max_buf_list_len, U32, "doca_compress_cap_task_*_get_max_buf_list_len"),
	CAP(compress_max_num_tasks, U32, "doca_compress_cap_get_max_num_tasks"),
	CAP(sha_hash, BOOL, "doca_sha_cap_task_hash_get_supported"),
	CAP(sha_partial_hash, BOOL, "doca_sha_cap_task_partial_hash_get_supported"),
	CAP(sha_max_src_buf_size, U64, "doca_sha_cap_get_max_src_buf_size"),
	CAP(sha_max_list_num_elem, U32, "doca_sha_cap_get_max_list_buf_num_elem"),
	CAP(ec, BOOL, "doca_ec_cap_task_*_is_supported"),
	CAP(ec_max_block_size, U64, "doca_ec_cap_get_max_block_size"),
	CAP(ec_max_buf_list_len, U32, "doca_ec_cap_get_max_buf_list_len"),
	CAP(aes_gcm, BOOL, "doca_aes_gcm_cap_task_*_is_supported"),
	CAP(aes_gcm_max_buf_size, U64, "doca_aes_gcm_cap_task_*_get_max_buf_size"),
	CAP(aes_gcm_max_list_num_elem, U32, "doca_aes_gcm_cap_task_*_get_max_list_buf_num_elem"),
	CAP(aes_gcm_max_num_tasks, U32, "doca_aes_gcm_cap_get_max_num_tasks"),
};

const struct sd_dev_cap_desc *
sd_dev_cap_descs(uint32_t *num_descs)
{
	*num_descs = SD_ARRAY_SIZE(cap_descs);
	return cap_descs;
}

#define MIB (UINT64_C(1) << 20)

/* The soft model: every engine, with limits a DOCA program can allocate buffers for. */
static void
soft_caps(struct sd_dev_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->dma_memcpy = true;
	caps->dma_max_buf_size = UINT64_C(1) << 30;
	caps->dma_max_buf_list_len = 32;
	caps->dma_max_num_tasks = 16384;
	/* both ways on both sides, as on BlueField: the DPU copies host memory, the host DPU memory */
	caps->pci_export = true;
	caps->pci_import = true;
	caps->rdma = true;
	caps->rdma_max_send_queue_size = 8192;
	caps->rdma_max_recv_queue_size = 8192;
	caps->rdma_max_send_buf_list_len = 32;
	caps->rdma_max_recv_buf_list_len = 32;
	caps->rdma_max_message_size = UINT32_C(1) << 30;
	caps->rdma_max_connections = 1024;
	caps->rdma_dc = true;
	caps->gid_table_size = 1;
	caps->accelerate_resource_reclaim = true;
	caps->notification_moderation = true;
	caps->clock_nic_free_running = true;
	caps->clock_nic_real_time = true;
	caps->cache_invalidate = true;
	caps->cache_invalidate_max_buf_size = UINT64_C(1) << 30;
	caps->verbs = true;
	/* The engines: DOCA's samples calloc() the max buffer size, so it stays at 128 MiB. */
	caps->compress_deflate = true;
	caps->decompress_deflate = true;
	caps->decompress_lz4_stream = true;
	caps->decompress_lz4_block = true;
	caps->compress_max_buf_size = 128 * MIB;
	caps->decompress_max_buf_size = 128 * MIB;
	caps->compress_max_buf_list_len = 16;
	caps->compress_max_num_tasks = 16384;
	caps->sha_hash = true;
	caps->sha_partial_hash = true;
	caps->sha_max_src_buf_size = 128 * MIB;
	caps->sha_max_list_num_elem = 16;
	caps->ec = true;
	caps->ec_max_block_size = 128 * MIB;
	caps->ec_max_buf_list_len = 128;
	caps->aes_gcm = true;
	caps->aes_gcm_max_buf_size = 128 * MIB;
	caps->aes_gcm_max_list_num_elem = 16;
	caps->aes_gcm_max_num_tasks = 16384;
}

static void
no_compress(struct sd_dev_caps *caps)
{
	caps->compress_deflate = false;
	caps->decompress_deflate = false;
	caps->decompress_lz4_stream = false;
	caps->decompress_lz4_block = false;
}

/* BlueField-2: deflate both ways and SHA; no LZ4, erasure coding, AES-GCM or Verbs. */
static void
bluefield2_caps(struct sd_dev_caps *caps)
{
	soft_caps(caps);
	caps->decompress_lz4_stream = false;
	caps->decompress_lz4_block = false;
	caps->ec = false;
	caps->aes_gcm = false;
	caps->verbs = false;
}

/* BlueField-3: decompression only (deflate and LZ4), no SHA engine. */
static void
bluefield3_caps(struct sd_dev_caps *caps)
{
	soft_caps(caps);
	caps->compress_deflate = false;
	caps->sha_hash = false;
	caps->sha_partial_hash = false;
}

/* ConnectX-7: a NIC, no DPU: RDMA, Verbs, AES-GCM and erasure coding; no DMA, compression or SHA. */
static void
connectx7_caps(struct sd_dev_caps *caps)
{
	soft_caps(caps);
	no_compress(caps);
	caps->dma_memcpy = false;
	caps->pci_export = false;
	caps->pci_import = false;
	caps->sha_hash = false;
	caps->sha_partial_hash = false;
	caps->cache_invalidate = false;
}

static const struct {
	const char *name;
	void (*caps)(struct sd_dev_caps *caps);
} models[] = {
	{"soft", soft_caps},
	{"bluefield-2", bluefield2_caps},
	{"bluefield-3", bluefield3_caps},
	{"connectx-7", connectx7_caps},
};

bool
sd_dev_model_caps(const char *model, struct sd_dev_caps *caps)
{
	/* Both sides of a card have the same engines. */
	for (size_t i = 0; i < SD_ARRAY_SIZE(models); i++) {
		if (strcmp(models[i].name, model) == 0) {
			models[i].caps(caps);
			return true;
		}
	}
	return false;
}

const char *
sd_dev_model_names(void)
{
	return "\"soft\", \"bluefield-2\", \"bluefield-3\", \"connectx-7\"";
}
