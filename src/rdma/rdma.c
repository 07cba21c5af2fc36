/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_rdma: empty until the RDMA issue lands (see docs/compat.md).
 */
