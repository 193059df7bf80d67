/*
 * cache.c - cache maintenance (the CACHE family): aclrtMemFlush writes cached
 * data of a range back to memory, aclrtMemInvalidate drops it; the cache
 * operations on a stream (prefetch, write back, invalidate, flush), their
 * barriers, their descriptors, and the flush of a device's L2 cache.
 *
 * CANN checks the pointer and the size in its ACL layer (hicann/runtime
 * src/acl/aclrt_impl/memory.cpp: EH0008, EH0007), its runtime the rest
 * (src/runtime/api/api_c_standard_soc.cc rtCmoAsync, rtsLaunchCmoAddrTask;
 * api_c_memory.cc rtsCmoAsyncWithBarrier, rtsLaunchBarrierTask;
 * src/runtime/api/impl/api_error.cc CmoAddrTaskLaunch, BarrierTaskLaunch,
 * GetCmoDescSize, SetCmoDesc), whose refusals are 107000 with its EE10xx
 * texts. The simulator has no caches: a range is checked (one live block
 * of device memory, as a copy's side must be), and an operation on a
 * stream is a task in the stream's order that takes the time of one pass of
 * the range through HBM and changes no byte; a barrier wait makes the
 * stream wait for the operations done under its barrier ids.
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

/* ---- cache operations on a stream ---- */

static const char on_device[] = "Operating the cache memory on the device";

/* [p, p+n) must lie in one live block of the stream's device. */
static aclError cmo_range(const char *what, const char *param, void *p, size_t n, int32_t dev)
{
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    if (!api_side_ok(what, param, p, n, true, true, &in))
        return ACL_ERROR_RT_PARAM_INVALID;
    if (in.kind == BE_PTR_DEVICE && in.device != dev) {
        char v[32];
        snprintf(v, sizeof v, "%p", p);
        return api_rt_value(what, v, param, "memory of the stream's device");
    }
    return ACL_SUCCESS;
}

/* The task on its stream, after the call's own checks: the range, then the
 * backend; noted for a capture (the sanitizer checks graph memory). */
static aclError cmo_task(const char *fn, void *src, size_t size, int type, uint32_t barrier,
                         aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = cmo_range(on_device, "src", src, size, s.ctx->device);
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, be_get()->cmo(s.stream, src, size, type, barrier));
    if (rc == ACL_SUCCESS && api_cap_graph_of(s.stream)) {
        struct api_cap_range r[1] = {{.p = src, .n = size}};
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, r, 1);
    }
    api_stream_put(&s);
    return rc;
}

static bool cmo_type_ok(aclrtCmoType t)
{
    return (int)t >= ACL_RT_CMO_TYPE_PREFETCH && (int)t <= ACL_RT_CMO_TYPE_FLUSH;
}

aclError api_impl_aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    static const char fn[] = "aclrtCmoAsync";
    API_FAULT(ACL_RT_CMO, fn);
    if (!src)
        return api_err_null(fn, "src");
    if (size == 0)
        return api_err_value(fn, "0", "size", "must be greater than 0");
    /* rtCmoAsync: an operation outside prefetch..flush is "not supported",
     * with a warning only. */
    if (!cmo_type_ok(cmoType))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return cmo_task(fn, src, size, (int)cmoType, 0, stream);
}

aclError api_impl_aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType,
                                           uint32_t barrierId, aclrtStream stream)
{
    static const char fn[] = "aclrtCmoAsyncWithBarrier";
    API_FAULT(ACL_RT_CMO, fn);
    if (!src)
        return api_err_null(fn, "src");
    /* the runtime's rtsCmoAsyncWithBarrier from here */
    if (size == 0) {
        api_report(API_MSG_EE1003, "rtsCmoAsyncWithBarrier failed because value 0 for parameter "
                   "srcLen is invalid. Expected value: greater than 0.");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (cmoType == ACL_RT_CMO_TYPE_INVALID && barrierId == 0) {
        api_report(API_MSG_EE1011, "rtsCmoAsyncWithBarrier failed. Value 0 for parameter logicId "
                   "is invalid. Reason: If parameter cmoType is equal to RT_CMO_INVALID, the "
                   "value of parameter logicId cannot be 0.");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (cmoType != ACL_RT_CMO_TYPE_INVALID && cmo_type_ok(cmoType) && barrierId != 0) {
        api_report(API_MSG_EE1011, "rtsCmoAsyncWithBarrier failed. Value %u for parameter logicId "
                   "is invalid. Reason: If parameter cmoType is equal to RT_CMO_PREFETCH, "
                   "RT_CMO_WRITEBACK, or RT_CMO_FLUSH, the value of parameter logicId should be "
                   "0.", barrierId);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!cmo_type_ok(cmoType))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    return cmo_task(fn, src, size, (int)cmoType, barrierId, stream);
}

aclError api_impl_aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream,
                                      uint32_t flag)
{
    static const char fn[] = "aclrtCmoWaitBarrier";
    API_FAULT(ACL_RT_CMO, fn);
    if (!taskInfo)
        return api_err_null(fn, "taskInfo");
    char v[32];
    if (taskInfo->barrierNum == 0 || taskInfo->barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM) {
        snprintf(v, sizeof v, "%u", (unsigned)taskInfo->barrierNum);
        return api_err_value(fn, v, "taskInfo->barrierNum", "(0, 6]");
    }
    /* the runtime's rtsLaunchBarrierTask: invalidations with their ids */
    for (uint32_t i = 0; i < taskInfo->barrierNum; i++) {
        const aclrtBarrierCmoInfo *b = &taskInfo->cmoInfo[i];
        if (b->cmoType != ACL_RT_CMO_TYPE_INVALID) {
            snprintf(v, sizeof v, "%d", (int)b->cmoType + 6); /* rtCmoOpCode: CMO_PREFETCH is 6 */
            return api_rt_value("rtsLaunchBarrierTask", v, "cmoInfo.cmoType", "CMO_INVALID(8)");
        }
        if (b->barrierId == 0)
            return api_rt_value("rtsLaunchBarrierTask", "0", "cmoInfo.logicId",
                                "not equal to 0");
    }
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->cmo_barrier_wait(s.stream, taskInfo, flag));
    if (rc == ACL_SUCCESS && api_cap_graph_of(s.stream))
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, NULL, 0);
    api_stream_put(&s);
    return rc;
}

/* ---- cache operations through descriptors ---- */

aclError api_impl_aclrtCmoGetDescSize(size_t *size)
{
    static const char fn[] = "aclrtCmoGetDescSize";
    API_FAULT(ACL_RT_CMO, fn);
    if (!size)
        return api_rt_null("Obtaining the memory size used by the cache memory descriptor of the "
                           "current device", "size");
    return api_err_runtime(fn, be_get()->desc_size(BE_DESC_CMO, size));
}

/* The descriptor itself: device memory of the current device, 32 bytes of
 * it (the runtime writes it with a synchronous copy). */
static aclError desc_memory(const char *what, void *desc, size_t bytes, int32_t dev)
{
    return cmo_range(what, "cmoDesc", desc, bytes, dev);
}

aclError api_impl_aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)
{
    static const char fn[] = "aclrtCmoSetDesc";
    static const char what[] = "Setting the cache memory descriptor";
    API_FAULT(ACL_RT_CMO, fn);
    if (!cmoDesc)
        return api_rt_null(what, "cmoDesc");
    if (!src)
        return api_rt_null(what, "srcAddr");
    if (size == 0)
        return api_rt_value(what, "0", "srcLen", "not equal to 0");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t bytes = 0;
    rc = be_get()->desc_size(BE_DESC_CMO, &bytes);
    if (rc == ACL_SUCCESS)
        rc = desc_memory(what, cmoDesc, bytes, c->device);
    if (rc == ACL_SUCCESS)
        rc = cmo_range(what, "srcAddr", src, size, c->device);
    if (rc != ACL_SUCCESS)
        return rc == ACL_ERROR_RT_PARAM_INVALID ? rc : api_err_runtime(fn, rc);
    return api_err_runtime(fn, be_get()->desc_set(BE_DESC_CMO, cmoDesc, src, NULL, size));
}

aclError api_impl_aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
                                        const void *reserve)
{
    static const char fn[] = "aclrtCmoAsyncWithDesc";
    static const char what[] = "Using the memory descriptor to operate the cache memory on the "
                               "device";
    API_FAULT(ACL_RT_CMO, fn);
    /* rtsLaunchCmoAddrTask, then api_error.cc CmoAddrTaskLaunch */
    if (reserve) {
        char v[32];
        snprintf(v, sizeof v, "%p", reserve);
        return api_rt_value("rtsLaunchCmoAddrTask", v, "reserve", "nullptr");
    }
    if (!cmoDesc)
        return api_rt_null(what, "cmoAddrInfo");
    if (!cmo_type_ok(cmoType)) {
        char v[48];
        snprintf(v, sizeof v, "%d", (int)cmoType + 6);
        return api_rt_value(what, v, "cmoOpCode", "[6, 10)"); /* rtCmoOpCode's range */
    }
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t bytes = 0;
    rc = be_get()->desc_size(BE_DESC_CMO, &bytes);
    if (rc == ACL_SUCCESS)
        rc = desc_memory(what, cmoDesc, bytes, s.ctx->device);
    if (rc == ACL_SUCCESS) {
        rc = be_get()->desc_launch(BE_DESC_CMO, s.stream, cmoDesc, (int)cmoType);
        if (rc == ACL_ERROR_RT_PARAM_INVALID)
            api_report(API_MSG_EE1017, "%s failed. Parameter cmoDesc is invalid. Reason: the "
                       "range it describes is not inside one live allocation of the stream's "
                       "device (set it with aclrtCmoSetDesc).", what);
        else
            rc = api_err_runtime(fn, rc);
    }
    api_stream_put(&s);
    return rc;
}

/* ---- the L2 cache of the current device ---- */

aclError api_impl_aclrtDeviceL2CacheFlush(void *rsv)
{
    static const char fn[] = "aclrtDeviceL2CacheFlush";
    API_FAULT(ACL_RT_CACHE, fn);
    if (rsv) {
        api_report(API_MSG_EH0012, "%s failed. Parameter rsv is invalid. Reason: rsv must be "
                   "nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return api_err_runtime(fn, be_get()->l2_flush(c->device));
}
