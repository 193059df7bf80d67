/*
 * allocator.c - the custom-allocator API: descs and their registration on
 * streams (acl_rt_allocator.h).
 *
 * Semantics are CANN's (fact sheet 1.3-1.4): a desc is a zeroed host object
 * of five pointers; no call checks aclInit, devices or whether a stream
 * exists (any non-NULL pointer is a key); Register checks stream, desc, then
 * obj, allocFunc, freeFunc, getAddrFromBlockFunc and stores a snapshot, the
 * last Register of a stream wins; GetByStream checks its desc out-param
 * before the stream and skips other NULL out-params; Unregister of an
 * unregistered stream succeeds; DestroyDesc leaves registrations alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include "base/mem.h"
#include "api.h"
#include "backends/be.h"

/* ---- Live descs (for the leak report's dangling-desc check) ----
 * A chained set keyed by handle; only Create and Destroy touch it, never
 * the registry's lookup path. */

#define DESC_BUCKETS 256u

struct desc_node {
    struct desc_node *next;
    const void *desc;
    bool abandoned; /* its destroy failed: freed when the library unloads */
};

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct desc_node *descs[DESC_BUCKETS];

static struct desc_node **desc_bucket(const void *d)
{
    return &descs[((uintptr_t)d * 0x9E3779B97F4A7C15ull) >> 56];
}

static int desc_add(const void *d)
{
    struct desc_node *n = base_malloc(sizeof *n);
    if (!n)
        return -1;
    pthread_mutex_lock(&desc_lock);
    struct desc_node **b = desc_bucket(d);
    *n = (struct desc_node){*b, d, false};
    *b = n;
    pthread_mutex_unlock(&desc_lock);
    return 0;
}

static void desc_remove(const void *d)
{
    pthread_mutex_lock(&desc_lock);
    for (struct desc_node **p = desc_bucket(d); *p; p = &(*p)->next) {
        if ((*p)->desc == d) {
            struct desc_node *n = *p;
            *p = n->next;
            base_free(n);
            break;
        }
    }
    pthread_mutex_unlock(&desc_lock);
}

bool api_desc_live(const void *d)
{
    pthread_mutex_lock(&desc_lock);
    const struct desc_node *n = *desc_bucket(d);
    while (n && n->desc != d)
        n = n->next;
    pthread_mutex_unlock(&desc_lock);
    return n != NULL;
}

struct desc {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

static void desc_abandon(const void *d)
{
    pthread_mutex_lock(&desc_lock);
    for (struct desc_node *n = *desc_bucket(d); n; n = n->next)
        if (n->desc == d)
            n->abandoned = true;
    pthread_mutex_unlock(&desc_lock);
}

/* Unload: free the descs whose destroy failed, and the set itself. */
__attribute__((destructor)) static void descs_unload(void)
{
    for (unsigned i = 0; i < DESC_BUCKETS; i++) {
        while (descs[i]) {
            struct desc_node *n = descs[i];
            descs[i] = n->next;
            if (n->abandoned)
                base_free((void *)n->desc);
            base_free(n);
        }
    }
}

aclrtAllocatorDesc api_impl_aclrtAllocatorCreateDesc(void)
{
    if (FLT_HIT(ACL_ALLOCATOR_CREATE_DESC)) {
        api_fault(FLT_ACL_ALLOCATOR_CREATE_DESC, "aclrtAllocatorCreateDesc");
        return NULL;
    }
    struct desc *d = base_calloc(1, sizeof *d);
    if (d && desc_add(d) != 0) {
        base_free(d);
        d = NULL;
    }
    if (!d)
        api_report(API_MSG_EH0010, "Failed to allocate %zu bytes of host memory via new to ACL.",
                   sizeof *d);
    return d;
}

aclError api_impl_aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    if (FLT_HIT(ACL_ALLOCATOR_DESTROY_DESC)) {
        if (allocatorDesc)
            desc_abandon(allocatorDesc); /* freed when the library unloads */
        return api_fault(FLT_ACL_ALLOCATOR_DESTROY_DESC, "aclrtAllocatorDestroyDesc");
    }
    if (!allocatorDesc)
        return api_err_null("aclrtAllocatorDestroyDesc", "allocatorDesc");
    desc_remove(allocatorDesc);
    base_free(allocatorDesc);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                               aclrtAllocator allocator)
{
    API_FAULT(ACL_ALLOCATOR_SET_OBJ, "aclrtAllocatorSetObjToDesc");
    if (!allocatorDesc)
        return api_err_null("aclrtAllocatorSetObjToDesc", "allocatorDesc");
    if (!allocator)
        return api_err_null("aclrtAllocatorSetObjToDesc", "allocator");
    ((struct desc *)allocatorDesc)->obj = allocator;
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
        ((struct desc *)allocatorDesc)->field = func;                                \
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
    const struct desc *d = allocatorDesc;
    if (!d->obj)
        return api_err_null(fn, "allocatorDesc->obj");
    if (!d->alloc)
        return api_err_null(fn, "allocatorDesc->allocFunc");
    if (!d->free)
        return api_err_null(fn, "allocatorDesc->freeFunc");
    if (!d->get_addr)
        return api_err_null(fn, "allocatorDesc->getAddrFromBlockFunc");
    struct api_alloc_snapshot s = {allocatorDesc, d->obj, d->alloc, d->free, d->advise,
                                   d->get_addr};
    if (api_registry_put(stream, &s) != 0) {
        api_report(API_MSG_EH0010, "Failed to allocate %zu bytes of host memory via new to ACL.",
                   sizeof s);
        return ACL_ERROR_BAD_ALLOC;
    }
    if (be_get()->note)
        be_get()->note(fn, stream, allocatorDesc);
    /* (Differential mode mirrors registrations itself, desc by desc.) */
    if (be_get()->alloc_register && !api_diff_on)
        be_get()->alloc_register(stream, (const void *)s.obj, (void *)(uintptr_t)s.alloc,
                                 (void *)(uintptr_t)s.free, (void *)(uintptr_t)s.advise,
                                 (void *)(uintptr_t)s.get_addr);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtAllocatorGetByStream(
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
    /* The snapshot taken at Register, never the desc: the desc may have
     * been destroyed since, and its registration still answers (CANN). */
    struct api_alloc_snapshot s;
    if (api_registry_get(stream, &s) != 0) {
        api_report(API_MSG_EH0012,
                   "%s failed. Parameter stream is invalid. Reason: The stream is not registered "
                   "with any allocator.",
                   fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    /* Written only on success, NULL ones skipped. (Last to first: GCC then
     * lays the hot path out without a jump past the exported wrapper's
     * differential-mode code.) */
    if (getAddrFromBlockFunc)
        *getAddrFromBlockFunc = s.get_addr;
    if (allocAdviseFunc)
        *allocAdviseFunc = s.advise;
    if (freeFunc)
        *freeFunc = s.free;
    if (allocFunc)
        *allocFunc = s.alloc;
    if (allocator)
        *allocator = s.obj;
    *allocatorDesc = s.desc;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtAllocatorUnregister(aclrtStream stream)
{
    API_FAULT(ACL_ALLOCATOR_UNREGISTER, "aclrtAllocatorUnregister");
    if (!stream)
        return api_err_null("aclrtAllocatorUnregister", "stream");
    api_registry_remove(stream);
    if (be_get()->note)
        be_get()->note("aclrtAllocatorUnregister", stream, NULL);
    if (be_get()->alloc_unregister && !api_diff_on)
        be_get()->alloc_unregister(stream);
    return ACL_SUCCESS;
}
