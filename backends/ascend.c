/*
 * ascend.c - the Ascend backend: struct be_ops over the real libascendcl.so
 * of a CANN install.
 *
 * The real library exports the same acl* names as ours, so it is loaded in
 * a namespace of its own (dlmopen(LM_ID_NEWLM)): its symbols can neither
 * shadow nor be shadowed by ours. Which install: ASCEND_INSTALL_PATH at run
 * time, else the one scons hw=ascend was configured with
 * (ACLSIM_ASCEND_DEFAULT). Contexts, streams, events and device pointers
 * are the real runtime's, passed through untouched, so user code can hand
 * them to other CANN libraries; allocator registrations are forwarded so
 * the real runtime's own consumers see them. The ACL layer above still
 * checks every argument and writes CANN's messages; what the real runtime
 * adds when a forwarded call fails is handed up by take_message.
 *
 * Not available here: simulated clocks, leak walks of device memory,
 * fault points inside the device (those are the simulator's).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "base/options.h"
#include "be.h"

#ifndef ACLSIM_ASCEND_DEFAULT
#define ACLSIM_ASCEND_DEFAULT ""
#endif

/* The real entry points we forward to, X(name, return type, parameters). */
#define REAL_FUNCS(X)                                                                        \
    X(aclInit, aclError, (const char *))                                                     \
    X(aclFinalize, aclError, (void))                                                         \
    X(aclGetRecentErrMsg, const char *, (void))                                              \
    X(aclrtGetDeviceCount, aclError, (uint32_t *))                                           \
    X(aclrtSetDevice, aclError, (int32_t))                                                   \
    X(aclrtResetDevice, aclError, (int32_t))                                                 \
    X(aclrtGetSocName, const char *, (void))                                                 \
    X(aclrtCreateContext, aclError, (aclrtContext *, int32_t))                               \
    X(aclrtDestroyContext, aclError, (aclrtContext))                                         \
    X(aclrtSetCurrentContext, aclError, (aclrtContext))                                      \
    X(aclrtCreateStreamWithConfig, aclError, (aclrtStream *, uint32_t, uint32_t))            \
    X(aclrtDestroyStream, aclError, (aclrtStream))                                           \
    X(aclrtSynchronizeStreamWithTimeout, aclError, (aclrtStream, int32_t))                   \
    X(aclrtStreamQuery, aclError, (aclrtStream, aclrtStreamStatus *))                        \
    X(aclrtSynchronizeDevice, aclError, (void))                                              \
    X(aclrtCreateEventWithFlag, aclError, (aclrtEvent *, uint32_t))                          \
    X(aclrtDestroyEvent, aclError, (aclrtEvent))                                             \
    X(aclrtRecordEvent, aclError, (aclrtEvent, aclrtStream))                                 \
    X(aclrtResetEvent, aclError, (aclrtEvent, aclrtStream))                                  \
    X(aclrtStreamWaitEvent, aclError, (aclrtStream, aclrtEvent))                             \
    X(aclrtSynchronizeEvent, aclError, (aclrtEvent))                                         \
    X(aclrtQueryEventStatus, aclError, (aclrtEvent, aclrtEventRecordedStatus *))             \
    X(aclrtEventElapsedTime, aclError, (float *, aclrtEvent, aclrtEvent))                    \
    X(aclrtMalloc, aclError, (void **, size_t, aclrtMemMallocPolicy))                        \
    X(aclrtMallocAlign32, aclError, (void **, size_t, aclrtMemMallocPolicy))                 \
    X(aclrtFree, aclError, (void *))                                                         \
    X(aclrtMallocHost, aclError, (void **, size_t))                                          \
    X(aclrtFreeHost, aclError, (void *))                                                     \
    X(aclrtPointerGetAttributes, aclError, (const void *, aclrtPtrAttributes *))             \
    X(aclrtMemcpy, aclError, (void *, size_t, const void *, size_t, aclrtMemcpyKind))        \
    X(aclrtMemcpyAsync, aclError,                                                            \
      (void *, size_t, const void *, size_t, aclrtMemcpyKind, aclrtStream))                  \
    X(aclrtMemset, aclError, (void *, size_t, int32_t, size_t))                              \
    X(aclrtMemsetAsync, aclError, (void *, size_t, int32_t, size_t, aclrtStream))            \
    X(aclrtGetMemInfo, aclError, (aclrtMemAttr, size_t *, size_t *))                         \
    X(aclrtAllocatorCreateDesc, aclrtAllocatorDesc, (void))                                  \
    X(aclrtAllocatorDestroyDesc, aclError, (aclrtAllocatorDesc))                             \
    X(aclrtAllocatorSetObjToDesc, aclError, (aclrtAllocatorDesc, aclrtAllocator))            \
    X(aclrtAllocatorSetAllocFuncToDesc, aclError, (aclrtAllocatorDesc, aclrtAllocatorAllocFunc)) \
    X(aclrtAllocatorSetFreeFuncToDesc, aclError, (aclrtAllocatorDesc, aclrtAllocatorFreeFunc)) \
    X(aclrtAllocatorSetAllocAdviseFuncToDesc, aclError,                                      \
      (aclrtAllocatorDesc, aclrtAllocatorAllocAdviseFunc))                                   \
    X(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclError,                                 \
      (aclrtAllocatorDesc, aclrtAllocatorGetAddrFromBlockFunc))                              \
    X(aclrtAllocatorRegister, aclError, (aclrtStream, aclrtAllocatorDesc))                   \
    X(aclrtAllocatorUnregister, aclError, (aclrtStream))

static struct {
#define FIELD(name, ret, params) ret(*name) params;
    REAL_FUNCS(FIELD)
#undef FIELD
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;
static char lib_path[4096];
static char load_error[512];

/* Load the real library in its own namespace and resolve every entry. */
static void load(void)
{
    const char *root = opt_str(OPT_ASCEND_INSTALL_PATH);
    if (!root)
        root = ACLSIM_ASCEND_DEFAULT;
    if (!*root) {
        snprintf(load_error, sizeof load_error,
                 "no CANN install: set ASCEND_INSTALL_PATH to the CANN directory");
        return;
    }
    snprintf(lib_path, sizeof lib_path, "%s/lib64/libascendcl.so", root);
    /* An aclsim library loaded as the real runtime (the loopback) finds
     * itself in a namespace of its own and stays quiet about itself: no
     * banner, faults or differential mode (base/options.c, opt_nested). */
    lib = dlmopen(LM_ID_NEWLM, lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", lib_path, dlerror());
        return;
    }
    /* Refuse to stack aclsim's ascend backend on itself. */
    const char *(*name)(void);
    *(void **)&name = dlsym(lib, "aclsim_backend_name"); /* POSIX's way round ISO C */
    if (name && strcmp(name(), "ascend") == 0) {
        snprintf(load_error, sizeof load_error,
                 "%s is aclsim's own ascend backend; ASCEND_INSTALL_PATH must name a real CANN "
                 "install (or aclsim's simulator tree, build/sim/cann)", lib_path);
        dlclose(lib);
        lib = NULL;
        return;
    }
#define RESOLVE(sym, ret, params)                                                             \
    if (!(*(void **)&real.sym = dlsym(lib, #sym))) {                                         \
        snprintf(load_error, sizeof load_error, "%s has no %s", lib_path, #sym);             \
        dlclose(lib);                                                                        \
        lib = NULL;                                                                          \
        return;                                                                              \
    }
    REAL_FUNCS(RESOLVE)
#undef RESOLVE
}

static int loaded(void)
{
    pthread_once(&once, load);
    return lib != NULL;
}

/* The real runtime's message for its last failure in this thread. */
static _Thread_local char last_msg[1024];

static aclError keep(aclError rc)
{
    if (rc != ACL_SUCCESS) {
        const char *m = real.aclGetRecentErrMsg();
        snprintf(last_msg, sizeof last_msg, "%s", m ? m : "");
    }
    return rc;
}

static const char *take_message(void)
{
    static _Thread_local char out[1024];
    if (!last_msg[0])
        return NULL;
    snprintf(out, sizeof out, "%s", last_msg);
    last_msg[0] = '\0';
    return out;
}

/* ---- Process, devices, contexts ---- */

static aclError init(const char **why)
{
    if (!loaded()) {
        *why = load_error;
        return ACL_ERROR_RT_NO_DEVICE;
    }
    aclError rc = real.aclInit(NULL);
    return rc == ACL_ERROR_REPEAT_INITIALIZE ? ACL_SUCCESS : keep(rc);
}

static void fini(void)
{
    if (lib)
        real.aclFinalize();
}

static aclError device_count(uint32_t *count)
{
    if (!loaded())
        return ACL_ERROR_RT_NO_DEVICE;
    return keep(real.aclrtGetDeviceCount(count));
}

static aclError device_open(int32_t dev)
{
    return keep(real.aclrtSetDevice(dev));
}

static void device_close(int32_t dev)
{
    real.aclrtResetDevice(dev);
}

static const char *soc_name(int32_t dev)
{
    (void)dev;
    return real.aclrtGetSocName();
}

/* The context this thread's calls run in, as the ACL layer last set it. */
static _Thread_local void *current;

static aclError ctx_create(int32_t dev, void **ctx)
{
    aclError rc = keep(real.aclrtCreateContext(ctx, dev));
    /* The real call made the new context current; the ACL layer decides. */
    if (current)
        real.aclrtSetCurrentContext(current);
    return rc;
}

static void ctx_destroy(void *ctx)
{
    real.aclrtDestroyContext(ctx);
    if (ctx == current)
        current = NULL;
}

static void ctx_set_current(void *ctx)
{
    current = ctx;
    if (ctx && loaded())
        real.aclrtSetCurrentContext(ctx);
}

/* ---- Streams and events ---- */

static aclError stream_create(void *ctx, uint32_t priority, uint32_t flags, void **stream)
{
    if (ctx != current)
        real.aclrtSetCurrentContext(ctx);
    aclError rc = keep(real.aclrtCreateStreamWithConfig(stream, priority, flags));
    if (ctx != current && current)
        real.aclrtSetCurrentContext(current);
    return rc;
}

static aclError stream_destroy(void *s)
{
    return keep(real.aclrtDestroyStream(s));
}

static aclError stream_sync(void *s, int32_t timeout_ms)
{
    return keep(real.aclrtSynchronizeStreamWithTimeout(s, timeout_ms));
}

static aclError stream_query(void *s, int *done)
{
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    aclError rc = keep(real.aclrtStreamQuery(s, &st));
    *done = st == ACL_STREAM_STATUS_COMPLETE;
    return rc;
}

static aclError device_sync(int32_t dev)
{
    (void)dev; /* the current context's device, as the ACL layer set it */
    return keep(real.aclrtSynchronizeDevice());
}

static aclError event_create(int32_t dev, uint32_t flags, void **event)
{
    (void)dev;
    return keep(real.aclrtCreateEventWithFlag(event, flags));
}

static aclError event_destroy(void *e)
{
    return keep(real.aclrtDestroyEvent(e));
}

static aclError event_record(void *e, void *s)
{
    return keep(real.aclrtRecordEvent(e, s));
}

static aclError event_reset(void *e, void *s)
{
    return keep(real.aclrtResetEvent(e, s));
}

static aclError event_wait(void *s, void *e)
{
    return keep(real.aclrtStreamWaitEvent(s, e));
}

static aclError event_sync(void *e, int32_t timeout_ms)
{
    (void)timeout_ms; /* the ACL layer only asks for an unbounded wait */
    return keep(real.aclrtSynchronizeEvent(e));
}

static aclError event_query(void *e, int *done)
{
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclError rc = keep(real.aclrtQueryEventStatus(e, &st));
    *done = st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
    return rc;
}

static aclError event_elapsed(void *a, void *b, float *ms)
{
    return keep(real.aclrtEventElapsedTime(ms, a, b));
}

/* ---- Memory ---- */

static aclError mem_alloc(int32_t dev, size_t size, aclrtMemMallocPolicy policy, unsigned flags,
                          void **ptr)
{
    (void)dev;
    return keep(flags & BE_ALLOC_NO_PAD ? real.aclrtMallocAlign32(ptr, size, policy)
                                        : real.aclrtMalloc(ptr, size, policy));
}

static aclError mem_free(void *ptr)
{
    /* The real runtime tells a bad pointer from a good one itself. */
    aclError rc = keep(real.aclrtFree(ptr));
    return rc == ACL_SUCCESS ? rc : ACL_ERROR_RT_MEMORY_FREE;
}

static aclError host_alloc(size_t size, void **ptr)
{
    return keep(real.aclrtMallocHost(ptr, size));
}

static aclError host_free(void *ptr)
{
    return keep(real.aclrtFreeHost(ptr));
}

/* The real runtime knows where a pointer lives but not its block's extent:
 * size 0 tells the ACL layer to skip its bounds checks. */
static void lookup(const void *ptr, struct be_ptr_info *info)
{
    aclrtPtrAttributes a;
    *info = (struct be_ptr_info){.kind = BE_PTR_UNKNOWN, .device = -1};
    if (!lib || real.aclrtPointerGetAttributes(ptr, &a) != ACL_SUCCESS) {
        (void)real.aclGetRecentErrMsg();
        return;
    }
    if (a.location.type == ACL_MEM_LOCATION_TYPE_DEVICE)
        *info = (struct be_ptr_info){BE_PTR_DEVICE, (int32_t)a.location.id, (void *)ptr, 0,
                                     a.pageSize};
    else if (a.location.type == ACL_MEM_LOCATION_TYPE_HOST)
        *info = (struct be_ptr_info){BE_PTR_HOST_PINNED, -1, (void *)ptr, 0, a.pageSize};
}

static aclError mem_copy(int32_t dev, void *stream, void *dst, const void *src, size_t count,
                         aclrtMemcpyKind kind, int host_waits)
{
    (void)dev, (void)host_waits; /* the real runtime decides when it returns */
    return keep(stream ? real.aclrtMemcpyAsync(dst, count, src, count, kind, stream)
                       : real.aclrtMemcpy(dst, count, src, count, kind));
}

static aclError mem_set(int32_t dev, void *stream, void *dst, int dst_dev, int value,
                        size_t count, int host_waits)
{
    (void)dev, (void)dst_dev, (void)host_waits;
    return keep(stream ? real.aclrtMemsetAsync(dst, count, value, count, stream)
                       : real.aclrtMemset(dst, count, value, count));
}

static aclError mem_info(int32_t dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    (void)dev;
    return keep(real.aclrtGetMemInfo(attr, free_bytes, total));
}

static size_t mem_usage(int32_t dev, struct be_usage *out, size_t max)
{
    (void)dev, (void)out, (void)max;
    return 0; /* not forwarded: the real call's module names are its own */
}

/* ---- Allocator registrations, mirrored in the real runtime ---- */

struct mirror {
    struct mirror *next;
    void *stream;
    aclrtAllocatorDesc desc; /* the real runtime's desc */
};

static pthread_mutex_t mirror_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mirror *mirrors;

static void drop_mirror(void *stream)
{
    pthread_mutex_lock(&mirror_lock);
    for (struct mirror **p = &mirrors; *p; p = &(*p)->next) {
        if ((*p)->stream == stream) {
            struct mirror *m = *p;
            *p = m->next;
            real.aclrtAllocatorUnregister(stream);
            real.aclrtAllocatorDestroyDesc(m->desc);
            base_free(m);
            break;
        }
    }
    pthread_mutex_unlock(&mirror_lock);
}

static void alloc_register(void *stream, const void *obj, void *alloc, void *freef, void *advise,
                           void *get_addr)
{
    if (!loaded())
        return; /* nothing to mirror into */
    drop_mirror(stream);
    struct mirror *m = base_malloc(sizeof *m);
    aclrtAllocatorDesc d = real.aclrtAllocatorCreateDesc();
    if (!m || !d) {
        base_free(m);
        if (d)
            real.aclrtAllocatorDestroyDesc(d);
        return;
    }
    real.aclrtAllocatorSetObjToDesc(d, (aclrtAllocator)obj);
    real.aclrtAllocatorSetAllocFuncToDesc(d, (aclrtAllocatorAllocFunc)(uintptr_t)alloc);
    real.aclrtAllocatorSetFreeFuncToDesc(d, (aclrtAllocatorFreeFunc)(uintptr_t)freef);
    if (advise)
        real.aclrtAllocatorSetAllocAdviseFuncToDesc(
            d, (aclrtAllocatorAllocAdviseFunc)(uintptr_t)advise);
    real.aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
        d, (aclrtAllocatorGetAddrFromBlockFunc)(uintptr_t)get_addr);
    if (real.aclrtAllocatorRegister(stream, d) != ACL_SUCCESS) {
        (void)real.aclGetRecentErrMsg();
        real.aclrtAllocatorDestroyDesc(d);
        base_free(m);
        return;
    }
    pthread_mutex_lock(&mirror_lock);
    *m = (struct mirror){mirrors, stream, d};
    mirrors = m;
    pthread_mutex_unlock(&mirror_lock);
}

static void alloc_unregister(void *stream)
{
    if (loaded())
        drop_mirror(stream);
}

typedef void (*any_fn)(void);

static any_fn real_sym(const char *name)
{
    any_fn f = NULL;
    if (loaded())
        *(void **)&f = dlsym(lib, name); /* POSIX's way round ISO C */
    return f;
}

static void describe(char *buf, size_t len)
{
    if (loaded())
        snprintf(buf, len, "ascend (real runtime %s)", lib_path);
    else
        snprintf(buf, len, "ascend (not loaded: %s)", load_error);
}

static const struct be_bridge bridge = {
    .real_sym = real_sym,
    .take_message = take_message,
    .alloc_register = alloc_register,
    .alloc_unregister = alloc_unregister,
};

static const struct be_ops ops = {
    .name = "ascend",
    .init = init,
    .fini = fini,
    .device_count = device_count,
    .device_open = device_open,
    .device_close = device_close,
    .soc_name = soc_name,
    .ctx_create = ctx_create,
    .ctx_destroy = ctx_destroy,
    .ctx_set_current = ctx_set_current,
    .stream_create = stream_create,
    .stream_destroy = stream_destroy,
    .stream_sync = stream_sync,
    .stream_query = stream_query,
    .device_sync = device_sync,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_reset = event_reset,
    .event_wait = event_wait,
    .event_sync = event_sync,
    .event_query = event_query,
    .event_elapsed = event_elapsed,
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .lookup = lookup,
    .memcpy = mem_copy,
    .memset = mem_set,
    .mem_info = mem_info,
    .mem_usage = mem_usage,
    .describe = describe,
    .bridge = &bridge,
};

const struct be_ops *be_get(void)
{
    return &ops;
}
