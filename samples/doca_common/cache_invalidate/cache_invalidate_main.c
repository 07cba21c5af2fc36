/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_cache_invalidate: no flags; runs on the first device that can both DMA
 * and invalidate caches (see docs/samples.md).
 */
#include <stdlib.h>

#include <doca_log.h>

#include "cache_invalidate_sample.h"
#include "common.h"

DOCA_LOG_REGISTER(CACHE_INVALIDATE::MAIN);

int
main(void)
{
	doca_error_t result;

	/* Without a log there is no way to report anything: fail silently. */
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	DOCA_LOG_INFO("Starting the sample");

	result = run_cache_invalidate_sample();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("run_cache_invalidate_sample() encountered an error: %s", doca_error_get_descr(result));
		DOCA_LOG_INFO("Sample finished with errors");
		return EXIT_FAILURE;
	}
	DOCA_LOG_INFO("Sample finished successfully");
	return EXIT_SUCCESS;
}
