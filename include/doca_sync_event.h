/* SPDX-License-Identifier: BSD-3-Clause */
/* placeholder: written by its module */
#include <doca_error.h>
#include <doca_types.h>
