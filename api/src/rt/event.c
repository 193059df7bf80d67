/*
 * event.c - events of the ACL layer: create, destroy, record, reset, wait,
 * synchronise, query, elapsed time (the EVENT family; hicann/runtime
 * src/acl/aclrt_impl/event.cpp).
 *
 * An event handle is the backend's; the ACL layer remembers its device and
 * the context that created it (objects.c), so a destroyed or foreign handle
 * is rejected (CANN's runtime maps an invalid event to
 * ACL_ERROR_RT_INTERNAL_ERROR) and a device reset releases the events left
 * on it. Each call holds a reference to the events it uses, so a destroy on
 * another thread takes effect when the call is done.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"

#define KNOWN_FLAGS                                                                      \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |          \
     ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

/* Take a reference on a live event, or queue CANN's error and return it. */
static aclError get_event(const char *func, const char *param, aclrtEvent h, struct api_obj **out)
{
    if (!h)
        return api_err_null(func, param);
    *out = api_obj_get(h, API_OBJ_EVENT);
    if (*out)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %s %p is not a live "
               "event.", func, param, h);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

void api_release_event(void *h, struct api_ctx *owner)
{
    (void)owner;
    api_ipc_event_forget(h);
    be_get()->event_destroy(h);
}

/* CANN's runtime refuses several calls for IPC events, with no message
 * (api_error.cc: ACL_ERROR_RT_FEATURE_NOT_SUPPORT). */
static bool ipc_refused(const void *event)
{
    return api_ipc_event_is(event);
}

static aclError create_event(const char *fn, aclrtEvent *event, uint32_t flag)
{
    API_FAULT(ACL_RT_CREATE_EVENT, fn);
    if (!event)
        return api_err_null(fn, "event");
    if (flag & ~(uint32_t)KNOWN_FLAGS) {
        char v[32];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "a combination of ACL_EVENT_* flags");
    }
    /* IPC events: only the Ex call makes them, and alone (the runtime's
     * EventCreate and EventCreateEx checks). */
    bool ex = strcmp(fn, "aclrtCreateEventExWithFlag") == 0;
    if ((flag & ACL_EVENT_IPC) && !ex) {
        api_report(API_MSG_EE1003, "Event creation failed because value %u for parameter flag is "
                   "invalid. Expected value: an OR combination of RT_EVENT_DDSYNC_NS(0x1U), "
                   "RT_EVENT_STREAM_MARK(0x2U), RT_EVENT_DDSYNC(0x4U), and RT_EVENT_TIME_LINE(0x8U)"
                   "; or RT_EVENT_MC2(0x10U) or RT_EVENT_EXTERNAL(0x20U) used alone.", flag);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if ((flag & ACL_EVENT_IPC) && flag != ACL_EVENT_IPC) {
        api_report(API_MSG_EE1006, "Event creation failed. Parameter flag value %u is not "
                   "supported. Reason: RT_EVENT_MC2(0x10U) and RT_EVENT_EXTERNAL(0x20U) do not "
                   "support OR combination with other flags.", flag);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    void *e = NULL;
    rc = be_get()->event_create(ctx.ctx->device, flag, &e);
    if (rc == ACL_SUCCESS && (flag & ACL_EVENT_IPC) && api_ipc_event_add(e) != 0) {
        be_get()->event_destroy(e);
        rc = ACL_ERROR_BAD_ALLOC;
    }
    rc = api_obj_publish(rc, e, API_OBJ_EVENT, ctx.ctx, api_release_event, api_ipc_event_drop);
    if (rc == ACL_SUCCESS)
        api_obj_set_aux(e, API_OBJ_EVENT, flag); /* aclmdlRITaskGetParams' eventFlag */
    api_stream_put(&ctx);
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_EVENT_RESOURCE, "event") == ACL_SUCCESS)
        *event = e;
    return rc;
}

aclError api_impl_aclrtCreateEvent(aclrtEvent *event)
{
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
}

aclError api_impl_aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventWithFlag", event, flag);
}

aclError api_impl_aclrtDestroyEvent(aclrtEvent event)
{
    static const char fn[] = "aclrtDestroyEvent";
    API_FAULT(ACL_RT_DESTROY_EVENT, fn);
    if (!event)
        return api_err_null(fn, "event");
    /* Check and withdraw in one step: of two threads destroying one event,
     * exactly one succeeds. */
    if (api_obj_retire(event, API_OBJ_EVENT) == 0)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, event %p is not a live "
               "event.", fn, event);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* Record, reset and wait share their checks: a live event, a stream
 * (NULL: the default stream). */
static aclError on_stream(const char *fn, aclrtEvent event, aclrtStream stream,
                          aclError (*op)(void *event, void *stream))
{
    API_FAULT(ACL_RT_RECORD_EVENT, fn);
    struct api_obj *e;
    aclError rc = get_event(fn, "event", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc == ACL_SUCCESS) {
        rc = op(event, s.stream);
        api_stream_put(&s);
    }
    api_obj_put(e);
    return rc;
}

/* A wait and a record, as a capture sees them (rt/capture.c): a wait on
 * an event recorded in a capture pulls its stream in. */
/* What aclmdlRITaskGetParams answers for the task just captured: the
 * event, its creation flags, the record's or wait's flag. */
static void noted(void *event, void *stream, uint32_t flag)
{
    if (!api_cap_any())
        return;
    struct api_obj *e = api_obj_get(event, API_OBJ_EVENT);
    struct api_cap_params p = {.obj = event, .obj_flag = e ? (uint32_t)api_obj_aux(e) : 0,
                               .flag = flag};
    if (e)
        api_obj_put(e);
    api_cap_noted(stream, &p);
}

static aclError wait_as(void *event, void *stream, bool external)
{
    struct api_ctx *ctx = NULL;
    bool deflt = api_cap_any() && api_current_ctx("aclrtStreamWaitEvent", &ctx) == ACL_SUCCESS &&
                 ctx->deflt == stream;
    aclError rc = api_cap_admit(stream, ACL_MODEL_RI_TASK_EVENT_WAIT, "EVENT_WAIT", 3);
    if (rc == ACL_SUCCESS)
        rc = api_cap_wait("Triggering event waiting", stream, event, external, deflt);
    if (rc == ACL_SUCCESS)
        rc = be_get()->event_wait(stream, event);
    if (rc == ACL_SUCCESS)
        noted(event, stream, external ? ACL_EVENT_WAIT_EXTERNAL : 0);
    return rc;
}

static aclError wait_op(void *event, void *stream)
{
    return wait_as(event, stream, false);
}

static aclError wait_external(void *event, void *stream)
{
    return wait_as(event, stream, true);
}

static aclError record_as(void *event, void *stream, bool external)
{
    aclError rc = api_cap_admit(stream, ACL_MODEL_RI_TASK_EVENT_RECORD, "EVENT_RECORD", 2);
    if (rc == ACL_SUCCESS)
        rc = api_cap_record("Recording an event", event, stream, external);
    if (rc == ACL_SUCCESS)
        rc = be_get()->event_record(event, stream);
    if (rc == ACL_SUCCESS)
        noted(event, stream, external ? ACL_EVENT_RECORD_EXTERNAL : 0);
    return rc;
}

static aclError record_op(void *event, void *stream)
{
    return record_as(event, stream, false);
}

static aclError record_external(void *event, void *stream)
{
    return record_as(event, stream, true);
}

aclError api_impl_aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return on_stream("aclrtRecordEvent", event, stream, record_op);
}

aclError api_impl_aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    static const char fn[] = "aclrtRecordEventWithFlag";
    if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag",
                             "ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL");
    }
    return on_stream(fn, event, stream, flag ? record_external : record_op);
}

/* An event a capture under way recorded is not synchronised, queried or
 * timed (api_error.cc, "Event synchronization" and the rest). */
static aclError captured(const char *desc, const void *event)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    uint64_t id = 0;
    be_get()->event_info((void *)event, BE_EV_ID, &id);
    return api_cap_check_event(desc, event, (uint32_t)id);
}

static aclError reset_op(void *event, void *stream)
{
    if (ipc_refused(event))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = api_cap_admit(stream, ACL_MODEL_RI_TASK_EVENT_RESET, "EVENT_RESET", 24);
    if (rc == ACL_SUCCESS)
        rc = be_get()->event_reset(event, stream);
    if (rc == ACL_SUCCESS && api_cap_note(stream, ACL_MODEL_RI_TASK_EVENT_RESET,
                                          "aclrtResetEvent", NULL, 0))
        noted(event, stream, 0); /* a task of the capture (resetFlag 0) */
    return rc;
}

aclError api_impl_aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    return on_stream("aclrtResetEvent", event, stream, reset_op);
}

aclError api_impl_aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return on_stream("aclrtStreamWaitEvent", event, stream, wait_op);
}

aclError api_impl_aclrtSynchronizeEvent(aclrtEvent event)
{
    static const char fn[] = "aclrtSynchronizeEvent";
    API_FAULT(ACL_RT_SYNC_EVENT, fn);
    struct api_obj *e;
    aclError rc = get_event(fn, "event", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = captured("Event synchronization", event);
    if (rc != ACL_SUCCESS) {
        api_obj_put(e);
        return rc;
    }
    rc = be_get()->event_sync(event, -1);
    api_obj_put(e);
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: event synchronize %s, runtime result = %d.", fn,
                   rc == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT ? "timeout" : "failed", rc);
    return rc;
}

aclError api_impl_aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    static const char fn[] = "aclrtEventElapsedTime";
    API_FAULT(ACL_RT_QUERY_EVENT, fn);
    if (!ms)
        return api_err_null(fn, "ms");
    struct api_obj *a, *b;
    aclError rc = get_event(fn, "startEvent", startEvent, &a);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = get_event(fn, "endEvent", endEvent, &b);
    if (rc != ACL_SUCCESS) {
        api_obj_put(a);
        return rc;
    }
    if (ipc_refused(startEvent) || ipc_refused(endEvent)) {
        api_obj_put(b);
        api_obj_put(a);
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    rc = captured("Getting the elapsed time", startEvent);
    if (rc == ACL_SUCCESS)
        rc = captured("Getting the elapsed time", endEvent);
    if (rc != ACL_SUCCESS) {
        api_obj_put(b);
        api_obj_put(a);
        return rc;
    }
    rc = be_get()->event_elapsed(startEvent, endEvent, ms);
    api_obj_put(b);
    api_obj_put(a);
    if (rc == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, an event has not "
                   "completed yet; synchronize it first.", fn);
    else if (rc == ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, endEvent "
                   "completed before startEvent.", fn);
    else if (rc != ACL_SUCCESS)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, an event was "
                   "never recorded or was created without ACL_EVENT_TIME_LINE.", fn);
    return rc;
}

static aclError query(const char *fn, aclrtEvent event, void *status, int *done)
{
    API_FAULT(ACL_RT_QUERY_EVENT, fn);
    if (!status)
        return api_err_null(fn, "status");
    struct api_obj *e;
    aclError rc = get_event(fn, "event", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = captured("Event query", event);
    if (rc == ACL_SUCCESS)
        rc = be_get()->event_query(event, done);
    api_obj_put(e);
    return rc;
}

aclError api_impl_aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    int done = 0;
    aclError rc = query("aclrtQueryEventStatus", event, status, &done);
    if (rc == ACL_SUCCESS)
        *status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return rc;
}

aclError api_impl_aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    int done = 0;
    if (status && event && ipc_refused(event))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    aclError rc = query("aclrtQueryEvent", event, status, &done);
    if (rc == ACL_SUCCESS)
        *status = done ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return rc;
}

/* ---- ids, timestamps, timed waits, flags ---- */

aclError api_impl_aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event("aclrtCreateEventExWithFlag", event, flag);
}

/* An event property through the backend. */
static aclError info(const char *fn, aclrtEvent event, int what, uint64_t *val)
{
    struct api_obj *e;
    aclError rc = get_event(fn, "event", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = ipc_refused(event) ? ACL_ERROR_RT_FEATURE_NOT_SUPPORT
                            : be_get()->event_info(event, what, val);
    api_obj_put(e);
    return rc;
}

aclError api_impl_aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    static const char fn[] = "aclrtGetEventId";
    API_FAULT(ACL_RT_QUERY_EVENT, fn);
    if (!eventId)
        return api_err_null(fn, "eventId");
    uint64_t v = 0;
    aclError rc = info(fn, event, BE_EV_ID, &v);
    if (rc == ACL_SUCCESS)
        *eventId = (uint32_t)v;
    /* An IPC event has no id: the runtime refuses, silently. */
    return rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT ? rc : api_err_runtime(fn, rc);
}

aclError api_impl_aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    static const char fn[] = "aclrtEventGetTimestamp";
    API_FAULT(ACL_RT_QUERY_EVENT, fn);
    if (!timestamp)
        return api_err_null(fn, "timestamp");
    uint64_t v = 0;
    aclError rc = info(fn, event, BE_EV_TIMESTAMP, &v);
    if (rc == ACL_SUCCESS)
        *timestamp = v;
    else if (rc == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the event has not "
                   "completed yet; synchronize it first.", fn);
    else if (rc == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the event was "
                   "never recorded.", fn);
    return rc;
}

aclError api_impl_aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    static const char fn[] = "aclrtQueryEventWaitStatus";
    API_FAULT(ACL_RT_QUERY_EVENT, fn);
    if (!status)
        return api_err_null(fn, "status");
    uint64_t v = 0;
    aclError rc = info(fn, event, BE_EV_WAITED, &v);
    if (rc == ACL_SUCCESS)
        *status = v ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return rc;
}

aclError api_impl_aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    static const char fn[] = "aclrtSynchronizeEventWithTimeout";
    API_FAULT(ACL_RT_SYNC_EVENT, fn);
    if (timeout < -1) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)timeout);
        api_err_value(fn, v, "timeout", "[-1, INT_MAX]");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_obj *e;
    aclError rc = get_event(fn, "event", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = captured("Event synchronization", event);
    if (rc == ACL_SUCCESS)
        rc = be_get()->event_sync(event, timeout);
    api_obj_put(e);
    if (rc == ACL_ERROR_RT_EVENT_CAPTURED)
        return rc;
    if (rc == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        api_report(API_MSG_EH9999, "%s failed: the event did not complete within %d ms.", fn,
                   (int)timeout);
    else if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: event synchronize failed, runtime result = %d.",
                   fn, rc);
    return rc;
}

aclError api_impl_aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
                                               uint32_t timeout, uint32_t flag)
{
    static const char fn[] = "aclrtStreamWaitEventWithFlag";
    if (!event)
        return api_err_null(fn, "event");
    char v[16];
    if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL) {
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL");
    }
    if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0) {
        snprintf(v, sizeof v, "%u", timeout);
        return api_err_value(fn, v, "timeout", "0 when flag is ACL_EVENT_WAIT_EXTERNAL");
    }
    if (flag == ACL_EVENT_WAIT_EXTERNAL) {
        /* api_impl.cc StreamWaitEvent: an external wait belongs to a
         * capture. */
        struct api_stream_ref s;
        aclError rc = api_stream_get(fn, stream, &s);
        if (rc != ACL_SUCCESS)
            return rc;
        bool capturing = api_cap_graph_of(s.stream) != NULL;
        uint32_t id = api_cap_stream_id(s.stream);
        api_stream_put(&s);
        if (!capturing) {
            api_report(API_MSG_EE1016, "Triggering event waiting failed. Reason: Stream %u is not "
                       "in the capture stage.", id);
            return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
        }
        return on_stream(fn, event, stream, wait_external);
    }
    return on_stream(fn, event, stream, wait_op);
}

aclError api_impl_aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event,
                                                  int32_t timeout)
{
    static const char fn[] = "aclrtStreamWaitEventWithTimeout";
    if (!event)
        return api_err_null(fn, "event");
    if (timeout < -1) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)timeout);
        return api_err_value(fn, v, "timeout", "[-1, INT_MAX]");
    }
    /* A simulated wait never outlasts its event's record. */
    return on_stream(fn, event, stream, wait_op);
}

aclError api_impl_aclrtGetEventAvailNum(uint32_t *eventCount)
{
    static const char fn[] = "aclrtGetEventAvailNum";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!eventCount)
        return api_err_null(fn, "eventCount");
    return api_avail_num(fn, BE_AVAIL_EVENT, eventCount);
}
