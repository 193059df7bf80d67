/*
 * memory.c - device and host memory, copies and fills (the MEMORY family;
 * hicann/runtime src/acl/aclrt_impl/memory.cpp).
 *
 * Argument checks run in CANN's order with CANN's codes and messages: the
 * ACL-layer checks (NULL pointers, size 0, copy kind) give
 * ACL_ERROR_INVALID_PARAM; the runtime-layer ones (destMax, count) give
 * ACL_ERROR_RT_PARAM_INVALID; count 0 succeeds before any check. Then, what
 * the real runtime would silently corrupt on is caught here and reported
 * with aclsim's own wording: a copy or fill that leaves its allocation, a
 * device address that is not in a live block (use after free), a free of
 * an interior, unknown or already freed address.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdatomic.h>
#include "memory.h"
#include "backends/be.h"

static const char malloc_fn[] = "aclMallocMemInner"; /* the name CANN reports */

static aclError size_zero(const char *func)
{
    return api_err_value(func, "0", "size", "must be greater than 0");
}

/* The messages of a failed allocation (rc != ACL_SUCCESS); returns rc. Out
 * of line: a successful aclrtMalloc only tests rc. */
__attribute__((cold, noinline)) aclError api_no_memory(aclError rc, const char *what, size_t size)
{
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION) {
        api_report(API_MSG_EL0004, "Failed to allocate memory.");
        api_report(API_MSG_EH9999, "alloc %s memory failed, size=%zu, runtime result = %d.", what,
                   size, rc);
    } else if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: this SoC does not support "
                   "the requested page policy (1 GB pages exist on Atlas A2/A3 only).");
    } else {
        api_report(API_MSG_EH9999, "alloc %s memory failed, runtime result = %d.", what, rc);
    }
    return rc;
}

/* aclrtMalloc and its variants share CANN's checks (memory.cpp, the helper
 * aclMallocMemInner).
 * Always inlined, so each public name stays on the stack memcheck shows
 * for a leaked block (a tail call would hide it). */
static inline __attribute__((always_inline)) aclError
malloc_common(const char *api, const char *checks, enum flt_point point, void **devPtr,
              size_t size, aclrtMemMallocPolicy policy, unsigned flags)
{
    if (__builtin_expect(atomic_load_explicit(&flt_armed, memory_order_relaxed), 0) &&
        flt_fire(point))
        return api_fault(point, api);
    if (!devPtr)
        return api_err_null(checks, "devPtr");
    if (size == 0)
        return size_zero(checks);
    if (size > SIZE_MAX - 64) {
        api_report(API_MSG_EH9999, "[Check][Size]size too large: %zu", size);
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->mem_alloc(c->device, size, policy, flags, devPtr);
    return rc == ACL_SUCCESS ? rc : api_no_memory(rc, "device", size);
}

aclError api_impl_aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_common("aclrtMalloc", malloc_fn, FLT_ACL_RT_MALLOC, devPtr, size, policy, 0);
}

aclError api_impl_aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_common("aclrtMallocAlign32", malloc_fn, FLT_ACL_RT_MALLOC, devPtr, size, policy,
                         BE_ALLOC_NO_PAD);
}

aclError api_impl_aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_common("aclrtMallocCached", malloc_fn, FLT_ACL_RT_MALLOC, devPtr, size, policy,
                         0);
}

aclError api_malloc_dvpp(void **devPtr, size_t size)
{
    return malloc_common("acldvppMalloc", "acldvppMalloc", FLT_ACL_DVPP_MALLOC, devPtr, size,
                         ACL_MEM_MALLOC_HUGE_FIRST, BE_ALLOC_DVPP);
}

/* `want` is the kind of block func frees (BE_PTR_DEVICE or _HOST_PINNED). */
aclError api_bad_free(const char *func, const void *p, const struct be_ptr_info *in, int want)
{
    bool device = in->kind == BE_PTR_DEVICE;
    if ((device || in->kind == BE_PTR_HOST_PINNED) && in->kind != want && in->start == p)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %p is %s: free it "
                   "with %s.", func, p,
                   device ? "device memory from aclrtMalloc" : "host memory from aclrtMallocHost",
                   device ? "aclrtFree" : "aclrtFreeHost");
    else if (device || in->kind == BE_PTR_HOST_PINNED)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %p is inside the "
                   "block of %zu bytes at %p, not its start.", func, p, in->size, in->start);
    else
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %p is not a live "
                   "allocation (never allocated, or already freed).", func, p);
    return ACL_ERROR_RT_MEMORY_FREE;
}

/* A free of the block at p while graphs live: the sanitizer's check that
 * none of them uses its bytes (alloc/graphcheck.c). */
static __attribute__((noinline)) void graph_free_check(const char *fn, const void *p)
{
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    if ((in.kind == BE_PTR_DEVICE || in.kind == BE_PTR_HOST_PINNED) && in.start == p)
        api_check_graph_free(fn, p, in.size ? in.size : 1);
}

/* acldvppFree's pointer lies in host memory: the runtime's location check
 * (hicann/runtime src/runtime/api/impl/api_impl.cc:2410-2420, DevDvppFree;
 * the names: src/runtime/core/src/memory/mem_type.cc:18-32) has said so. */
static __attribute__((noinline)) bool dvpp_not_device(const void *p)
{
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    if (in.kind != BE_PTR_HOST_PINNED && in.kind != BE_PTR_HOST_REGISTERED &&
        in.kind != BE_PTR_UNKNOWN)
        return false;
    api_report(API_MSG_EE1011, "Releasing DVPP device memory failed. Value %s for parameter "
               "devPtr locationType is invalid. Reason: The specified address must be a device "
               "address.", in.kind == BE_PTR_UNKNOWN ? "MEMORY_LOC_UNREGISTERED(2)"
                                                     : "MEMORY_LOC_HOST(0)");
    return true;
}

/* Inlined into its caller in another file (link-time optimisation): a
 * level of the aclrtMalloc/aclrtFree pair's path (scons bench). */
__attribute__((always_inline)) inline aclError
api_free_device(const char *fn, void *devPtr, unsigned how)
{
    bool dev_sync = how & API_FREE_SYNC, dvpp = how & API_FREE_DVPP;
    enum flt_point point = dvpp ? FLT_ACL_DVPP_FREE : FLT_ACL_RT_FREE;
    if (__builtin_expect(atomic_load_explicit(&flt_armed, memory_order_relaxed), 0) &&
        flt_fire(point)) {
        if (devPtr && API_TOOL(abandon))
            API_TOOL(abandon)(devPtr); /* released with its device instead */
        return api_fault(point, fn);
    }
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (dvpp && dvpp_not_device(devPtr))
        return ACL_ERROR_RT_PARAM_INVALID;
    if (__builtin_expect(api_graphs_live(), 0))
        graph_free_check(fn, devPtr);
    if (__builtin_expect(atomic_load_explicit(&api_ipc_open, memory_order_relaxed) != 0, 0))
        api_ipc_freeing(fn, devPtr);
    struct be_ptr_info in;
    if (dev_sync) {
        be_get()->lookup(devPtr, &in);
        if ((in.kind != BE_PTR_DEVICE && in.kind != BE_PTR_MANAGED) || in.start != devPtr)
            return api_bad_free(fn, devPtr, &in, BE_PTR_DEVICE);
        /* rtFreeWithDevSync (api_c_memory.cc L174-182): a device
         * synchronisation, the current context's, before the free. */
        aclError rc = api_sync_device(fn, -1);
        if (rc != ACL_SUCCESS)
            return rc;
    } else {
        api_check_free(devPtr); /* the allocator sanitizer: pending operator work */
    }
    /* The backend validates the address itself; only a rejected one is
     * looked up, to say why (it may have been freed meanwhile by another
     * thread). */
    aclError rc = dvpp ? be_get()->dvpp_free(devPtr) : be_get()->mem_free(devPtr);
    if (rc == ACL_ERROR_RT_MEMORY_FREE) {
        be_get()->lookup(devPtr, &in);
        return api_bad_free(fn, devPtr, &in, BE_PTR_DEVICE);
    }
    return rc;
}

aclError api_impl_aclrtFree(void *devPtr)
{
    return api_free_device("aclrtFree", devPtr, false);
}

aclError api_impl_aclrtMallocHost(void **hostPtr, size_t size)
{
    static const char fn[] = "aclrtMallocHost";
    API_FAULT(ACL_RT_MALLOC_HOST, fn);
    if (!hostPtr)
        return api_err_null(fn, "hostPtr");
    if (size == 0)
        return size_zero(fn);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->host_alloc(size, hostPtr);
    return rc == ACL_SUCCESS ? rc : api_no_memory(rc, "host", size);
}

aclError api_free_host(const char *fn, void *hostPtr, bool dev_sync)
{
    if (FLT_HIT(ACL_RT_FREE_HOST)) {
        if (hostPtr && API_TOOL(abandon_host))
            API_TOOL(abandon_host)(hostPtr); /* released at aclFinalize instead */
        return api_fault(FLT_ACL_RT_FREE_HOST, fn);
    }
    if (!hostPtr)
        return api_err_null(fn, "hostPtr");
    struct be_ptr_info in;
    be_get()->lookup(hostPtr, &in);
    if (in.kind == BE_PTR_DEVICE || in.kind == BE_PTR_MANAGED) {
        /* The runtime's check of the pointer's location (hicann/runtime
         * src/runtime/api/impl/api_impl.cc:2512-2535, HostFree; the names:
         * src/runtime/core/src/memory/mem_type.cc:18-32). */
        api_report(API_MSG_EE1011, "Host memory release failed. Value %s for parameter hostPtr "
                   "locationType is invalid. Reason: The specified address must be a host "
                   "address.", in.kind == BE_PTR_DEVICE ? "MEMORY_LOC_DEVICE(1)"
                                                        : "MEMORY_LOC_MANAGED(3)");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (in.kind != BE_PTR_HOST_PINNED || in.start != hostPtr)
        return api_bad_free(fn, hostPtr, &in, BE_PTR_HOST_PINNED);
    if (api_graphs_live())
        graph_free_check(fn, hostPtr);
    if (dev_sync) {
        /* rtFreeHostWithDevSync (api_c_memory.cc L185-193): the current
         * context's work (which may still read the memory) completes first. */
        aclError rc = api_sync_device(fn, -1);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return be_get()->host_free(hostPtr);
}

aclError api_impl_aclrtFreeHost(void *hostPtr)
{
    return api_free_host("aclrtFreeHost", hostPtr, false);
}

/* ---- Copies and fills ---- */

/* Report a copy or fill the device could not do (rc from the backend). */
aclError api_engine_failed(const char *func, aclError rc)
{
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed: copy data error, runtime result = %d.", func, rc);
    return rc;
}

const char *api_kind_name(int kind, char *buf, size_t len)
{
    static const char *names[] = {"MEMCPY_HOST_TO_HOST", "MEMCPY_HOST_TO_DEVICE",
                                  "MEMCPY_DEVICE_TO_HOST", "MEMCPY_DEVICE_TO_DEVICE",
                                  "MEMCPY_DEFAULT", "MEMCPY_HOST_TO_BUF_TO_DEVICE",
                                  "MEMCPY_INNER_DEVICE_TO_DEVICE", "MEMCPY_INTER_DEVICE_TO_DEVICE"};
    snprintf(buf, len, "%s(%d)", kind >= 0 && kind < 8 ? names[kind] : "UNKNOWN", kind);
    return buf;
}

/* CANN's runtime message for a bad destMax (copies) or count (EE1003). */
static aclError bad_count(const char *what, const char *param, size_t value, size_t max,
                          bool is_copy)
{
    if (max == 0 && is_copy)
        api_report(API_MSG_EE1003, "%s failed because value 0 for parameter destMax is invalid. "
                   "Expected value: not equal to 0.", what);
    else
        api_report(API_MSG_EE1003, "%s failed because value %zu for parameter %s is invalid. "
                   "Expected value: (0, %zu].", what, value, param, max);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* Whether [p, p+n) is a legal side of a copy or fill: device memory must be
 * inside one live block; acl host memory inside its block; other host
 * memory is taken on trust unless `need_acl`. Queues why not. */
/* Whether every page of the n host bytes at p is mapped in this process
 * (mincore fails with ENOMEM on an unmapped one): a driver copy from an
 * address the process cannot reach fails with EFAULT, where memmove would
 * kill the program. */
static bool host_mapped(const void *p, size_t n)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(pg - 1);
    uintptr_t end = (uintptr_t)p + (n ? n : 1);
    unsigned char vec[256];
    while (start < end) {
        size_t pages = (end - start + (uintptr_t)pg - 1) / (uintptr_t)pg;
        if (pages > sizeof vec)
            pages = sizeof vec;
        if (mincore((void *)start, pages * (size_t)pg, vec) != 0 && errno == ENOMEM)
            return false;
        start += pages * (uintptr_t)pg;
    }
    return true;
}

bool api_side_ok(const char *what, const char *param, const void *p, size_t n, bool device,
                 bool need_acl, const struct be_ptr_info *in)
{
    if (in->kind == BE_PTR_DEVICE || in->kind == BE_PTR_HOST_PINNED ||
        in->kind == BE_PTR_HOST_REGISTERED || in->kind == BE_PTR_MANAGED) {
        /* Managed memory is reached from both sides; registered memory is
         * host memory (its device address is not for copies). */
        if (in->kind != BE_PTR_MANAGED && (in->kind == BE_PTR_DEVICE) != device) {
            api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. "
                       "Expected value: %s memory for this copy kind.", what, p, param,
                       device ? "device" : "host");
            return false;
        }
        size_t off = (size_t)((const char *)p - (const char *)in->start);
        /* size 0: the backend cannot tell the block's extent (a real
         * device); the runtime itself is then the judge. The address may
         * lie past the usable bytes (in a device block's padding): then no
         * byte may be touched. */
        size_t room = off < in->size ? in->size - off : 0;
        /* A host copy running past a registration goes on in pageable
         * memory, which is taken on trust. */
        if (in->kind == BE_PTR_HOST_REGISTERED && !device && !need_acl)
            return true;
        if (in->size != 0 && n > room) {
            if (in->kind == BE_PTR_DEVICE && API_TOOL(audit))
                API_TOOL(audit)(p, n); /* memcheck: "0 bytes after a block" */
            api_report(API_MSG_EE1003, "%s failed because value %zu for parameter count is "
                       "invalid. Expected value: at most %zu: %s %p lies %zu bytes into a block of "
                       "%zu bytes, the access would run past its end.", what, n, room,
                       param, p, off, in->size);
            return false;
        }
        return true;
    }
    if (in->kind == BE_PTR_UNKNOWN && !device && !need_acl) {
        if (host_mapped(p, n))
            return true;
        api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. "
                   "Expected value: host memory of this process: [%p, %p) is not mapped in it "
                   "(the driver's copy would fail with EFAULT).", what, p, param, p,
                   (const void *)((const char *)p + n));
        return false;
    }
    if (in->kind == BE_PTR_VA_UNMAPPED) { /* reserved, nothing mapped: the device would fault */
        api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. "
                   "Expected value: mapped memory: %p lies in a range reserved with "
                   "aclrtReserveMemAddress where no physical memory is mapped (aclrtMapMem), an "
                   "access there faults on the device.", what, p, param, p);
        return false;
    }
    if (in->kind == BE_PTR_DEVICE_FREE && API_TOOL(audit))
        API_TOOL(audit)(p, n); /* use after free: memcheck names the block */
    api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. Expected "
               "value: %s.", what, p, param,
               device ? "an address inside a live allocation of aclrtMalloc (is it freed?)"
                      : "memory from aclrtMallocHost or aclrtMalloc");
    return false;
}

/* Whether a device side [p, p+n) reaches memory no live block holds (freed,
 * never allocated, past its block's end): on a stream, the device's memory
 * error (diag/error.c raises the exception). */
static bool touches_dead(const void *p, size_t n, bool device, const struct be_ptr_info *in)
{
    if (!device)
        return false;
    if (in->kind == BE_PTR_DEVICE_FREE)
        return true;
    size_t off = (size_t)((const char *)p - (const char *)in->start);
    return in->kind == BE_PTR_DEVICE && in->size != 0 && n > in->size - off;
}

/* Which sides of a copy kind are device memory; DEFAULT infers them. */
void api_copy_sides(int kind, const struct be_ptr_info *d, const struct be_ptr_info *s,
                    bool *dst_dev, bool *src_dev)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        *dst_dev = true, *src_dev = false;
        break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        *dst_dev = false, *src_dev = true;
        break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        *dst_dev = true, *src_dev = true;
        break;
    case ACL_MEMCPY_DEFAULT:
        *dst_dev = d->kind == BE_PTR_DEVICE || d->kind == BE_PTR_DEVICE_FREE ||
                   d->kind == BE_PTR_VA_UNMAPPED;
        *src_dev = s->kind == BE_PTR_DEVICE || s->kind == BE_PTR_DEVICE_FREE ||
                   s->kind == BE_PTR_VA_UNMAPPED;
        break;
    default:
        *dst_dev = false, *src_dev = false;
    }
}

static aclrtMemcpyKind kind_of(bool dst_dev, bool src_dev)
{
    if (dst_dev)
        return src_dev ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE;
    return src_dev ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST;
}

bool api_in_device_memory(const struct be_ptr_info *in)
{
    return in->kind == BE_PTR_DEVICE || in->kind == BE_PTR_DEVICE_FREE;
}

bool api_pageable(bool dev_side, const struct be_ptr_info *in, const void *p, size_t n)
{
    if (dev_side)
        return false;
    if (in->kind == BE_PTR_HOST_REGISTERED)
        return (size_t)((const char *)p - (const char *)in->start) + n > in->size;
    return in->kind == BE_PTR_UNKNOWN;
}

aclError api_capture_pageable(const char *what, bool captured, const struct api_ctx *c)
{
    if (!captured)
        return api_cap_check_unsafe(what, c, true);
    api_report(API_MSG_EE1016, "Asynchronous copy task failed. Reason: The pageable memory copy "
               "task does not support graph capture.");
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* The checks and the work of a copy whose stream (NULL: synchronous) is
 * held by the caller. */
static aclError copy_checked(const char *fn, const char *what, struct api_ctx *c, void *stream,
                             void *dst, const void *src, size_t count, aclrtMemcpyKind kind,
                             bool async)
{
    /* A copy onto itself (dst == src) is checked and run like any other:
     * a freed or wild address must not pass. */
    struct be_ptr_info di, si;
    be_get()->lookup(dst, &di);
    be_get()->lookup(src, &si);
    bool dst_dev, src_dev;
    api_copy_sides((int)kind, &di, &si, &dst_dev, &src_dev);
    if (!api_side_ok(what, "dst", dst, count, dst_dev, false, &di) ||
        !api_side_ok(what, "src", src, count, src_dev, false, &si)) {
        if (stream && (touches_dead(dst, count, dst_dev, &di) ||
                       touches_dead(src, count, src_dev, &si)))
            api_exception_task(stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* Between two devices' memory: peer access first (rt/peer.c). */
    if (dst_dev && src_dev && di.kind == BE_PTR_DEVICE && si.kind == BE_PTR_DEVICE) {
        aclError prc = api_peer_copy_check(fn, c->device, si.device, di.device);
        if (prc != ACL_SUCCESS)
            return prc;
    }
    /* From or to pageable host memory even an async copy completes before
     * the call returns (CANN's aclrtMemcpyAsync documentation, hicann/runtime
     * docs/zh/api_ref); page-locked memory is truly async. */
    bool pageable = api_pageable(dst_dev, &di, dst, count) || api_pageable(src_dev, &si, src, count);
    bool captured = stream && api_cap_graph_of(stream);
    if (pageable && async) {
        aclError crc = api_capture_pageable(what, captured, c);
        if (crc != ACL_SUCCESS)
            return crc;
    }
    int how = (!async || pageable ? BE_COPY_WAIT : 0) | (pageable ? BE_COPY_PAGEABLE : 0);
    /* Managed memory is host memory to the simulator's engines. */
    aclrtMemcpyKind real = kind_of(dst_dev && api_in_device_memory(&di),
                                   src_dev && api_in_device_memory(&si));
    /* a task group or its update takes no copy (rt/capgroup.c) */
    aclError rc = async ? api_cap_admit(stream, ACL_MODEL_RI_TASK_DEFAULT, "MEMCPY_ASYNC", 5)
                        : ACL_SUCCESS;
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_engine_failed(fn, be_get()->memcpy(c->device, stream, dst, src, count, real, how));
    if (captured) { /* it runs when the graph does */
        struct api_cap_range r[2] = {{.p = dst, .n = count, .w = true}, {.p = src, .n = count}};
        if (rc == ACL_SUCCESS)
            api_cap_note(stream, ACL_MODEL_RI_TASK_DEFAULT, fn, r, 2);
        return rc;
    }
    /* The backend checked the copy's uses against unordered work; bytes a
     * live graph owns are the graph's own business. */
    if (rc == ACL_SUCCESS && dst_dev)
        api_check_graph_write(fn, stream, 0, dst, count);
    return rc;
}

/* aclrtMemcpy and aclrtMemcpyAsync: the same checks, in CANN's order, with
 * the runtime's "Synchronous"/"Asynchronous memory copy" wording; only the
 * synchronous copy rejects destMax 0 on its own. */
static aclError copy(const char *fn, const char *what, void *dst, size_t destMax, const void *src,
                     size_t count, aclrtMemcpyKind kind, bool async, aclrtStream stream)
{
    API_FAULT(ACL_RT_MEMCPY, fn);
    if (count == 0)
        return ACL_SUCCESS;
    if (!dst)
        return api_err_null(fn, "dst");
    if (!src)
        return api_err_null(fn, "src");
    if ((int)kind < 0 || (int)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        char buf[64];
        return api_err_value("Memory copy type conversion", api_kind_name((int)kind, buf, sizeof buf),
                             "kind",
                             "ACL_MEMCPY_HOST_TO_DEVICE or ACL_MEMCPY_DEVICE_TO_DEVICE or "
                             "ACL_MEMCPY_DEVICE_TO_HOST or ACL_MEMCPY_HOST_TO_HOST or "
                             "ACL_MEMCPY_DEFAULT or ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE");
    }
    if ((destMax == 0 && !async) || count > destMax)
        return bad_count(what, "cnt", count, destMax, !async);
    struct api_stream_ref ref;
    struct api_ctx *c;
    aclError rc = api_work_get(fn, async, stream, &ref, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = copy_checked(fn, what, c, ref.stream, dst, src, count, kind, async);
    api_work_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                aclrtMemcpyKind kind)
{
    return copy("aclrtMemcpy", "Synchronous memory copy", dst, destMax, src, count, kind, false,
                NULL);
}

aclError api_impl_aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                     aclrtMemcpyKind kind, aclrtStream stream)
{
    return copy("aclrtMemcpyAsync", "Asynchronous memory copy", dst, destMax, src, count, kind,
                true, stream);
}

/* An asynchronous copy whose host side must be page-locked memory (hicann/
 * runtime src/acl/aclrt_impl/memory.cpp aclrtMemcpyAsyncWithConditionImpl:
 * the ACL layer's checks of aclrtMemcpyAsync, then the runtime's with the
 * check bitmap CHECK_MEMORY_PINNED). aclsim's copies check where each side
 * lies already; a pageable side is copied before the call returns, as
 * aclrtMemcpyAsync's. */
aclError api_impl_aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src,
                                                size_t count, aclrtMemcpyKind kind,
                                                aclrtStream stream)
{
    return copy("aclrtMemcpyAsyncWithCondition", "Asynchronous memory copy", dst, destMax, src,
                count, kind, true, stream);
}

static aclError fill(const char *fn, const char *what, void *devPtr, size_t maxCount,
                     int32_t value, size_t count, bool async, aclrtStream stream)
{
    API_FAULT(ACL_RT_MEMSET, fn);
    if (count == 0)
        return ACL_SUCCESS;
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (maxCount == 0 || count > maxCount)
        return bad_count(what, "count", count, maxCount, false);
    struct api_stream_ref ref;
    struct api_ctx *c;
    aclError rc = api_work_get(fn, async, stream, &ref, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    struct be_ptr_info in;
    be_get()->lookup(devPtr, &in);
    bool device = in.kind != BE_PTR_HOST_PINNED && in.kind != BE_PTR_HOST_REGISTERED &&
                  in.kind != BE_PTR_MANAGED;
    bool captured = async && api_cap_graph_of(ref.stream);
    if (!api_side_ok(what, "devPtr", devPtr, count, device, true, &in)) {
        if (async && touches_dead(devPtr, count, device, &in))
            api_exception_task(ref.stream);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (async &&
               (rc = api_cap_admit(ref.stream, ACL_MODEL_RI_TASK_DEFAULT, "MEMCPY_ASYNC", 5)) !=
                   ACL_SUCCESS) {
        /* a task group or its update takes no fill (rt/capgroup.c) */
    } else
        rc = api_engine_failed(fn, be_get()->memset(c->device, ref.stream, devPtr, device,
                                                (int)(value & 0xff), count, !async));
    if (captured && rc == ACL_SUCCESS) {
        struct api_cap_range r = {.p = devPtr, .n = count, .w = true};
        api_cap_note(ref.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, &r, 1);
    } else if (rc == ACL_SUCCESS && device) { /* bytes a live graph owns */
        api_check_graph_write(fn, ref.stream, 0, devPtr, count);
    }
    api_work_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    return fill("aclrtMemset", "Synchronous memory set", devPtr, maxCount, value, count, false,
                NULL);
}

aclError api_impl_aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                     aclrtStream stream)
{
    return fill("aclrtMemsetAsync", "Asynchronous memory set", devPtr, maxCount, value, count,
                true, stream);
}

aclError api_impl_aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    static const char fn[] = "aclrtGetMemInfo";
    API_FAULT(ACL_RT_MEM_INFO, fn);
    if (!free)
        return api_err_null(fn, "free");
    if (!total)
        return api_err_null(fn, "total");
    /* The runtime's MemGetInfoEx (hicann/runtime src/runtime/api/impl/
     * api_error.cc L3185): RT_MEMORYINFO_DDR .. RT_MEMORYINFO_P2P_HUGE1G. */
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G) {
        char v[32];
        snprintf(v, sizeof v, "UNKNOWN(%d)", (int)attr);
        api_rt_bad_value(fn, "Obtaining the memory information of the current device", v,
                         "memInfoType", "[0, 17]");
        return ACL_ERROR_RT_INVALID_MEMORY_TYPE;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return be_get()->mem_info(c->device, attr, free, total);
}

aclError api_impl_aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    static const char fn[] = "aclrtPointerGetAttributes";
    API_FAULT(ACL_RT_MEM_INFO, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!attributes)
        return api_err_null(fn, "attributes");
    struct be_ptr_info in;
    be_get()->lookup(ptr, &in);
    memset(attributes, 0, sizeof *attributes);
    switch (in.kind) {
    case BE_PTR_DEVICE:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)in.device;
        attributes->pageSize = in.page_size;
        break;
    case BE_PTR_HOST_PINNED:
    case BE_PTR_HOST_REGISTERED:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        attributes->pageSize = in.page_size;
        break;
    case BE_PTR_MANAGED:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
        attributes->pageSize = in.page_size;
        break;
    default:
        /* Pageable host memory, or a device address with no live block. */
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        break;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo,
                                         size_t inputNum, size_t *outputNum)
{
    static const char fn[] = "aclrtGetMemUsageInfo";
    API_FAULT(ACL_RT_MEM_INFO, fn);
    if (!memUsageInfo)
        return api_err_null(fn, "memUsageInfo");
    if (!outputNum)
        return api_err_null(fn, "outputNum");
    if (inputNum == 0)
        return api_err_value(fn, "0", "inputNum", "greater than 0");
    aclError rc = api_device_usable(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    struct be_usage lines[8];
    size_t n = be_get()->mem_usage(deviceId, lines, 8);
    if (n > 8)
        n = 8;
    if (n > inputNum)
        n = inputNum;
    for (size_t i = 0; i < n; i++) {
        memset(&memUsageInfo[i], 0, sizeof memUsageInfo[i]);
        snprintf(memUsageInfo[i].name, sizeof memUsageInfo[i].name, "%s", lines[i].name);
        memUsageInfo[i].curMemSize = lines[i].cur;
        memUsageInfo[i].memPeakSize = lines[i].peak;
    }
    *outputNum = n;
    return ACL_SUCCESS;
}

/* ---- aclrtCheckMemType ---- */

/* The runtime's memory-type bits (rt_mem: RT_MEM_MASK_DEV_TYPE,
 * _DVPP_TYPE, _RSVD_TYPE); acl_rt.h's ACL_RT_MEM_TYPE_RSVD is 0x10, the
 * runtime's check accepts 0x20. */
#define RT_MEM_MASKS (0x2u | 0x8u | 0x20u)

aclError api_impl_aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType,
                                    uint32_t *checkResult, uint32_t reserve)
{
    static const char fn[] = "aclrtCheckMemType", what[] = "Device memory type check";
    API_FAULT(ACL_RT_MEM_INFO, fn);
    if (!addrList)
        return api_err_null(fn, "addrList");
    if (!checkResult)
        return api_err_null(fn, "checkResult");
    *checkResult = 0; /* the runtime clears it first */
    if (reserve != 0) {
        api_report(API_MSG_EE1003, "%s failed because value %u for parameter reserve is invalid. "
                   "Expected value: 0.", what, reserve);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (size == 0) {
        api_report(API_MSG_EE1003, "%s failed because value 0 for parameter size is invalid. "
                   "Expected value: greater than 0.", what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (memType & ~RT_MEM_MASKS) {
        api_report(API_MSG_EE1006, "%s failed. Parameter memType value %u is not supported. "
                   "Reason: Parameter memType only supports OR combinations of one or more of "
                   "RT_MEM_MASK_DEV_TYPE(0x2U), RT_MEM_MASK_RSVD_TYPE(0x20U), and "
                   "RT_MEM_MASK_DVPP_TYPE(0x8U).", what, memType); /* [fact] api_error.cc */
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return api_err_runtime(fn, be_get()->mem_type_check(c->device, addrList, size, memType,
                                                        checkResult));
}
