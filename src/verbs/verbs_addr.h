/* placeholder until the verbs-addr branch lands */
#ifndef SD_VERBS_ADDR_H_
#define SD_VERBS_ADDR_H_
#include <stddef.h>
#include <stdint.h>
#include <doca_error.h>
struct doca_devinfo;
doca_error_t sd_verbs_addr_add(const struct doca_devinfo *devinfo, uint32_t *qpn);
doca_error_t sd_verbs_addr_publish(uint32_t qpn, const void *blob, size_t len);
void sd_verbs_addr_bind(uint32_t qpn, const uint8_t peer_gid[16], uint32_t peer_qpn);
void sd_verbs_addr_remove(uint32_t qpn);
doca_error_t sd_verbs_addr_resolve(const struct doca_devinfo *local, const uint8_t gid[16], uint32_t qpn,
				   uint32_t src_qpn, void *blob, size_t cap, size_t *len, uint32_t timeout_ms,
				   const char **reason);
#endif
