/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the 14 RDMA samples share: flags and their defaults, the resources of one
 * RDMA context, the out-of-band exchange through descriptor files and Enter
 * presses, the RDMA-CM connection set-up with its descriptor negotiation, and the
 * main() skeleton.  A sample only describes itself in a struct rdma_sample.
 */
#ifndef RDMA_COMMON_H_
#define RDMA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>

#include "common.h"

#define RDMA_MEM_RANGE_LEN 4096 /* local memory of every sample (calloc'd) */
#define RDMA_MSG_LEN 256	/* bytes one task moves: one slice of the memory */
#define RDMA_MAX_USER_ARG 256	/* -s/-r/-w and the paths, in characters */
#define RDMA_MAX_ARG_SIZE (RDMA_MAX_USER_ARG + 1)
#define RDMA_PATH_SIZE (RDMA_MAX_ARG_SIZE + 16) /* room for the "-%04u" of multi-connection files */
#define RDMA_MAX_CONNECTIONS 8			/* -nc upper bound (16 slices of 256 bytes would fit) */
#define RDMA_CM_ADDR_SIZE 128			/* -sa is shorter than this */
#define RDMA_INVENTORY_PER_CONN 16		/* doca_bufs per connection */
#define RDMA_DESC_MAX_LEN 4096			/* largest descriptor read from a file or a negotiation receive */
#define RDMA_IMMEDIATE_DATA 0xABCD		/* what the immediate samples send and expect */
#define RDMA_DEFAULT_STRING "Hi DOCA RDMA!"
#define RDMA_DEFAULT_LOCAL_DESC_PATH "/tmp/local_connection_desc_path.txt"
#define RDMA_DEFAULT_REMOTE_DESC_PATH "/tmp/remote_connection_desc_path.txt"
#define RDMA_DEFAULT_RESOURCE_DESC_PATH "/tmp/remote_resource_desc_path.txt"
#define RDMA_DEFAULT_CM_PORT 13579

struct rdma_config {
	char device_name[DOCA_DEVINFO_IBDEV_NAME_SIZE];	     /* -d, mandatory */
	char send_string[RDMA_MAX_ARG_SIZE];		     /* -s */
	char read_string[RDMA_MAX_ARG_SIZE];		     /* -r */
	char write_string[RDMA_MAX_ARG_SIZE];		     /* -w */
	char local_connection_desc_path[RDMA_MAX_ARG_SIZE];  /* -ld */
	char remote_connection_desc_path[RDMA_MAX_ARG_SIZE]; /* -re */
	char remote_resource_desc_path[RDMA_MAX_ARG_SIZE];   /* -m */
	bool is_gid_index_set;				     /* -g given */
	uint32_t gid_index;				     /* -g */
	uint32_t num_connections;			     /* -nc, 1..8 */
	enum doca_rdma_transport_type transport_type;	     /* -tt */
	bool use_rdma_cm;				     /* -cm */
	uint16_t cm_port;				     /* -lp */
	char cm_addr[RDMA_CM_ADDR_SIZE];		     /* -sa; non-empty makes this side the CM client */
	enum doca_rdma_addr_type cm_addr_type;		     /* -sat */
};

/* Sample-specific flags (register_rdma_params). */
enum rdma_params {
	RDMA_PARAM_SEND_STRING = 1 << 0,     /* -s */
	RDMA_PARAM_READ_STRING = 1 << 1,     /* -r */
	RDMA_PARAM_WRITE_STRING = 1 << 2,    /* -w */
	RDMA_PARAM_NUM_CONNECTIONS = 1 << 3, /* -nc, and "-%04u" connection file names */
};

/*
 * Which side of a pair a sample is.  A responder exports a resource (its mmap or
 * its sync event) and writes its descriptor to -m (CM: sends it); a requester
 * reads it (CM: receives it) and imports it.  Send/receive pairs are PEERs.
 */
enum rdma_role {
	RDMA_ROLE_PEER,
	RDMA_ROLE_REQUESTER,
	RDMA_ROLE_RESPONDER,
};

/* What a responder exports and a requester imports. */
enum rdma_resource {
	RDMA_RESOURCE_NONE,
	RDMA_RESOURCE_MMAP,	  /* doca_mmap_export_rdma / doca_mmap_create_from_export */
	RDMA_RESOURCE_SYNC_EVENT, /* doca_sync_event_export_to_remote_net / _remote_net_create_from_export */
};

struct rdma_resources;

/* Everything that tells one sample program from another. */
struct rdma_sample {
	const char *name;    /* program name, e.g. "doca_rdma_send" */
	const char *peer;    /* "receiver", "sender", "requester", "responder" (prompts) */
	unsigned int params; /* enum rdma_params bits */
	uint32_t mmap_perm;  /* permissions of the local mmap */
	uint32_t rdma_perm;  /* doca_rdma_set_permissions() */
	tasks_check cap;     /* device filter (NULL: any device) */
	enum rdma_role role;
	enum rdma_resource resource; /* for requesters and responders */
	bool dc_passive;	     /* with DC: export only, never read the peer's file or connect */
	/* Before the context starts: task confs, sample objects (NULL: nothing). */
	doca_error_t (*setup)(struct rdma_resources *res);
	/* Once every connection exists and the peer's resource is imported: submit the work. */
	doca_error_t (*run)(struct rdma_resources *res);
	/* After the context is idle again, before the common teardown (NULL: nothing). */
	doca_error_t (*teardown)(struct rdma_resources *res);
};

/*
 * A descriptor file this run may delete at the end: one it created, or one of
 * the peer's that it read and used.  The inode tells whether the path still
 * names that file (a later run may have put another one there).
 */
struct rdma_owned_file {
	char path[RDMA_PATH_SIZE];
	dev_t dev;
	ino_t ino;
};

#define RDMA_MAX_OWNED_FILES (2 * RDMA_MAX_CONNECTIONS + 1)

struct rdma_resources {
	const struct rdma_sample *sample;
	struct rdma_config *cfg;
	struct doca_dev *doca_device;
	struct doca_mmap *mmap; /* local memory, RDMA_MEM_RANGE_LEN bytes */
	char *mmap_memrange;
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *rdma_ctx;
	struct doca_buf_inventory *buf_inventory;
	struct doca_rdma_connection *connections[RDMA_MAX_CONNECTIONS];
	uint32_t num_connections;				  /* entries of connections[] in use */
	void *remote_conn_desc[RDMA_MAX_CONNECTIONS];		  /* peer blobs read from files (freed at destroy) */
	void *remote_resource_desc;				  /* -m blob read by a requester */
	struct rdma_owned_file owned_files[RDMA_MAX_OWNED_FILES]; /* deleted at destroy */
	uint32_t num_owned_files;
	struct doca_mmap *remote_mmap;		      /* requester: the responder's memory */
	struct doca_sync_event *sync_event;	      /* sync-event responder: its event */
	struct doca_sync_event_remote_net *remote_se; /* sync-event requester: the responder's event */
	/* RDMA-CM */
	struct doca_rdma_addr *cm_addr; /* client: the server's address */
	char *negotiation_buf;		/* descriptor sent / received over the connection */
	struct doca_mmap *negotiation_mmap;
	/* Run state */
	doca_error_t first_error;   /* first failure met; the sample's result */
	bool run_pe_progress;	    /* cleared when the context is IDLE again */
	size_t num_remaining_tasks; /* the context is stopped when it reaches 0 */
	void *priv;		    /* sample-specific state */
};

/* Fill cfg with DOCA's defaults. */
void set_default_config_value(struct rdma_config *cfg);

/* Register -d -ld -re -m -g -tt -cm -lp -sa -sat with ARGP (program config: struct rdma_config). */
doca_error_t register_rdma_common_params(void);

/* Register the sample-specific flags of params (enum rdma_params bits). */
doca_error_t register_rdma_params(unsigned int params);

/*
 * Open the device named cfg->device_name that passes func, create the local
 * memory and its mmap (mmap_permissions), a PE and the RDMA context
 * (rdma_permissions, gid index if set, max connections, transport) connected to
 * the PE.  DC is refused (INVALID_VALUE) with several connections or RDMA-CM.
 */
doca_error_t allocate_rdma_resources(struct rdma_config *cfg, uint32_t mmap_permissions, uint32_t rdma_permissions,
				     tasks_check func, struct rdma_resources *resources);

/*
 * Undo allocate_rdma_resources and everything the run added (remote mmap,
 * remote sync event, CM address, negotiation mmap, received blobs) and delete
 * the descriptor files this run owns: those it wrote, and the peer's once they
 * were read and used (connected to, imported).  Any other file at the paths
 * is left alone.  The first failure is returned, every step is tried.
 */
doca_error_t destroy_rdma_resources(struct rdma_resources *resources, struct rdma_config *cfg);

/* Write len bytes to a file that must not exist yet (IO_FAILED otherwise). */
doca_error_t write_file(const char *file_path, const char *string, size_t string_len);

/*
 * Read a whole regular file (1..RDMA_DESC_MAX_LEN bytes) into a malloc'd buffer
 * the caller frees.  A FIFO or another non-regular file is refused at once
 * (INVALID_VALUE), never waited on.
 */
doca_error_t read_file(const char *file_path, char **string, size_t *string_len);

/* Block until a line is read from stdin (or stdin ends). */
void wait_for_enter(void);

/* Record err as the sample's result unless one is recorded already. */
void rdma_record_error(struct rdma_resources *res, doca_error_t err);

/* Record err and stop the context (the run ends once it is IDLE). */
void rdma_fail(struct rdma_resources *res, doca_error_t err);

/*
 * Stop the context (in RDMA-CM mode after disconnecting every connection).
 * Failures are recorded.
 */
void rdma_finish(struct rdma_resources *res);

/* One task of num_remaining_tasks is done (status recorded if not SUCCESS); rdma_finish() after the last. */
void rdma_task_done(struct rdma_resources *res, doca_error_t status);

/* Release the task's bufs (NULL ignored), free it, then rdma_task_done(status). */
void rdma_task_complete(struct rdma_resources *res, struct doca_task *task, const struct doca_buf *buf1,
			const struct doca_buf *buf2, doca_error_t status);

/* Error callback body: log "RDMA <what> task failed" with the task status, then rdma_task_complete(). */
void rdma_task_failed(struct rdma_resources *res, struct doca_task *task, const char *what, const struct doca_buf *buf1,
		      const struct doca_buf *buf2);

/*
 * Post one receive into [offset, offset + len) of the local memory, or with no
 * destination when len is 0 (write with immediate).  Counts one remaining task.
 */
doca_error_t rdma_post_receive(struct rdma_resources *res, size_t offset, size_t len);

/* Error callback of the samples' receive tasks. */
void rdma_receive_error(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			union doca_data ctx_user_data);

/* Put text in the RDMA_MSG_LEN-byte slice at offset of the local memory (zero-filled). */
void rdma_put_text(struct rdma_resources *res, size_t offset, const char *text);

/* A buf over the local memory at offset (data window: len bytes when with_data, else empty). */
doca_error_t rdma_local_buf(struct rdma_resources *res, size_t offset, size_t len, bool with_data,
			    struct doca_buf **buf);

/*
 * A buf over the first len bytes of the responder's memory (remote_mmap):
 * INVALID_VALUE when the remote range is shorter than len.
 */
doca_error_t rdma_remote_buf(struct rdma_resources *res, size_t len, bool with_data, struct doca_buf **buf);

/* Release a buf taken by a sample (NULL is ignored; a failure is logged). */
void rdma_release_buf(const struct doca_buf *buf);

/* Submit task; on failure log it, free it and return the error. */
doca_error_t rdma_submit(struct doca_task *task, const char *what);

/* The text at the data of buf, at most its data length, NUL-bounded (for printing). */
int rdma_buf_text(const struct doca_buf *buf, const char **text);

/* The main() of every RDMA sample; returns the process exit status. */
int rdma_sample_main(const struct rdma_sample *sample, int argc, char **argv);

/* --- RDMA-CM (rdma_common_cm.c) --------------------------------------------- */

/*
 * Set the connection callbacks and, when the side takes part in the descriptor
 * negotiation, one send (responder) or one receive (requester) task and the
 * negotiation buffer.  Before the context starts.
 */
doca_error_t config_rdma_cm_callback_and_negotiation_task(struct rdma_resources *res, bool need_send_task,
							  bool need_recv_task);

/* From the RUNNING callback: listen on -lp (server) or connect to -sa (client). */
doca_error_t rdma_cm_connect(struct rdma_resources *res);

/* Disconnect every established connection. */
doca_error_t rdma_cm_disconnect(struct rdma_resources *res);

/* The out-of-band exchange (from the RUNNING callback), then sample->run. */
doca_error_t rdma_oob_connect_and_run(struct rdma_resources *res);

/* Import the responder's descriptor (requester): remote mmap or remote sync event. */
doca_error_t rdma_import_resource(struct rdma_resources *res, const void *desc, size_t desc_len);

/* Export this responder's resource; the descriptor stays owned by the library. */
doca_error_t rdma_export_resource(struct rdma_resources *res, const void **desc, size_t *desc_len);

#endif /* RDMA_COMMON_H_ */
