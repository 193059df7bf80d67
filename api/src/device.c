/*
 * device.c - init state, devices and contexts of the ACL layer.
 *
 * aclInit/aclFinalize keep CANN's reference count (fact sheet 3.4). A device
 * is opened by its first aclrtSetDevice (or a context created on it) with a
 * default ("primary") context holding a default stream; aclrtSetDevice is
 * reference counted, aclrtResetDevice drops the primary context at zero and
 * closes the device once no context is left, aclrtResetDeviceForce and
 * aclFinalize close it whatever is left. Each thread has a current context.
 * Handles given to the user are the backend's, untouched.
 *
 * One mutex (api_lock) guards this bookkeeping; it is never held across a
 * wait for device work. The current context of a thread is cached with an
 * epoch that every context destruction bumps, so the memory calls find
 * their context without taking the lock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "api.h"
#include "base/options.h"
#include "backends/be.h"

#define MAX_DEVICES 64

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static int init_refs;
static _Atomic unsigned long ctx_epoch = 1;

static struct {
    bool open;
    unsigned refs;      /* aclrtSetDevice references */
    unsigned user_ctxs; /* contexts from aclrtCreateContext */
    struct api_ctx *primary;
} devs[MAX_DEVICES];

/* The current context, read by every memory call. Not initial-exec TLS:
 * that would mark the whole library STATIC_TLS, and a loader that puts it
 * in a namespace of its own (dlmopen: the ascend backend's loopback, or a
 * framework's plugin loader) would then fail for want of static TLS. */
static _Thread_local void *tls_ctx; /* user handle of the current context */
static _Thread_local struct api_ctx *tls_cached;
static _Thread_local unsigned long tls_epoch;

void api_lock(void)
{
    pthread_mutex_lock(&big);
}

void api_unlock(void)
{
    pthread_mutex_unlock(&big);
}

/* ---- Init ---- */

/* Close every open device (aclFinalize). pre: lock held. */
static void close_all_locked(void);

API_EXPORT aclError aclInit(const char *configPath)
{
    API_FAULT(ACL_INIT, "aclInit");
    if (configPath && configPath[0]) {
        FILE *f = fopen(configPath, "r");
        if (!f) {
            api_report(API_MSG_EH9999, "aclInit failed: config file %s cannot be read.",
                       configPath);
            return ACL_ERROR_INVALID_FILE;
        }
        fclose(f);
    }
    api_lock();
    if (init_refs > 0) {
        init_refs++;
        api_unlock();
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    const char *why = "";
    aclError rc = ACL_SUCCESS;
    /* The options are read again for every start of the runtime. */
    if (opt_reload() != 0 || opt_error()) {
        why = opt_error();
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (rc == ACL_SUCCESS)
        rc = be_get()->init(&why);
    if (rc == ACL_SUCCESS)
        init_refs = 1;
    api_unlock();
    /* Which backend is live is never a guess (GPGPU-Sim's lesson); a copy
     * loaded as another copy's real runtime (the loopback) stays quiet. */
    if (rc == ACL_SUCCESS && !opt_nested() && opt_bool(OPT_BANNER) && be_get()->describe) {
        char line[256];
        be_get()->describe(line, sizeof line);
        fprintf(stderr, "aclsim: backend %s\n", line);
    }
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: aclInit failed: %s.", why);
    return rc;
}

static aclError finalize(int all, uint64_t *left)
{
    api_lock();
    if (init_refs == 0) {
        api_unlock();
        return ACL_ERROR_REPEAT_FINALIZE;
    }
    init_refs = all ? 0 : init_refs - 1;
    if (left)
        *left = (uint64_t)init_refs;
    if (init_refs == 0) {
        for (int32_t d = 0; d < MAX_DEVICES; d++)
            if (devs[d].open)
                api_leaks_device(d, all ? "aclFinalize" : "aclFinalizeReference");
        api_leaks_registry(all ? "aclFinalize" : "aclFinalizeReference");
        close_all_locked();
        be_get()->fini();
    }
    api_unlock();
    return ACL_SUCCESS;
}

API_EXPORT aclError aclFinalize(void)
{
    API_FAULT(ACL_FINALIZE, "aclFinalize");
    return finalize(1, NULL);
}

API_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
    API_FAULT(ACL_FINALIZE, "aclFinalizeReference");
    return finalize(0, refCount);
}

API_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                    int32_t *patchVersion)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetVersion");
    if (!majorVersion)
        return api_err_null("aclrtGetVersion", "majorVersion");
    if (!minorVersion)
        return api_err_null("aclrtGetVersion", "minorVersion");
    if (!patchVersion)
        return api_err_null("aclrtGetVersion", "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

/* ---- Contexts ---- */

/* A new context on an open device, with its default stream. pre: lock. */
static aclError ctx_new(int32_t dev, bool primary, struct api_ctx **out)
{
    const struct be_ops *be = be_get();
    struct api_ctx *c = base_calloc(1, sizeof *c);
    if (!c)
        return ACL_ERROR_BAD_ALLOC;
    c->device = dev;
    c->primary = primary;
    aclError rc = be->ctx_create(dev, &c->be_ctx);
    if (rc != ACL_SUCCESS) {
        base_free(c);
        return rc;
    }
    rc = be->stream_create(c->be_ctx, 0, 0, &c->deflt);
    if (rc == ACL_SUCCESS && api_obj_add(c->be_ctx, API_OBJ_CONTEXT, dev, c) != 0) {
        be->stream_destroy(c->deflt);
        rc = ACL_ERROR_BAD_ALLOC;
    }
    if (rc != ACL_SUCCESS) {
        be->ctx_destroy(c->be_ctx);
        base_free(c);
        return rc;
    }
    *out = c;
    return ACL_SUCCESS;
}

/* Destroy a context, its streams and default stream. pre: lock. */
static void ctx_free(struct api_ctx *c)
{
    const struct be_ops *be = be_get();
    api_ctx_drop_streams(c);
    be->stream_destroy(c->deflt);
    api_obj_remove(c->be_ctx);
    be->ctx_destroy(c->be_ctx);
    if (c->primary)
        devs[c->device].primary = NULL;
    else
        devs[c->device].user_ctxs--;
    if (tls_ctx == c->be_ctx)
        tls_ctx = NULL;
    atomic_fetch_add_explicit(&ctx_epoch, 1, memory_order_release);
    base_free(c);
}

static aclError check_device(int32_t dev)
{
    uint32_t n = 0;
    be_get()->device_count(&n);
    if (dev < 0 || (uint32_t)dev >= n || dev >= MAX_DEVICES) {
        api_report(API_MSG_EE1001,
                   "The argument is invalid.Reason: invalid device id %d, valid range is [0, %u).",
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
    bool open = devs[dev].open;
    api_unlock();
    if (!open) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, device %d is not "
                   "set; call aclrtSetDevice first.", func, (int)dev);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

/* Open a device if it is not. pre: lock, dev valid. */
static aclError open_locked(int32_t dev)
{
    if (devs[dev].open)
        return ACL_SUCCESS;
    aclError rc = be_get()->device_open(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    devs[dev].open = true;
    return ACL_SUCCESS;
}

static void release_ctx(void *h)
{
    struct api_ctx *c;
    if (api_obj_find(h, NULL, &c) == API_OBJ_CONTEXT)
        ctx_free(c);
}

static void release_event(void *h)
{
    api_obj_remove(h);
    be_get()->event_destroy(h);
}

/* Close a device once nothing keeps it open (or always when forced). */
static void close_locked(int32_t dev, bool force)
{
    if (!devs[dev].open)
        return;
    if (force) {
        api_obj_drain(API_OBJ_CONTEXT, dev, NULL, release_ctx);
        devs[dev].refs = 0;
    }
    if (devs[dev].refs > 0 || devs[dev].user_ctxs > 0 || devs[dev].primary)
        return;
    /* Events left on the device go with it (the leak report named them). */
    api_obj_drain(API_OBJ_EVENT, dev, NULL, release_event);
    be_get()->device_close(dev);
    devs[dev].open = false;
}

static void close_all_locked(void)
{
    for (int32_t d = 0; d < MAX_DEVICES; d++)
        close_locked(d, true);
}

aclError api_current_ctx(const char *func, struct api_ctx **out)
{
    if (tls_cached && tls_epoch == atomic_load_explicit(&ctx_epoch, memory_order_acquire)) {
        *out = tls_cached;
        return ACL_SUCCESS;
    }
    api_lock();
    unsigned long epoch = atomic_load_explicit(&ctx_epoch, memory_order_acquire);
    struct api_ctx *c = NULL;
    if (tls_ctx && api_obj_find(tls_ctx, NULL, &c) != API_OBJ_CONTEXT)
        c = NULL;
    api_unlock();
    tls_cached = c;
    tls_epoch = epoch;
    if (!c) {
        api_report(API_MSG_EE1001,
                   "The argument is invalid.Reason: %s failed, the current thread has no "
                   "context; call aclrtSetDevice or aclrtSetCurrentContext first.",
                   func);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *out = c;
    return ACL_SUCCESS;
}

static void set_current(struct api_ctx *c)
{
    tls_ctx = c ? c->be_ctx : NULL;
    tls_cached = NULL;
    if (be_get()->ctx_set_current)
        be_get()->ctx_set_current(tls_ctx);
}

/* ---- Devices ---- */

API_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetDeviceCount");
    if (!count)
        return api_err_null("aclrtGetDeviceCount", "count");
    return be_get()->device_count(count);
}

API_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    API_FAULT(ACL_RT_SET_DEVICE, "aclrtSetDevice");
    aclError rc = check_device(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    api_lock();
    rc = open_locked(deviceId);
    if (rc == ACL_SUCCESS && !devs[deviceId].primary) {
        rc = ctx_new(deviceId, true, &devs[deviceId].primary);
        if (rc != ACL_SUCCESS)
            close_locked(deviceId, false);
    }
    if (rc == ACL_SUCCESS) {
        devs[deviceId].refs++;
        set_current(devs[deviceId].primary);
    }
    api_unlock();
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "open device %d failed, runtime result = %d.", (int)deviceId,
                   rc);
    return rc;
}

static aclError reset(int32_t dev, bool force)
{
    aclError rc = check_device(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    api_lock();
    /* Report what the program left before this reset releases it. */
    if (devs[dev].open && (force || (devs[dev].refs == 1 && devs[dev].user_ctxs == 0))) {
        char where[64];
        snprintf(where, sizeof where, "%s(%d)",
                 force ? "aclrtResetDeviceForce" : "aclrtResetDevice", (int)dev);
        api_leaks_device(dev, where);
    }
    if (devs[dev].open && !force && devs[dev].refs > 0 && --devs[dev].refs == 0 &&
        devs[dev].primary)
        ctx_free(devs[dev].primary);
    close_locked(dev, force);
    api_unlock();
    return ACL_SUCCESS;
}

API_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    API_FAULT(ACL_RT_RESET_DEVICE, "aclrtResetDevice");
    return reset(deviceId, false);
}

API_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    API_FAULT(ACL_RT_RESET_DEVICE, "aclrtResetDeviceForce");
    return reset(deviceId, true);
}

API_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
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

API_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetRunMode");
    if (!runMode)
        return api_err_null("aclrtGetRunMode", "runMode");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

API_EXPORT const char *aclrtGetSocName(void)
{
    if (FLT_HIT(ACL_RT_GET_DEVICE)) {
        api_fault(FLT_ACL_RT_GET_DEVICE, "aclrtGetSocName");
        return NULL;
    }
    struct api_ctx *c;
    if (api_current_ctx("aclrtGetSocName", &c) != ACL_SUCCESS)
        return NULL;
    return be_get()->soc_name(c->device);
}

API_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    API_FAULT(ACL_RT_CREATE_CONTEXT, "aclrtCreateContext");
    if (!context)
        return api_err_null("aclrtCreateContext", "context");
    aclError rc = check_device(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_ctx *c = NULL;
    api_lock();
    rc = open_locked(deviceId);
    if (rc == ACL_SUCCESS) {
        rc = ctx_new(deviceId, false, &c);
        if (rc == ACL_SUCCESS) {
            devs[deviceId].user_ctxs++;
            set_current(c);
            *context = c->be_ctx;
        } else {
            close_locked(deviceId, false);
        }
    }
    api_unlock();
    return rc;
}

/* The context behind a user handle, or NULL with EH0012 queued. pre: lock. */
static struct api_ctx *ctx_of(const char *func, aclrtContext h)
{
    struct api_ctx *c;
    if (api_obj_find(h, NULL, &c) == API_OBJ_CONTEXT)
        return c;
    api_report(API_MSG_EH0012,
               "%s failed. Parameter context is invalid. Reason: it is not a live context.", func);
    return NULL;
}

API_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    static const char fn[] = "aclrtDestroyContext";
    API_FAULT(ACL_RT_DESTROY_CONTEXT, fn);
    if (!context)
        return api_err_null(fn, "context");
    api_lock();
    struct api_ctx *c = ctx_of(fn, context);
    aclError rc = ACL_ERROR_INVALID_PARAM;
    if (c && c->primary) {
        api_report(API_MSG_EH0012,
                   "%s failed. Parameter context is invalid. Reason: the default context of a "
                   "device is released by aclrtResetDevice.",
                   fn);
    } else if (c) {
        int32_t dev = c->device;
        ctx_free(c);
        close_locked(dev, false);
        rc = ACL_SUCCESS;
    }
    api_unlock();
    return rc;
}

API_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    static const char fn[] = "aclrtSetCurrentContext";
    API_FAULT(ACL_RT_CURRENT_CONTEXT, fn);
    if (!context)
        return api_err_null(fn, "context");
    api_lock();
    struct api_ctx *c = ctx_of(fn, context);
    if (c)
        set_current(c);
    api_unlock();
    return c ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

API_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
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
