/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the 14 RDMA samples share, and only that: flags and their defaults, the
 * resources of one RDMA context (device, local memory and its mmap, inventory,
 * PE), the state-change plumbing, descriptor files and the out-of-band
 * exchange, task and buf helpers, and the RDMA-CM connection set-up.  Each
 * sample's own DOCA call order is in rdma_<name>_sample.c.
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

/* Sample-specific flags (rdma_sample_main). */
enum rdma_params {
	RDMA_PARAM_SEND_STRING = 1 << 0,     /* -s */
	RDMA_PARAM_READ_STRING = 1 << 1,     /* -r */
	RDMA_PARAM_WRITE_STRING = 1 << 2,    /* -w */
	RDMA_PARAM_NUM_CONNECTIONS = 1 << 3, /* -nc */
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

/* What a sample does once connected: submit its tasks (or wait for the peer's). */
typedef doca_error_t (*rdma_step_fn)(struct rdma_resources *res);

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
	/* Set by the sample before allocate_rdma_resources() */
	const char *peer;	     /* "receiver", "sender", "requester", "responder" (prompts) */
	enum rdma_role role;	     /* what the exchange of descriptors does for this side */
	enum rdma_resource resource; /* exported (responder) or imported (requester) */
	bool numbered_files;	     /* one "<path>-%04u" file pair per connection (-nc samples) */
	bool dc_passive;	     /* with DC: export only, never read the peer's file or connect */
	rdma_step_fn run;	     /* connected (and the peer's resource imported): submit the work */
	void *priv;		     /* sample-specific state */
	/* Filled by allocate_rdma_resources() */
	struct rdma_config *cfg;
	struct doca_dev *doca_device;
	struct doca_mmap *mmap; /* local memory, RDMA_MEM_RANGE_LEN bytes */
	char *mmap_memrange;
	struct doca_buf_inventory *buf_inventory; /* RDMA_INVENTORY_PER_CONN per connection */
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *rdma_ctx;
	/* Connections and what the exchange brought (freed by destroy_rdma_resources) */
	struct doca_rdma_connection *connections[RDMA_MAX_CONNECTIONS];
	uint32_t num_connections;				  /* entries of connections[] in use */
	void *remote_conn_desc[RDMA_MAX_CONNECTIONS];		  /* peer blobs read from files */
	void *remote_resource_desc;				  /* -m blob read by a requester */
	struct rdma_owned_file owned_files[RDMA_MAX_OWNED_FILES]; /* deleted at destroy */
	uint32_t num_owned_files;
	struct doca_mmap *remote_mmap;		      /* requester: the responder's memory */
	struct doca_sync_event *sync_event;	      /* sync-event responder: its event (the sample's) */
	struct doca_sync_event_remote_net *remote_se; /* sync-event requester: the responder's event */
	/* RDMA-CM */
	struct doca_rdma_addr *cm_addr; /* client: the server's address */
	char *negotiation_buf;		/* descriptor sent / received over the connection */
	struct doca_mmap *negotiation_mmap;
	/* Run state */
	doca_error_t first_error;   /* first failure met; the sample's result */
	bool run_pe_progress;	    /* cleared when the context is IDLE again */
	size_t num_remaining_tasks; /* the context is stopped when it reaches 0 */
};

/* --- main() (rdma_params.c) ------------------------------------------------- */

/* The sample function a program's main() runs once its flags are parsed. */
typedef doca_error_t (*rdma_sample_fn)(struct rdma_config *cfg);

/*
 * DOCA's defaults, logging, "Starting the sample", the common flags and those of
 * params (enum rdma_params bits), the sample, and the final "Sample finished
 * successfully" / "... with errors".  Returns the process exit status.
 */
int rdma_sample_main(const char *name, unsigned int params, rdma_sample_fn sample, int argc, char **argv);

/* --- resources and the context (rdma_common.c) ------------------------------ */

/*
 * Open the device named cfg->device_name that passes func, create the local
 * memory and its mmap (mmap_permissions), the buf inventory, a PE and the RDMA
 * context (rdma_permissions, gid index if set, max connections, transport)
 * connected to the PE.  DC is refused (INVALID_VALUE) with several connections
 * or RDMA-CM.  On failure nothing is left to destroy.
 */
doca_error_t allocate_rdma_resources(struct rdma_config *cfg, uint32_t mmap_permissions, uint32_t rdma_permissions,
				     tasks_check func, struct rdma_resources *resources);

/*
 * Stop the context if it is not IDLE, undo allocate_rdma_resources and
 * everything the run added (remote mmap, remote sync event, CM address,
 * negotiation mmap, received blobs) and delete the descriptor files this run
 * owns.  Returns result, or the first teardown failure when result is SUCCESS.
 */
doca_error_t destroy_rdma_resources(struct rdma_resources *resources, doca_error_t result);

/*
 * Before the start: the state callback of every sample (it logs each state; on
 * RUNNING it listens or connects with RDMA-CM, or calls rdma_oob_connect_and_run; on
 * IDLE it ends the progress loop) with the resources as user data and, with
 * -cm, the RDMA-CM callbacks and the descriptor negotiation task of a requester
 * (receive) or responder (send).
 */
doca_error_t rdma_connect_callbacks(struct rdma_resources *res);

/* doca_ctx_start(), then progress the PE until the context is IDLE again; the first error met. */
doca_error_t rdma_start_and_progress(struct rdma_resources *res);

/* Export this responder's resource (res->resource); the descriptor stays owned by the library. */
doca_error_t rdma_export_resource(struct rdma_resources *res, const void **desc, size_t *desc_len);

/* Import the responder's descriptor (requester): remote mmap or remote sync event. */
doca_error_t rdma_import_resource(struct rdma_resources *res, const void *desc, size_t desc_len);

/* --- tasks and bufs (rdma_common_task.c) ------------------------------------ */

/* Record err as the sample's result unless one is recorded already. */
void rdma_record_error(struct rdma_resources *res, doca_error_t err);

/* Record err and stop the context (the run ends once it is IDLE). */
void rdma_fail(struct rdma_resources *res, doca_error_t err);

/* Stop the context (in RDMA-CM mode after disconnecting every connection); failures are recorded. */
void rdma_finish(struct rdma_resources *res);

/* Release the task's bufs (NULL ignored), free it; after the last remaining task, rdma_finish(). */
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

/* The run step of the receivers: one receive into the first RDMA_MSG_LEN bytes. */
doca_error_t rdma_receive_one(struct rdma_resources *res);

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

/*
 * The bufs of a one-sided task over the first RDMA_MSG_LEN bytes of both sides:
 * for a write the local memory is the source (holding data) and the
 * responder's the destination, for a read the other way round.  Both or none.
 */
doca_error_t rdma_one_sided_bufs(struct rdma_resources *res, bool write, struct doca_buf **src, struct doca_buf **dst);

/* Release a buf taken by a sample (NULL is ignored; a failure is logged). */
void rdma_release_buf(const struct doca_buf *buf);

/*
 * Submit task (the caller counted it in num_remaining_tasks); on failure log
 * it, free it, release the bufs (NULL ignored) and return the error.
 */
doca_error_t rdma_submit(struct doca_task *task, const char *what, struct doca_buf *buf1, struct doca_buf *buf2);

/* The text at the data of buf, at most its data length, NUL-bounded (for printing). */
int rdma_buf_text(const struct doca_buf *buf, const char **text);

/* --- descriptor files and the out-of-band exchange (rdma_common_oob.c) ------ */

/*
 * From the RUNNING callback, out of band: a responder exports its resource;
 * then for each connection i, doca_rdma_export() it, write the descriptor to
 * -ld ("<path>-%04u" with numbered_files; a responder's resource descriptor to
 * -m with the first), say which files to copy to the peer, ask for the peer's
 * file(s) and Enter, read -re and doca_rdma_connect() (a dc_passive side with
 * DC stops after writing: the peer connects to it); a requester then reads -m
 * and imports it.  Last, res->run.  An existing file is never overwritten.
 */
doca_error_t rdma_oob_connect_and_run(struct rdma_resources *res);

/* Delete the files this run owns (those it wrote, the peer's it used) if they are still the same. */
void rdma_remove_owned_files(struct rdma_resources *res);

/* Block until a line is read from stdin (or stdin ends). */
void wait_for_enter(void);

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

/* --- the samples (rdma_<name>_sample.c), called by their main() ------------- */

doca_error_t rdma_send(struct rdma_config *cfg);
doca_error_t rdma_receive(struct rdma_config *cfg);
doca_error_t rdma_send_immediate(struct rdma_config *cfg);
doca_error_t rdma_receive_immediate(struct rdma_config *cfg);
doca_error_t rdma_read_requester(struct rdma_config *cfg);
doca_error_t rdma_read_responder(struct rdma_config *cfg);
doca_error_t rdma_write_requester(struct rdma_config *cfg);
doca_error_t rdma_write_responder(struct rdma_config *cfg);
doca_error_t rdma_write_immediate_requester(struct rdma_config *cfg);
doca_error_t rdma_write_immediate_responder(struct rdma_config *cfg);
doca_error_t rdma_sync_event_requester(struct rdma_config *cfg);
doca_error_t rdma_sync_event_responder(struct rdma_config *cfg);
doca_error_t rdma_multi_conn_send(struct rdma_config *cfg);
doca_error_t rdma_multi_conn_receive(struct rdma_config *cfg);

#endif /* RDMA_COMMON_H_ */
