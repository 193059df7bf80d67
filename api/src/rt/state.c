/*
 * state.c - device and stream state callbacks (aclrtRegDeviceStateCallback,
 * aclrtRegStreamStateCallback: the STATE family of api/abi/calls.def).
 *
 * They are called, in the order of their names, when a device opens
 * (SET_PRE), on every successful aclrtSetDevice (SET_POST), around the
 * release of a device's default context (RESET_PRE, RESET_POST), after a
 * stream (a context's default stream too) is created (CREATE_POST) and
 * before one is destroyed (DESTROY_PRE). On hw=ascend the registrations are
 * forwarded to the real runtime, which calls the user's callbacks itself.
 * User callbacks run with no aclsim lock held.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "base/mem.h"

/* ---- Device and stream state callbacks ---- */

/* A registry of named callbacks, kept in name order. */
struct state_cb {
    struct state_cb *next;
    char *name;
    void (*fn)(void);
    void *args;
};

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static struct state_cb *device_cbs, *stream_cbs;
static atomic_bool muted;

/* Register fn under name in *list (fn NULL: drop the name). The runtime's
 * codes: a name registered twice is ACL_ERROR_RT_PARAM_INVALID with EE1011,
 * for which `desc` and `reason` give the runtime's words. */
static aclError state_reg(const char *func, struct state_cb **list, const char *name,
                          void (*fn)(void), void *args, const char *desc, const char *reason)
{
    pthread_mutex_lock(&state_lock);
    struct state_cb **p = list;
    while (*p && strcmp((*p)->name, name) < 0)
        p = &(*p)->next;
    bool found = *p && strcmp((*p)->name, name) == 0;
    if (!fn) {
        if (found) {
            struct state_cb *gone = *p;
            *p = gone->next;
            base_free(gone->name);
            base_free(gone);
        }
        pthread_mutex_unlock(&state_lock);
        return ACL_SUCCESS;
    }
    if (found) {
        pthread_mutex_unlock(&state_lock);
        api_report(API_MSG_EE1011, "%s failed. Value %s for parameter regName is invalid. "
                   "Reason: %s.", desc, name, reason);
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s execution failed.", func);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct state_cb *e = base_malloc(sizeof *e);
    char *copy = base_strdup(name);
    if (!e || !copy) {
        pthread_mutex_unlock(&state_lock);
        base_free(e);
        base_free(copy);
        return api_err_runtime(func, ACL_ERROR_BAD_ALLOC);
    }
    *e = (struct state_cb){*p, copy, fn, args};
    *p = e;
    pthread_mutex_unlock(&state_lock);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtRegDeviceStateCallback(const char *regName,
                                               aclrtDeviceStateCallback callback, void *args)
{
    static const char fn[] = "aclrtRegDeviceStateCallback";
    if (!regName)
        return api_err_null(fn, "regName");
    if (API_REAL(aclrtRegDeviceStateCallback))
        return api_forwarded(fn, API_REAL(aclrtRegDeviceStateCallback)(regName, callback, args), false);
    char reason[256];
    snprintf(reason, sizeof reason, "The callback function %s has been registered and cannot be "
             "registered again", regName);
    return state_reg("rtsRegDeviceStateCallback", &device_cbs, regName, (void (*)(void))callback,
                     args, "Registering the device status callback function", reason);
}

aclError api_impl_aclrtRegStreamStateCallback(const char *regName,
                                               aclrtStreamStateCallback callback, void *args)
{
    static const char fn[] = "aclrtRegStreamStateCallback";
    if (!regName)
        return api_err_null(fn, "regName");
    if (API_REAL(aclrtRegStreamStateCallback))
        return api_forwarded(fn, API_REAL(aclrtRegStreamStateCallback)(regName, callback, args), false);
    return state_reg("rtsRegStreamStateCallback", &stream_cbs, regName, (void (*)(void))callback,
                     args, "Registering the stream status callback function",
                     "The callback name has already been registered");
}

/* Call every callback of list with (what, state): a snapshot, so that a
 * callback may register or unregister. */
static void state_fire(struct state_cb **list, bool device, int32_t dev, void *stream, int state)
{
    if (atomic_load_explicit(&muted, memory_order_relaxed))
        return;
    enum { MAX = 64 };
    struct state_cb snap[MAX];
    size_t n = 0;
    pthread_mutex_lock(&state_lock);
    for (struct state_cb *e = *list; e && n < MAX; e = e->next)
        snap[n++] = *e;
    pthread_mutex_unlock(&state_lock);
    for (size_t i = 0; i < n; i++) {
        if (device)
            ((aclrtDeviceStateCallback)snap[i].fn)(dev, (aclrtDeviceState)state, snap[i].args);
        else
            ((aclrtStreamStateCallback)snap[i].fn)(stream, (aclrtStreamState)state, snap[i].args);
    }
}

void api_state_device(int32_t dev, aclrtDeviceState state)
{
    state_fire(&device_cbs, true, dev, NULL, (int)state);
}

void api_state_stream(void *stream, aclrtStreamState state)
{
    state_fire(&stream_cbs, false, -1, stream, (int)state);
}

void api_state_mute(bool on)
{
    atomic_store(&muted, on);
}

/* The registries live as long as the library, as CANN's singletons do. */
__attribute__((destructor)) static void state_unload(void)
{
    struct state_cb **lists[] = {&device_cbs, &stream_cbs};
    for (size_t i = 0; i < 2; i++)
        while (*lists[i]) {
            struct state_cb *e = *lists[i];
            *lists[i] = e->next;
            base_free(e->name);
            base_free(e);
        }
}
