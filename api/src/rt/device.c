/*
 * device.c - devices and contexts of the ACL layer (the DEVICE and CONTEXT
 * families of api/abi/calls.def), the current-context cache, and the
 * device-wide settings (saturation mode, the op wait timeout).
 *
 * A device is opened by its first aclrtSetDevice (or a context created on
 * it) with a default ("primary") context holding a default stream;
 * aclrtSetDevice is reference counted, aclrtResetDevice drops the primary
 * context at zero and aclrtResetDeviceForce at once; the device closes once
 * no context is left (a context of aclrtCreateContext keeps it open), and
 * aclFinalize closes it whatever is left. Each thread has a current context.
 * Handles given to the user are the backend's, untouched.
 *
 * Locking follows backends/be.h: one mutex (api_lock) guards this
 * bookkeeping and is never held across a backend call. A device that is
 * being opened or closed, or is getting its primary context, is BUSY: the
 * thread doing it works without the lock, and other threads that need that
 * device wait on a condition variable. Context structs are not freed
 * before the library unloads (a retired one goes to a graveyard), so the memory calls can read the current context's device
 * from a per-thread cache without the lock, even while another thread
 * destroys that context: the cache carries an epoch that every context
 * destruction bumps.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "base/mem.h"
#include "base/options.h"
#include "backends/be.h"

enum dev_state { DEV_CLOSED, DEV_OPEN, DEV_BUSY };

/* The device and context bookkeeping below (api_lock). */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t settled = PTHREAD_COND_INITIALIZER; /* a BUSY state ended */
static _Atomic unsigned long ctx_epoch = 1;

static struct {
    enum dev_state state;
    unsigned refs;      /* aclrtSetDevice references */
    unsigned user_ctxs; /* contexts from aclrtCreateContext, made or being made */
    struct api_ctx *primary;
} devs[BE_MAX_DEVICES];

/* Retired context structs, freed when the library unloads: a thread's
 * cache, or a call in flight, may still point at one. */
static struct api_ctx *graveyard;

/* The current context, read by every memory call. Not initial-exec TLS:
 * that would mark the whole library STATIC_TLS, and a loader that puts it
 * in a namespace of its own (dlmopen: the ascend backend's loopback, or a
 * framework's plugin loader) would then fail for want of static TLS. TLS
 * descriptors (SConstruct: -mtls-dialect=gnu2) make the access cheap. */
static _Thread_local void *tls_ctx; /* user handle of the current context */
/* ...and its struct: a handle value can be reused by a context made later
 * (the C library reuses memory), structs are not (the graveyard). */
static _Thread_local struct api_ctx *tls_ctx_struct;
static _Thread_local struct api_ctx *tls_cached;
static _Thread_local unsigned long tls_epoch;

void api_lock(void)
{
    pthread_mutex_lock(&dev_lock);
}

void api_unlock(void)
{
    pthread_mutex_unlock(&dev_lock);
}

/* Wait until device dev is not BUSY. pre: lock held. */
static void wait_settled(int32_t dev)
{
    while (devs[dev].state == DEV_BUSY)
        pthread_cond_wait(&settled, &dev_lock);
}

/* End a BUSY spell of dev in `state`. pre: lock held. */
static void settle(int32_t dev, enum dev_state state)
{
    devs[dev].state = state;
    pthread_cond_broadcast(&settled);
}

/* ---- Contexts ---- */

/* A new context on an open device, with its default stream, published.
 * Called without the lock. */
static aclError ctx_new(int32_t dev, bool primary, struct api_ctx **out)
{
    const struct be_ops *be = be_get();
    struct api_ctx *c = base_calloc(1, sizeof *c);
    if (!c)
        return ACL_ERROR_BAD_ALLOC;
    *c = (struct api_ctx){.device = dev, .primary = primary};
    aclError rc = be->ctx_create(dev, &c->be_ctx);
    if (rc == ACL_SUCCESS) {
        rc = be->stream_create(c->be_ctx, 0, 0, &c->deflt);
        if (rc == ACL_SUCCESS &&
            api_obj_add(c->be_ctx, API_OBJ_CONTEXT, dev, c, api_release_ctx) != 0) {
            be->stream_destroy(c->deflt);
            rc = ACL_ERROR_BAD_ALLOC;
        } else if (rc == ACL_SUCCESS && api_obj_add(c->deflt, API_OBJ_DSTREAM, dev, c, NULL) != 0) {
            /* Published already: withdrawing it releases it (graveyard). */
            api_obj_retire(c->be_ctx, API_OBJ_CONTEXT);
            return ACL_ERROR_BAD_ALLOC;
        }
        if (rc != ACL_SUCCESS)
            be->ctx_destroy(c->be_ctx);
    }
    if (rc != ACL_SUCCESS) {
        base_free(c); /* never published: nobody can point at it */
        return rc;
    }
    api_state_stream(c->deflt, ACL_RT_STREAM_STATE_CREATE_POST);
    *out = c;
    return ACL_SUCCESS;
}

void api_release_ctx(void *handle, struct api_ctx *c)
{
    (void)handle; /* c->be_ctx */
    const struct be_ops *be = be_get();
    /* A default context's release is the device's reset (CANN's order:
     * its stream, then the device). */
    api_state_stream(c->deflt, ACL_RT_STREAM_STATE_DESTROY_PRE);
    if (c->primary)
        api_state_device(c->device, ACL_RT_DEVICE_STATE_RESET_PRE);
    api_tell_stream_gone(c->deflt);
    api_tell_ctx_gone(c);
    be->stream_destroy(c->deflt);
    be->ctx_destroy(c->be_ctx);
    if (c->primary)
        api_state_device(c->device, ACL_RT_DEVICE_STATE_RESET_POST);
    atomic_fetch_add_explicit(&ctx_epoch, 1, memory_order_release);
    api_lock();
    c->next_dead = graveyard;
    graveyard = c;
    api_unlock();
}

__attribute__((destructor)) static void device_unload(void)
{
    while (graveyard) {
        struct api_ctx *c = graveyard;
        graveyard = c->next_dead;
        base_free(c);
    }
}

static aclError check_device(int32_t dev)
{
    uint32_t n = 0;
    be_get()->device_count(&n);
    if (dev < 0 || (uint32_t)dev >= n || dev >= BE_MAX_DEVICES) {
        api_report(API_MSG_EE1001,
                   "The argument is invalid. Reason: invalid device id %d, valid range is [0, %u).",
                   (int)dev, n);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

aclError api_device_usable(const char *func, int32_t dev)
{
    aclError rc = check_device(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    api_lock();
    bool open = devs[dev].state == DEV_OPEN;
    api_unlock();
    if (!open) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, device %d is not "
                   "set; call aclrtSetDevice first.", func, (int)dev);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

bool api_device_is_open(int32_t dev)
{
    if (dev < 0 || dev >= BE_MAX_DEVICES)
        return false;
    api_lock();
    bool open = devs[dev].state == DEV_OPEN;
    api_unlock();
    return open;
}

bool api_device_for_call(int32_t *dev)
{
    struct api_ctx *c = tls_ctx ? api_ctx_lookup(tls_ctx) : NULL;
    if (c && c == tls_ctx_struct) {
        *dev = c->device;
        return true;
    }
    for (int32_t d = 0; d < BE_MAX_DEVICES; d++)
        if (api_device_is_open(d)) {
            *dev = d;
            return true;
        }
    return false;
}

/* Release a device's contexts (all of them, or just `only`), then, when
 * `close` is set, its events and the device itself; the watchers hear of
 * the close first (the leak report among them). pre: lock not held, dev
 * BUSY. */
static void teardown(int32_t dev, struct api_ctx *only, bool close, const char *where)
{
    if (close)
        api_tell_device_closing(dev, where);
    if (only)
        api_obj_retire(only->be_ctx, API_OBJ_CONTEXT);
    if (!close)
        return;
    api_obj_retire_all(API_OBJ_CONTEXT, dev, NULL);
    /* Events and notifies left on the device go with it (the leak report
     * named them). */
    api_obj_retire_all(API_OBJ_EVENT, dev, NULL);
    api_obj_retire_all(API_OBJ_NOTIFY, dev, NULL);
    api_obj_retire_all(API_OBJ_CNT_NOTIFY, dev, NULL);
    api_peer_forget(dev);
    /* Calls still using them finish first. */
    api_obj_wait_device(dev);
    be_get()->device_close(dev);
}

/* Open device dev if it is closed; on success it is OPEN (not BUSY).
 * pre: lock held; returns with it held. */
static aclError open_locked(int32_t dev)
{
    wait_settled(dev);
    if (devs[dev].state == DEV_OPEN)
        return ACL_SUCCESS;
    devs[dev].state = DEV_BUSY;
    api_unlock();
    api_state_device(dev, ACL_RT_DEVICE_STATE_SET_PRE);
    aclError rc = be_get()->device_open(dev);
    if (rc == ACL_SUCCESS)
        api_op_timeout_device_opened(); /* runtime.cc InitOpExecTimeout */
    api_lock();
    settle(dev, rc == ACL_SUCCESS ? DEV_OPEN : DEV_CLOSED);
    return rc;
}

/* Close dev if nothing keeps it open any more (or whatever is left, when
 * forced). pre: lock held, dev not BUSY; returns with it held. */
static void close_if_unused_locked(int32_t dev, bool force, const char *where)
{
    if (devs[dev].state != DEV_OPEN)
        return;
    if (!force && (devs[dev].refs > 0 || devs[dev].user_ctxs > 0 || devs[dev].primary))
        return;
    devs[dev].state = DEV_BUSY;
    devs[dev].refs = 0;
    devs[dev].user_ctxs = 0;
    devs[dev].primary = NULL;
    api_unlock();
    teardown(dev, NULL, true, where);
    api_lock();
    settle(dev, DEV_CLOSED);
}

/* api_current_ctx when the cached answer is gone (no context yet, or
 * contexts changed since). */
static __attribute__((noinline)) aclError current_ctx_again(const char *func,
                                                            struct api_ctx **out)
{
    unsigned long epoch = atomic_load_explicit(&ctx_epoch, memory_order_acquire);
    struct api_ctx *c = tls_ctx ? api_ctx_lookup(tls_ctx) : NULL;
    if (c != tls_ctx_struct)
        c = NULL; /* destroyed; the handle now names another context */
    tls_cached = c;
    tls_epoch = epoch;
    if (!c) {
        api_report(API_MSG_EE1001,
                   "The argument is invalid. Reason: %s failed, the current thread has no "
                   "context; call aclrtSetDevice or aclrtSetCurrentContext first.",
                   func);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *out = c;
    return ACL_SUCCESS;
}

/* Small enough for link-time optimisation to inline into the calls of
 * other files: the cached answer, while no context has come or gone. */
inline aclError api_current_ctx(const char *func, struct api_ctx **out)
{
    struct api_ctx *c = tls_cached;
    if (__builtin_expect(c && tls_epoch == atomic_load_explicit(&ctx_epoch, memory_order_acquire),
                         1)) {
        *out = c;
        return ACL_SUCCESS;
    }
    return current_ctx_again(func, out);
}

static void set_current(struct api_ctx *c)
{
    tls_ctx = c ? c->be_ctx : NULL;
    tls_ctx_struct = c;
    tls_cached = NULL;
    if (be_get()->ctx_set_current)
        be_get()->ctx_set_current(tls_ctx);
}

/* Close every open device, whatever it still holds, without telling the
 * state callbacks (aclFinalize; `where` names it). pre: no lock held. */
void api_devices_close_all(const char *where)
{
    api_lock();
    api_state_mute(true); /* what the program left open goes silently */
    for (int32_t d = 0; d < BE_MAX_DEVICES; d++) {
        wait_settled(d);
        close_if_unused_locked(d, true, where);
    }
    api_state_mute(false);
    api_unlock();
}

bool api_primary_ctx_held(int32_t dev)
{
    if (dev < 0 || dev >= BE_MAX_DEVICES)
        return false;
    api_lock();
    bool held = devs[dev].state == DEV_OPEN && devs[dev].primary && devs[dev].refs > 0;
    api_unlock();
    return held;
}

bool api_ctx_sysopt(struct api_ctx *c, int opt, bool set, int64_t *value)
{
    if (set) {
        atomic_store(&c->sysopt[opt], *value);
        atomic_fetch_or(&c->sysopt_set, 1u << opt);
        return true;
    }
    if (!(atomic_load(&c->sysopt_set) & (1u << opt)))
        return false;
    *value = atomic_load(&c->sysopt[opt]);
    return true;
}

bool api_devices_any_open(void)
{
    api_lock();
    bool any = false;
    for (int32_t d = 0; d < BE_MAX_DEVICES && !any; d++)
        any = devs[d].state != DEV_CLOSED;
    api_unlock();
    return any;
}

/* ---- Devices ---- */

aclError api_impl_aclrtGetDeviceCount(uint32_t *count)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetDeviceCount");
    if (!count)
        return api_err_null("aclrtGetDeviceCount", "count");
    return be_get()->device_count(count);
}

aclError api_impl_aclrtSetDevice(int32_t deviceId)
{
    static const char fn[] = "aclrtSetDevice";
    API_FAULT(ACL_RT_SET_DEVICE, fn);
    aclError rc = check_device(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    api_lock();
    rc = open_locked(deviceId);
    struct api_ctx *c = NULL;
    if (rc == ACL_SUCCESS && !devs[deviceId].primary) {
        /* Make the primary context with the device BUSY, so nobody else
         * makes one or closes the device meanwhile. */
        devs[deviceId].state = DEV_BUSY;
        api_unlock();
        rc = ctx_new(deviceId, true, &c);
        api_lock();
        if (rc == ACL_SUCCESS)
            devs[deviceId].primary = c;
        settle(deviceId, DEV_OPEN);
        if (rc != ACL_SUCCESS)
            close_if_unused_locked(deviceId, false, NULL);
    }
    if (rc == ACL_SUCCESS) {
        devs[deviceId].refs++;
        c = devs[deviceId].primary;
    }
    api_unlock();
    if (rc == ACL_SUCCESS) {
        set_current(c);
        api_state_device(deviceId, ACL_RT_DEVICE_STATE_SET_POST);
    } else {
        api_report(API_MSG_EH9999, "open device %d failed, runtime result = %d.", (int)deviceId,
                   rc);
    }
    return rc;
}

static aclError reset(int32_t dev, bool force)
{
    aclError rc = check_device(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    char where[64];
    snprintf(where, sizeof where, "%s(%d)", force ? "aclrtResetDeviceForce" : "aclrtResetDevice",
             (int)dev);
    api_lock();
    wait_settled(dev);
    /* CANN's runtime releases the default context by its reference count:
     * a device never set, or reset already (by reference, or forced), has
     * nothing to release (src/runtime/core/src/runtime.cc,
     * PrimaryContextRelease; api_error.cc, DeviceReset). */
    if (devs[dev].state != DEV_OPEN || (force ? !devs[dev].primary : devs[dev].refs == 0)) {
        api_unlock();
        if (force)
            api_report(API_MSG_EH9999, "PrimaryContextRelease failed, total ref count is 0.");
        else
            api_report(API_MSG_EE1018, "Resetting the device failed. Reason: The device has not "
                       "been set or has already been reset.");
        return ACL_ERROR_RT_CONTEXT_RELEASE_ERROR;
    }
    /* Forced or not, only the primary context goes (ApiImpl::DeviceReset,
     * api_impl.cc L3753-3757, releases it alone: runtime.cc L2833-2929):
     * a context of aclrtCreateContext retains the device (NewContext,
     * api_impl.cc L4086-4090) and keeps it, its streams and its memory
     * until it is destroyed. */
    if (force)
        devs[dev].refs = 0;
    else
        devs[dev].refs--;
    if (devs[dev].refs == 0 && devs[dev].primary) {
        struct api_ctx *primary = devs[dev].primary;
        if (devs[dev].user_ctxs > 0) {
            /* Only the primary context goes; the device stays open. */
            devs[dev].state = DEV_BUSY;
            devs[dev].primary = NULL;
            api_unlock();
            teardown(dev, primary, false, NULL);
            api_lock();
            settle(dev, DEV_OPEN);
        } else {
            devs[dev].primary = NULL;
        }
    }
    close_if_unused_locked(dev, false, where);
    api_unlock();
    api_end_if_idle();
    return ACL_SUCCESS;
}

aclError api_impl_aclrtResetDevice(int32_t deviceId)
{
    API_FAULT(ACL_RT_RESET_DEVICE, "aclrtResetDevice");
    return reset(deviceId, false);
}

aclError api_impl_aclrtResetDeviceForce(int32_t deviceId)
{
    API_FAULT(ACL_RT_RESET_DEVICE, "aclrtResetDeviceForce");
    return reset(deviceId, true);
}

aclError api_impl_aclrtGetDevice(int32_t *deviceId)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetDevice");
    if (!deviceId)
        return api_err_null("aclrtGetDevice", "deviceId");
    struct api_ctx *c;
    aclError rc = api_current_ctx("aclrtGetDevice", &c);
    if (rc == ACL_SUCCESS)
        *deviceId = c->device;
    return rc;
}

aclError api_impl_aclrtGetRunMode(aclrtRunMode *runMode)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetRunMode");
    if (!runMode)
        return api_err_null("aclrtGetRunMode", "runMode");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    static const char fn[] = "aclrtCreateContext";
    API_FAULT(ACL_RT_CREATE_CONTEXT, fn);
    if (!context)
        return api_err_null(fn, "context");
    aclError rc = check_device(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    api_lock();
    rc = open_locked(deviceId);
    if (rc == ACL_SUCCESS)
        devs[deviceId].user_ctxs++; /* keeps the device open while we work */
    api_unlock();
    struct api_ctx *c = NULL;
    if (rc == ACL_SUCCESS)
        rc = ctx_new(deviceId, false, &c);
    if (rc != ACL_SUCCESS) {
        api_lock();
        wait_settled(deviceId);
        if (devs[deviceId].state == DEV_OPEN && devs[deviceId].user_ctxs > 0) {
            devs[deviceId].user_ctxs--;
            close_if_unused_locked(deviceId, false, NULL);
        }
        api_unlock();
        return api_err_runtime(fn, rc);
    }
    set_current(c);
    *context = c->be_ctx;
    return ACL_SUCCESS;
}

/* The context behind a user handle, or NULL with EH0012 queued. */
static struct api_ctx *ctx_of(const char *func, aclrtContext h)
{
    struct api_ctx *c = api_ctx_lookup(h);
    if (!c)
        api_report(API_MSG_EH0012, "%s failed. Parameter context is invalid. Reason: it is not a "
                   "live context.", func);
    return c;
}

aclError api_impl_aclrtDestroyContext(aclrtContext context)
{
    static const char fn[] = "aclrtDestroyContext";
    API_FAULT(ACL_RT_DESTROY_CONTEXT, fn);
    if (!context)
        return api_err_null(fn, "context");
    struct api_ctx *c = ctx_of(fn, context);
    if (!c)
        return ACL_ERROR_INVALID_PARAM;
    if (c->primary) {
        api_report(API_MSG_EH0012,
                   "%s failed. Parameter context is invalid. Reason: the default context of a "
                   "device is released by aclrtResetDevice.",
                   fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t dev = c->device;
    /* Whoever withdraws the handle first destroys it; a second destroy
     * racing with it finds nothing. */
    if (api_obj_retire(context, API_OBJ_CONTEXT) != 0) {
        api_report(API_MSG_EH0012, "%s failed. Parameter context is invalid. Reason: it is not a "
                   "live context.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (tls_ctx == context)
        set_current(NULL);
    api_lock();
    wait_settled(dev);
    if (devs[dev].state == DEV_OPEN && devs[dev].user_ctxs > 0) {
        devs[dev].user_ctxs--;
        close_if_unused_locked(dev, false, NULL);
    }
    api_unlock();
    api_end_if_idle();
    return ACL_SUCCESS;
}

aclError api_impl_aclrtSetCurrentContext(aclrtContext context)
{
    static const char fn[] = "aclrtSetCurrentContext";
    API_FAULT(ACL_RT_CURRENT_CONTEXT, fn);
    if (!context)
        return api_err_null(fn, "context");
    struct api_ctx *c = ctx_of(fn, context);
    if (c)
        set_current(c);
    return c ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError api_impl_aclrtGetCurrentContext(aclrtContext *context)
{
    API_FAULT(ACL_RT_CURRENT_CONTEXT, "aclrtGetCurrentContext");
    if (!context)
        return api_err_null("aclrtGetCurrentContext", "context");
    struct api_ctx *c;
    aclError rc = api_current_ctx("aclrtGetCurrentContext", &c);
    if (rc == ACL_SUCCESS)
        *context = c->be_ctx;
    return rc;
}

aclError api_impl_aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    static const char fn[] = "aclrtCtxGetCurrentDefaultStream";
    API_FAULT(ACL_RT_CURRENT_CONTEXT, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc == ACL_SUCCESS)
        *stream = c->deflt;
    return rc;
}

/* ---- Device-wide work and settings: synchronisation, stream priorities ---- */

/* The streams of context c, its default stream first, waited for at most
 * timeout (< 0: no limit). pre: c held. Up to SMALL streams need no host
 * memory (a synchronisation does not fail for want of it). */
static aclError ctx_sync(struct api_ctx *c, int32_t timeout)
{
    enum { SMALL = 32 };
    struct api_obj *small[SMALL], **held = small;
    void *h_small[SMALL + 1], **h = h_small;
    size_t cap = SMALL, n;
    while ((n = api_obj_hold(API_OBJ_STREAM, c, held, cap)) > cap) {
        for (size_t i = 0; i < cap; i++)
            api_obj_put(held[i]);
        if (held != small)
            base_free(held);
        if (h != h_small)
            base_free(h);
        cap = n + SMALL; /* room for streams made meanwhile */
        held = base_malloc(cap * sizeof *held);
        h = base_malloc((cap + 1) * sizeof *h);
        if (!held || !h) {
            base_free(held);
            base_free(h);
            return ACL_ERROR_BAD_ALLOC;
        }
    }
    h[0] = c->deflt;
    for (size_t i = 0; i < n; i++)
        h[i + 1] = api_obj_handle(held[i]);
    aclError rc = be_get()->ctx_sync(c->be_ctx, h, n + 1, timeout);
    for (size_t i = 0; i < n; i++)
        api_obj_put(held[i]);
    if (held != small) {
        base_free(held);
        base_free(h);
    }
    return rc;
}

/* CANN's device synchronisation (rtDeviceSynchronize: api_impl.cc
 * DeviceSynchronize L3975-3988 synchronises the current context,
 * context.cc Context::Synchronize L1219-1243): the host waits for the
 * current context's streams, at most timeout (< 0: no limit); the device's
 * other contexts are not waited for, and a context with a capturing stream
 * is refused. */
aclError api_sync_device(const char *fn, int32_t timeout)
{
    struct api_stream_ref ctx; /* holds the current context */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_check_ctx("Synchronizing a device", ctx.ctx);
    if (rc == ACL_SUCCESS)
        rc = api_sync_failed(fn, ctx_sync(ctx.ctx, timeout));
    api_stream_put(&ctx);
    return rc;
}

aclError api_impl_aclrtSynchronizeDevice(void)
{
    static const char fn[] = "aclrtSynchronizeDevice";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    return api_sync_device(fn, -1);
}

aclError api_impl_aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority,
                                                    int32_t *greatestPriority)
{
    /* CANN answers whichever pointer is given; both NULL is no error. */
    if (leastPriority)
        *leastPriority = API_LEAST_PRIORITY;
    if (greatestPriority)
        *greatestPriority = 0;
    return ACL_SUCCESS;
}

/* Saturation mode and op timeouts: settings of the current device. */
static aclError dev_prop(const char *fn, int which, int set, uint64_t *val)
{
    struct api_stream_ref ctx; /* keeps the device from closing under us */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->dev_prop(ctx.ctx->device, which, set, val));
    api_stream_put(&ctx);
    return rc;
}

aclError api_impl_aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    static const char fn[] = "aclrtSetDeviceSatMode";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if ((int)mode != ACL_RT_OVERFLOW_MODE_SATURATION && (int)mode != ACL_RT_OVERFLOW_MODE_INFNAN) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)mode);
        return api_rt_bad_value(fn, "Setting the saturation mode", v, "mode",
                        "ACL_RT_OVERFLOW_MODE_SATURATION(0) or ACL_RT_OVERFLOW_MODE_INFNAN(1)");
    }
    uint64_t v = (uint64_t)mode;
    return dev_prop(fn, BE_DP_SAT_MODE, 1, &v);
}

/* The pid another process lists to let this one import its IPC memory
 * (memory.cpp aclrtDeviceGetBareTgidImpl L1353: pid not NULL). The
 * simulator runs in the host's pid namespace: the bare tgid is getpid(). */
aclError api_impl_aclrtDeviceGetBareTgid(int32_t *pid)
{
    static const char fn[] = "aclrtDeviceGetBareTgid";
    if (!pid)
        return api_err_null(fn, "pid");
    *pid = (int32_t)getpid();
    return ACL_SUCCESS;
}

aclError api_impl_aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    static const char fn[] = "aclrtGetDeviceSatMode";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!mode)
        return api_err_null(fn, "mode");
    uint64_t v = 0;
    aclError rc = dev_prop(fn, BE_DP_SAT_MODE, 0, &v);
    if (rc == ACL_SUCCESS)
        *mode = (aclrtFloatOverflowMode)v;
    return rc;
}

/* The op wait timeout of each device (seconds), for the notify waits of
 * the ACL layer: the real runtime has no getter. */
static _Atomic uint32_t op_wait[BE_MAX_DEVICES];

uint32_t api_op_wait_timeout(int32_t dev)
{
    return dev >= 0 && dev < BE_MAX_DEVICES ? atomic_load(&op_wait[dev]) : 0;
}

aclError api_impl_aclrtSetOpWaitTimeout(uint32_t timeout)
{
    static const char fn[] = "aclrtSetOpWaitTimeout";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    uint64_t v = timeout;
    rc = dev_prop(fn, BE_DP_OP_WAIT_TIMEOUT, 1, &v);
    if (rc == ACL_SUCCESS && c->device < BE_MAX_DEVICES)
        atomic_store(&op_wait[c->device], timeout);
    return rc;
}

