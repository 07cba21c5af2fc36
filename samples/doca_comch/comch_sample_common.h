/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Comch samples share: their flags (-p, -r, -t), the main() around
 * each sample, the objects both ends open first (device, on the DPU the
 * representor, a PE), the state-change log lines of each end, sending one
 * message and the progress loop.
 */
#ifndef COMCH_SAMPLE_COMMON_H_
#define COMCH_SAMPLE_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define COMCH_MAX_TEXT 4096 /* -t buffer; the max message size (4080) is checked at run time */
#define COMCH_DEFAULT_TEXT "Message from the client"
#define COMCH_DEFAULT_DPU_PCI "03:00.0"
#define COMCH_DEFAULT_HOST_PCI "b1:00.0"
#define COMCH_DEFAULT_REP_PCI "b1:00.0"

struct comch_config {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];	   /* -p: the Comch device */
	char rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r: representor (DPU side) */
	char text[COMCH_MAX_TEXT + 1];			   /* -t */
	uint32_t text_len;
};

struct comch_sample {
	const char *name;   /* program name in the usage */
	bool on_dpu;	    /* server (DPU) or client (host) */
	bool built_for_dpu; /* this build defines DOCA_ARCH_DPU */
	doca_error_t (*run)(const struct comch_config *cfg);
};

/* Defaults, logging, "Starting the sample", personality, flags, run, the final line. */
int comch_sample_main(const struct comch_sample *sample, int argc, char **argv);

/* DPU: open the device at pci (server-capable) and its representor at rep_pci. */
doca_error_t comch_open_server_dev(const char *pci, const char *rep_pci, struct doca_dev **dev,
				   struct doca_dev_rep **rep);
/* Host: open the device at pci (client-capable). */
doca_error_t comch_open_client_dev(const char *pci, struct doca_dev **dev);

/* The text must fit the device's maximum message size (logged, INVALID_VALUE otherwise). */
doca_error_t comch_check_text_len(struct doca_dev *dev, uint32_t text_len);

/* What a Comch sample opens before its client or server context. */
struct comch_objects {
	struct doca_dev *dev;
	struct doca_dev_rep *rep; /* server (DPU) only */
	struct doca_pe *pe;
	uint32_t max_msg; /* the device's maximum message size */
};

/*
 * Open the device at -p (a server also the representor at -r), check that -t
 * fits a message, read the maximum message size and create a PE.  On failure
 * nothing stays open.
 */
doca_error_t comch_objects_open(const struct comch_config *cfg, bool server, struct comch_objects *obj);
/* Destroy the PE, close the representor and the device. */
void comch_objects_close(struct comch_objects *obj);

/*
 * The state-change lines of a client or server context (RUNNING: "CC <end>
 * context is running. <running>"); the sample does what the state asks.
 */
void comch_log_state(bool server, enum doca_ctx_states next_state, const char *running);

/* Send len bytes of msg on conn through the server or the client (the other is NULL). */
doca_error_t comch_send(struct doca_comch_server *server, struct doca_comch_client *client,
			struct doca_comch_connection *conn, const char *msg, uint32_t len);

/* Completion of a send task: log "<what> sent successfully" and free it. */
void comch_send_done(struct doca_comch_task_send *task, const char *what);
/* Error completion of a send task: log its status, free it, return the status. */
doca_error_t comch_send_failed(struct doca_comch_task_send *task);

/* Progress pe (sleeping 10 us when idle) until *done or, when given, *done2 is true. */
void comch_progress_until(struct doca_pe *pe, const bool *done, const bool *done2);

/* The samples (<name>_sample.c), each run by its <name>_main.c. */
doca_error_t ctrl_path_client(const struct comch_config *cfg);
doca_error_t ctrl_path_server(const struct comch_config *cfg);
doca_error_t data_path_client(const struct comch_config *cfg);
doca_error_t data_path_server(const struct comch_config *cfg);

#endif /* COMCH_SAMPLE_COMMON_H_ */
