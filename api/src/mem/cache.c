/*
 * cache.c - cache maintenance (the CACHE family): aclrtMemFlush writes cached
 * data of a range back to memory, aclrtMemInvalidate drops it.
 *
 * CANN checks the pointer and the size in its ACL layer (hicann/runtime
 * src/acl/aclrt_impl/memory.cpp: EH0008, EH0007) and hands the range to the
 * driver. The simulator has no caches, so the range is only checked: it
 * must lie in one live block of device or acl host memory, as a copy's side
 * must (aclsim's bounds and use-after-free checks).
 */
#include <stdio.h>
#include "memory.h"
#include "backends/be.h"

static aclError cache_op(const char *fn, void *devPtr, size_t size, int invalidate)
{
    API_FAULT(ACL_RT_CACHE, fn);
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (size == 0)
        return api_err_value(fn, "0", "size", "must be greater than 0");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    struct be_ptr_info in;
    be_get()->lookup(devPtr, &in);
    bool device = in.kind == BE_PTR_DEVICE || in.kind == BE_PTR_DEVICE_FREE ||
                  in.kind == BE_PTR_UNKNOWN;
    if (!api_side_ok(invalidate ? "Invalidating the cache" : "Flushing the cache", "devPtr",
                     devPtr, size, device, true, &in))
        return ACL_ERROR_RT_PARAM_INVALID;
    return api_err_runtime(fn, be_get()->cache_op(c->device, devPtr, size, invalidate));
}

aclError api_impl_aclrtMemFlush(void *devPtr, size_t size)
{
    return cache_op("aclrtMemFlush", devPtr, size, 0);
}

aclError api_impl_aclrtMemInvalidate(void *devPtr, size_t size)
{
    return cache_op("aclrtMemInvalidate", devPtr, size, 1);
}
