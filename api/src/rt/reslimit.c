/*
 * reslimit.c - core limits of devices, streams and threads (the RESLIMIT
 * family of api/abi/calls.def: aclrt*DeviceResLimit, aclrt*StreamResLimit,
 * aclrt[Un]UseStreamResInCurrentThread, aclrtGetResInCurrentThread).
 *
 * As CANN's runtime keeps them (api_impl.cc, raw_device_res.cc): a device
 * starts with its cube and vector core counts as limits each time it
 * opens; a limit may be lowered to at most that count and reset; a stream
 * has no limit of its own until one is set (then it need not be below its
 * device's); a thread may adopt a stream's limits, and its limit of a type
 * is that stream's when the stream has one, else its current device's.
 * The checks and their order are CANN's: the ACL layer's NULL checks
 * (aclrt_impl/device.cpp), then the runtime's (api_c_device.cc,
 * api_c_stream.cc, api_error.cc, api_impl.cc) with their EE1003 texts.
 * The simulator runs no kernels, so a limit changes what is reported,
 * never a timing. The thread's stream is remembered here (CANN keeps a raw
 * pointer and reads a destroyed stream; aclsim forgets it instead).
 */
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

/* The runtime's name of a type (DevResLimitTypeToString). */
static const char *type_name(int type, char *buf, size_t len)
{
    if (type == ACL_RT_DEV_RES_CUBE_CORE)
        return "DEV_RES_CUBE_CORE(0)";
    if (type == ACL_RT_DEV_RES_VECTOR_CORE)
        return "DEV_RES_VECTOR_CORE(1)";
    if (type == 2)
        return "DEV_RES_TYPE_MAX(2)";
    snprintf(buf, len, "UNKNOWN(%d)", type);
    return buf;
}

/* The runtime's check of the type (ApiErrorDecorator: EE1003, 107000). */
static aclError check_type(const char *desc, aclrtDevResLimitType type)
{
    if ((uint32_t)type < 2u)
        return ACL_SUCCESS;
    char buf[32];
    api_report(API_MSG_EE1003, "%s failed because value %s for parameter type is invalid. "
               "Expected value: [0, 2).", desc, type_name((int)type, buf, sizeof buf));
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* The runtime's checks of a device id (rts* and CheckDeviceIdIsValid),
 * then whether the device is open (the runtime's GetDevice: 507033). */
static aclError check_device(const char *rts, const char *desc, int32_t dev,
                             aclrtDevResLimitType type, bool typed)
{
    if (dev < 0) {
        api_report(API_MSG_EE1003, "%s failed because value %d for parameter devId is invalid. "
                   "Expected value: greater than or equal to 0.", rts, (int)dev);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    aclError rc = typed ? check_type(desc, type) : ACL_SUCCESS;
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t n = 0;
    rc = be_get()->device_count(&n);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(rts, rc);
    if ((uint32_t)dev >= n && n != 0) {
        api_report(API_MSG_EE1003, "Verifying the device ID validity failed because value %d for "
                   "parameter devId is invalid. Expected value: [0, %u).", (int)dev, n);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    if (!api_device_is_open(dev)) {
        api_report(API_MSG_EH9999, "%s failed: device %d is not set (call aclrtSetDevice "
                   "first), runtime result = %d.", desc, (int)dev, ACL_ERROR_RT_DEV_SETUP_ERROR);
        return ACL_ERROR_RT_DEV_SETUP_ERROR;
    }
    return ACL_SUCCESS;
}

/* A limit must not exceed the device's core count (EE1003, 107000). The
 * count is the device's answer to aclrtGetDeviceInfo; a device that does
 * not give it leaves the judgement to the runtime below. */
static aclError check_value(const char *desc, int32_t dev, aclrtDevResLimitType type,
                            uint32_t value)
{
    int64_t cores = 0;
    aclrtDevAttr attr = type == ACL_RT_DEV_RES_CUBE_CORE ? ACL_DEV_ATTR_AICORE_CORE_NUM
                                                          : ACL_DEV_ATTR_VECTOR_CORE_NUM;
    if (be_get()->device_info(dev, attr, &cores) != ACL_SUCCESS || cores < 0 ||
        value <= (uint64_t)cores)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1003, "%s failed because value %u for parameter value is invalid. "
               "Expected value: must be less than or equal to %lld.", desc, value,
               (long long)cores);
    return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError backend(const char *fn, int op, int32_t dev, void *stream, int type,
                        uint32_t *val)
{
    return api_err_runtime(fn, be_get()->res_limit(op, dev, stream, type, val));
}

/* ---- devices ---- */

aclError api_impl_aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                         uint32_t *value)
{
    static const char fn[] = "aclrtGetDeviceResLimit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    if (!value)
        return api_err_null(fn, "value");
    aclError rc = check_device("rtsGetDeviceResLimit",
                               "Obtaining the device resource limits of the current process",
                               deviceId, type, true);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t v = 0;
    rc = backend(fn, BE_RL_DEV_GET, deviceId, NULL, (int)type, &v);
    if (rc == ACL_SUCCESS)
        *value = v;
    return rc;
}

aclError api_impl_aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                         uint32_t value)
{
    static const char fn[] = "aclrtSetDeviceResLimit";
    static const char desc[] = "Setting the device resource limit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    aclError rc = check_device("rtsSetDeviceResLimit", desc, deviceId, type, true);
    if (rc == ACL_SUCCESS)
        rc = check_value(desc, deviceId, type, value);
    return rc != ACL_SUCCESS ? rc : backend(fn, BE_RL_DEV_SET, deviceId, NULL, (int)type, &value);
}

aclError api_impl_aclrtResetDeviceResLimit(int32_t deviceId)
{
    static const char fn[] = "aclrtResetDeviceResLimit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    aclError rc = check_device("rtsResetDeviceResLimit", "Resetting the device resource limit",
                               deviceId, ACL_RT_DEV_RES_CUBE_CORE, false);
    uint32_t none = 0;
    return rc != ACL_SUCCESS ? rc : backend(fn, BE_RL_DEV_RESET, deviceId, NULL, 0, &none);
}

/* ---- streams ----
 *
 * The runtime validates a stream handle first; NULL passes (the current
 * context's default stream, looked up after the type check). */

static aclError stream_of(const char *fn, aclrtStream stream, struct api_stream_ref *s,
                          const char *desc, aclrtDevResLimitType type, bool typed)
{
    if (stream) {
        aclError rc = api_stream_get(fn, stream, s);
        if (rc != ACL_SUCCESS)
            return rc;
        rc = typed ? check_type(desc, type) : ACL_SUCCESS;
        if (rc != ACL_SUCCESS)
            api_stream_put(s);
        return rc;
    }
    aclError rc = typed ? check_type(desc, type) : ACL_SUCCESS;
    return rc != ACL_SUCCESS ? rc : api_stream_get(fn, NULL, s);
}

aclError api_impl_aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                         uint32_t *value)
{
    static const char fn[] = "aclrtGetStreamResLimit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    if (!value)
        return api_err_null(fn, "value");
    struct api_stream_ref s;
    aclError rc = stream_of(fn, stream, &s, "Obtaining the device resource limits of a specified "
                            "stream", type, true);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t v = 0;
    rc = backend(fn, BE_RL_STREAM_GET, s.ctx->device, s.stream, (int)type, &v);
    api_stream_put(&s);
    if (rc == ACL_SUCCESS)
        *value = v;
    return rc;
}

aclError api_impl_aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                         uint32_t value)
{
    static const char fn[] = "aclrtSetStreamResLimit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    struct api_stream_ref s;
    aclError rc = stream_of(fn, stream, &s, "Setting the device resource limit for the specified "
                            "stream", type, true);
    if (rc != ACL_SUCCESS)
        return rc;
    /* No need to stay below the device's own limit, only its core count. */
    rc = check_value("Setting the device resource limits of a specific stream", s.ctx->device,
                     type, value);
    if (rc == ACL_SUCCESS)
        rc = backend(fn, BE_RL_STREAM_SET, s.ctx->device, s.stream, (int)type, &value);
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtResetStreamResLimit(aclrtStream stream)
{
    static const char fn[] = "aclrtResetStreamResLimit";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    struct api_stream_ref s;
    aclError rc = stream_of(fn, stream, &s, NULL, ACL_RT_DEV_RES_CUBE_CORE, false);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t none = 0;
    rc = backend(fn, BE_RL_STREAM_RESET, s.ctx->device, s.stream, 0, &none);
    api_stream_put(&s);
    return rc;
}

/* ---- the calling thread ---- */

static _Thread_local void *thread_stream; /* backend handle, or NULL */

/* The thread's stream with a reference, if it is still alive. */
static struct api_obj *thread_stream_get(void)
{
    if (!thread_stream)
        return NULL;
    struct api_obj *o = api_obj_get(thread_stream, API_OBJ_STREAM);
    if (!o)
        o = api_obj_get(thread_stream, API_OBJ_DSTREAM);
    if (!o)
        thread_stream = NULL; /* destroyed: forget it */
    return o;
}

aclError api_impl_aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    static const char fn[] = "aclrtUseStreamResInCurrentThread";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t none = 0;
    rc = backend(fn, BE_RL_THREAD_USE, s.ctx->device, stream ? s.stream : NULL, 0, &none);
    if (rc == ACL_SUCCESS)
        thread_stream = s.stream;
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    static const char fn[] = "aclrtUnuseStreamResInCurrentThread";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t none = 0;
    rc = backend(fn, BE_RL_THREAD_UNUSE, s.ctx->device, stream ? s.stream : NULL, 0, &none);
    /* Not the thread's stream: nothing changes, and no error (CANN). */
    if (rc == ACL_SUCCESS && thread_stream == s.stream)
        thread_stream = NULL;
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    static const char fn[] = "aclrtGetResInCurrentThread";
    API_FAULT(ACL_RT_RES_LIMIT, fn);
    if (!value)
        return api_err_null(fn, "value");
    aclError rc = check_type("Obtaining the device resources that can be used by the current "
                             "thread", type);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t v = 0;
    /* The thread's stream answers when it has a limit of that type;
     * otherwise the current device does, which needs a context. */
    struct api_obj *o = thread_stream_get();
    if (o) {
        rc = be_get()->res_limit(BE_RL_THREAD_GET, -1, api_obj_handle(o), (int)type, &v);
        api_obj_put(o);
        if (rc == ACL_SUCCESS) {
            *value = v;
            return ACL_SUCCESS;
        }
        if (rc != ACL_ERROR_RT_CONTEXT_NULL)
            return api_err_runtime(fn, rc);
    }
    struct api_stream_ref ctx; /* keeps the device from closing under us */
    rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = backend(fn, BE_RL_THREAD_GET, ctx.ctx->device, NULL, (int)type, &v);
    api_stream_put(&ctx);
    if (rc == ACL_SUCCESS)
        *value = v;
    return rc;
}
