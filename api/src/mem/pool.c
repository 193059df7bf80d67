/*
 * pool.c - stream-ordered memory pools (acl_rt_memory_soma.h).
 *
 * The ACL-layer checks are CANN's (src/acl/aclrt_impl/memory.cpp,
 * aclrtMemPoolCreateImpl and the calls after it): NULL pointers (EH0008),
 * allocation and location types (EH0007 with CANN's "MEM_..." names), the
 * reserved bytes (EH0012), all ACL_ERROR_INVALID_PARAM; a MallocAsync of 0
 * bytes succeeds and gives nothing. What the runtime checks below (live
 * pools, pool memory, attributes) is the backend's, reported as in vmm.c.
 */
#include <stdio.h>
#include <string.h>
#include "memory.h"
#include "backends/be.h"

aclError api_impl_aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps)
{
    static const char fn[] = "aclrtMemPoolCreate";
    char v[32];
    API_FAULT(ACL_RT_POOL, fn);
    if (!memPool)
        return api_err_null(fn, "memPool");
    if (!poolProps)
        return api_err_null(fn, "poolProps");
    if (poolProps->allocType != ACL_MEM_ALLOCATION_TYPE_PINNED) {
        snprintf(v, sizeof v, "UNKNOWN(%d)", (int)poolProps->allocType);
        return api_err_value(fn, v, "poolProps->allocType", "MEM_ALLOCATION_TYPE_PINNED(0)");
    }
    if (poolProps->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
        static const char *names[] = {"MEM_LOCATION_TYPE_HOST(0)", "MEM_LOCATION_TYPE_DEVICE(1)",
                                      "MEM_LOCATION_TYPE_UNREGISTERED(2)",
                                      "MEM_LOCATION_TYPE_MANAGED(3)",
                                      "MEM_LOCATION_TYPE_HOST_NUMA(4)"};
        int t = (int)poolProps->location.type;
        if (t >= 0 && t < 5)
            snprintf(v, sizeof v, "%s", names[t]);
        else
            snprintf(v, sizeof v, "UNKNOWN(%d)", t);
        return api_err_value(fn, v, "poolProps->location.type", "MEM_LOCATION_TYPE_DEVICE(1)");
    }
    static const unsigned char zeros[sizeof poolProps->reserved];
    if (memcmp(poolProps->reserved, zeros, sizeof zeros) != 0) {
        api_report(API_MSG_EH0012, "%s failed. Parameter poolProps->reserved is invalid. Reason: "
                   "poolProps->reserved is a reserved parameter and must be nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc = api_device_usable(fn, (int32_t)poolProps->location.id);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->pool_create((int32_t)poolProps->location.id, poolProps, memPool);
    return api_vmm_failed(fn, rc, NULL);
}

aclError api_impl_aclrtMemPoolDestroy(const aclrtMemPool memPool)
{
    static const char fn[] = "aclrtMemPoolDestroy";
    if (!memPool)
        return api_err_null(fn, "memPool");
    const char *why = NULL;
    aclError rc_ = be_get()->pool_destroy(memPool, &why);
    return api_vmm_failed(fn, rc_, why);
}

static aclError attr(const char *fn, aclrtMemPool memPool, aclrtMemPoolAttr a, void *value,
                     int set)
{
    if (!memPool)
        return api_err_null(fn, "memPool");
    if (!value) /* the runtime's check (rtMemPoolSetAttr/GetAttr) */
        return api_err_null(fn, "value");
    const char *why = NULL;
    aclError rc_ = be_get()->pool_attr(memPool, a, set, value, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr a, void *value)
{
    return attr("aclrtMemPoolSetAttr", memPool, a, value, 1);
}

aclError api_impl_aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr a, void *value)
{
    return attr("aclrtMemPoolGetAttr", memPool, a, value, 0);
}

aclError api_impl_aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool,
                                          aclrtStream stream)
{
    static const char fn[] = "aclrtMemPoolMallocAsync";
    API_FAULT(ACL_RT_POOL, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!memPool)
        return api_err_null(fn, "memPool");
    if (!stream)
        return api_err_null(fn, "stream");
    if (size == 0)
        return ACL_SUCCESS; /* as CANN: nothing is allocated, *ptr untouched */
    struct api_stream_ref ref;
    aclError rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    rc = be_get()->pool_malloc(memPool, size, ref.stream, ptr, &why);
    api_stream_put(&ref);
    return api_vmm_failed(fn, rc, why);
}

aclError api_impl_aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream)
{
    static const char fn[] = "aclrtMemPoolFreeAsync";
    if (!ptr)
        return api_err_null(fn, "ptr");
    /* The runtime's checks (hicann/runtime src/runtime/api/impl/
     * api_impl_soma.cc:110-120): no default stream here; RT_ERROR_STREAM_NULL
     * is 507000 outside (src/runtime/core/src/common/errcode_manage.cc:123). */
    if (!stream) {
        api_rt_null("Asynchronously releasing memory in the memory pool", "stm");
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    struct api_stream_ref ref;
    aclError rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    /* A block of no pool (an aclrtMalloc's) is the backend's to free in the
     * stream's order, as the runtime does (api_impl_soma.cc:147-165). */
    if (api_graphs_live())
        api_check_graph_free(fn, ptr, 1);
    rc = be_get()->pool_free(ptr, ref.stream, &why);
    api_stream_put(&ref);
    return api_vmm_failed(fn, rc, why);
}

aclError api_impl_aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep)
{
    static const char fn[] = "aclrtMemPoolTrimTo";
    if (!memPool)
        return api_err_null(fn, "memPool");
    const char *why = NULL;
    aclError rc_ = be_get()->pool_trim(memPool, minBytesToKeep, &why);
    return api_vmm_failed(fn, rc_, why);
}
