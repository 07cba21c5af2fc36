/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the applications built for both sides (DMA Copy, Secure Channel) share:
 * their flags as one table, and main() itself - logging, argp, the DPU build's
 * -r check, the run.  Only the public DOCA API is used (needs doca-argp).
 */
#ifndef SAMPLES_APP_MAIN_H_
#define SAMPLES_APP_MAIN_H_

#include <stdbool.h>
#include <stddef.h>

#include <doca_argp.h>
#include <doca_error.h>

/* One program flag, as doca_argp_param_* take it. */
struct app_flag {
	const char *short_name, *long_name, *arguments, *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

struct app_main_cfg {
	const char *name; /* the program, for argp's usage line */
	const struct app_flag *flags;
	size_t num_flags;
	void *config;		     /* given to the flag callbacks and to run */
	const char *rep_pci;	     /* DPU build: the config's -r field, which must be set after parsing */
	const char *rep_pci_missing; /* the line logged when it is not (NULL: the generic one) */
	const char *run_what;	     /* "DMA copy", ...: the failure line names it */
	doca_error_t (*run)(void *config);
};

/* Parse the flags and run: EXIT_SUCCESS when run returned SUCCESS, else EXIT_FAILURE. */
int app_main(int argc, char **argv, const struct app_main_cfg *app);

#endif /* SAMPLES_APP_MAIN_H_ */
