/*
 * aclsim.c - the aclsim_* additions to the API (aclsim/aclsim.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "aclsim/aclsim.h"
#include "top.h"
#include "backends/be.h"

/* The backend table is complete, or the library cannot work at all. */
__attribute__((constructor(103))) static void check_backend(void)
{
    const char *missing = be_missing(be_get());
    if (missing) {
        fprintf(stderr, "aclsim: the %s backend lacks be_ops.%s\n", be_get()->name, missing);
        abort();
    }
}

API_EXPORT const char *aclsim_backend_name(void)
{
    return be_get()->name;
}

API_EXPORT size_t aclsim_registered_count(void)
{
    return api_registry_count();
}

static aclError read_clock(const char *fn, int which, int32_t dev, void *stream, uint64_t *ps)
{
    if (!ps)
        return api_err_null(fn, "ps");
    if (!API_TOOL(clock)) {
        api_report(API_MSG_EH9999, "%s failed: the %s backend does not simulate time.", fn,
                   be_get()->name);
        return ACL_ERROR_API_NOT_SUPPORT;
    }
    return API_TOOL(clock)(which, dev, stream, ps);
}

API_EXPORT aclError aclsim_clock_host(uint64_t *ps)
{
    return read_clock("aclsim_clock_host", BE_CLOCK_HOST, -1, NULL, ps);
}

API_EXPORT aclError aclsim_clock_device(int32_t deviceId, uint64_t *ps)
{
    aclError rc = api_device_usable("aclsim_clock_device", deviceId);
    return rc == ACL_SUCCESS ? read_clock("aclsim_clock_device", BE_CLOCK_DEVICE, deviceId, NULL, ps)
                             : rc;
}

API_EXPORT aclError aclsim_clock_stream(aclrtStream stream, uint64_t *ps)
{
    static const char fn[] = "aclsim_clock_stream";
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = read_clock(fn, BE_CLOCK_STREAM, s.ctx->device, s.stream, ps);
    api_stream_put(&s);
    return rc;
}

API_EXPORT aclError aclsim_clock_reset(void)
{
    if (!API_TOOL(clock_reset))
        return ACL_ERROR_API_NOT_SUPPORT;
    return API_TOOL(clock_reset)();
}

API_EXPORT unsigned long aclsim_alloc_check_reports(const char *kind)
{
    return api_check_reports(kind);
}
