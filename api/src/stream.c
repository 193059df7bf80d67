/*
 * stream.c - streams of the ACL layer: create, destroy, synchronise, and
 * the NULL-means-default-stream rule (fact sheet 3.3).
 *
 * A stream handle is the backend's; the ACL layer remembers which context
 * owns it, so a destroyed or foreign handle gets CANN's error (an invalid
 * stream maps to ACL_ERROR_RT_INTERNAL_ERROR in CANN's runtime) and a
 * device reset can release the streams it owns. Destroying a stream does
 * not touch the allocator registry, as in CANN.
 */
#include <stdlib.h>
#include "api.h"
#include "backends/be.h"

static aclError bad_stream(const char *func, const void *stream)
{
    api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, stream %p is not a live "
               "stream.", func, stream);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_resolve_stream(const char *func, aclrtStream stream, aclrtStream *out,
                            struct api_ctx **ctx)
{
    if (!stream) {
        aclError rc = api_current_ctx(func, ctx);
        if (rc == ACL_SUCCESS)
            *out = (*ctx)->deflt;
        return rc;
    }
    api_lock();
    enum api_obj_kind kind = api_obj_find(stream, NULL, ctx);
    api_unlock();
    if (kind != API_OBJ_STREAM)
        return bad_stream(func, stream);
    *out = stream;
    return ACL_SUCCESS;
}

/* Report a synchronisation the device could not complete. */
static aclError sync_failed(const char *func, aclError rc)
{
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: stream synchronize failed, runtime result = %d.",
                   func, rc);
    return rc;
}

static void release_stream(void *h)
{
    api_obj_remove(h);
    be_get()->stream_destroy(h);
}

void api_ctx_drop_streams(struct api_ctx *ctx)
{
    api_obj_drain(API_OBJ_STREAM, -1, ctx, release_stream);
}

static aclError create_stream(const char *fn, aclrtStream *stream, uint32_t priority,
                              uint32_t flag)
{
    API_FAULT(ACL_RT_CREATE_STREAM, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    void *s = NULL;
    api_lock();
    rc = be_get()->stream_create(c->be_ctx, priority, flag, &s);
    if (rc == ACL_SUCCESS && api_obj_add(s, API_OBJ_STREAM, c->device, c) != 0) {
        be_get()->stream_destroy(s);
        rc = ACL_ERROR_BAD_ALLOC;
    }
    api_unlock();
    if (rc == ACL_ERROR_RT_NO_STREAM_RESOURCE)
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, the device has "
                   "no stream resource left.", fn);
    else
        api_err_runtime(fn, rc);
    if (rc == ACL_SUCCESS)
        *stream = s;
    return rc;
}

API_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    return create_stream("aclrtCreateStream", stream, 0, 0);
}

API_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                uint32_t flag)
{
    return create_stream("aclrtCreateStreamWithConfig", stream, priority, flag);
}

API_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    static const char fn[] = "aclrtDestroyStream";
    API_FAULT(ACL_RT_DESTROY_STREAM, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    api_lock();
    struct api_ctx *owner;
    aclError rc = ACL_SUCCESS;
    if (api_obj_find(stream, NULL, &owner) != API_OBJ_STREAM) {
        rc = bad_stream(fn, stream);
    } else {
        api_obj_remove(stream);
        rc = be_get()->stream_destroy(stream);
    }
    api_unlock();
    return rc;
}

static aclError sync_stream(const char *fn, aclrtStream stream, int32_t timeout)
{
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    if (timeout < -1)
        return api_err_value(fn, "< -1", "timeout", "-1 (no limit) or a time in ms");
    aclrtStream s;
    struct api_ctx *c;
    aclError rc = api_resolve_stream(fn, stream, &s, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return sync_failed(fn, be_get()->stream_sync(s, timeout));
}

API_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream("aclrtSynchronizeStream", stream, -1);
}

API_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

API_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    static const char fn[] = "aclrtStreamQuery";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    if (!status)
        return api_err_null(fn, "status");
    aclrtStream s;
    struct api_ctx *c;
    aclError rc = api_resolve_stream(fn, stream, &s, &c);
    int done = 0;
    if (rc == ACL_SUCCESS)
        rc = be_get()->stream_query(s, &done);
    if (rc == ACL_SUCCESS)
        *status = done ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return rc;
}

API_EXPORT aclError aclrtSynchronizeDevice(void)
{
    static const char fn[] = "aclrtSynchronizeDevice";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return sync_failed(fn, be_get()->device_sync(c->device));
}
