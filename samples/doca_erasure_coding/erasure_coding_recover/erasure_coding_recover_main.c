/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_erasure_coding_recover: flags and main().  Flags: -p -i -o -b -x -t -r
 * -d -ns -nd with DOCA's defaults (docs/erasure_coding.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "common.h"
#include "erasure_coding_recover_sample.h"
#include "sample_params.h"

DOCA_LOG_REGISTER(EC_RECOVER::MAIN);

static doca_error_t
pci_callback(void *param, void *config)
{
	struct ec_recover_cfg *cfg = config;

	if (strnlen(param, DOCA_DEVINFO_PCI_ADDR_SIZE) >= DOCA_DEVINFO_PCI_ADDR_SIZE) {
		DOCA_LOG_ERR("Entered device PCI address exceeding the maximum size of %d",
			     DOCA_DEVINFO_PCI_ADDR_SIZE - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->pci_addr, param);
	return DOCA_SUCCESS;
}

static doca_error_t
input_callback(void *param, void *config)
{
	struct ec_recover_cfg *cfg = config;
	const char *path = param;

	if (strnlen(path, EC_MAX_PATH) >= EC_MAX_PATH) {
		DOCA_LOG_ERR("Invalid input path name length, max %d", EC_USER_MAX_PATH);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (access(path, F_OK) == -1) {
		DOCA_LOG_ERR("Input file/folder not found %s", path);
		return DOCA_ERROR_NOT_FOUND;
	}
	strcpy(cfg->input_path, path);
	return DOCA_SUCCESS;
}

/* A decode writes a new file here, so it need not exist yet (DOCA's sample does not insist either). */
static doca_error_t
output_callback(void *param, void *config)
{
	struct ec_recover_cfg *cfg = config;
	const char *path = param;

	if (strnlen(path, EC_MAX_PATH) >= EC_MAX_PATH) {
		DOCA_LOG_ERR("Invalid output path name length, max %d", EC_USER_MAX_PATH);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->output_path, path);
	return DOCA_SUCCESS;
}

static doca_error_t
both_callback(void *param, void *config)
{
	((struct ec_recover_cfg *)config)->do_both = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
matrix_callback(void *param, void *config)
{
	struct ec_recover_cfg *cfg = config;
	const char *name = param;

	if (strcasecmp(name, "cauchy") == 0) {
		cfg->matrix = DOCA_EC_MATRIX_TYPE_CAUCHY;
	} else if (strcasecmp(name, "vandermonde") == 0) {
		cfg->matrix = DOCA_EC_MATRIX_TYPE_VANDERMONDE;
	} else {
		DOCA_LOG_ERR("Illegal mode = [%s]", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
positive_count(const void *param, uint32_t *out, const char *what)
{
	int n = *(const int *)param;

	if (n <= 0) {
		DOCA_LOG_ERR("%s block size should be bigger than 0", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = (uint32_t)n;
	return DOCA_SUCCESS;
}

static doca_error_t
data_callback(void *param, void *config)
{
	return positive_count(param, &((struct ec_recover_cfg *)config)->data_blocks, "Data");
}

static doca_error_t
rdnc_callback(void *param, void *config)
{
	return positive_count(param, &((struct ec_recover_cfg *)config)->rdnc_blocks, "Redundancy");
}

/* "0,3,4": the data blocks -b deletes between encoding and decoding. */
static doca_error_t
delete_callback(void *param, void *config)
{
	struct ec_recover_cfg *cfg = config;
	char *p = param, *end;

	cfg->n_delete = 0;
	while (*p != '\0') {
		long idx = strtol(p, &end, 10);

		if (end == p) {
			DOCA_LOG_ERR("Delete block indices must be numbers separated by commas: %s", (char *)param);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (idx < 0) {
			DOCA_LOG_ERR("Delete block indices are negative");
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (cfg->n_delete + 1 > EC_MAX_BLOCKS) {
			DOCA_LOG_ERR("Delete block indices count is bigger then max: %d, requested: %zu", EC_MAX_BLOCKS,
				     cfg->n_delete + 1);
			return DOCA_ERROR_INVALID_VALUE;
		}
		cfg->delete_indices[cfg->n_delete++] = (uint32_t)idx;
		for (p = end; *p == ','; p++)
			;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
num_buf(const void *param, int *out, const char *what)
{
	int n = *(const int *)param;

	if (n <= 0) {
		DOCA_LOG_ERR("Entered number of %s doca_buf: %d, valid value must be >= 1", what, n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = n;
	return DOCA_SUCCESS;
}

static doca_error_t
num_src_callback(void *param, void *config)
{
	return num_buf(param, &((struct ec_recover_cfg *)config)->num_src_buf, "source");
}

static doca_error_t
num_dst_callback(void *param, void *config)
{
	return num_buf(param, &((struct ec_recover_cfg *)config)->num_dst_buf, "destination");
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"p", "pci-addr", NULL, "DOCA device PCI device address - default: 03:00.0", DOCA_ARGP_TYPE_STRING,
		 pci_callback, false},
		{"i", "input", NULL, "Input file/folder to ec - default: self", DOCA_ARGP_TYPE_STRING, input_callback,
		 false},
		{"o", "output", NULL, "Output file/folder to ec - default: /tmp", DOCA_ARGP_TYPE_STRING,
		 output_callback, false},
		{"b", "both", NULL, "Do both (encode & decode) - default: false", DOCA_ARGP_TYPE_BOOLEAN, both_callback,
		 false},
		{"x", "matrix", NULL, "Matrix - {cauchy, vandermonde} - default: cauchy", DOCA_ARGP_TYPE_STRING,
		 matrix_callback, false},
		{"t", "data", NULL, "Data block count - default: 2", DOCA_ARGP_TYPE_INT, data_callback, false},
		{"r", "rdnc", NULL, "Redundancy block count - default: 2", DOCA_ARGP_TYPE_INT, rdnc_callback, false},
		{"d", "delete-index", NULL, "Indices of data blocks to delete comma separated i.e. 0,3,4 - default: 0",
		 DOCA_ARGP_TYPE_STRING, delete_callback, false},
		{"ns", "num-src-buf", NULL, "number of doca_buf for source buffer", DOCA_ARGP_TYPE_INT,
		 num_src_callback, false},
		{"nd", "num-dst-buf", NULL, "number of doca_buf for destination buffer", DOCA_ARGP_TYPE_INT,
		 num_dst_callback, false},
	};

	return sample_register_params(params, sizeof(params) / sizeof(params[0]));
}

static doca_error_t
run(const void *cfg)
{
	return ec_recover(cfg);
}

int
main(int argc, char **argv)
{
	static struct ec_recover_cfg cfg = {
		.pci_addr = "03:00.0",
		.output_path = "/tmp",
		.matrix = DOCA_EC_MATRIX_TYPE_CAUCHY,
		.data_blocks = 2,
		.rdnc_blocks = 2,
		.delete_indices = {0},
		.n_delete = 1,
		.num_src_buf = 1,
		.num_dst_buf = 1,
	};

	/* The default input is the sample itself. */
	if (strnlen(argv[0], EC_MAX_PATH) >= EC_MAX_PATH) {
		fprintf(stderr, "Self path is too long, max %d\n", EC_USER_MAX_PATH);
		return EXIT_FAILURE;
	}
	strcpy(cfg.input_path, argv[0]);
	return sample_main_with_params("ec_recover", NULL, DOCA_LOG_LEVEL_WARNING, &cfg, register_params, run, argc,
				       argv);
}
