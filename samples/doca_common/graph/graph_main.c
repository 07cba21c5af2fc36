/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_graph: ten instances of a three-node graph (two DMA copies, then a user
 * node that checks them) run at once on one progress engine.  No flags of its
 * own (argp's -h, -l, --sdk-log-level... only); see docs/samples.md.
 */
#include <stdlib.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "common.h"

DOCA_LOG_REGISTER(GRAPH::MAIN);

/* The sample itself (graph_sample.c). */
doca_error_t run_graph_sample(void);

int
main(int argc, char **argv)
{
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	DOCA_LOG_INFO("Starting the sample");

	result = doca_argp_init("doca_graph", NULL);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(result));
		goto sample_exit;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse sample input: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = run_graph_sample();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("run_graph_sample() encountered an error: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
