/*
 * stream.c - streams of the ACL layer: create, destroy, synchronise, and
 * the NULL-means-default-stream rule (the STREAM family; hicann/runtime
 * src/acl/aclrt_impl/stream.cpp, and the runtime's api_impl.cc, which puts
 * the current context's default stream for a NULL one).
 *
 * A stream handle is the backend's; the ACL layer remembers which context
 * owns it (objects.c), so a destroyed or foreign handle gets CANN's error
 * (an invalid stream maps to ACL_ERROR_RT_INTERNAL_ERROR in CANN's runtime)
 * and a device reset can release the streams it owns. Every call that uses
 * a stream holds a reference to it for the duration (api_stream_get), so a
 * destroy on another thread takes effect when that call is done.
 * Destroying a stream does not touch the allocator registry, as in CANN.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"
#include "base/mem.h"

/* The runtime's EE1003 for a value it rejects: ACL_ERROR_RT_PARAM_INVALID. */
aclError api_rt_bad_value(const char *func, const char *what, const char *value,
                         const char *param, const char *expected)
{
    (void)func; /* the runtime names what the call does, not the call */
    return api_rt_value(what, value, param, expected);
}

aclError api_rt_value(const char *desc, const char *value, const char *param, const char *expect)
{
    api_report(API_MSG_EE1003, "%s failed because value %s for parameter %s is invalid. Expected "
               "value: %s.", desc, value, param, expect);
    return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError bad_stream(const char *func, const void *stream)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, stream %p is not a live "
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
        if (!o)
            return api_err_ctx_gone(func);
        *out = (struct api_stream_ref){c->deflt, c, o};
        return ACL_SUCCESS;
    }
    struct api_obj *o = api_obj_get(stream, API_OBJ_STREAM);
    if (!o) {
        /* A context's default stream, named explicitly: hold its context,
         * which owns it. */
        struct api_obj *d = api_obj_get(stream, API_OBJ_DSTREAM);
        if (!d)
            return bad_stream(func, stream);
        struct api_ctx *c = api_obj_owner(d);
        o = api_obj_get(c->be_ctx, API_OBJ_CONTEXT);
        api_obj_put(d);
        if (!o)
            return bad_stream(func, stream);
        *out = (struct api_stream_ref){stream, c, o};
        return ACL_SUCCESS;
    }
    *out = (struct api_stream_ref){stream, api_obj_owner(o), o};
    return ACL_SUCCESS;
}

/* The default stream of a context goes with its context. */
static aclError default_stream(const char *func, const void *stream)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, stream %p is the "
               "default stream of its context; it is destroyed with the context.", func, stream);
    return ACL_ERROR_RT_PARAM_INVALID;
}

void api_stream_put(struct api_stream_ref *ref)
{
    api_obj_put(ref->obj);
}

aclError api_work_get(const char *func, bool async, aclrtStream stream,
                      struct api_stream_ref *ref, struct api_ctx **ctx)
{
    *ref = (struct api_stream_ref){0};
    if (!async) {
        aclError rc = api_current_ctx(func, ctx);
        return rc == ACL_SUCCESS ? api_cap_check_unsafe(func, *ctx, false) : rc;
    }
    aclError rc = api_stream_get(func, stream, ref);
    if (rc == ACL_SUCCESS)
        *ctx = ref->ctx;
    return rc;
}

void api_work_put(struct api_stream_ref *ref)
{
    if (ref->obj)
        api_obj_put(ref->obj);
}

/* Report a synchronisation the device could not complete. */
aclError api_sync_failed(const char *func, aclError rc)
{
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: stream synchronize %s, runtime result = %d.", func,
                   rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT ? "timeout" : "failed", rc);
    return rc;
}

/* The last reference to a stream went (objects.c): the watchers drop what
 * they keep for it, then the backend destroys it. */
static void release_stream(void *h, struct api_ctx *owner)
{
    (void)owner;
    api_state_stream(h, ACL_RT_STREAM_STATE_DESTROY_PRE);
    api_tell_stream_gone(h);
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
    rc = api_obj_publish(rc, s, API_OBJ_STREAM, ctx.ctx, release_stream, be_get()->stream_destroy);
    api_stream_put(&ctx);
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_STREAM_RESOURCE, "stream") == ACL_SUCCESS) {
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
    aclError rc = api_cap_check_stream("Stream destruction", stream);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The first destroy withdraws the handle; the backend destroys it once
     * no call uses it (now, usually). */
    if (api_obj_retire(stream, API_OBJ_STREAM) == 0)
        return ACL_SUCCESS;
    return api_obj_kind_of(stream) == API_OBJ_DSTREAM ? default_stream(fn, stream)
                                                      : bad_stream(fn, stream);
}

static aclError sync_stream(const char *fn, aclrtStream stream, int32_t timeout)
{
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    if (timeout < -1) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)timeout);
        api_err_value(fn, v, "timeout", "[-1, INT_MAX]"); /* CANN's ACL layer */
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (timeout == 0) /* the runtime's own check */
        return api_rt_bad_value(fn, "Synchronizing a stream", "0", "timeout",
                        "greater than or equal to -1 and not equal to 0");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_check_stream("Synchronizing a stream", s.stream);
    if (rc == ACL_SUCCESS)
        rc = api_sync_failed(fn, be_get()->stream_sync(s.stream, timeout));
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
    rc = api_cap_check_stream("Stream query", s.stream);
    if (rc == ACL_SUCCESS)
        rc = be_get()->stream_query(s.stream, &done);
    api_stream_put(&s);
    if (rc == ACL_SUCCESS)
        *status = done ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return rc;
}

/* ---- ids, properties, attributes, abort ----
 *
 * Priorities and flags are kept per stream by the backend (the simulator
 * schedules every stream alike; the real runtime answers for itself), and
 * so are the failure mode, the overflow switch and the attributes. */

/* A stream property through the backend, on a held stream. */
static aclError prop(const char *fn, aclrtStream stream, int which, int set, uint64_t *val)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->stream_prop(s.stream, which, set, val));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    static const char fn[] = "aclrtStreamGetPriority";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!priority)
        return api_err_null(fn, "priority");
    uint64_t v = 0;
    aclError rc = prop(fn, stream, BE_SP_PRIORITY, 0, &v);
    if (rc == ACL_SUCCESS)
        *priority = (uint32_t)(v > API_LEAST_PRIORITY ? API_LEAST_PRIORITY : v);
    return rc;
}

aclError api_impl_aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    static const char fn[] = "aclrtStreamGetFlags";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!flags)
        return api_err_null(fn, "flags");
    uint64_t v = 0;
    aclError rc = prop(fn, stream, BE_SP_FLAGS, 0, &v);
    if (rc == ACL_SUCCESS)
        *flags = (uint32_t)v;
    return rc;
}

aclError api_impl_aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    static const char fn[] = "aclrtStreamGetId";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!streamId)
        return api_err_null(fn, "streamId");
    uint64_t v = 0;
    aclError rc = prop(fn, stream, BE_SP_ID, 0, &v);
    if (rc == ACL_SUCCESS)
        *streamId = (int32_t)v;
    return rc;
}

aclError api_avail_num(const char *fn, int what, uint32_t *count)
{
    struct api_stream_ref ctx; /* keeps the device from closing under us */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->avail(ctx.ctx->device, what, count));
    api_stream_put(&ctx);
    return rc;
}

aclError api_impl_aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    static const char fn[] = "aclrtGetStreamAvailableNum";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!streamCount)
        return api_err_null(fn, "streamCount");
    return api_avail_num(fn, BE_AVAIL_STREAM, streamCount);
}

static aclError check_01(const char *fn, const char *what, const char *param, uint64_t v)
{
    if (v <= 1)
        return ACL_SUCCESS;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return api_rt_bad_value(fn, what, buf, param, "0 or 1");
}

aclError api_impl_aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    static const char fn[] = "aclrtSetStreamFailureMode";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    aclError rc = check_01(fn, "Setting the error handling mode of a stream", "mode", mode);
    return rc != ACL_SUCCESS ? rc : prop(fn, stream, BE_SP_FAILURE_MODE, 1, &mode);
}

aclError api_impl_aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    static const char fn[] = "aclrtSetStreamOverflowSwitch";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (flag > 1) { /* CANN's ACL layer: ACL_ERROR_INVALID_PARAM */
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "0 or 1");
    }
    uint64_t v = flag;
    return prop(fn, stream, BE_SP_OVERFLOW, 1, &v);
}

aclError api_impl_aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    static const char fn[] = "aclrtGetStreamOverflowSwitch";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!flag)
        return api_err_null(fn, "flag");
    uint64_t v = 0;
    aclError rc = prop(fn, stream, BE_SP_OVERFLOW, 0, &v);
    if (rc == ACL_SUCCESS)
        *flag = (uint32_t)v;
    return rc;
}

/* Which property an attribute is, and its check. */
static aclError attr_of(const char *fn, aclrtStreamAttr a, int *which)
{
    switch ((int)a) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        *which = BE_SP_FAILURE_MODE;
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        *which = BE_SP_OVERFLOW;
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        *which = BE_SP_TAG;
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        *which = BE_SP_CACHE_OP;
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY:
        *which = BE_SP_PRIORITY;
        return ACL_SUCCESS;
    default: {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)a);
        return api_rt_bad_value(fn, "Checking the stream attribute", v, "stmAttrType",
                        "[1, 5]");
    }
    }
}

aclError api_impl_aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                          aclrtStreamAttrValue *value)
{
    static const char fn[] = "aclrtSetStreamAttribute";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!value)
        return api_err_null(fn, "value");
    int which;
    aclError rc = attr_of(fn, stmAttrType, &which);
    if (rc != ACL_SUCCESS)
        return rc;
    uint64_t v;
    switch (which) {
    case BE_SP_FAILURE_MODE:
        v = value->failureMode;
        rc = check_01(fn, "Setting the stream attribute", "value->failureMode", v);
        break;
    case BE_SP_OVERFLOW:
        v = value->overflowSwitch;
        rc = check_01(fn, "Setting the stream attribute", "value->overflowSwitch", v);
        break;
    case BE_SP_CACHE_OP:
        v = value->cacheOpInfoSwitch;
        rc = check_01(fn, "Setting the stream attribute", "value->cacheOpInfoSwitch", v);
        break;
    case BE_SP_PRIORITY: {
        v = value->streamPriority;
        char buf[16];
        snprintf(buf, sizeof buf, "%u", value->streamPriority);
        if (v > API_LEAST_PRIORITY)
            rc = api_rt_bad_value(fn, "Setting the stream attribute", buf, "value->streamPriority",
                          "[0, 7]");
        break;
    }
    default:
        v = value->userCustomTag;
        break;
    }
    return rc != ACL_SUCCESS ? rc : prop(fn, stream, which, 1, &v);
}

aclError api_impl_aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                          aclrtStreamAttrValue *value)
{
    static const char fn[] = "aclrtGetStreamAttribute";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!value)
        return api_err_null(fn, "value");
    int which;
    aclError rc = attr_of(fn, stmAttrType, &which);
    uint64_t v = 0;
    if (rc == ACL_SUCCESS)
        rc = prop(fn, stream, which, 0, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    *value = (aclrtStreamAttrValue){0};
    if (which == BE_SP_FAILURE_MODE)
        value->failureMode = v;
    else
        value->reserve[0] = (uint32_t)v; /* every other member is one uint32_t */
    return ACL_SUCCESS;
}

/* Abort and stop: the stream's work that has not started is dropped. */
static aclError abort_stream(const char *fn, aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->stream_abort(s.stream));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtStreamAbort(aclrtStream stream)
{
    API_FAULT(ACL_RT_STREAM_ABORT, "aclrtStreamAbort");
    return abort_stream("aclrtStreamAbort", stream); /* NULL: the default stream */
}

aclError api_impl_aclrtStreamStop(aclrtStream stream)
{
    static const char fn[] = "aclrtStreamStop";
    API_FAULT(ACL_RT_STREAM_ABORT, fn);
    if (!stream) { /* the runtime's check: no default stream here */
        api_report(API_MSG_EE1003, "The argument is invalid. Reason: %s failed: Stopping the "
                   "running tasks in a stream, stm cannot be a NULL pointer.", fn);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return abort_stream(fn, stream);
}

aclError api_impl_aclrtDestroyStreamForce(aclrtStream stream)
{
    static const char fn[] = "aclrtDestroyStreamForce";
    API_FAULT(ACL_RT_DESTROY_STREAM, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_obj *o = api_obj_get(stream, API_OBJ_STREAM);
    if (!o)
        return api_obj_kind_of(stream) == API_OBJ_DSTREAM ? default_stream(fn, stream)
                                                           : bad_stream(fn, stream);
    /* Its pending work is dropped, not waited for. */
    be_get()->stream_abort(stream);
    int gone = api_obj_retire(stream, API_OBJ_STREAM);
    api_obj_put(o);
    return gone == 0 ? ACL_SUCCESS : bad_stream(fn, stream);
}

/* ---- stream configs (aclrtCreateStreamV2) ----
 *
 * aclrtStreamConfigHandle is a public struct: aclsim remembers the handles
 * aclrtCreateStreamConfigHandle made, so that setting or destroying any
 * other pointer is an error instead of a wild write; aclrtCreateStreamV2
 * reads any handle, as CANN does (a program may fill the struct itself). */

struct cfg {
    aclrtStreamConfigHandle h; /* first: the user's pointer is the struct's */
    struct cfg *next;
};
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cfg *cfgs;

/* Whether h is a live handle; unlinks it when `take`. */
static bool cfg_live(const aclrtStreamConfigHandle *h, bool take)
{
    pthread_mutex_lock(&cfg_lock);
    struct cfg **p = &cfgs;
    while (*p && &(*p)->h != h)
        p = &(*p)->next;
    bool found = *p != NULL;
    if (found && take)
        *p = (*p)->next;
    pthread_mutex_unlock(&cfg_lock);
    return found;
}

static aclError bad_cfg(const char *fn)
{
    api_report(API_MSG_EH0012, "%s failed. Parameter handle is invalid. Reason: it was not made "
               "by aclrtCreateStreamConfigHandle or was destroyed.", fn);
    return ACL_ERROR_INVALID_PARAM;
}

aclrtStreamConfigHandle *api_impl_aclrtCreateStreamConfigHandle(void)
{
    if (FLT_HIT(ACL_RT_STREAM_ATTR)) {
        api_fault(FLT_ACL_RT_STREAM_ATTR, "aclrtCreateStreamConfigHandle");
        return NULL;
    }
    struct cfg *c = base_calloc(1, sizeof *c);
    if (!c) {
        api_err_runtime("aclrtCreateStreamConfigHandle", ACL_ERROR_BAD_ALLOC);
        return NULL;
    }
    pthread_mutex_lock(&cfg_lock);
    c->next = cfgs;
    cfgs = c;
    pthread_mutex_unlock(&cfg_lock);
    return &c->h;
}

aclError api_impl_aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    static const char fn[] = "aclrtDestroyStreamConfigHandle";
    if (!handle)
        return api_err_null(fn, "handle");
    if (!cfg_live(handle, true))
        return bad_cfg(fn);
    base_free((struct cfg *)(void *)handle);
    return ACL_SUCCESS;
}

static aclError cfg_size(const char *fn, size_t got, size_t want)
{
    char v[32], e[32];
    snprintf(v, sizeof v, "%zu", got);
    snprintf(e, sizeof e, "%zu", want);
    return api_err_value(fn, v, "valueSize", e);
}

aclError api_impl_aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
                                          aclrtStreamConfigAttr attr, const void *attrValue,
                                          size_t valueSize)
{
    static const char fn[] = "aclrtSetStreamConfigOpt";
    if (!handle)
        return api_err_null(fn, "handle");
    if (!attrValue)
        return api_err_null(fn, "attrValue");
    if ((int)attr < 0 || (int)attr > ACL_RT_STREAM_PRIORITY) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)attr);
        return api_err_value(fn, v, "attr", "[0, 3]");
    }
    if (!cfg_live(handle, false))
        return bad_cfg(fn);
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        if (valueSize != sizeof(void *))
            return cfg_size(fn, valueSize, sizeof(void *));
        handle->workptr = *(void *const *)attrValue;
        return ACL_SUCCESS;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG:
        if (valueSize != sizeof(size_t))
            return cfg_size(fn, valueSize, sizeof(size_t));
        if (attr == ACL_RT_STREAM_FLAG)
            handle->flag = *(const size_t *)attrValue;
        else
            handle->workSize = *(const size_t *)attrValue;
        return ACL_SUCCESS;
    default: {
        if (valueSize != sizeof(uint32_t))
            return cfg_size(fn, valueSize, sizeof(uint32_t));
        uint32_t p = *(const uint32_t *)attrValue;
        if (p > API_LEAST_PRIORITY) {
            char v[16];
            snprintf(v, sizeof v, "%u", p);
            return api_err_value(fn, v, "attrValue", "[0, 7]");
        }
        handle->priority = p;
        return ACL_SUCCESS;
    }
    }
}

aclError api_impl_aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    static const char fn[] = "aclrtCreateStreamV2";
    if (!stream)
        return api_err_null(fn, "stream");
    uint32_t prio = handle ? handle->priority : 0;
    uint32_t flag = handle ? (uint32_t)handle->flag : 0;
    return create_stream(fn, stream, prio > API_LEAST_PRIORITY ? API_LEAST_PRIORITY : prio, flag);
}

/* ---- persistent tasks, task ids, floating-point overflow ----
 *
 * The runtime checks these (hicann/runtime src/runtime/api/impl/
 * api_error_standard_soc.cc StreamTaskClean, api_error.cc
 * GetThreadLastTaskId, CtxGetOverflowAddr, NpuGetFloatStatus,
 * NpuClearFloatStatus); the ACL layer (src/acl/aclrt_impl/stream.cpp,
 * kernel.cpp, context.cpp) passes them through but for a NULL taskId. The
 * simulator never overflows: a status check writes 64 zero bytes on its
 * stream, and a context's overflow buffer is 64 bytes of device memory that
 * stay zero. */

static const char task_clean[] = "Clearing tasks in a stream";

/* The checks of a persistent stream's model, then the clean: the tasks it
 * recorded into its loaded model are cleared (the runtime empties the
 * stream's submission queue, which holds them). */
static aclError clean_bound(const char *fn, void *stream, int id)
{
    uint32_t model = 0;
    bool loaded = false;
    void *graph = NULL;
    unsigned lane = 0;
    if (!api_cap_model_of(stream, &model, &loaded, &graph, &lane)) {
        api_report(API_MSG_EE1017, "%s failed. Parameter stream is invalid. Reason: Stream "
                   "(stream_id=%d) must be bound to a model.", task_clean, id);
        return ACL_ERROR_RT_INTERNAL_ERROR; /* RT_ERROR_STREAM_INVALID */
    }
    if (!loaded) {
        api_report(API_MSG_EE1017, "%s failed. Parameter stream is invalid. Reason: Model "
                   "(model_id=%u) where stream (stream_id=%d) is located has not been loaded. "
                   "Clear stream tasks after the model is loaded.", task_clean, model, id);
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return api_err_runtime(fn, be_get()->task_clean(graph, lane, stream));
}

aclError api_impl_aclrtPersistentTaskClean(aclrtStream stream)
{
    static const char fn[] = "aclrtPersistentTaskClean";
    API_FAULT(ACL_RT_STREAM_ABORT, fn);
    if (!stream)
        return api_rt_null(task_clean, "stm");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    uint64_t flags = 0, id = 0;
    rc = be_get()->stream_prop(s.stream, BE_SP_FLAGS, 0, &flags);
    if (rc == ACL_SUCCESS)
        rc = be_get()->stream_prop(s.stream, BE_SP_ID, 0, &id);
    if (rc != ACL_SUCCESS) {
        rc = api_err_runtime(fn, rc);
    } else if (!(flags & ACL_STREAM_PERSISTENT)) {
        api_report(API_MSG_EE1011, "%s failed. Value RT_STREAM_PERSISTENT for parameter stream "
                   "flag is invalid. Reason: Non-persistent stream (stream_id=%d) does not "
                   "support stream task clearance.", task_clean, (int)id);
        rc = ACL_ERROR_RT_INTERNAL_ERROR; /* RT_ERROR_STREAM_INVALID */
    } else {
        rc = clean_bound(fn, s.stream, (int)id);
    }
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    static const char fn[] = "aclrtGetThreadLastTaskId";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!taskId)
        return api_err_null(fn, "taskId");
    return api_err_runtime(fn, be_get()->last_task_id(taskId));
}

aclError api_impl_aclrtCtxGetFloatOverflowAddr(void **overflowAddr)
{
    static const char fn[] = "aclrtCtxGetFloatOverflowAddr";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!overflowAddr) { /* the runtime's check, with no message of its own */
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, overflowAddr can "
                   "not be null.", fn);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return api_err_runtime(fn, be_get()->overflow_addr(c->be_ctx, overflowAddr));
}

/* A status check or clear on a capturing stream is refused (EE1016). */
static aclError overflow_captured(const char *what, void *stream)
{
    uint64_t id = 0;
    be_get()->stream_prop(stream, BE_SP_ID, 0, &id);
    api_report(API_MSG_EE1016, "%s failed. Reason: Stream (stream_id=%d) during the capture "
               "stage is not supported.", what, (int)id);
    return ACL_ERROR_RT_STREAM_CAPTURED;
}

aclError api_impl_aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize,
                                                 uint32_t checkMode, aclrtStream stream)
{
    static const char fn[] = "aclrtNpuGetFloatOverFlowStatus";
    static const char what[] = "Obtaining the Float exception status of the NPU";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!outputAddr)
        return api_rt_null(what, "outputAddrPtr");
    if (outputSize != 64) { /* task_base.hpp OVERFLOW_OUTPUT_SIZE */
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)outputSize);
        return api_rt_value(what, v, "outputSize", "64");
    }
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (api_cap_graph_of(s.stream)) {
        rc = overflow_captured(what, s.stream);
    } else {
        /* the status is written to 64 bytes of the stream's device memory */
        struct be_ptr_info in;
        be_get()->lookup(outputAddr, &in);
        bool ours = in.kind == BE_PTR_DEVICE && in.device == s.ctx->device &&
                    (in.size == 0 ||
                     (char *)outputAddr + 64 <= (char *)in.start + in.size);
        if (!ours) {
            char v[32];
            snprintf(v, sizeof v, "%p", outputAddr);
            rc = api_rt_value(what, v, "outputAddrPtr",
                              "64 bytes of live device memory of the stream's device");
        } else {
            rc = api_err_runtime(fn, be_get()->overflow_status(s.stream, outputAddr, outputSize,
                                                               checkMode));
        }
    }
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
    static const char fn[] = "aclrtNpuClearFloatOverFlowStatus";
    static const char what[] = "Clearing the Float exception status flag of the NPU";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_graph_of(s.stream) ? overflow_captured(what, s.stream)
                                    : api_err_runtime(fn, be_get()->overflow_clear(s.stream,
                                                                                   checkMode));
    api_stream_put(&s);
    return rc;
}
