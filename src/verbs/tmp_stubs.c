/* TEMPORARY: not for commit */
#include <string.h>
#include <stdlib.h>
#include "verbs_addr.h"
#include "verbs_ibv.h"
static struct {
	uint32_t qpn;
	void *blob;
	size_t len;
doca_error_t
{
	(void)d;
	return DOCA_SUCCESS;
}
doca_error_t
{
	return DOCA_SUCCESS;
}
void
{
	(void)qpn;
	(void)g;
	(void)p;
}
void
{
}
doca_error_t
		      size_t cap, size_t *len, uint32_t t, const char **r)
{
	(void)l;
	(void)g;
	(void)s;
	(void)cap;
	(void)t;
		*r = "none";
		return DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}
bool
sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, uint32_t lkey, uint64_t addr, uint64_t len, bool write)
{
	(void)pd;
	(void)lkey;
	(void)addr;
	(void)len;
	(void)write;
	return true;
}
