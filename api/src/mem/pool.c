/*
 * pool.c - stream-ordered memory pools (acl_rt_memory_soma.h).
 *
 * The ACL-layer checks are CANN's (src/acl/aclrt_impl/memory.cpp,
 * aclrtMemPoolCreateImpl and the calls after it): NULL pointers (EH0008),
 * allocation and location types (EH0007 with CANN's "MEM_..." names), the
 * reserved bytes (EH0012), all ACL_ERROR_INVALID_PARAM; a MallocAsync of 0
 * bytes succeeds and gives nothing. The runtime's checks with messages of
 * their own are made here: a NULL attribute value (EE1004,
 * src/runtime/api/impl/api_impl_soma.cc:41-58), a pool handle that names no
 * pool to SetAttr and GetAttr (EE1017, src/runtime/feature/soma/
 * soma.cc:150-157, 179-186), a maxSize the device cannot hold (EE1011,
 * soma.cc:80-93, 200-216). What else the runtime checks below (live pools,
 * pool memory, attribute values) is the backend's, reported as in vmm.c.
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
    int32_t dev = (int32_t)poolProps->location.id;
    aclError rc = api_device_usable(fn, dev);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The runtime sizes the pool in the device's huge-page granularity,
     * 2 MB (soma.cc:32-61, the driver's recommended granularity): maxSize
     * rounded up, 0 meaning all of the HBM rounded down; more than the HBM
     * is refused (soma.cc:80-93, 200-216). */
    const size_t align = (size_t)2 << 20, mb = (size_t)1 << 20;
    size_t fr = 0, total = 0;
    rc = be_get()->mem_info(dev, ACL_HBM_MEM, &fr, &total);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    aclrtMemPoolProps props = *poolProps;
    if (props.maxSize == 0)
        props.maxSize = total / align * align;
    else if (props.maxSize > SIZE_MAX - align ||
             (props.maxSize = (props.maxSize + align - 1) / align * align) > total) {
        api_report(API_MSG_EE1011, "Create memory pool failed. Value %zu MB for parameter "
                   "rtMemPoolProps.maxSize is invalid. Reason: The memory pool size after %zu MB "
                   "alignment is %zu MB, which exceeds the available device memory %zu MB on the "
                   "Device(device_id=%d).", poolProps->maxSize / mb, align / mb,
                   props.maxSize > SIZE_MAX - align ? SIZE_MAX / mb : props.maxSize / mb,
                   total / mb, (int)dev);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    rc = be_get()->pool_create(dev, &props, memPool);
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
    if (!memPool) /* the ACL layer's one check (memory.cpp:2124-2141) */
        return api_err_null(fn, "memPool");
    if (!value) /* the runtime's (api_impl_soma.cc:41-58) */
        return api_rt_null(set ? "Setting the attribute value of a memory pool"
                               : "Obtaining the specified attribute value of a memory pool",
                           "value");
    const char *why = NULL;
    aclError rc_ = be_get()->pool_attr(memPool, a, set, value, &why);
    if (rc_ == ACL_ERROR_RT_PARAM_INVALID && !why) {
        api_report(API_MSG_EE1017, "%s memory pool attribute failed. Parameter memPool is "
                   "invalid. Reason: The specified memory pool %p is not created, please create "
                   "the memory pool before %s its attributes.", set ? "Setting" : "Getting",
                   (void *)memPool, set ? "setting" : "getting");
        return rc_;
    }
    if (rc_ == ACL_ERROR_RT_PARAM_INVALID && set && (a == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT ||
                                                     a == ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT)) {
        /* soma.cc:159-164 (its message passes three of EE1011's four
         * arguments; the parameter here is aclsim's) */
        api_report(API_MSG_EE1011, "Setting memory pool attribute failed. Value %s(%u) for "
                   "parameter attr is invalid. Reason: This attribute is read-only and does not "
                   "support setting.", a == ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT
                                           ? "rtMemPoolAttrUsedMemCurrent"
                                           : "rtMemPoolAttrReservedMemCurrent", (unsigned)a);
        return rc_;
    }
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
