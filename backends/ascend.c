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
 * The aclnn calls go to the install's own libnnopbase.so and libopapi.so
 * (and the per-package libopapi_*.so), loaded into the same namespace.
 *
 * Not available here: simulated clocks, leak walks of device memory,
 * fault points inside the device (those are the simulator's).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mem.h"
#include "base/options.h"
#include "acl/ops/acl_dvpp.h"
#include "api/abi/calls.h"
#include "be.h"

#ifndef ACLSIM_ASCEND_DEFAULT
#define ACLSIM_ASCEND_DEFAULT ""
#endif

/* The real runtime's entry points, one per catalogued call (api/abi/calls.def),
 * resolved when the library loads; NULL where the real runtime lacks one.
 * REAL(name) is the entry typed as our header declares it. */
typedef void (*any_fn)(void);
static any_fn table[API_CALL_COUNT];
static const char *const names[API_CALL_COUNT] = {
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) #name,
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
};
#define REAL(name) ((__typeof__(&name))table[API_CALL_##name])

/* The entries this backend's own operations use: a runtime without one of
 * them cannot be driven at all. */
#define REQUIRED(X) \
    X(aclInit) \
    X(aclFinalize) \
    X(aclGetRecentErrMsg) \
    X(aclrtGetDeviceCount) \
    X(aclrtSetDevice) \
    X(aclrtResetDevice) \
    X(aclrtGetSocName) \
    X(aclrtCreateContext) \
    X(aclrtDestroyContext) \
    X(aclrtSetCurrentContext) \
    X(aclrtCreateStreamWithConfig) \
    X(aclrtDestroyStream) \
    X(aclrtSynchronizeStreamWithTimeout) \
    X(aclrtStreamQuery) \
    X(aclrtSynchronizeDevice) \
    X(aclrtCreateEventWithFlag) \
    X(aclrtDestroyEvent) \
    X(aclrtRecordEvent) \
    X(aclrtResetEvent) \
    X(aclrtStreamWaitEvent) \
    X(aclrtSynchronizeEvent) \
    X(aclrtQueryEventStatus) \
    X(aclrtEventElapsedTime) \
    X(aclrtMalloc) \
    X(aclrtMallocAlign32) \
    X(aclrtFree) \
    X(aclrtMallocHost) \
    X(aclrtFreeHost) \
    X(aclrtPointerGetAttributes) \
    X(aclrtMemcpy) \
    X(aclrtMemcpyAsync) \
    X(aclrtMemset) \
    X(aclrtMemsetAsync) \
    X(aclrtGetMemInfo) \
    X(aclrtAllocatorCreateDesc) \
    X(aclrtAllocatorDestroyDesc) \
    X(aclrtAllocatorSetObjToDesc) \
    X(aclrtAllocatorSetAllocFuncToDesc) \
    X(aclrtAllocatorSetFreeFuncToDesc) \
    X(aclrtAllocatorSetAllocAdviseFuncToDesc) \
    X(aclrtAllocatorSetGetAddrFromBlockFuncToDesc) \
    X(aclrtAllocatorRegister) \
    X(aclrtAllocatorUnregister)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;
/* The aclnn libraries of the install (nnopbase's objects, the operator
 * packages), its operator compiler's and DVPP's, loaded into the real
 * runtime's namespace: the catalogue's aclnn, aclop compile and acldvpp
 * calls resolve there (a name the runtime lacks is looked up in each in
 * turn; a library the install lacks is skipped). */
static const char *const nn_libs[] = {"lib64/libnnopbase.so", "lib64/libopapi.so",
                                      "lib64/libopapi_math.so", "lib64/libopapi_nn.so",
                                      "lib64/libopapi_transformer.so", "lib64/libopapi_cv.so",
                                      "lib64/libacl_op_compiler.so", "lib64/libacl_dvpp.so"};
#define N_NN_LIBS (sizeof nn_libs / sizeof nn_libs[0])
static void *nn_lib[N_NN_LIBS];

/* Load the aclnn libraries root has beside the runtime, in its namespace. */
static void load_nn(const char *root)
{
    Lmid_t lmid;
    if (dlinfo(lib, RTLD_DI_LMID, &lmid) != 0)
        return;
    for (size_t i = 0; i < N_NN_LIBS; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", root, nn_libs[i]);
        if (access(p, R_OK) == 0)
            nn_lib[i] = dlmopen(lmid, p, RTLD_NOW | RTLD_LOCAL);
    }
}

/* name in the runtime, else in the aclnn libraries. */
static void *resolve(const char *name)
{
    void *f = dlsym(lib, name);
    for (size_t i = 0; !f && i < N_NN_LIBS; i++)
        if (nn_lib[i])
            f = dlsym(nn_lib[i], name);
    return f;
}
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
    /* Where CANN installs keep the runtime, older layouts and newer names
     * alike; the first that exists is loaded (a libascendcl.so that depends
     * on libacl_rt.so brings it along, and lookups search both). */
    static const char *const candidates[] = {
        "lib64/libascendcl.so", "lib64/libacl_rt.so", "runtime/lib64/libascendcl.so",
        "runtime/lib64/libacl_rt.so", "acllib/lib64/libascendcl.so",
    };
    snprintf(lib_path, sizeof lib_path, "%s/%s", root, candidates[0]);
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        char p[sizeof lib_path];
        snprintf(p, sizeof p, "%s/%s", root, candidates[i]);
        if (access(p, R_OK) == 0) {
            snprintf(lib_path, sizeof lib_path, "%s", p);
            break;
        }
    }
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
    load_nn(root);
    for (int i = 0; i < API_CALL_COUNT; i++)
        *(void **)&table[i] = resolve(names[i]); /* POSIX's way round ISO C */
#define CHECK(sym)                                                                           \
    if (!table[API_CALL_##sym]) {                                                            \
        snprintf(load_error, sizeof load_error, "%s has no %s", lib_path, #sym);             \
        for (size_t i_ = 0; i_ < N_NN_LIBS; i_++)                                            \
            if (nn_lib[i_])                                                                  \
                dlclose(nn_lib[i_]);                                                         \
        dlclose(lib);                                                                        \
        lib = NULL;                                                                          \
        return;                                                                              \
    }
    REQUIRED(CHECK)
#undef CHECK
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
        const char *m = REAL(aclGetRecentErrMsg)();
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
    aclError rc = REAL(aclInit)(NULL);
    return rc == ACL_ERROR_REPEAT_INITIALIZE ? ACL_SUCCESS : keep(rc);
}

static void fini(void)
{
    if (lib)
        REAL(aclFinalize)();
}

static aclError device_count(uint32_t *count)
{
    if (!loaded())
        return ACL_ERROR_RT_NO_DEVICE;
    return keep(REAL(aclrtGetDeviceCount)(count));
}

static aclError device_open(int32_t dev)
{
    return keep(REAL(aclrtSetDevice)(dev));
}

static void device_close(int32_t dev)
{
    REAL(aclrtResetDevice)(dev);
}

static const char *soc_name(int32_t dev)
{
    (void)dev;
    /* asked before aclInit too: load the runtime if need be */
    return loaded() ? REAL(aclrtGetSocName)() : NULL;
}

/* The context this thread's calls run in, as the ACL layer last set it. */
static _Thread_local void *current;

static aclError ctx_create(int32_t dev, void **ctx)
{
    aclError rc = keep(REAL(aclrtCreateContext)(ctx, dev));
    /* The real call made the new context current; the ACL layer decides. */
    if (current)
        REAL(aclrtSetCurrentContext)(current);
    return rc;
}

static void ctx_destroy(void *ctx)
{
    REAL(aclrtDestroyContext)(ctx);
    if (ctx == current)
        current = NULL;
}

static void ctx_set_current(void *ctx)
{
    current = ctx;
    if (ctx && loaded())
        REAL(aclrtSetCurrentContext)(ctx);
}

/* ---- Streams and events ---- */

static aclError stream_create(void *ctx, uint32_t priority, uint32_t flags, void **stream)
{
    if (ctx != current)
        REAL(aclrtSetCurrentContext)(ctx);
    aclError rc = keep(REAL(aclrtCreateStreamWithConfig)(stream, priority, flags));
    if (ctx != current && current)
        REAL(aclrtSetCurrentContext)(current);
    return rc;
}

static aclError stream_destroy(void *s)
{
    return keep(REAL(aclrtDestroyStream)(s));
}

static aclError stream_sync(void *s, int32_t timeout_ms)
{
    return keep(REAL(aclrtSynchronizeStreamWithTimeout)(s, timeout_ms));
}

static aclError stream_query(void *s, int *done)
{
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    aclError rc = keep(REAL(aclrtStreamQuery)(s, &st));
    *done = st == ACL_STREAM_STATUS_COMPLETE;
    return rc;
}

static aclError ctx_sync(void *ctx, void *const *streams, size_t n, int32_t timeout_ms)
{
    (void)ctx, (void)streams, (void)n; /* the current context, as the ACL layer set it */
    if (timeout_ms >= 0)
        return keep(REAL(aclrtSynchronizeDeviceWithTimeout)(timeout_ms));
    return keep(REAL(aclrtSynchronizeDevice)());
}

static aclError event_create(int32_t dev, uint32_t flags, void **event)
{
    (void)dev;
    if (flags & ACL_EVENT_IPC) /* only the Ex call makes IPC events */
        return keep(table[API_CALL_aclrtCreateEventExWithFlag]
                        ? REAL(aclrtCreateEventExWithFlag)(event, flags)
                        : ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    return keep(REAL(aclrtCreateEventWithFlag)(event, flags));
}

static aclError event_destroy(void *e)
{
    return keep(REAL(aclrtDestroyEvent)(e));
}

static aclError event_record(void *e, void *s)
{
    return keep(REAL(aclrtRecordEvent)(e, s));
}

static aclError event_reset(void *e, void *s)
{
    return keep(REAL(aclrtResetEvent)(e, s));
}

static aclError event_wait(void *s, void *e)
{
    return keep(REAL(aclrtStreamWaitEvent)(s, e));
}

static aclError event_sync(void *e, int32_t timeout_ms)
{
    (void)timeout_ms; /* the ACL layer only asks for an unbounded wait */
    return keep(REAL(aclrtSynchronizeEvent)(e));
}

static aclError event_query(void *e, int *done)
{
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclError rc = keep(REAL(aclrtQueryEventStatus)(e, &st));
    *done = st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
    return rc;
}

static aclError event_elapsed(void *a, void *b, float *ms)
{
    return keep(REAL(aclrtEventElapsedTime)(ms, a, b));
}

/* ---- Memory ---- */

static aclError mem_alloc(int32_t dev, size_t size, aclrtMemMallocPolicy policy, unsigned flags,
                          void **ptr)
{
    (void)dev;
    if (flags & BE_ALLOC_DVPP)
        return REAL(acldvppMalloc) ? keep(REAL(acldvppMalloc)(ptr, size))
                                   : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return keep(flags & BE_ALLOC_NO_PAD ? REAL(aclrtMallocAlign32)(ptr, size, policy)
                                        : REAL(aclrtMalloc)(ptr, size, policy));
}

static aclError mem_free(void *ptr)
{
    /* The real runtime tells a bad pointer from a good one itself. */
    aclError rc = keep(REAL(aclrtFree)(ptr));
    return rc == ACL_SUCCESS ? rc : ACL_ERROR_RT_MEMORY_FREE;
}

static aclError dvpp_free(void *ptr)
{
    aclError rc = REAL(acldvppFree) ? keep(REAL(acldvppFree)(ptr)) : ACL_ERROR_RT_MEMORY_FREE;
    return rc == ACL_SUCCESS ? rc : ACL_ERROR_RT_MEMORY_FREE;
}

static aclError host_alloc(size_t size, void **ptr)
{
    return keep(REAL(aclrtMallocHost)(ptr, size));
}

static aclError host_free(void *ptr)
{
    return keep(REAL(aclrtFreeHost)(ptr));
}

/* The real runtime knows where a pointer lives but not its block's extent:
 * size 0 tells the ACL layer to skip its bounds checks. */
static void lookup(const void *ptr, struct be_ptr_info *info)
{
    aclrtPtrAttributes a;
    *info = (struct be_ptr_info){.kind = BE_PTR_UNKNOWN, .device = -1};
    if (!lib || REAL(aclrtPointerGetAttributes)(ptr, &a) != ACL_SUCCESS) {
        (void)REAL(aclGetRecentErrMsg)();
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
    return keep(stream ? REAL(aclrtMemcpyAsync)(dst, count, src, count, kind, stream)
                       : REAL(aclrtMemcpy)(dst, count, src, count, kind));
}

static aclError mem_set(int32_t dev, void *stream, void *dst, int dst_dev, int value,
                        size_t count, int host_waits)
{
    (void)dev, (void)dst_dev, (void)host_waits;
    return keep(stream ? REAL(aclrtMemsetAsync)(dst, count, value, count, stream)
                       : REAL(aclrtMemset)(dst, count, value, count));
}

static aclError mem_info(int32_t dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    (void)dev;
    return keep(REAL(aclrtGetMemInfo)(attr, free_bytes, total));
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
            REAL(aclrtAllocatorUnregister)(stream);
            REAL(aclrtAllocatorDestroyDesc)(m->desc);
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
    aclrtAllocatorDesc d = REAL(aclrtAllocatorCreateDesc)();
    if (!m || !d) {
        base_free(m);
        if (d)
            REAL(aclrtAllocatorDestroyDesc)(d);
        return;
    }
    REAL(aclrtAllocatorSetObjToDesc)(d, (aclrtAllocator)obj);
    REAL(aclrtAllocatorSetAllocFuncToDesc)(d, (aclrtAllocatorAllocFunc)(uintptr_t)alloc);
    REAL(aclrtAllocatorSetFreeFuncToDesc)(d, (aclrtAllocatorFreeFunc)(uintptr_t)freef);
    if (advise)
        REAL(aclrtAllocatorSetAllocAdviseFuncToDesc)(
            d, (aclrtAllocatorAllocAdviseFunc)(uintptr_t)advise);
    REAL(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)(
        d, (aclrtAllocatorGetAddrFromBlockFunc)(uintptr_t)get_addr);
    if (REAL(aclrtAllocatorRegister)(stream, d) != ACL_SUCCESS) {
        (void)REAL(aclGetRecentErrMsg)();
        REAL(aclrtAllocatorDestroyDesc)(d);
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

static any_fn real(enum api_call id)
{
    return loaded() ? table[id] : NULL;
}

static void describe(char *buf, size_t len)
{
    if (loaded())
        snprintf(buf, len, "ascend (real runtime %s)", lib_path);
    else
        snprintf(buf, len, "ascend (not loaded: %s)", load_error);
}

/* ---- streams, events, notifies, peers ---- */

/* A real entry point that an older runtime may lack. */
#define RCALL(name, ...)                                                                     \
    (table[API_CALL_##name] ? REAL(name)(__VA_ARGS__) : ACL_ERROR_RT_FEATURE_NOT_SUPPORT)

static aclError stream_prop(void *s, int prop, int set, uint64_t *val)
{
    aclrtStreamAttrValue v = {0};
    aclError rc;
    uint32_t u = 0;
    int32_t id = 0;
    switch (prop) {
    case BE_SP_ID:
        rc = keep(RCALL(aclrtStreamGetId, s, &id));
        *val = (uint64_t)id;
        return rc;
    case BE_SP_PRIORITY:
        if (set) {
            v.streamPriority = (uint32_t)*val;
            return keep(RCALL(aclrtSetStreamAttribute, s, ACL_STREAM_ATTR_PRIORITY, &v));
        }
        rc = keep(RCALL(aclrtStreamGetPriority, s, &u));
        *val = u;
        return rc;
    case BE_SP_FLAGS:
        rc = keep(RCALL(aclrtStreamGetFlags, s, &u));
        *val = u;
        return rc;
    case BE_SP_FAILURE_MODE:
        if (set)
            return keep(RCALL(aclrtSetStreamFailureMode, s, *val));
        rc = keep(RCALL(aclrtGetStreamAttribute, s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
        *val = v.failureMode;
        return rc;
    case BE_SP_OVERFLOW:
        if (set)
            return keep(RCALL(aclrtSetStreamOverflowSwitch, s, (uint32_t)*val));
        rc = keep(RCALL(aclrtGetStreamOverflowSwitch, s, &u));
        *val = u;
        return rc;
    default: {
        aclrtStreamAttr a = prop == BE_SP_TAG ? ACL_STREAM_ATTR_USER_CUSTOM_TAG
                                              : ACL_STREAM_ATTR_CACHE_OP_INFO;
        if (set) {
            v.userCustomTag = (uint32_t)*val; /* both members are one uint32_t */
            return keep(RCALL(aclrtSetStreamAttribute, s, a, &v));
        }
        rc = keep(RCALL(aclrtGetStreamAttribute, s, a, &v));
        *val = v.userCustomTag;
        return rc;
    }
    }
}

static aclError stream_abort(void *s)
{
    return keep(RCALL(aclrtStreamAbort, s));
}

static aclError avail(int32_t dev, int what, uint32_t *n)
{
    (void)dev; /* the current context's device, as the ACL layer set it */
    return keep(what == BE_AVAIL_STREAM ? RCALL(aclrtGetStreamAvailableNum, n)
                                        : RCALL(aclrtGetEventAvailNum, n));
}

static aclError event_info(void *e, int what, uint64_t *val)
{
    aclError rc;
    if (what == BE_EV_ID) {
        uint32_t id = 0;
        rc = keep(RCALL(aclrtGetEventId, e, &id));
        *val = id;
    } else if (what == BE_EV_WAITED) {
        aclrtEventWaitStatus st = ACL_EVENT_WAIT_STATUS_NOT_READY;
        rc = keep(RCALL(aclrtQueryEventWaitStatus, e, &st));
        *val = st == ACL_EVENT_WAIT_STATUS_COMPLETE;
    } else {
        rc = keep(RCALL(aclrtEventGetTimestamp, e, val));
    }
    return rc;
}

static aclError dev_prop(int32_t dev, int prop, int set, uint64_t *val)
{
    (void)dev;
    aclError rc = ACL_SUCCESS;
    switch (prop) {
    case BE_DP_SAT_MODE:
        if (set)
            return keep(RCALL(aclrtSetDeviceSatMode, (aclrtFloatOverflowMode)*val));
        aclrtFloatOverflowMode m = ACL_RT_OVERFLOW_MODE_UNDEF;
        rc = keep(RCALL(aclrtGetDeviceSatMode, &m));
        *val = (uint64_t)m;
        return rc;
    default: /* BE_DP_OP_WAIT_TIMEOUT */
        /* The real runtime has no getter: the ACL layer keeps the value. */
        return set ? keep(RCALL(aclrtSetOpWaitTimeout, (uint32_t)*val)) : ACL_SUCCESS;
    }
}

static aclError notify_create(int32_t dev, void **n)
{
    (void)dev;
    return keep(RCALL(aclrtCreateNotify, n, 0));
}

static aclError notify_destroy(void *n)
{
    return keep(RCALL(aclrtDestroyNotify, n));
}

static aclError notify_record(void *n, void *s)
{
    return keep(RCALL(aclrtRecordNotify, n, s));
}

static aclError notify_wait(void *n, void *s, uint32_t timeout_s)
{
    return keep(RCALL(aclrtWaitAndResetNotify, n, s, timeout_s));
}

static aclError notify_reset(void *n)
{
    return keep(RCALL(aclrtNotifyBatchReset, &n, 1));
}

static aclError notify_export(void *n, uint64_t flags, char *key, const char **why)
{
    (void)why;
    return keep(RCALL(aclrtNotifyGetExportKey, n, key, BE_IPC_KEY_MAX, flags));
}

static aclError notify_set_pids(void *n, int32_t *pids, size_t num, const char **why)
{
    (void)why;
    return keep(RCALL(aclrtNotifySetImportPid, n, pids, num));
}

static aclError notify_import(int32_t dev, const char *key, uint64_t flags, void **out,
                              const char **why)
{
    (void)dev, (void)why;
    return keep(RCALL(aclrtNotifyImportByKey, (aclrtNotify *)out, key, flags));
}

static aclError notify_id(void *n, uint32_t *id)
{
    return keep(RCALL(aclrtGetNotifyId, n, id));
}

static aclError value_write(void *s, void *addr, uint64_t value)
{
    return keep(RCALL(aclrtValueWrite, addr, value, 0, s));
}

static aclError value_wait(void *s, void *addr, uint64_t value, uint32_t flag)
{
    return keep(RCALL(aclrtValueWait, addr, value, flag, s));
}

static aclError peer_can_access(int32_t dev, int32_t peer, int32_t *can)
{
    return keep(RCALL(aclrtDeviceCanAccessPeer, can, dev, peer));
}

static aclError peer_enable(int32_t dev, int32_t peer, int enable)
{
    (void)dev; /* the current device, as the ACL layer set it */
    return keep(enable ? RCALL(aclrtDeviceEnablePeerAccess, peer, 0)
                       : RCALL(aclrtDeviceDisablePeerAccess, peer));
}

static aclError devices_topo(int32_t dev, int32_t other, uint64_t *topo)
{
    return keep(RCALL(aclrtGetDevicesTopo, (uint32_t)dev, (uint32_t)other, topo));
}

/* ---- versions, SoC and device queries ---- */

/* The real runtime's answer to a query it may lack (an older CANN):
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT then. */
#define ASK(name, ...) (loaded() && REAL(name) ? keep(REAL(name)(__VA_ARGS__)) \
                                               : ACL_ERROR_RT_FEATURE_NOT_SUPPORT)

static aclError device_info(int32_t dev, aclrtDevAttr attr, int64_t *value)
{
    return ASK(aclrtGetDeviceInfo, (uint32_t)dev, attr, value);
}

static aclError device_feature(int32_t dev, int32_t feature, int32_t *value)
{
    return ASK(aclrtGetDeviceCapability, dev, (aclrtDevFeatureType)feature, value);
}

static aclError device_uuid(int32_t dev, aclrtUuid *uuid)
{
    return ASK(aclrtDeviceGetUuid, dev, uuid);
}

static aclError device_bus_id(int32_t dev, char *buf, int32_t len)
{
    return ASK(aclrtDeviceGetPCIBusId, dev, buf, len);
}

static aclError device_id_map(int how, int32_t id, int32_t *out)
{
    switch (how) {
    case BE_ID_LOGIC_TO_PHY:
        return ASK(aclrtGetPhyDevIdByLogicDevId, id, out);
    case BE_ID_PHY_TO_LOGIC:
        return ASK(aclrtGetLogicDevIdByPhyDevId, id, out);
    case BE_ID_USER_TO_LOGIC:
        return ASK(aclrtGetLogicDevIdByUserDevId, id, out);
    default:
        return ASK(aclrtGetUserDevIdByLogicDevId, id, out);
    }
}

static void device_utilization(int32_t dev, aclrtUtilizationInfo *info)
{
    if (ASK(aclrtGetDeviceUtilizationRate, dev, info) != ACL_SUCCESS) {
        last_msg[0] = '\0'; /* the call never fails: nothing to hand up */
        info->cubeUtilization = info->vectorUtilization = info->aicpuUtilization = -1;
        info->memoryUtilization = -1;
    }
}

static aclError device_status(int32_t dev, aclrtDeviceStatus *status)
{
    return ASK(aclrtQueryDeviceStatus, dev, status);
}

static aclError cann_attrs(const aclCannAttr **list, size_t *n)
{
    return ASK(aclGetCannAttributeList, list, n);
}

static aclError arch_compatible(const char *soc, int32_t *ok)
{
    return ASK(aclrtCheckArchCompatibility, soc, ok);
}

/* ---- operators ---- */

/* The operator families forward whole to the real runtime (API_FORWARD in
 * api/src), so its own single-op executor runs them on the device with
 * the allocators mirrored to it; aclsim's built-in library never runs
 * here. */
static aclError op_run(void *stream, const struct be_op *op, uint64_t *start, uint64_t *end)
{
    (void)stream, (void)op;
    *start = *end = 0;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

/* ---- virtual memory and stream-ordered pools ----
 * Forwarded as they are: the real runtime keeps the state and says why it
 * refuses (its message comes through take_message). */
static aclError vmm_granularity(int32_t dev, const aclrtPhysicalMemProp *prop,
                                aclrtMemGranularityOptions option, size_t *g)
{
    (void)dev;
    return ASK(aclrtMemGetAllocationGranularity, (aclrtPhysicalMemProp *)prop, option, g);
}

static aclError vmm_reserve(int32_t dev, size_t size, size_t alignment, void *expect,
                            uint64_t flags, int no_uc, void **va, const char **why)
{
    (void)dev, (void)why;
    return no_uc ? ASK(aclrtReserveMemAddressNoUCMemory, va, size, alignment, expect, flags)
                 : ASK(aclrtReserveMemAddress, va, size, alignment, expect, flags);
}

static aclError vmm_release(void *va, const char **why)
{
    (void)why;
    return ASK(aclrtReleaseMemAddress, va);
}

static aclError vmm_phys_alloc(size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags,
                               void **handle, const char **why)
{
    (void)why;
    return ASK(aclrtMallocPhysical, (aclrtDrvMemHandle *)handle, size, prop, flags);
}

static aclError vmm_phys_free(void *handle, const char **why)
{
    (void)why;
    return ASK(aclrtFreePhysical, handle);
}

static aclError vmm_map(void *va, size_t size, size_t offset, void *handle, uint64_t flags,
                        int no_access, const char **why)
{
    (void)why;
    return no_access ? ASK(aclrtMemMapNoAccess, va, size, offset, handle, flags)
                     : ASK(aclrtMapMem, va, size, offset, handle, flags);
}

static aclError vmm_unmap(void *va, const char **why)
{
    (void)why;
    return ASK(aclrtUnmapMem, va);
}

static aclError vmm_retain(void *va, void **handle, const char **why)
{
    (void)why;
    return ASK(aclrtMemRetainAllocationHandle, va, (aclrtDrvMemHandle *)handle);
}

static aclError vmm_props(void *handle, aclrtPhysicalMemProp *prop, const char **why)
{
    (void)why;
    return ASK(aclrtMemGetAllocationPropertiesFromHandle, handle, prop);
}

static aclError vmm_set_access(void *va, size_t size, aclrtMemAccessDesc *desc, size_t count,
                               const char **why)
{
    (void)why;
    return ASK(aclrtMemSetAccess, va, size, desc, count);
}

static aclError vmm_get_access(void *va, aclrtMemLocation *location, uint64_t *flag,
                               const char **why)
{
    (void)why;
    return ASK(aclrtMemGetAccess, va, location, flag);
}

static aclError mem_range(void *ptr, void **base, size_t *size)
{
    return ASK(aclrtMemGetAddressRange, ptr, base, size);
}

static aclError pool_create(int32_t dev, const aclrtMemPoolProps *props, void **pool)
{
    (void)dev;
    return ASK(aclrtMemPoolCreate, (aclrtMemPool *)pool, props);
}

static aclError pool_destroy(void *pool, const char **why)
{
    (void)why;
    return ASK(aclrtMemPoolDestroy, pool);
}

static aclError pool_attr(void *pool, aclrtMemPoolAttr attr, int set, void *value,
                          const char **why)
{
    (void)why;
    return set ? ASK(aclrtMemPoolSetAttr, pool, attr, value)
               : ASK(aclrtMemPoolGetAttr, pool, attr, value);
}

static aclError pool_malloc(void *pool, size_t size, void *stream, void **ptr, const char **why)
{
    (void)why;
    return ASK(aclrtMemPoolMallocAsync, ptr, size, pool, stream);
}

static aclError pool_free(void *ptr, void *stream, const char **why)
{
    (void)why;
    return ASK(aclrtMemPoolFreeAsync, ptr, stream);
}

static aclError pool_trim(void *pool, size_t min_keep, const char **why)
{
    (void)why;
    return ASK(aclrtMemPoolTrimTo, pool, min_keep);
}

/* ---- resource limits, device tasks, IPC events ---- */

static aclError res_limit(int op, int32_t dev, void *stream, int type, uint32_t *val)
{
    aclrtDevResLimitType t = (aclrtDevResLimitType)type;
    switch (op) {
    case BE_RL_DEV_GET:
        return keep(RCALL(aclrtGetDeviceResLimit, dev, t, val));
    case BE_RL_DEV_SET:
        return keep(RCALL(aclrtSetDeviceResLimit, dev, t, *val));
    case BE_RL_DEV_RESET:
        return keep(RCALL(aclrtResetDeviceResLimit, dev));
    case BE_RL_STREAM_GET:
        return keep(RCALL(aclrtGetStreamResLimit, stream, t, val));
    case BE_RL_STREAM_SET:
        return keep(RCALL(aclrtSetStreamResLimit, stream, t, *val));
    case BE_RL_STREAM_RESET:
        return keep(RCALL(aclrtResetStreamResLimit, stream));
    /* The real runtime keeps the thread's stream itself: this is the
     * calling thread. */
    case BE_RL_THREAD_USE:
        return keep(RCALL(aclrtUseStreamResInCurrentThread, stream));
    case BE_RL_THREAD_UNUSE:
        return keep(RCALL(aclrtUnuseStreamResInCurrentThread, stream));
    default:
        return keep(RCALL(aclrtGetResInCurrentThread, t, val));
    }
}

static aclError device_task(void *stream, const struct be_task *t)
{
    switch (t->kind) {
    case BE_TASK_REDUCE:
        return keep(RCALL(aclrtReduceAsync, t->dst, t->src, t->count, t->reduce, t->type, stream,
                          NULL));
    case BE_TASK_RANDOM:
        return keep(RCALL(aclrtRandomNumAsync, t->random, stream, NULL));
    case BE_TASK_OVERFLOW_GET:
        return keep(RCALL(aclrtGetOverflowStatus, t->dst, t->size, stream));
    default:
        return keep(RCALL(aclrtResetOverflowStatus, stream));
    }
}

static aclError event_ipc(int import, int32_t dev, void **event, aclrtIpcEventHandle *handle)
{
    (void)dev; /* the current device, as the ACL layer set it */
    if (import)
        return keep(RCALL(aclrtIpcOpenEventHandle, *handle, event));
    return keep(RCALL(aclrtIpcGetEventHandle, *event, handle));
}

/* IPC memory: the real runtime and driver keep keys and whitelists. */
static aclError ipc_mem_export(void *ptr, size_t size, uint64_t flags, char *key,
                               const char **why)
{
    (void)why;
    return keep(RCALL(aclrtIpcMemGetExportKey, ptr, size, key, BE_IPC_KEY_MAX, flags));
}

static aclError ipc_mem_set_pids(const char *key, int32_t *pids, size_t n, const char **why)
{
    (void)why;
    return keep(RCALL(aclrtIpcMemSetImportPid, key, pids, n));
}

static aclError ipc_mem_import(int32_t dev, const char *key, uint64_t flags, void **ptr,
                               const char **why)
{
    (void)dev, (void)why; /* the current device, as the ACL layer set it */
    return keep(RCALL(aclrtIpcMemImportByKey, ptr, key, flags));
}

static aclError ipc_mem_close(const char *key, int role, struct be_ipc_info *info,
                              const char **why)
{
    (void)why, (void)role; /* the real runtime closes as aclrtIpcMemClose does */
    *info = (struct be_ipc_info){.role = 0};
    return keep(RCALL(aclrtIpcMemClose, key));
}

static aclError vmm_share_export(void *handle, uint64_t flags, uint64_t *shareable,
                                 const char **why)
{
    (void)why;
    return keep(RCALL(aclrtMemExportToShareableHandle, handle, ACL_MEM_HANDLE_TYPE_NONE, flags,
                      shareable));
}

static aclError vmm_share_set_pids(uint64_t shareable, int32_t *pids, size_t n,
                                   const char **why)
{
    (void)why;
    return keep(RCALL(aclrtMemSetPidToShareableHandle, shareable, pids, n));
}

static aclError vmm_share_import(uint64_t shareable, int32_t dev, void **handle,
                                 const char **why)
{
    (void)why;
    return keep(RCALL(aclrtMemImportFromShareableHandle, shareable, dev, handle));
}

/* Captured work: the real runtime captures, joins streams through their
 * event waits and replays by itself. */
static aclError graph_begin(void *s, int mode)
{
    return keep(RCALL(aclmdlRICaptureBegin, s, (aclmdlRICaptureMode)mode));
}

static aclError graph_join(void *origin, void *s)
{
    (void)origin;
    (void)s;
    return ACL_SUCCESS;
}

static aclError graph_end(void *origin, void **graph)
{
    return keep(RCALL(aclmdlRICaptureEnd, origin, (aclmdlRI *)graph));
}

static aclError graph_launch(void *g, void *s)
{
    return keep(RCALL(aclmdlRIExecuteAsync, g, s));
}

static void graph_destroy(void *g)
{
    keep(RCALL(aclmdlRIDestroy, g));
}

/* Task groups and their updates go to the real runtime's calls; its
 * conditional tasks, task edits and aborts need its own handles (a
 * condition handle, a task), which the ACL layer does not keep here. */
static aclError group_begin(void *s)
{
    return keep(RCALL(aclmdlRICaptureTaskGrpBegin, s));
}

static aclError group_end(void *s, void **group)
{
    return keep(RCALL(aclmdlRICaptureTaskGrpEnd, s, (aclrtTaskGrp *)group));
}

static aclError group_update(void *s, void *group)
{
    return group ? keep(RCALL(aclmdlRICaptureTaskUpdateBegin, s, group))
                 : keep(RCALL(aclmdlRICaptureTaskUpdateEnd, s));
}

static aclError graph_cond(void *s, uint64_t *word, int type, unsigned n, void **subs)
{
    (void)s, (void)word, (void)type, (void)n, (void)subs;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static aclError graph_begin_into(void *s, int mode, void *graph)
{
    return keep(RCALL(aclmdlRICaptureToModelRIBegin, s, graph, (aclmdlRICaptureMode)mode));
}

static void *graph_last_task(void *s)
{
    (void)s;
    return NULL;
}

static aclError graph_task_edit(void *graph, void *task, const struct be_task_edit *e)
{
    (void)graph, (void)task, (void)e;
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static aclError graph_abort(void *graph)
{
    return keep(RCALL(aclmdlRIAbort, graph));
}

static aclError label_create(void **label)
{
    return keep(RCALL(aclrtCreateLabel, (aclrtLabel *)label));
}

static void label_destroy(void *label)
{
    keep(RCALL(aclrtDestroyLabel, label));
}

static aclError label_list_create(void *const *labels, size_t n, void **list)
{
    return keep(RCALL(aclrtCreateLabelList, (aclrtLabel *)labels, n, (aclrtLabelList *)list));
}

static void label_list_destroy(void *list)
{
    keep(RCALL(aclrtDestroyLabelList, list));
}

static aclError label_set(void *label, void *s)
{
    return keep(RCALL(aclrtSetLabel, label, s));
}

static aclError label_switch(void *index, uint32_t max, void *list, void *s)
{
    return keep(RCALL(aclrtSwitchLabelByIndex, index, max, list, s));
}

static const struct be_bridge bridge = {
    .real = real,
    .take_message = take_message,
    .alloc_register = alloc_register,
    .alloc_unregister = alloc_unregister,
};

/* ---- 2-D copies, 32-bit fills, host and managed memory ---- */

static aclError mem_copy2d(int32_t dev, void *stream, void *dst, size_t dpitch, const void *src,
                           size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                           int how)
{
    (void)dev, (void)how; /* the real runtime decides when it returns */
    return keep(stream ? RCALL(aclrtMemcpy2dAsync, dst, dpitch, src, spitch, width, height, kind,
                               stream)
                       : RCALL(aclrtMemcpy2d, dst, dpitch, src, spitch, width, height, kind));
}

static aclError mem_set_d32(int32_t dev, void *stream, void *dst, int dst_dev, uint32_t value,
                            size_t count, int host_waits)
{
    (void)dev, (void)dst_dev, (void)host_waits;
    return keep(stream ? RCALL(aclrtMemsetD32Async, dst, count * 4, value, count, stream)
                       : RCALL(aclrtMemsetD32, dst, count * 4, value, count));
}

static aclError host_register(int32_t dev, void *ptr, uint64_t size, int v2, uint32_t how,
                              void **dev_ptr)
{
    (void)dev;
    return keep(v2 ? RCALL(aclrtHostRegisterV2, ptr, size, how)
                   : RCALL(aclrtHostRegister, ptr, size, (aclrtHostRegisterType)how, dev_ptr));
}

static aclError host_unregister(int32_t dev, void *ptr)
{
    (void)dev;
    return keep(RCALL(aclrtHostUnregister, ptr));
}

static aclError host_dev_ptr(int32_t dev, void *host, void **dev_ptr)
{
    (void)dev;
    return keep(RCALL(aclrtHostGetDevicePointer, host, dev_ptr, 0));
}

static aclError host_map_caps(int32_t dev, aclrtHacType hac, aclrtHostMemMapCapability *caps)
{
    return keep(RCALL(aclrtHostMemMapCapabilities, (uint32_t)dev, hac, caps));
}

static aclError managed_alloc(int32_t dev, uint64_t size, void **ptr)
{
    (void)dev;
    return keep(RCALL(aclrtMemAllocManaged, ptr, size, ACL_RT_MEM_ATTACH_GLOBAL));
}

static aclError managed_advise(int32_t dev, const void *ptr, uint64_t size, int advise,
                               aclrtMemManagedLocation loc)
{
    (void)dev;
    return keep(RCALL(aclrtMemManagedAdvise, ptr, size, (aclrtMemManagedAdviseType)advise, loc));
}

static aclError managed_attrs(int32_t dev, const aclrtMemManagedRangeAttribute *attrs, size_t n,
                              const void *ptr, size_t size, void **data, const size_t *sizes)
{
    (void)dev;
    return keep(RCALL(aclrtMemManagedGetAttrs, (aclrtMemManagedRangeAttribute *)attrs, n, ptr,
                      size, data, (size_t *)sizes));
}

static aclError managed_prefetch(int32_t dev, const void *ptr, size_t size,
                                 aclrtMemManagedLocation loc, void *stream)
{
    (void)dev;
    return keep(RCALL(aclrtMemManagedPrefetchAsync, ptr, size, loc, 0, stream));
}

static aclError cache_op(int32_t dev, void *ptr, size_t size, int invalidate)
{
    (void)dev;
    return keep(invalidate ? RCALL(aclrtMemInvalidate, ptr, size) : RCALL(aclrtMemFlush, ptr, size));
}

/* ---- cache maintenance on streams, descriptors, counting notifies ---- */

static aclError cmo(void *s, void *ptr, size_t size, int type, uint32_t barrier)
{
    return keep(barrier ? RCALL(aclrtCmoAsyncWithBarrier, ptr, size, (aclrtCmoType)type, barrier, s)
                        : RCALL(aclrtCmoAsync, ptr, size, (aclrtCmoType)type, s));
}

static aclError cmo_barrier_wait(void *s, const aclrtBarrierTaskInfo *info, uint32_t flag)
{
    aclrtBarrierTaskInfo copy = *info;
    return keep(RCALL(aclrtCmoWaitBarrier, &copy, s, flag));
}

static aclError desc_size(int what, size_t *size)
{
    return keep(what == BE_DESC_CMO ? RCALL(aclrtCmoGetDescSize, size)
                                    : RCALL(aclrtGetMemcpyDescSize,
                                            ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, size));
}

static aclError desc_set(int what, void *desc, void *src, void *dst, size_t n)
{
    return keep(what == BE_DESC_CMO ? RCALL(aclrtCmoSetDesc, desc, src, n)
                                    : RCALL(aclrtSetMemcpyDesc, desc,
                                            ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, src, dst, n, NULL));
}

static aclError desc_launch(int what, void *s, void *desc, int type)
{
    return keep(what == BE_DESC_CMO ? RCALL(aclrtCmoAsyncWithDesc, desc, (aclrtCmoType)type, s, NULL)
                                    : RCALL(aclrtMemcpyAsyncWithDesc, desc,
                                            ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
}

static aclError memcpy_at(void *s, void **dst, size_t dmax, size_t doff, const void **src,
                          size_t n, size_t soff)
{
    return keep(RCALL(aclrtMemcpyAsyncWithOffset, dst, dmax, doff, src, n, soff,
                      ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
}

static aclError cnt_create(int32_t dev, void **cnt)
{
    (void)dev; /* the current device's */
    return keep(RCALL(aclrtCntNotifyCreate, cnt, 0));
}

static aclError cnt_destroy(void *cnt)
{
    return keep(RCALL(aclrtCntNotifyDestroy, cnt));
}

static aclError cnt_record(void *cnt, void *s, const aclrtCntNotifyRecordInfo *info)
{
    aclrtCntNotifyRecordInfo copy = *info;
    return keep(RCALL(aclrtCntNotifyRecord, cnt, s, &copy));
}

static aclError cnt_wait(void *cnt, void *s, const aclrtCntNotifyWaitInfo *info)
{
    aclrtCntNotifyWaitInfo copy = *info;
    return keep(RCALL(aclrtCntNotifyWaitWithTimeout, cnt, s, &copy));
}

static aclError cnt_reset(void *cnt, void *s)
{
    return keep(RCALL(aclrtCntNotifyReset, cnt, s));
}

static aclError cnt_id(void *cnt, uint32_t *id)
{
    return keep(RCALL(aclrtCntNotifyGetId, cnt, id));
}

static aclError overflow_status(void *s, void *out, uint64_t size, uint32_t mode)
{
    return keep(RCALL(aclrtNpuGetFloatOverFlowStatus, out, size, mode, s));
}

static aclError overflow_clear(void *s, uint32_t mode)
{
    return keep(RCALL(aclrtNpuClearFloatOverFlowStatus, mode, s));
}

static aclError overflow_addr(void *ctx, void **addr)
{
    (void)ctx; /* the current context's */
    return keep(RCALL(aclrtCtxGetFloatOverflowAddr, addr));
}

static aclError task_clean(void *graph, unsigned lane, void *s)
{
    (void)graph, (void)lane; /* the real runtime knows the stream's model */
    return keep(RCALL(aclrtPersistentTaskClean, s));
}

static aclError last_task_id(uint32_t *id)
{
    return keep(RCALL(aclrtGetThreadLastTaskId, id));
}

static aclError l2_flush(int32_t dev)
{
    (void)dev; /* the current device's */
    return keep(RCALL(aclrtDeviceL2CacheFlush, NULL));
}

static aclError mem_type_check(int32_t dev, void **list, uint32_t n, uint32_t mask,
                               uint32_t *result)
{
    (void)dev;
    return keep(RCALL(aclrtCheckMemType, list, n, mask, result, 0));
}

static aclError uce_info(int32_t dev, aclrtMemUceInfo *out, size_t max, size_t *n)
{
    return keep(RCALL(aclrtGetMemUceInfo, dev, out, max, n));
}

static const struct be_ops ops = {
    .name = "ascend",
    .memcpy = mem_copy,
    .memset = mem_set,
    .memcpy2d = mem_copy2d,
    .memset_d32 = mem_set_d32,
    .ctx_set_current = ctx_set_current,
    .bridge = &bridge,
    BE_OPS(BE_FIELD)
};

const struct be_ops *be_get(void)
{
    return &ops;
}
