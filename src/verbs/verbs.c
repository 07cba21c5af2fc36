/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_verbs: empty until the Verbs issue lands (see docs/compat.md).
 */
