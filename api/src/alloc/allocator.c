/*
 * allocator.c - the custom-allocator API: descs and their registration on
 * streams (acl_rt_allocator.h).
 *
 * Semantics are CANN's (hicann/runtime src/acl/aclrt_impl/allocator.cpp,
 * and its unit test tests/ut/acl/testcase/acl_runtime_unittest.cpp): a desc is a zeroed host object
 * of five pointers; no call checks aclInit, devices or whether a stream
 * exists (any non-NULL pointer is a key); Register checks stream, desc, then
 * obj, allocFunc, freeFunc, getAddrFromBlockFunc and stores a snapshot, the
 * last Register of a stream wins; GetByStream checks its desc out-param
 * before the stream and skips other NULL out-params; Unregister of an
 * unregistered stream succeeds; DestroyDesc leaves registrations alone.
 *
 * Unlike CANN, a desc handle is checked before it is used: a pointer that
 * is not a live desc (garbage, foreign, freed, destroyed twice, inside a
 * desc) gets ACL_ERROR_INVALID_PARAM and an EH0012 message (aclsim's
 * wording) instead of a crash or a write into the program's memory.
 */
#include <pthread.h>
#include <stdlib.h>
#include "base/mem.h"
#include "alloc.h"
#include "backends/be.h"

/* ---- Live descs ----
 * Every desc is a node of a chained set keyed by its own address, under
 * desc_lock. A handle is looked up by value, never dereferenced until the
 * set says it is a desc, and it is used only under the lock, so a
 * concurrent DestroyDesc cannot free it between check and use. Destroyed
 * descs stay in the set, marked dead, for the next QUARANTINE destroys
 * before their memory is freed: a stale handle is then reported as
 * destroyed, and the allocator does not hand the same address to a new
 * desc at once. Only Create, Destroy, Set* and Register take the lock;
 * GetByStream reads the registry's snapshot and never a desc. */

#define DESC_BUCKETS 1024u
#define QUARANTINE 64u

struct desc {
    /* CANN's five fields first, in CANN's order. */
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
    struct desc *next; /* bucket chain */
    bool dead;         /* destroyed, waiting in the quarantine */
    bool abandoned;    /* its destroy failed: freed when the library unloads */
};

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct desc *descs[DESC_BUCKETS];
static struct desc *quarantine[QUARANTINE]; /* dead descs, oldest at q_next */
static unsigned q_next;

static struct desc **desc_bucket(const void *d)
{
    return &descs[((uintptr_t)d * 0x9E3779B97F4A7C15ull) >> 54];
}

/* The desc whose handle is h, live or dead, or NULL. Compares addresses
 * only: h itself is never read. pre: desc_lock held. */
static struct desc *desc_find(const void *h)
{
    struct desc *n = *desc_bucket(h);
    while (n && n != h)
        n = n->next;
    return n;
}

static void desc_unlink(const struct desc *d)
{
    struct desc **p = desc_bucket(d);
    while (*p != d)
        p = &(*p)->next;
    *p = d->next;
}

bool api_desc_live(const void *d)
{
    pthread_mutex_lock(&desc_lock);
    const struct desc *n = desc_find(d);
    bool live = n && !n->dead;
    pthread_mutex_unlock(&desc_lock);
    return live;
}

/* EH0012 for a handle that is not a live desc; `dead` when the set still
 * knows it as destroyed. Returns ACL_ERROR_INVALID_PARAM. */
static aclError bad_desc(const char *func, bool dead)
{
    api_report(API_MSG_EH0012, "%s failed. Parameter allocatorDesc is invalid. Reason: %s.",
               func, dead ? "the allocator description has already been destroyed"
                          : "it is not a live allocator description");
    return ACL_ERROR_INVALID_PARAM;
}

/* Lock the set and return the live desc behind h; on NULL the lock is
 * released and the EH0012 message queued. */
static struct desc *desc_lock_live(const char *func, const void *h)
{
    pthread_mutex_lock(&desc_lock);
    struct desc *d = desc_find(h);
    if (d && !d->dead)
        return d;
    bool dead = d != NULL;
    pthread_mutex_unlock(&desc_lock);
    bad_desc(func, dead);
    return NULL;
}

/* Unload: free the descs whose destroy failed and those in the quarantine.
 * A desc the program never destroyed is dropped unfreed, so Valgrind
 * reports it as lost, as it would CANN's. */
__attribute__((destructor)) static void descs_unload(void)
{
    for (unsigned i = 0; i < DESC_BUCKETS; i++) {
        while (descs[i]) {
            struct desc *n = descs[i];
            descs[i] = n->next;
            if (n->abandoned || n->dead)
                base_free(n);
        }
    }
    for (unsigned i = 0; i < QUARANTINE; i++)
        quarantine[i] = NULL;
}

aclrtAllocatorDesc api_impl_aclrtAllocatorCreateDesc(void)
{
    if (FLT_HIT(ACL_ALLOCATOR_CREATE_DESC)) {
        api_fault(FLT_ACL_ALLOCATOR_CREATE_DESC, "aclrtAllocatorCreateDesc");
        return NULL;
    }
    struct desc *d = base_calloc(1, sizeof *d);
    if (!d) {
        api_err_host_alloc((size_t)5 * sizeof(void *)); /* CANN's desc: five pointers */
        return NULL;
    }
    pthread_mutex_lock(&desc_lock);
    struct desc **b = desc_bucket(d);
    d->next = *b;
    *b = d;
    pthread_mutex_unlock(&desc_lock);
    return d;
}

aclError api_impl_aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    static const char fn[] = "aclrtAllocatorDestroyDesc";
    if (FLT_HIT(ACL_ALLOCATOR_DESTROY_DESC)) {
        pthread_mutex_lock(&desc_lock);
        struct desc *d = allocatorDesc ? desc_find(allocatorDesc) : NULL;
        if (d && !d->dead)
            d->abandoned = true; /* freed when the library unloads */
        pthread_mutex_unlock(&desc_lock);
        return api_fault(FLT_ACL_ALLOCATOR_DESTROY_DESC, fn);
    }
    if (!allocatorDesc)
        return api_err_null(fn, "allocatorDesc");
    api_check_destroy_desc(allocatorDesc); /* operators still using it? */
    struct desc *d = desc_lock_live(fn, allocatorDesc);
    if (!d)
        return ACL_ERROR_INVALID_PARAM;
    /* Into the quarantine; the oldest dead desc leaves the set and is freed. */
    d->dead = true;
    struct desc *old = quarantine[q_next];
    quarantine[q_next] = d;
    q_next = (q_next + 1) % QUARANTINE;
    if (old)
        desc_unlink(old);
    pthread_mutex_unlock(&desc_lock);
    base_free(old);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                             aclrtAllocator allocator)
{
    static const char fn[] = "aclrtAllocatorSetObjToDesc";
    API_FAULT(ACL_ALLOCATOR_SET_OBJ, fn);
    if (!allocatorDesc)
        return api_err_null(fn, "allocatorDesc");
    if (!allocator)
        return api_err_null(fn, "allocator");
    struct desc *d = desc_lock_live(fn, allocatorDesc);
    if (!d)
        return ACL_ERROR_INVALID_PARAM;
    d->obj = allocator;
    pthread_mutex_unlock(&desc_lock);
    return ACL_SUCCESS;
}

/* The four Set*FuncToDesc calls differ only in the field they fill. */
#define SET_FUNC(api, type, field, point)                                            \
    aclError api_impl_##api(aclrtAllocatorDesc allocatorDesc, type func)             \
    {                                                                                \
        API_FAULT(point, #api);                                                      \
        if (!allocatorDesc)                                                          \
            return api_err_null(#api, "allocatorDesc");                              \
        if (!func)                                                                   \
            return api_err_null(#api, "func");                                       \
        struct desc *d = desc_lock_live(#api, allocatorDesc);                        \
        if (!d)                                                                      \
            return ACL_ERROR_INVALID_PARAM;                                          \
        d->field = func;                                                             \
        pthread_mutex_unlock(&desc_lock);                                            \
        return ACL_SUCCESS;                                                          \
    }

SET_FUNC(aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc, alloc, ACL_ALLOCATOR_SET_ALLOC)
SET_FUNC(aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc, free, ACL_ALLOCATOR_SET_FREE)
SET_FUNC(aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc, advise,
         ACL_ALLOCATOR_SET_ADVISE)
SET_FUNC(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc,
         get_addr, ACL_ALLOCATOR_SET_GET_ADDR)

aclError api_impl_aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    static const char fn[] = "aclrtAllocatorRegister";
    API_FAULT(ACL_ALLOCATOR_REGISTER, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    if (!allocatorDesc)
        return api_err_null(fn, "allocatorDesc");
    const struct desc *d = desc_lock_live(fn, allocatorDesc);
    if (!d)
        return ACL_ERROR_INVALID_PARAM;
    struct api_alloc_snapshot s = {allocatorDesc, d->obj, d->alloc, d->free, d->advise,
                                   d->get_addr};
    pthread_mutex_unlock(&desc_lock);
    if (!s.obj)
        return api_err_null(fn, "allocatorDesc->obj");
    if (!s.alloc)
        return api_err_null(fn, "allocatorDesc->allocFunc");
    if (!s.free)
        return api_err_null(fn, "allocatorDesc->freeFunc");
    if (!s.get_addr)
        return api_err_null(fn, "allocatorDesc->getAddrFromBlockFunc");
    if (api_registry_put(stream, &s) != 0)
        return api_err_host_alloc(sizeof s);
    if (API_TOOL(note))
        API_TOOL(note)(fn, stream, allocatorDesc);
    /* (Differential mode mirrors registrations itself, desc by desc.) */
    if (API_BRIDGE(alloc_register) && !api_diff_on)
        API_BRIDGE(alloc_register)(stream, (const void *)s.obj, (void *)(uintptr_t)s.alloc,
                                 (void *)(uintptr_t)s.free, (void *)(uintptr_t)s.advise,
                                 (void *)(uintptr_t)s.get_addr);
    return ACL_SUCCESS;
}

/* GetByStream's answer: every out-param but NULL ones, on success only.
 * One test skips the four callbacks when none is asked for (a program
 * checking a registration asks for the desc alone): four taken branches
 * were a sixth of the lookup (scons bench: registry_speedup_1t). */
static inline void put_snapshot(const struct api_alloc_snapshot *s,
                                aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
                                aclrtAllocatorAllocFunc *allocFunc,
                                aclrtAllocatorFreeFunc *freeFunc,
                                aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    if ((uintptr_t)getAddrFromBlockFunc | (uintptr_t)allocAdviseFunc | (uintptr_t)freeFunc |
        (uintptr_t)allocFunc) {
        if (getAddrFromBlockFunc)
            *getAddrFromBlockFunc = s->get_addr;
        if (allocAdviseFunc)
            *allocAdviseFunc = s->advise;
        if (freeFunc)
            *freeFunc = s->free;
        if (allocFunc)
            *allocFunc = s->alloc;
    }
    if (allocator)
        *allocator = s->obj;
    *allocatorDesc = s->desc;
}

/* Every case but the common one: fault points, NULL arguments, a stream in
 * a probe run or read while a writer was at work, an unregistered stream. */
static aclError get_by_stream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    static const char fn[] = "aclrtAllocatorGetByStream";
    API_FAULT(ACL_ALLOCATOR_GET_BY_STREAM, fn);
    if (!allocatorDesc)
        return api_err_null(fn, "allocatorDesc");
    if (!stream)
        return api_err_null(fn, "stream");
    const struct api_alloc_snapshot *s = api_registry_get(stream);
    if (!s) {
        api_report(API_MSG_EH0012,
                   "%s failed. Parameter stream is invalid. Reason: The stream is not registered "
                   "with any allocator.",
                   fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    put_snapshot(s, allocatorDesc, allocator, allocFunc, freeFunc, allocAdviseFunc,
                 getAddrFromBlockFunc);
    return ACL_SUCCESS;
}

/* get_by_stream, noting its failure as the export of any other call does
 * (exports.c: HOT), so that the common path can jump to it. */
static __attribute__((noinline)) aclError get_by_stream_noted(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    aclError rc = get_by_stream(stream, allocatorDesc, allocator, allocFunc, freeFunc,
                                allocAdviseFunc, getAddrFromBlockFunc);
    api_last_error_note(rc);
    return rc;
}

/* Inlined into its export (exports.c), as api_registry_try is into it: the
 * common case (no fault armed, the stream in its home slot) calls nothing;
 * everything else is get_by_stream's, reached by a jump. The snapshot
 * taken at Register answers, never the desc: the desc may have been
 * destroyed since, and its registration still answers (CANN). */
__attribute__((always_inline)) inline aclError api_impl_aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    const struct api_alloc_snapshot *s;
    if (__builtin_expect(!atomic_load_explicit(&flt_armed, memory_order_relaxed) &&
                             allocatorDesc && stream && (s = api_registry_try(stream)),
                         1)) {
        put_snapshot(s, allocatorDesc, allocator, allocFunc, freeFunc, allocAdviseFunc,
                     getAddrFromBlockFunc);
        return ACL_SUCCESS;
    }
    return get_by_stream_noted(stream, allocatorDesc, allocator, allocFunc, freeFunc,
                               allocAdviseFunc, getAddrFromBlockFunc);
}

aclError api_impl_aclrtAllocatorUnregister(aclrtStream stream)
{
    API_FAULT(ACL_ALLOCATOR_UNREGISTER, "aclrtAllocatorUnregister");
    if (!stream)
        return api_err_null("aclrtAllocatorUnregister", "stream");
    api_check_unregister(stream); /* operators still using it? */
    /* The trace names the desc the stream had (none: nothing was registered). */
    const struct api_alloc_snapshot *had = API_TOOL(note) ? api_registry_get(stream) : NULL;
    aclrtAllocatorDesc desc = had ? had->desc : NULL;
    api_registry_remove(stream);
    if (API_TOOL(note))
        API_TOOL(note)("aclrtAllocatorUnregister", stream, desc);
    if (API_BRIDGE(alloc_unregister) && !api_diff_on)
        API_BRIDGE(alloc_unregister)(stream);
    return ACL_SUCCESS;
}
