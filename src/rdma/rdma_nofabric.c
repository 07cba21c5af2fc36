/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_rdma built without UCX (libucx-dev missing at configure time): the
 * library links but holds no RDMA implementation; install libucx-dev and
 * reconfigure (scripts/install-deps.sh does).
 */
