/*
 * aclsim.c - the aclsim_* additions to the API (aclsim/aclsim.h).
 */
#include "aclsim/aclsim.h"
#include "api.h"
#include "backends/be.h"

API_EXPORT const char *aclsim_backend_name(void)
{
    return be_get()->name;
}

API_EXPORT size_t aclsim_registered_count(void)
{
    return api_registry_count();
}
