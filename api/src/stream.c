/*
 * stream.c - streams of the ACL layer: create, destroy, synchronise, and
 * the NULL-means-default-stream rule (fact sheet 3.3).
 *
 * A stream handle is the backend's; the ACL layer remembers which context
 * owns it (objects.c), so a destroyed or foreign handle gets CANN's error
 * (an invalid stream maps to ACL_ERROR_RT_INTERNAL_ERROR in CANN's runtime)
 * and a device reset can release the streams it owns. Every call that uses
 * a stream holds a reference to it for the duration (api_stream_get), so a
 * destroy on another thread takes effect when that call is done.
 * Destroying a stream does not touch the allocator registry, as in CANN.
 */
#include "api.h"
#include "backends/be.h"

static aclError bad_stream(const char *func, const void *stream)
{
    api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, stream %p is not a live "
               "stream.", func, stream);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_stream_get(const char *func, aclrtStream stream, struct api_stream_ref *out)
{
    if (!stream) {
        /* The default stream lives as long as its context. */
        struct api_ctx *c;
        aclError rc = api_current_ctx(func, &c);
        if (rc != ACL_SUCCESS)
            return rc;
        struct api_obj *o = api_obj_get(c->be_ctx, API_OBJ_CONTEXT);
        if (!o) {
            api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, the current "
                       "context was destroyed by another thread.", func);
            return ACL_ERROR_RT_CONTEXT_NULL;
        }
        *out = (struct api_stream_ref){c->deflt, c, o};
        return ACL_SUCCESS;
    }
    struct api_obj *o = api_obj_get(stream, API_OBJ_STREAM);
    if (!o)
        return bad_stream(func, stream);
    *out = (struct api_stream_ref){stream, api_obj_owner(o), o};
    return ACL_SUCCESS;
}

void api_stream_put(struct api_stream_ref *ref)
{
    api_obj_put(ref->obj);
}

/* Report a synchronisation the device could not complete. */
static aclError sync_failed(const char *func, aclError rc)
{
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: stream synchronize failed, runtime result = %d.",
                   func, rc);
    return rc;
}

void api_release_stream(void *h)
{
    api_state_stream(h, ACL_RT_STREAM_STATE_DESTROY_PRE);
    api_cb_stream_gone(h); /* its callbacks and subscription go first */
    be_get()->stream_destroy(h);
}

static aclError create_stream(const char *fn, aclrtStream *stream, uint32_t priority,
                              uint32_t flag)
{
    API_FAULT(ACL_RT_CREATE_STREAM, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    void *s = NULL;
    rc = be_get()->stream_create(ctx.ctx->be_ctx, priority, flag, &s);
    if (rc == ACL_SUCCESS) {
        int added = api_obj_add(s, API_OBJ_STREAM, ctx.ctx->device, ctx.ctx);
        if (added != 0) {
            be_get()->stream_destroy(s);
            rc = added == API_OBJ_GONE ? ACL_ERROR_RT_CONTEXT_NULL : ACL_ERROR_BAD_ALLOC;
        }
    }
    api_stream_put(&ctx);
    if (rc == ACL_ERROR_RT_NO_STREAM_RESOURCE)
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, the device has "
                   "no stream resource left.", fn);
    else if (rc == ACL_ERROR_RT_CONTEXT_NULL)
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, the current "
                   "context was destroyed by another thread.", fn);
    else
        api_err_runtime(fn, rc);
    if (rc == ACL_SUCCESS) {
        api_state_stream(s, ACL_RT_STREAM_STATE_CREATE_POST);
        *stream = s;
    }
    return rc;
}

aclError api_impl_aclrtCreateStream(aclrtStream *stream)
{
    return create_stream("aclrtCreateStream", stream, 0, 0);
}

aclError api_impl_aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                uint32_t flag)
{
    return create_stream("aclrtCreateStreamWithConfig", stream, priority, flag);
}

aclError api_impl_aclrtDestroyStream(aclrtStream stream)
{
    static const char fn[] = "aclrtDestroyStream";
    API_FAULT(ACL_RT_DESTROY_STREAM, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    /* The first destroy withdraws the handle; the backend destroys it once
     * no call uses it (now, usually). */
    return api_obj_retire(stream, API_OBJ_STREAM) == 0 ? ACL_SUCCESS : bad_stream(fn, stream);
}

static aclError sync_stream(const char *fn, aclrtStream stream, int32_t timeout)
{
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    if (timeout < -1)
        return api_err_value(fn, "< -1", "timeout", "-1 (no limit) or a time in ms");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = sync_failed(fn, be_get()->stream_sync(s.stream, timeout));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream("aclrtSynchronizeStream", stream, -1);
}

aclError api_impl_aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

aclError api_impl_aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    static const char fn[] = "aclrtStreamQuery";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    if (!status)
        return api_err_null(fn, "status");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    int done = 0;
    rc = be_get()->stream_query(s.stream, &done);
    api_stream_put(&s);
    if (rc == ACL_SUCCESS)
        *status = done ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return rc;
}

aclError api_impl_aclrtSynchronizeDevice(void)
{
    static const char fn[] = "aclrtSynchronizeDevice";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    struct api_stream_ref ctx; /* keeps the device from closing under us */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = sync_failed(fn, be_get()->device_sync(ctx.ctx->device));
    api_stream_put(&ctx);
    return rc;
}
