/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the SOFTDOCA_FAULTS parser (src/core/fault_parse.c): any
 * bytes either give a plan whose every rule is well formed (a known library,
 * a named operation, a probability in [0, 1], a phase its kind acts at, its
 * text inside the plan's copy) or a refusal with a reason and an offset
 * inside the input.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_rule(const struct sd_fault_plan *plan, const struct sd_fault_rule *r)
{
	if (r->lib[0] == '\0' || r->op[0] == '\0' || strlen(r->op) >= SD_FAULT_NAME_MAX)
		abort();
	if (!(r->prob >= 0.0 && r->prob <= 1.0))
		abort();
	if (r->text < plan->text || r->text + r->text_len > plan->text + sizeof(plan->text) || r->text_len == 0)
		abort();
	if ((r->kind == SD_FAULT_DELAY) != (r->delay_ns != 0))
		abort();
	if ((r->kind == SD_FAULT_DOWN) != (strcmp(r->lib, "dev") == 0))
		abort();
	if ((r->phase == SD_FAULT_AT_SUBMIT) != (r->kind == SD_FAULT_AGAIN))
		abort();
	if (r->kind == SD_FAULT_ERROR && r->status == DOCA_SUCCESS)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sd_fault_plan plan;
	const char *reason = NULL;
	size_t at = (size_t)-1;

	if (!sd_fault_parse((const char *)data, size, &plan, &reason, &at)) {
		if (reason == NULL || reason[0] == '\0' || at > size)
			abort();
		return 0;
	}
	if (plan.num_rules > SD_FAULT_MAX_RULES)
		abort();
	for (unsigned int i = 0; i < plan.num_rules; i++)
		check_rule(&plan, &plan.rules[i]);
	return 0;
}
