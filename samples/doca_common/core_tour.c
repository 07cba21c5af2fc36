/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_core_tour: a narrated walk through DOCA Core with one DMA copy.  It lists
 * the devices, opens one, builds an mmap, an inventory and two bufs, drives a DMA
 * context through IDLE -> RUNNING -> IDLE around a memcpy task, and shows two
 * rules the library enforces (with the library's own explanation on stderr).
 * Every step is checked; the exit status is 0 only if all behaved as described.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "common.h"

DOCA_LOG_REGISTER(CORE_TOUR);

#define TOUR_REGION_SIZE 4096
#define TOUR_TEXT "Hello from the DOCA Core tour"

static const char *
state_name(enum doca_ctx_states state)
{
	switch (state) {
	case DOCA_CTX_STATE_IDLE:
		return "IDLE";
	case DOCA_CTX_STATE_STARTING:
		return "STARTING";
	case DOCA_CTX_STATE_RUNNING:
		return "RUNNING";
	case DOCA_CTX_STATE_STOPPING:
		return "STOPPING";
	}
	return "?";
}

/* Report a failed step; every step returns through here. */
static doca_error_t
step_failed(const char *what, doca_error_t result)
{
	printf("  FAILED: %s: %s (%s)\n", what, doca_error_get_name(result), doca_error_get_descr(result));
	return result;
}

#define CHECK(call)                                                                                                    \
	do {                                                                                                           \
		doca_error_t check_result_ = (call);                                                                   \
		if (check_result_ != DOCA_SUCCESS)                                                                     \
			return step_failed(#call, check_result_);                                                      \
	} while (0)

/* Step 1: what the (emulated) machine offers. */
static doca_error_t
list_devices(void)
{
	struct doca_devinfo **list;
	uint32_t n, i;

	printf("[1] Devices (doca_devinfo_create_list):\n");
	CHECK(doca_devinfo_create_list(&list, &n));
	printf("    %-3s %-13s %-8s %-10s %-4s %-12s %-8s %s\n", "#", "PCI", "IB dev", "iface", "DMA", "max_buf_size",
	       "list_len", "PCI export/import");
	for (i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "?", ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "?";
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "?";
		uint64_t max_size = 0;
		uint32_t list_len = 0;
		uint8_t can_export = 0, can_import = 0;
		bool dma = doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS;

		doca_devinfo_get_pci_addr_str(list[i], pci);
		doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev));
		doca_devinfo_get_iface_name(list[i], iface, sizeof(iface));
		if (dma) {
			doca_dma_cap_task_memcpy_get_max_buf_size(list[i], &max_size);
			doca_dma_cap_task_memcpy_get_max_buf_list_len(list[i], &list_len);
		}
		doca_mmap_cap_is_export_pci_supported(list[i], &can_export);
		doca_mmap_cap_is_create_from_export_pci_supported(list[i], &can_import);
		printf("    %-3u %-13s %-8s %-10s %-4s %-12llu %-8u %s/%s\n", i, pci, ibdev, iface, dma ? "yes" : "no",
		       (unsigned long long)max_size, list_len, can_export ? "yes" : "no", can_import ? "yes" : "no");
	}
	CHECK(doca_devinfo_destroy_list(list));
	printf("    %u device(s); the list is gone now, but devices opened from it stay valid.\n", n);
	return DOCA_SUCCESS;
}

struct tour {
	struct program_core_objects core; /* dev, src/dst mmap, inventory, pe, ctx */
	struct doca_dma *dma;
	char *region; /* source in the first half, destination in the second */
	struct doca_buf *src;
	struct doca_buf *dst;
	int transitions;
	bool task_done;
	doca_error_t task_status;
};

static void
tour_state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	struct tour *t = user_data.ptr;

	(void)ctx;
	t->transitions++;
	printf("    state callback: %s -> %s\n", state_name(prev), state_name(next));
}

static void
tour_task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct tour *t = ctx_user_data.ptr;

	(void)task_user_data;
	t->task_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	t->task_done = true;
	printf("    completion callback (inside doca_pe_progress): %s\n", doca_error_get_name(t->task_status));
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* Steps 2-3: device, memory map, inventory, bufs. */
static doca_error_t
build_memory(struct tour *t)
{
	void *data;
	size_t len, data_len;
	doca_error_t result;

	printf("[2] Open the first DMA-capable device and register memory with it\n");
	CHECK(open_doca_device_with_capabilities(doca_dma_cap_task_memcpy_is_supported, &t->core.dev));
	CHECK(create_core_objects(&t->core, 2));
	t->region = calloc(1, TOUR_REGION_SIZE);
	if (t->region == NULL)
		return step_failed("calloc", DOCA_ERROR_NO_MEMORY);
	/* One mmap covers both halves; the second mmap of create_core_objects stays unused. */
	CHECK(doca_mmap_set_permissions(t->core.src_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_set_memrange(t->core.src_mmap, t->region, TOUR_REGION_SIZE));
	CHECK(doca_mmap_start(t->core.src_mmap));
	printf("    mmap started over %d bytes at %p\n", TOUR_REGION_SIZE, (void *)t->region);

	printf("    rule: an mmap's memory range is frozen once it is started\n");
	result = doca_mmap_set_memrange(t->core.src_mmap, t->region, TOUR_REGION_SIZE / 2);
	if (result == DOCA_SUCCESS)
		return step_failed("doca_mmap_set_memrange after start was accepted", DOCA_ERROR_UNEXPECTED);
	printf("    -> refused with %s (the library logged why, naming the fix)\n", doca_error_get_name(result));

	printf("[3] Get two bufs from an inventory of 2\n");
	strcpy(t->region, TOUR_TEXT);
	CHECK(doca_buf_inventory_buf_get_by_data(t->core.buf_inv, t->core.src_mmap, t->region, sizeof(TOUR_TEXT),
						 &t->src));
	CHECK(doca_buf_inventory_buf_get_by_addr(t->core.buf_inv, t->core.src_mmap, t->region + TOUR_REGION_SIZE / 2,
						 TOUR_REGION_SIZE / 2, &t->dst));
	CHECK(doca_buf_get_data(t->src, &data));
	CHECK(doca_buf_get_len(t->src, &len));
	CHECK(doca_buf_get_data_len(t->src, &data_len));
	printf("    source buf:      len %zu, data_len %zu, data \"%s\"\n", len, data_len, (char *)data);
	CHECK(doca_buf_get_len(t->dst, &len));
	CHECK(doca_buf_get_data_len(t->dst, &data_len));
	printf("    destination buf: len %zu, data_len %zu (empty: a copy appends at data + data_len)\n", len,
	       data_len);
	return DOCA_SUCCESS;
}

/* Steps 4-6: the context state machine around one memcpy. */
static doca_error_t
run_copy(struct tour *t)
{
	struct doca_dma_task_memcpy *task;
	union doca_data ud = {.ptr = t};
	enum doca_ctx_states state;
	unsigned int spins = 0;
	size_t data_len;
	void *data;
	doca_error_t result;

	printf("[4] Create a DMA context, configure it while IDLE, connect it to a progress engine, start it\n");
	CHECK(doca_dma_create(t->core.dev, &t->dma));
	t->core.ctx = doca_dma_as_ctx(t->dma);
	CHECK(doca_ctx_set_user_data(t->core.ctx, ud));
	CHECK(doca_ctx_set_state_changed_cb(t->core.ctx, tour_state_cb));
	CHECK(doca_dma_task_memcpy_set_conf(t->dma, tour_task_cb, tour_task_cb, 4));
	CHECK(doca_pe_connect_ctx(t->core.pe, t->core.ctx));
	CHECK(doca_ctx_start(t->core.ctx));
	CHECK(doca_ctx_get_state(t->core.ctx, &state));
	printf("    doca_ctx_start returned; state is %s (a DMA context needs no STARTING phase)\n", state_name(state));
	if (state != DOCA_CTX_STATE_RUNNING)
		return step_failed("context not RUNNING after start", DOCA_ERROR_BAD_STATE);

	printf("[5] Submit a memcpy task and progress the PE until its callback runs\n");
	CHECK(doca_dma_task_memcpy_alloc_init(t->dma, t->src, t->dst, ud, &task));
	CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	while (!t->task_done) {
		if (doca_pe_progress(t->core.pe) == 0)
			usleep(10);
		spins++;
	}
	printf("    done after %u call(s) of doca_pe_progress\n", spins);
	if (t->task_status != DOCA_SUCCESS)
		return step_failed("memcpy task", t->task_status);
	CHECK(doca_buf_get_data(t->dst, &data));
	CHECK(doca_buf_get_data_len(t->dst, &data_len));
	printf("    destination data_len is now %zu, data \"%s\"\n", data_len, (char *)data);
	if (data_len != sizeof(TOUR_TEXT) || memcmp(data, TOUR_TEXT, sizeof(TOUR_TEXT)) != 0)
		return step_failed("destination bytes differ from the source", DOCA_ERROR_UNEXPECTED);
	printf("    bytes compared: identical\n");

	printf("[6] Stop the context (nothing in flight: it goes straight to IDLE)\n");
	CHECK(request_stop_ctx(t->core.pe, t->core.ctx));
	CHECK(doca_ctx_get_state(t->core.ctx, &state));
	printf("    state is %s; stopping an IDLE context again also succeeds: %s\n", state_name(state),
	       doca_error_get_name(doca_ctx_stop(t->core.ctx)));

	printf("[7] rule: an mmap cannot be destroyed while bufs still reference it\n");
	result = doca_mmap_destroy(t->core.src_mmap);
	if (result == DOCA_SUCCESS) {
		t->core.src_mmap = NULL;
		return step_failed("doca_mmap_destroy with live bufs was accepted", DOCA_ERROR_UNEXPECTED);
	}
	printf("    -> refused with %s (the library logged why); release the bufs first\n",
	       doca_error_get_name(result));
	return DOCA_SUCCESS;
}

/* Step 8: tear down in reverse order. */
static doca_error_t
tear_down(struct tour *t)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	/* Each step runs even after one failed: call first, then keep the first error. */
	if (t->dst != NULL) {
		tmp = doca_buf_dec_refcount(t->dst, NULL);
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (t->src != NULL) {
		tmp = doca_buf_dec_refcount(t->src, NULL);
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (t->dma != NULL) {
		tmp = request_stop_ctx(t->core.pe, t->core.ctx);
		DOCA_ERROR_PROPAGATE(result, tmp);
		tmp = doca_dma_destroy(t->dma);
		DOCA_ERROR_PROPAGATE(result, tmp);
		t->core.ctx = NULL;
	}
	tmp = destroy_core_objects(&t->core);
	DOCA_ERROR_PROPAGATE(result, tmp);
	free(t->region);
	return result;
}

int
main(void)
{
	struct tour t;
	doca_error_t result, tmp;

	memset(&t, 0, sizeof(t));
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("DOCA Core tour (DOCA API %s)\n", doca_version_runtime());
	result = list_devices();
	if (result == DOCA_SUCCESS)
		result = build_memory(&t);
	if (result == DOCA_SUCCESS)
		result = run_copy(&t);

	printf("[8] Release bufs, stop and destroy the context, destroy PE, inventory, mmaps, close the device\n");
	/* Tear down after a failed step too (DOCA_ERROR_PROPAGATE would skip the call). */
	tmp = tear_down(&t);
	DOCA_ERROR_PROPAGATE(result, tmp);
	if (result == DOCA_SUCCESS && t.transitions < 2)
		result = step_failed("expected state callbacks for IDLE->RUNNING and RUNNING->IDLE",
				     DOCA_ERROR_UNEXPECTED);
	printf("Core tour %s\n", result == DOCA_SUCCESS ? "finished successfully" : "FAILED");
	return result == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
