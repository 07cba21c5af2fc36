/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA's PCI sync-event samples: sync_event_local_pci creates an event, sends its
 * export to the other side over Comch, signals 1 and waits for 2;
 * sync_event_remote_pci creates the event from that export, waits for 1 and
 * signals 2.  Either program runs on either side (the DPU build is the Comch
 * server, the host build the client).
 */
#ifndef SYNC_EVENT_PCI_COMMON_H_
#define SYNC_EVENT_PCI_COMMON_H_

#include <stdbool.h>

#include <doca_dev.h>
#include <doca_error.h>

#define SE_PCI_SERVER_NAME "sync_event_cc"
#define SE_PCI_MAX_MSG 1024
#define SE_PCI_RECV_QUEUE 8
#define SE_PCI_SEND_TASKS 8
#define SE_PCI_TIMEOUT_SEC 30

struct se_pci_cfg {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];	   /* -d */
	char rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r (DPU) */
	bool is_async;					   /* --async */
	int async_num_tasks;				   /* --async-num-tasks */
	bool is_update_atomic;				   /* --atomic */
	bool is_dpu;
};

/* The samples' main(): logging, flags, run, the final line.  local: which program. */
int se_pci_main(bool local, int argc, char **argv);

#endif /* SYNC_EVENT_PCI_COMMON_H_ */
