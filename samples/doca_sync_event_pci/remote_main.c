/* SPDX-License-Identifier: BSD-3-Clause */
/* doca_sync_event_remote_pci: flags -d, -r (DPU build), --async, --async-num-tasks, --atomic. */
#include "sync_event_pci_common.h"

int
main(int argc, char **argv)
{
	return se_pci_main(false, argc, argv);
}
