/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the Verbs address message fuzz target and its replay driver: the
 * libFuzzer entry point and the contract check of both parsers
 * (src/fabric/fabric_addr_proto.c).  The first input byte picks the parser
 * (even: request, odd: response), the rest is the message.
 */
#ifndef FUZZ_VERBS_ADDR_H_
#define FUZZ_VERBS_ADDR_H_

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric_addr_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check one message against one parser; aborts on a contract violation. */
void fuzz_verbs_addr_one(bool response, const uint8_t *data, size_t size);

#endif /* FUZZ_VERBS_ADDR_H_ */
