/*
 * hostmem.c - registered, managed and configured memory (the HOSTMEM family):
 * allocations with a configuration, frees after the device's work, host
 * memory registered for the devices, managed (UVM) memory and its advice,
 * and the device's record of uncorrectable memory errors.
 *
 * Checks run in CANN's order with its codes and texts: the ACL layer's
 * (hicann/runtime src/acl/aclrt_impl/memory.cpp, event.cpp) give
 * ACL_ERROR_INVALID_PARAM with EH0007/EH0008/EH0009; the runtime's
 * (src/runtime/api/impl/api_error.cc, api_error_uvm.cc, api_impl.cc) give
 * ACL_ERROR_RT_PARAM_INVALID with EE1003/EE1004/EE1011/EE1017/EE1018. Where
 * the runtime only logs a warning and answers 207000, aclsim says why in
 * CANN's EE1005 frame.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "memory.h"
#include "backends/be.h"

/* "<func> failed. Value <value> for parameter <param> is invalid. Reason:
 * <why>." (EH0009, the ACL layer's reason format). */
static aclError reason(const char *func, const char *value, const char *param, const char *why)
{
    api_report(API_MSG_EH0009, "%s failed. Value %s for parameter %s is invalid. Reason: %s.",
               func, value, param, why);
    return ACL_ERROR_INVALID_PARAM;
}

/* A reserved parameter that must be 0 (ACL_CHECK_RESERVED_PARAM_REPORT_RET). */
static aclError reserved(const char *func, const char *param, uint64_t value)
{
    char v[24], why[96];
    snprintf(v, sizeof v, "%" PRIu64, value);
    snprintf(why, sizeof why, "%s is a reserved parameter and must be 0", param);
    return reason(func, v, param, why);
}

static aclError size_zero(const char *func, const char *param)
{
    return api_err_value(func, "0", param, "must be greater than 0");
}

/* The runtime's "<desc> failed because value <v> for parameter <param> is
 * invalid. Expected value: <expect>." (EE1003). */
static aclError rt_value(const char *desc, const char *value, const char *param,
                         const char *expect)
{
    api_report(API_MSG_EE1003, "%s failed because value %s for parameter %s is invalid. Expected "
               "value: %s.", desc, value, param, expect);
    return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError rt_null(const char *desc, const char *param)
{
    api_report(API_MSG_EE1004, "%s failed because %s cannot be a NULL pointer.", desc, param);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* What the runtime answers, with a warning only, for a feature the SoC
 * lacks: 207000, said in CANN's EE1005 frame. */
static aclError unsupported(const char *what)
{
    api_report(API_MSG_EE1005, "The current system or device does not support %s.", what);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static uint32_t device_count(void)
{
    uint32_t n = 0;
    be_get()->device_count(&n);
    return n;
}

/* ---- allocations with a configuration ---- */

/* CANN's names of the allocation attributes (rtMallocAttr). */
static const char *attr_name(int a, char *buf, size_t len)
{
    static const char *const names[] = {"MEM_MALLOC_ATTR_RSV(0)", "MEM_MALLOC_ATTR_MODULE_ID(1)",
                                        "MEM_MALLOC_ATTR_DEVICE_ID(2)",
                                        "MEM_MALLOC_ATTR_VA_FLAG(3)", "MEM_MALLOC_ATTR_MAX(4)"};
    if (a >= 0 && a <= 4)
        return names[a];
    snprintf(buf, len, "UNKNOWN(%d)", a);
    return buf;
}

/* The runtime's reading of a configuration (ApiImpl::ParseMallocCfg):
 * reserved, module and device attributes, the last of each counting; a
 * device other than dev is refused. `host` allows the VA flag too. */
static aclError parse_cfg(const char *desc, const aclrtMallocConfig *cfg, int32_t dev, bool host)
{
    if (!cfg)
        return ACL_SUCCESS;
    if (!cfg->attrs)
        return rt_null(desc, "cfg->attrs");
    int32_t want = dev;
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        int a = (int)cfg->attrs[i].attr;
        if (a == ACL_RT_MEM_ATTR_DEVICE_ID && !host)
            want = (int32_t)cfg->attrs[i].value.deviceId;
        else if (a < 0 || a > (host ? ACL_RT_MEM_ATTR_VA_FLAG : ACL_RT_MEM_ATTR_DEVICE_ID)) {
            char buf[32];
            return rt_value("Parsing the memory allocation configuration",
                            attr_name(a, buf, sizeof buf), "cfg->attrs[i].attr",
                            host ? "[0, 3]" : "[0, 2]");
        }
    }
    if (want != dev) {
        char v[16], expect[64];
        snprintf(v, sizeof v, "%" PRIu32, (uint32_t)want);
        snprintf(expect, sizeof expect, "the current device %d", (int)dev);
        return rt_value(desc, v, "cfg deviceId", expect);
    }
    return ACL_SUCCESS;
}

/* aclrtMallocWithCfg and aclrtMallocForTaskScheduler: acl::aclrtMallocInnerWithCfg,
 * whose name CANN's messages carry; the size goes to the runtime as is (no
 * padding). Always inlined: the public name stays on memcheck's stack. */
static inline __attribute__((always_inline)) aclError
malloc_cfg(const char *api, void **devPtr, size_t size, aclrtMemMallocPolicy policy,
           aclrtMallocConfig *cfg)
{
    static const char fn[] = "aclrtMallocInnerWithCfg";
    API_FAULT(ACL_RT_MALLOC_CFG, api);
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (cfg && cfg->numAttrs != 0 && !cfg->attrs) {
        char v[24];
        snprintf(v, sizeof v, "%zu", cfg->numAttrs);
        return reason(fn, v, "cfg->numAttrs",
                      "cfg->attrs must not be null when cfg->numAttrs is not 0");
    }
    if (size == 0)
        return size_zero(fn, "size");
    if (size > SIZE_MAX - 64) {
        api_report(API_MSG_EH9999, "[Check][Size]size too large: %zu", size);
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(api, &c);
    if (rc == ACL_SUCCESS)
        rc = parse_cfg("Allocating device memory", cfg, c->device, false);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->mem_alloc(c->device, size, policy, BE_ALLOC_NO_PAD, devPtr);
    return rc == ACL_SUCCESS ? rc : api_no_memory(rc, "device", size);
}

aclError api_impl_aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                     aclrtMallocConfig *cfg)
{
    return malloc_cfg("aclrtMallocWithCfg", devPtr, size, policy, cfg);
}

aclError api_impl_aclrtMallocForTaskScheduler(void **devPtr, size_t size,
                                              aclrtMemMallocPolicy policy,
                                              aclrtMallocConfig *cfg)
{
    return malloc_cfg("aclrtMallocForTaskScheduler", devPtr, size, policy, cfg);
}

aclError api_impl_aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    static const char fn[] = "aclrtMallocHostWithCfg";
    API_FAULT(ACL_RT_MALLOC_CFG, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (size == 0)
        return size_zero(fn, "size");
    aclError rc = parse_cfg("Allocating host memory based on the configuration attributes", cfg,
                            0, true);
    struct api_ctx *c;
    if (rc == ACL_SUCCESS)
        rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (size > SIZE_MAX - 64)
        return api_no_memory(ACL_ERROR_RT_MEMORY_ALLOCATION, "host", SIZE_MAX);
    rc = be_get()->host_alloc((size_t)size, ptr);
    return rc == ACL_SUCCESS ? rc : api_no_memory(rc, "host", (size_t)size);
}

/* ---- frees after the device's work ---- */

aclError api_impl_aclrtFreeWithDevSync(void *devPtr)
{
    return api_free_device("aclrtFreeWithDevSync", devPtr, API_FREE_SYNC);
}

aclError api_impl_aclrtFreeHostWithDevSync(void *hostPtr)
{
    return api_free_host("aclrtFreeHostWithDevSync", hostPtr, true);
}

/* ---- host memory registered for the devices ---- */

static const char reg_v1[] = "Registering the host memory as device-accessible memory";
static const char reg_v2[] = "Host memory address registration";

/* The part of registration both versions share, after their own checks:
 * CANN's docs ask a 4 KB aligned address. */
static aclError do_register(const char *fn, const char *desc, void *ptr, uint64_t size, int v2,
                            uint32_t how, void **devPtr)
{
    if ((uintptr_t)ptr & 4095u) {
        char v[32];
        snprintf(v, sizeof v, "%p", ptr);
        return rt_value(desc, v, "ptr", "a 4 KB aligned address");
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->host_register(c->device, ptr, size, v2, how, devPtr);
    if (rc == ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
        api_report(API_MSG_EE1018, "%s failed. Reason: The memory range has already been "
                   "registered.", desc); /* [fact] api_error.cc HostRegisterV2 */
        return rc;
    }
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
                                    void **devPtr)
{
    static const char fn[] = "aclrtHostRegister";
    API_FAULT(ACL_RT_HOST_REGISTER, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (size == 0)
        return size_zero(fn, "size");
    /* Only the mapped registration exists; I/O memory and read-only are
     * reserved (CANN's docs), other bits the runtime refuses. */
    if ((uint32_t)type != ACL_HOST_REGISTER_MAPPED) {
        char what[64];
        snprintf(what, sizeof what, "host memory registration type %u", (unsigned)type);
        return unsupported(what);
    }
    return do_register(fn, reg_v1, ptr, size, 0, (uint32_t)type, devPtr);
}

aclError api_impl_aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    static const char fn[] = "aclrtHostRegisterV2";
    const uint32_t valid = ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY |
                           ACL_HOST_REG_PINNED;
    API_FAULT(ACL_RT_HOST_REGISTER, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (size == 0)
        return size_zero(fn, "size");
    if ((flag & valid) == 0 || (flag & ~valid) != 0) {
        api_report(API_MSG_EE1011, "%s failed. Value %u for parameter flag is invalid. Reason: The "
                   "valid flag is an OR combination of RT_MEM_HOST_REGISTER_MAPPED(0x2U), "
                   "RT_MEM_HOST_REGISTER_IOMEMORY(0x4U), RT_MEM_HOST_REGISTER_READONLY(0x8U), and "
                   "RT_MEM_HOST_REGISTER_PINNED(0x10000000U).", reg_v2, flag); /* [fact] */
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (flag & (ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY)) /* reserved (CANN's docs) */
        return unsupported(flag & ACL_HOST_REG_IOMEMORY ? "ACL_HOST_REG_IOMEMORY"
                                                        : "ACL_HOST_REG_READONLY");
    return do_register(fn, reg_v2, ptr, size, 1, flag, NULL);
}

aclError api_impl_aclrtHostUnregister(void *ptr)
{
    static const char fn[] = "aclrtHostUnregister";
    API_FAULT(ACL_RT_HOST_REGISTER, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->host_unregister(c->device, ptr);
    if (rc == ACL_ERROR_HOST_MEMORY_NOT_REGISTERED) {
        api_report(API_MSG_EE1018, "Unregistering host memory failed. Reason: The host pointer "
                   "has not been registered for device memory mapping."); /* [fact] */
        return rc;
    }
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    static const char fn[] = "aclrtHostGetDevicePointer";
    API_FAULT(ACL_RT_HOST_REGISTER, fn);
    if (!pHost)
        return api_err_null(fn, "pHost");
    if (!pDevice)
        return api_err_null(fn, "pDevice");
    if (flag != 0)
        return reserved(fn, "flag", flag);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->host_dev_ptr(c->device, pHost, pDevice);
    if (rc == ACL_ERROR_RT_PARAM_INVALID) {
        api_report(API_MSG_EE1011, "Obtaining the on-device memory pointer based on the on-host "
                   "virtual address failed. Value %#" PRIx64 " for parameter pHost is invalid. "
                   "Reason: The host pointer has not been registered for device address mapping.",
                   (uint64_t)(uintptr_t)pHost); /* [fact] api_impl.cc HostGetDevicePointer */
        return rc;
    }
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                              aclrtHostMemMapCapability *capabilities)
{
    static const char fn[] = "aclrtHostMemMapCapabilities";
    static const char desc[] = "Querying the host memory mapping capability on a specified device";
    API_FAULT(ACL_RT_HOST_REGISTER, fn);
    if (!capabilities)
        return api_err_null(fn, "capabilities");
    uint32_t n = device_count();
    if (deviceId >= n) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, invalid deviceId "
                   "%u, valid range is [0, %u).", fn, deviceId, n);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    if ((uint32_t)hacType >= 10u) {
        char v[16];
        snprintf(v, sizeof v, "%u", (unsigned)hacType);
        return rt_value(desc, v, "hacType", "[0, 10)");
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return api_err_runtime(fn, be_get()->host_map_caps((int32_t)deviceId, hacType, capabilities));
}

/* ---- managed (UVM) memory ---- */

static const char uvm_alloc[] = "Unified virtual memory (UVM) allocation";
static const char uvm_advise[] = "Managing the policy attributes of the unified virtual memory (UVM)";
static const char uvm_attr[] = "Querying a policy attribute value of the UVM of a specified size";
static const char uvm_attrs[] =
    "Querying multiple policy attribute values of the UVM of a specified size";
static const char uvm_fetch[] = "Managing the prefetching of the unified virtual memory (UVM)";
static const char uvm_batch[] =
    "Managing the batch prefetching of the unified virtual memory (UVM)";

/* A managed-memory call the backend refused: the SoC has none (207000),
 * or the range is not managed memory. */
static aclError uvm_failed(const char *fn, const char *desc, const void *ptr, aclError rc)
{
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        return unsupported(fn);
    if (rc == ACL_ERROR_RT_PARAM_INVALID) {
        char v[32];
        snprintf(v, sizeof v, "%p", ptr);
        return rt_value(desc, v, "ptr", "a range inside memory from aclrtMemAllocManaged");
    }
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
    static const char fn[] = "aclrtMemAllocManaged";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (flag != ACL_RT_MEM_ATTACH_GLOBAL) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "ACL_RT_MEM_ATTACH_GLOBAL");
    }
    if (size == 0)
        return rt_value(uvm_alloc, "0", "size", "not equal to 0");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->managed_alloc(c->device, size, ptr);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        return unsupported(fn);
    return rc == ACL_SUCCESS ? rc : api_no_memory(rc, "managed", size > SIZE_MAX ? SIZE_MAX : (size_t)size);
}

/* A managed location naming a device must name one (the runtime's check). */
static aclError check_loc(const char *desc, const char *param, aclrtMemManagedLocation loc)
{
    int32_t n = (int32_t)device_count();
    if (loc.type != ACL_MEM_LOCATIONTYPE_DEVICE || (loc.id >= 0 && loc.id < n))
        return ACL_SUCCESS;
    char v[16], expect[32];
    snprintf(v, sizeof v, "%d", (int)loc.id);
    snprintf(expect, sizeof expect, "[0, %d]", (int)n - 1);
    return rt_value(desc, v, param, expect);
}

aclError api_impl_aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                                        aclrtMemManagedAdviseType advise,
                                        aclrtMemManagedLocation location)
{
    static const char fn[] = "aclrtMemManagedAdvise";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (size == 0)
        return size_zero(fn, "size");
    if ((uint32_t)advise > ACL_MEM_ADVISE_UNSET_ACCESSED_BY) {
        char v[16];
        snprintf(v, sizeof v, "%u", (unsigned)advise);
        return rt_value(uvm_advise, v, "advise", "[0, 5]");
    }
    aclError rc = check_loc(uvm_advise, "location.id", location);
    struct api_ctx *c;
    if (rc == ACL_SUCCESS)
        rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->managed_advise(c->device, ptr, size, (int)advise, location);
    return rc == ACL_SUCCESS ? rc : uvm_failed(fn, uvm_advise, ptr, rc);
}

/* Bytes an attribute's answer takes (aclsim's reading, as CUDA lays them
 * out: a flag or a type or id in 4 bytes, a location in 8, accessed-by as
 * an array of locations). */
static size_t attr_bytes(aclrtMemManagedRangeAttribute a)
{
    switch ((int)a) {
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
    case ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
        return sizeof(aclrtMemManagedLocation);
    default:
        return sizeof(int32_t);
    }
}

static aclError check_attr(const char *desc, aclrtMemManagedRangeAttribute a, size_t data_size)
{
    char v[24];
    if ((int)a < ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY ||
        (int)a > ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) {
        snprintf(v, sizeof v, "%d", (int)a);
        return rt_value(desc, v, "attribute", "[1, 8]");
    }
    if (data_size < attr_bytes(a)) {
        char expect[48];
        snprintf(v, sizeof v, "%zu", data_size);
        snprintf(expect, sizeof expect, "at least %zu", attr_bytes(a));
        return rt_value(desc, v, "dataSize", expect);
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute,
                                         const void *ptr, size_t size, void *data,
                                         size_t dataSize)
{
    static const char fn[] = "aclrtMemManagedGetAttr";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!data)
        return api_err_null(fn, "data");
    if (size == 0)
        return size_zero(fn, "size");
    aclError rc = check_attr(uvm_attr, attribute, dataSize);
    struct api_ctx *c;
    if (rc == ACL_SUCCESS)
        rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->managed_attrs(c->device, &attribute, 1, ptr, size, &data, &dataSize);
    return rc == ACL_SUCCESS ? rc : uvm_failed(fn, uvm_attr, ptr, rc);
}

aclError api_impl_aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes,
                                          size_t numAttributes, const void *ptr, size_t size,
                                          void **data, size_t *dataSizes)
{
    static const char fn[] = "aclrtMemManagedGetAttrs";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!attributes)
        return api_err_null(fn, "attributes");
    if (!data)
        return api_err_null(fn, "data");
    if (!dataSizes)
        return api_err_null(fn, "dataSizes");
    if (size == 0)
        return size_zero(fn, "size");
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < numAttributes && rc == ACL_SUCCESS; i++) {
        rc = check_attr(uvm_attrs, attributes[i], dataSizes[i]);
        if (rc == ACL_SUCCESS && !data[i]) {
            char param[32];
            snprintf(param, sizeof param, "data[%zu]", i);
            rc = rt_null(uvm_attrs, param);
        }
    }
    struct api_ctx *c;
    if (rc == ACL_SUCCESS)
        rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->managed_attrs(c->device, attributes, numAttributes, ptr, size, data, dataSizes);
    return rc == ACL_SUCCESS ? rc : uvm_failed(fn, uvm_attrs, ptr, rc);
}

aclError api_impl_aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                               aclrtMemManagedLocation location, uint32_t flags,
                                               aclrtStream stream)
{
    static const char fn[] = "aclrtMemManagedPrefetchAsync";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (size == 0)
        return size_zero(fn, "size");
    if (flags != 0)
        return reserved(fn, "flags", flags);
    struct api_stream_ref ref = {0};
    aclError rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = check_loc(uvm_fetch, "location.id", location);
    if (rc == ACL_SUCCESS) {
        rc = be_get()->managed_prefetch(ref.ctx->device, ptr, size, location, ref.stream);
        if (rc != ACL_SUCCESS)
            rc = uvm_failed(fn, uvm_fetch, ptr, rc);
    }
    api_stream_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes,
                                                    size_t count,
                                                    aclrtMemManagedLocation *prefetchLocs,
                                                    size_t *prefetchLocIdxs,
                                                    size_t numPrefetchLocs, uint64_t flags,
                                                    aclrtStream stream)
{
    static const char fn[] = "aclrtMemManagedPrefetchBatchAsync";
    API_FAULT(ACL_RT_MALLOC_MANAGED, fn);
    if (!ptrs)
        return api_err_null(fn, "ptrs");
    if (!sizes)
        return api_err_null(fn, "sizes");
    if (!prefetchLocs)
        return api_err_null(fn, "prefetchLocs");
    if (!prefetchLocIdxs)
        return api_err_null(fn, "prefetchLocIdxs");
    if (count == 0)
        return size_zero(fn, "count");
    if (numPrefetchLocs == 0)
        return size_zero(fn, "numPrefetchLocs");
    if (flags != 0)
        return reserved(fn, "flags", flags);
    if (count < numPrefetchLocs) {
        char v[24], why[96];
        snprintf(v, sizeof v, "%zu", count);
        snprintf(why, sizeof why, "must be greater than or equal to numPrefetchLocs %zu",
                 numPrefetchLocs);
        return reason(fn, v, "count", why); /* [fact] aclrtMemManagedPrefetchBatchAsyncImpl */
    }
    char v[24];
    if (prefetchLocIdxs[0] != 0) {
        snprintf(v, sizeof v, "%zu", prefetchLocIdxs[0]);
        return rt_value(uvm_batch, v, "prefetchLocIdxs[0]", "equal to 0");
    }
    for (size_t i = 0; i < count; i++)
        if (!ptrs[i])
            return rt_null(uvm_batch, "ptrs[idx]");
    for (size_t i = 0; i < numPrefetchLocs; i++) {
        if (prefetchLocIdxs[i] >= count) {
            api_report(API_MSG_EE1017, "%s failed. Parameter prefetchLocIdxs[%zu] or count is "
                       "invalid. Reason: Elements in array prefetchLocIdxs should be less than "
                       "count. Parameter prefetchLocIdxs[%zu] is %zu, and count is %zu.", uvm_batch,
                       i, i, prefetchLocIdxs[i], count);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        if (i >= 1 && prefetchLocIdxs[i] <= prefetchLocIdxs[i - 1]) {
            api_report(API_MSG_EE1017, "%s failed. Parameter prefetchLocIdxs[%zu] or "
                       "prefetchLocIdxs[%zu] is invalid. Reason: Each element in prefetchLocIdxs "
                       "must be greater than the previous element. Parameter prefetchLocIdxs[%zu] "
                       "is %zu, and prefetchLocIdxs[%zu] is %zu.", uvm_batch, i, i - 1, i,
                       prefetchLocIdxs[i], i - 1, prefetchLocIdxs[i - 1]);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
    }
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < numPrefetchLocs && rc == ACL_SUCCESS; i++)
        rc = check_loc(uvm_batch, "prefetchLocs[idx].id", prefetchLocs[i]);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_stream_ref ref = {0};
    rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Each range goes to the location its index range names. */
    size_t at = 0;
    for (size_t i = 0; i < count && rc == ACL_SUCCESS; i++) {
        while (at + 1 < numPrefetchLocs && i >= prefetchLocIdxs[at + 1])
            at++;
        rc = be_get()->managed_prefetch(ref.ctx->device, ptrs[i], sizes[i], prefetchLocs[at],
                                        ref.stream);
        if (rc != ACL_SUCCESS)
            rc = uvm_failed(fn, uvm_batch, ptrs[i], rc);
    }
    api_stream_put(&ref);
    return rc;
}

/* ---- uncorrectable memory errors ---- */

aclError api_impl_aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                     size_t arraySize, size_t *retSize)
{
    static const char fn[] = "aclrtGetMemUceInfo";
    API_FAULT(ACL_RT_MEM_INFO, fn);
    if (!memUceInfoArray)
        return api_err_null(fn, "memUceInfoArray");
    if (!retSize)
        return api_err_null(fn, "retSize");
    uint32_t n = device_count();
    size_t found = 0;
    aclError rc = be_get()->uce_info(deviceId >= 0 && (uint32_t)deviceId < n ? deviceId : 0,
                                     memUceInfoArray, arraySize, &found);
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        return unsupported(fn); /* the SoC keeps no such record (api_error.cc) */
    if (deviceId < 0 || (uint32_t)deviceId >= n) {
        char v[16], expect[32];
        snprintf(v, sizeof v, "%d", (int)deviceId);
        snprintf(expect, sizeof expect, "[0, %u)", n);
        rt_value("Obtaining the virtual address of the memory Uncorrectable Error (UCE)", v,
                 "realDeviceId", expect);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    if (found > arraySize) {
        char v[24], why[64];
        snprintf(v, sizeof v, "%zu", arraySize);
        snprintf(why, sizeof why, "arraySize must be greater than or equal to %zu", found);
        return reason(fn, v, "arraySize", why); /* [fact] event.cpp */
    }
    *retSize = found;
    return ACL_SUCCESS;
}
