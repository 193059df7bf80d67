/*
 * ipcevent.c - events shared between processes (the IPCEVENT family).
 *
 * An event created by aclrtCreateEventExWithFlag(ACL_EVENT_IPC) can be
 * exported (aclrtIpcGetEventHandle) and opened, in this process or another
 * (aclrtIpcOpenEventHandle), as an event of the opening thread's device;
 * records through any of them are seen by all (the simulator keeps the
 * state in shared memory, sim/ipc.c). The checks are CANN's
 * (aclrt_impl/event.cpp, the runtime's api_c_standard_soc.cc,
 * api_impl_event.cc): an export needs an IPC event, an open a current
 * context. The ACL layer remembers which live handles are IPC events,
 * because CANN's runtime refuses several event calls for them (event.c
 * asks api_ipc_event_is).
 */
#include <pthread.h>
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"
#include "base/mem.h"

/* ---- which live event handles are IPC events ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const void **ipc_events;
static size_t n_ipc, cap_ipc;

int api_ipc_event_add(const void *h)
{
    pthread_mutex_lock(&lock);
    int rc = 0;
    if (n_ipc == cap_ipc) {
        size_t cap = cap_ipc ? 2 * cap_ipc : 16;
        const void **grown = base_realloc(ipc_events, cap * sizeof *grown);
        if (grown) {
            ipc_events = grown;
            cap_ipc = cap;
        } else {
            rc = -1;
        }
    }
    if (rc == 0)
        ipc_events[n_ipc++] = h;
    pthread_mutex_unlock(&lock);
    return rc;
}

bool api_ipc_event_is(const void *h)
{
    pthread_mutex_lock(&lock);
    bool found = false;
    for (size_t i = 0; i < n_ipc && !found; i++)
        found = ipc_events[i] == h;
    pthread_mutex_unlock(&lock);
    return found;
}

aclError api_ipc_event_drop(void *h)
{
    api_ipc_event_forget(h);
    return be_get()->event_destroy(h);
}

void api_ipc_event_forget(const void *h)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_ipc; i++)
        if (ipc_events[i] == h) {
            ipc_events[i] = ipc_events[--n_ipc];
            break;
        }
    if (n_ipc == 0) {
        base_free(ipc_events);
        ipc_events = NULL;
        cap_ipc = 0;
    }
    pthread_mutex_unlock(&lock);
}

/* ---- IPC events ---- */

aclError api_impl_aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    static const char fn[] = "aclrtIpcGetEventHandle";
    API_FAULT(ACL_RT_IPC_EVENT, fn);
    if (!handle)
        return api_err_null(fn, "handle");
    if (!event)
        return api_err_null(fn, "event");
    struct api_obj *e = api_obj_get(event, API_OBJ_EVENT);
    if (!e) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, event %p is not a "
                   "live event.", fn, event);
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    aclError rc = ACL_SUCCESS;
    if (!api_ipc_event_is(event)) {
        api_report(API_MSG_EE1006, "Obtaining the IPC event handle failed. Parameter "
                   "evt.eventFlag_ value is not supported. Reason: Only IPC events are "
                   "supported.");
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        void *h = event;
        rc = api_err_runtime(fn, be_get()->event_ipc(0, api_obj_device(e), &h, handle));
    }
    api_obj_put(e);
    return rc;
}

aclError api_impl_aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    static const char fn[] = "aclrtIpcOpenEventHandle";
    API_FAULT(ACL_RT_IPC_EVENT, fn);
    if (!event)
        return api_err_null(fn, "event");
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    void *e = NULL;
    rc = be_get()->event_ipc(1, ctx.ctx->device, &e, &handle);
    if (rc == ACL_SUCCESS && api_ipc_event_add(e) != 0) {
        be_get()->event_destroy(e);
        rc = ACL_ERROR_BAD_ALLOC;
    }
    rc = api_obj_publish(rc, e, API_OBJ_EVENT, ctx.ctx, api_release_event, api_ipc_event_drop);
    api_stream_put(&ctx);
    if (rc == ACL_ERROR_RT_PARAM_INVALID)
        api_report(API_MSG_EH9999, "%s failed: the handle names no live IPC event (its event "
                   "was destroyed, or it was not made by aclrtIpcGetEventHandle), runtime result "
                   "= %d.", fn, rc);
    else
        api_err_create(fn, rc, ACL_ERROR_RT_NO_EVENT_RESOURCE, "event");
    if (rc == ACL_SUCCESS)
        *event = e;
    return rc;
}
