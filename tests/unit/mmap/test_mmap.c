/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_mmap: life cycle, configuration freeze, devices,
 * permissions, capabilities, RDMA dispatch without libdoca_rdma, error codes
 * and untouched out-parameters.
 */
#include <stdlib.h>

#include "mmap_dpu.h"

static char mem[4096];

TEST(create_null_is_invalid)
{
	ASSERT_ERR(doca_mmap_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_stop(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(defaults)
{
	struct doca_mmap *m = NULL;
	uint32_t v = 99;
	uint8_t b = 7;
	union doca_data ud = {.u64 = 42};
	void *addr = SENTINEL_PTR;
	size_t len = 77;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_get_permissions(m, &v));
	ASSERT_EQ(v, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	ASSERT_OK(doca_mmap_get_max_num_devices(m, &v));
	ASSERT_EQ(v, 16);
	ASSERT_OK(doca_mmap_get_num_bufs(m, &v));
	ASSERT_EQ(v, 0);
	ASSERT_OK(doca_mmap_get_exported(m, &b));
	ASSERT_EQ(b, 0);
	b = 7;
	ASSERT_OK(doca_mmap_get_from_export(m, &b));
	ASSERT_EQ(b, 0);
	ASSERT_OK(doca_mmap_get_user_data(m, &ud));
	ASSERT_EQ(ud.u64, 0);
	/* No memrange yet: refused, outputs untouched. */
	ASSERT_ERR(doca_mmap_get_memrange(m, &addr, &len), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(addr, SENTINEL_PTR);
	ASSERT_EQ(len, 77);
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(getters_refuse_null)
{
	struct doca_mmap *m = NULL;
	uint32_t v;
	uint8_t b;
	union doca_data ud;
	void *addr;
	size_t len;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_get_permissions(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_permissions(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_max_num_devices(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_max_num_devices(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_num_bufs(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_num_bufs(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_exported(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_exported(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_from_export(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_from_export(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_user_data(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_memrange(NULL, &addr, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_memrange(m, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_get_memrange(m, &addr, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_free_cb(NULL, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_permissions(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_max_num_devices(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_enable_thread_safety(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_add_dev(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_rm_dev(m, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(start_needs_memrange)
{
	struct doca_mmap *m = NULL;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_start(m), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(fd, "doca_mmap_start: memrange not set; call doca_mmap_set_memrange()");
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_ERR(doca_mmap_start(m), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(set_memrange_rules)
{
	struct doca_mmap *m = NULL;
	void *addr = NULL;
	size_t len = 0;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_set_memrange(NULL, mem, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_memrange(m, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_memrange(m, mem, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_memrange(m, (void *)(UINTPTR_MAX - 10), 100), DOCA_ERROR_INVALID_VALUE);
	/* Failed calls leave it unset. */
	ASSERT_ERR(doca_mmap_get_memrange(m, &addr, &len), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_set_memrange(m, mem + 16, 100));
	ASSERT_OK(doca_mmap_get_memrange(m, &addr, &len));
	ASSERT_PTR_EQ(addr, mem + 16);
	ASSERT_EQ(len, 100);
	/* Once only. */
	ASSERT_ERR(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_ERR(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_get_memrange(m, &addr, &len));
	ASSERT_PTR_EQ(addr, mem + 16);
	ASSERT_EQ(len, 100);
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(setters_frozen_after_start_and_thawed_by_stop)
{
	struct doca_dev *dev = open_host_dev();
	struct doca_mmap *m = NULL;
	union doca_data ud = {.u64 = 5};
	uint32_t perm = 0;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_ERR(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(fd, "doca_mmap_set_permissions: mmap is started");
	ASSERT_ERR(doca_mmap_set_user_data(m, ud), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_set_free_cb(m, NULL, NULL), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_set_max_num_devices(m, 4), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_enable_thread_safety(m), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_add_dev(m, dev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_rm_dev(m, dev), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_get_permissions(m, &perm));
	ASSERT_EQ(perm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);

	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	ASSERT_OK(doca_mmap_set_user_data(m, ud));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_get_permissions(m, &perm));
	ASSERT_EQ(perm, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(stop_on_unstarted_mmap_succeeds)
{
	struct doca_mmap *m = NULL;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(permissions_rules)
{
	struct doca_mmap *m = NULL;
	uint32_t perm = 0;
	static const uint32_t good[] = {
		DOCA_ACCESS_FLAG_LOCAL_READ_ONLY,
		DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
			DOCA_ACCESS_FLAG_RDMA_ATOMIC,
		DOCA_ACCESS_FLAG_PCI_READ_ONLY,
		DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING,
	};

	ASSERT_OK(doca_mmap_create(&m));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ASSERT_OK(doca_mmap_set_permissions(m, good[i]));
		ASSERT_OK(doca_mmap_get_permissions(m, &perm));
		ASSERT_EQ(perm, good[i]);
	}
	ASSERT_ERR(doca_mmap_set_permissions(m, 1u << 7), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_permissions(m, 0x80000000u | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
		   DOCA_ERROR_INVALID_VALUE);
	/* Refusals keep the previous mask. */
	ASSERT_OK(doca_mmap_get_permissions(m, &perm));
	ASSERT_EQ(perm, good[3]);
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(user_data_round_trip)
{
	struct doca_mmap *m = NULL;
	union doca_data in = {.ptr = mem}, out = {.u64 = 0};

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_user_data(m, in));
	ASSERT_OK(doca_mmap_get_user_data(m, &out));
	ASSERT_PTR_EQ(out.ptr, mem);
	ASSERT_OK(doca_mmap_destroy(m));
}

static int free_calls;
static void *free_addr;
static size_t free_len;
static void *free_cookie;

static void
record_free(void *addr, size_t len, void *cookie)
{
	free_calls++;
	free_addr = addr;
	free_len = len;
	free_cookie = cookie;
}

TEST(free_cb_called_at_destroy)
{
	struct doca_mmap *m = NULL;
	void *region = malloc(256);
	int cookie;

	ASSERT_NOT_NULL(region);
	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, region, 256));
	ASSERT_OK(doca_mmap_set_free_cb(m, record_free, &cookie));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_EQ(free_calls, 0);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_EQ(free_calls, 1);
	ASSERT_PTR_EQ(free_addr, region);
	ASSERT_EQ(free_len, 256);
	ASSERT_PTR_EQ(free_cookie, &cookie);
	free(region);
}

TEST(free_cb_not_called_without_memrange)
{
	struct doca_mmap *m = NULL;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_free_cb(m, record_free, NULL));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_EQ(free_calls, 0);
}

TEST(add_rm_dev_rules)
{
	struct doca_dev *host = open_host_dev();
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_mmap *m = NULL;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_add_dev(NULL, host), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_rm_dev(m, host), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(doca_mmap_add_dev(m, host));
	ASSERT_ERR(doca_mmap_add_dev(m, host), DOCA_ERROR_ALREADY_EXIST);
	ASSERT_OK(doca_mmap_add_dev(m, dpu));
	/* The mmap holds the devices: closing them is refused until they are removed. */
	ASSERT_ERR(doca_dev_close(host), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_mmap_rm_dev(m, host));
	ASSERT_ERR(doca_mmap_rm_dev(m, host), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(doca_dev_close(host));
	/* destroy releases the devices it still holds */
	ASSERT_ERR(doca_dev_close(dpu), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(dpu));
}

TEST(max_num_devices)
{
	struct doca_dev *host = open_host_dev();
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_mmap *m = NULL;
	uint32_t v = 0;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_set_max_num_devices(m, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_set_max_num_devices(m, 17), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_set_max_num_devices(m, 1));
	ASSERT_OK(doca_mmap_get_max_num_devices(m, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_mmap_add_dev(m, host));
	ASSERT_ERR(doca_mmap_add_dev(m, dpu), DOCA_ERROR_NO_MEMORY);
	ASSERT_OK(doca_mmap_set_max_num_devices(m, 2));
	ASSERT_OK(doca_mmap_add_dev(m, dpu));
	/* Below the number of devices already added. */
	ASSERT_ERR(doca_mmap_set_max_num_devices(m, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_get_max_num_devices(m, &v));
	ASSERT_EQ(v, 2);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(host));
	ASSERT_OK(doca_dev_close(dpu));
}

TEST(thread_safety_before_start)
{
	struct doca_mmap *m = NULL;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_enable_thread_safety(m));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(dmabuf_dpa_not_supported)
{
	struct doca_mmap *m = NULL;
	doca_dpa_dev_mmap_t h = 123;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_ERR(doca_mmap_set_dmabuf_memrange(m, 3, mem, 0, sizeof(mem)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(fd, "doca_mmap_set_dmabuf_memrange: dma-buf");
	ASSERT_ERR(doca_mmap_set_dpa_memrange(m, NULL, 0x1000, 64), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_mmap_dev_get_dpa_handle(m, NULL, &h), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(h, 123);
	ASSERT_OK(doca_mmap_destroy(m));
}

/* Both ways on both sides, as on BlueField (the DPU-driven and the host-driven copy). */
TEST(pci_caps_by_side)
{
	struct doca_dev *host = open_host_dev();
	struct doca_dev *dpu = open_dpu_dev();
	uint8_t v = 9;

	ASSERT_OK(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(host), &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(host), &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(dpu), &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(dpu), &v));
	ASSERT_EQ(v, 1);
	v = 9;
	ASSERT_ERR(doca_mmap_cap_is_export_pci_supported(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_cap_is_create_from_export_pci_supported(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(host), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(v, 9);
	ASSERT_OK(doca_dev_close(host));
	ASSERT_OK(doca_dev_close(dpu));
}

TEST(export_rdma_without_rdma_library)
{
	struct doca_dev *dev = open_host_dev();
	struct doca_mmap *m = NULL, *lrw = NULL;
	const void *desc = SENTINEL_PTR;
	size_t len = 77;
	uint8_t exported = 9;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ));
	ASSERT_ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_BAD_STATE); /* not started */
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_INVALID_VALUE); /* dev not added */
	ASSERT_ERR(doca_mmap_export_rdma(m, dev, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(fd, "RDMA export needs libdoca_rdma");
	ASSERT_PTR_EQ(desc, SENTINEL_PTR);
	ASSERT_EQ(len, 77);
	ASSERT_OK(doca_mmap_get_exported(m, &exported));
	ASSERT_EQ(exported, 0);

	lrw = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, dev);
	ASSERT_ERR(doca_mmap_export_rdma(lrw, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_mmap_destroy(lrw));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(create_from_export_dispatch_without_rdma_library)
{
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_mmap *m = SENTINEL_PTR;
	/* A softdoca header of kind RDMA (2): "SDMM", version 1, kind 2, total_len 16. */
	static const uint8_t rdma_hdr[16] = {'S', 'D', 'M', 'M', 1, 0, 2, 0, 16, 0, 0, 0, 0, 0, 0, 0};
	static const char garbage[] = "this is not a descriptor at all";
	int fd = capture_sdk_log();

	ASSERT_ERR(doca_mmap_create_from_export(NULL, rdma_hdr, sizeof(rdma_hdr), dpu, &m), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(fd, "RDMA export needs libdoca_rdma");
	ASSERT_ERR(doca_mmap_create_from_export(NULL, garbage, sizeof(garbage), dpu, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_create_from_export(NULL, NULL, 16, dpu, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_create_from_export(NULL, garbage, sizeof(garbage), NULL, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_create_from_export(NULL, garbage, sizeof(garbage), dpu, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(m, SENTINEL_PTR);
	/* Failed imports hold no device reference. */
	ASSERT_OK(doca_dev_close(dpu));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
