/*
 * notify.c - notifies and value writes/waits of the ACL layer (the NOTIFY
 * family).
 *
 * A notify handle is the backend's, published like an event (objects.c):
 * a destroyed or foreign handle is rejected with CANN's code for an invalid
 * handle (ACL_ERROR_RT_INTERNAL_ERROR, as the runtime maps an invalid
 * notify), never dereferenced. A record sets the notify when its stream
 * reaches it; a wait holds its stream until then and resets it; a value
 * wait holds its stream until 8 bytes of device memory meet a condition.
 * On the simulator a held stream keeps the work behind it and runs it in
 * simulated time once released (sim/notify.c). A wait without a timeout of
 * its own uses the device's op wait timeout (aclrtSetOpWaitTimeout).
 */
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

/* The last reference to a notify went (objects.c). */
static void release_notify(void *h, struct api_ctx *owner)
{
    (void)owner;
    be_get()->notify_destroy(h);
}

static aclError get_notify(const char *fn, aclrtNotify h, struct api_obj **out)
{
    if (!h)
        return api_err_null(fn, "notify");
    *out = api_obj_get(h, API_OBJ_NOTIFY);
    if (*out)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, notify %p is not a live "
               "notify.", fn, h);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_impl_aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    static const char fn[] = "aclrtCreateNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY) {
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)flag);
        return api_err_value(fn, v, "flag", "ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY");
    }
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    void *n = NULL;
    rc = be_get()->notify_create(ctx.ctx->device, &n);
    rc = api_obj_publish(rc, n, API_OBJ_NOTIFY, ctx.ctx, release_notify,
                         be_get()->notify_destroy);
    api_stream_put(&ctx);
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "notify") == ACL_SUCCESS)
        *notify = n;
    return rc;
}

aclError api_impl_aclrtDestroyNotify(aclrtNotify notify)
{
    static const char fn[] = "aclrtDestroyNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (api_obj_retire(notify, API_OBJ_NOTIFY) == 0)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, notify %p is not a live "
               "notify.", fn, notify);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* A notify and a stream (NULL: the default stream), both held. */
static aclError with_stream(const char *fn, aclrtNotify notify, aclrtStream stream,
                            struct api_obj **n, struct api_stream_ref *s)
{
    aclError rc = get_notify(fn, notify, n);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_stream_get(fn, stream, s);
    if (rc != ACL_SUCCESS) {
        api_obj_put(*n);
        return rc;
    }
    if (api_obj_device(*n) != s->ctx->device) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, notify %p belongs "
                   "to device %d, the stream to device %d.", fn, notify,
                   (int)api_obj_device(*n), (int)s->ctx->device);
        api_stream_put(s);
        api_obj_put(*n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    static const char fn[] = "aclrtRecordNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    struct api_obj *n;
    struct api_stream_ref s;
    aclError rc = with_stream(fn, notify, stream, &n, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->notify_record(notify, s.stream));
    api_stream_put(&s);
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    static const char fn[] = "aclrtWaitAndResetNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    struct api_obj *n;
    struct api_stream_ref s;
    aclError rc = with_stream(fn, notify, stream, &n, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (timeout == 0)
        timeout = api_op_wait_timeout(s.ctx->device);
    rc = api_err_runtime(fn, be_get()->notify_wait(notify, s.stream, timeout));
    api_stream_put(&s);
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    static const char fn[] = "aclrtGetNotifyId";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (!notifyId)
        return api_err_null(fn, "notifyId");
    struct api_obj *n;
    aclError rc = get_notify(fn, notify, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->notify_id(notify, notifyId));
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    static const char fn[] = "aclrtNotifyBatchReset";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notifies)
        return api_err_null(fn, "notifies");
    if (num == 0) {
        return api_err_value(fn, "0", "num", "greater than 0");
    }
    /* Every handle is checked before any is reset. */
    for (size_t i = 0; i < num; i++) {
        struct api_obj *n;
        aclError rc = get_notify(fn, notifies[i], &n);
        if (rc != ACL_SUCCESS)
            return rc;
        api_obj_put(n);
    }
    for (size_t i = 0; i < num; i++) {
        struct api_obj *n = api_obj_get(notifies[i], API_OBJ_NOTIFY);
        if (!n)
            continue; /* destroyed meanwhile by another thread */
        aclError rc = be_get()->notify_reset(notifies[i]);
        api_obj_put(n);
        if (rc != ACL_SUCCESS)
            return api_err_runtime(fn, rc);
    }
    return ACL_SUCCESS;
}

/* ---- value writes and waits ---- */

/* devAddr must be 8 bytes of a live device block of the stream's device,
 * 8-byte aligned. */
static aclError value_addr(const char *fn, void *devAddr, int32_t dev)
{
    struct be_ptr_info in;
    be_get()->lookup(devAddr, &in);
    if ((uintptr_t)devAddr % 8 != 0) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, devAddr %p is not "
                   "8-byte aligned.", fn, devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    bool inside = in.kind == BE_PTR_DEVICE &&
                  (in.size == 0 || (char *)devAddr + 8 <= (char *)in.start + in.size);
    if (!inside || in.device != dev) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, devAddr %p is not 8 "
                   "bytes of live device memory of the stream's device.", fn, devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* aclrtValueWrite (wait false) and aclrtValueWait after their own
 * checks: on the held stream, devAddr checked against its device, then
 * the backend. */
static aclError value_task(const char *fn, void *devAddr, uint64_t value, uint32_t flag, bool wait,
                           aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = value_addr(fn, devAddr, s.ctx->device);
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, wait ? be_get()->value_wait(s.stream, devAddr, value, flag)
                                      : be_get()->value_write(s.stream, devAddr, value));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    static const char fn[] = "aclrtValueWrite";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!devAddr)
        return api_err_null(fn, "devAddr");
    if (flag != 0) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "0");
    }
    return value_task(fn, devAddr, value, 0, false, stream);
}

aclError api_impl_aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    static const char fn[] = "aclrtValueWait";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!devAddr)
        return api_err_null(fn, "devAddr");
    if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "ACL_STREAM_WAIT_VALUE_GEQ, _EQ, _AND or _NOR");
    }
    return value_task(fn, devAddr, value, flag, true, stream);
}
