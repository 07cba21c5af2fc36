/* placeholder until the verbs-ibv branch lands */
#ifndef SD_VERBS_IBV_H_
#define SD_VERBS_IBV_H_
#include <stdbool.h>
#include <stdint.h>
struct doca_verbs_pd;
bool sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, uint32_t lkey, uint64_t addr, uint64_t len, bool write);
#endif
