/*
 * vmm.c - virtual memory management: reserved address ranges, physical
 * memory handles, mappings (CANN's acl_rt.h "virtual memory" calls).
 *
 * The ACL-layer checks are CANN's (src/acl/aclrt_impl/memory.cpp:
 * aclrtReserveMemAddressImpl and the calls after it), in its order, with
 * its codes and messages: NULL pointers (EH0008), size 0 and flags
 * (EH0007), reserved flags and unsupported memory attributes (EH0009), all
 * ACL_ERROR_INVALID_PARAM. What the driver checks below them (the state of
 * reservations, handles and mappings) is the backend's: the simulator says
 * why it refuses, reported as "The argument is invalid. Reason: <call>
 * failed, <why>." (aclsim's wording: CANN's driver texts are not public).
 *
 * Which layer refuses what, and which calls need a context: the runtime's
 * virtual-memory calls (hicann/runtime src/runtime/api/impl/api_impl.cc:
 * 7293-7366, 7494-7499, 9363-9382) go straight to the driver with no
 * current context; only physical memory on a host NUMA node asks for one
 * (api_error.cc:6352-6356). So none of these calls asks for a context here
 * either: a reservation lands on the current context's device, else on the
 * lowest open device, and with no device open the driver has no address
 * space to reserve from (hicann/driver src/ascend_hal/svm/v2/devmm/
 * devmm_svm.c:5616-5619, DRV_ERROR_INVALID_HANDLE: 107017). The runtime's
 * own NULL checks (api_error.cc) give 107000 with EE1004 where the ACL layer
 * checked nothing (aclrtMemSetAccess, memory.cpp:1956-1965).
 */
#include <inttypes.h>
#include <stdio.h>
#include "memory.h"
#include "backends/be.h"

/* CANN's names of memory attributes and location types in messages
 * (src/acl/utils/cann_info_utils.cpp GetMemAttrDesc, data_type_utils.h). */
static const char *attr_desc(aclrtMemAttr a, char *buf, size_t len)
{
    static const char *names[] = {
        "DDR_MEM(0)",           "HBM_MEM(1)",           "DDR_MEM_HUGE(2)",
        "DDR_MEM_NORMAL(3)",    "HBM_MEM_HUGE(4)",      "HBM_MEM_NORMAL(5)",
        "DDR_MEM_P2P_HUGE(6)",  "DDR_MEM_P2P_NORMAL(7)", "HBM_MEM_P2P_HUGE(8)",
        "HBM_MEM_P2P_NORMAL(9)", "HBM_MEM_HUGE1G(10)",  "HBM_MEM_P2P_HUGE1G(11)",
        "MEM_NORMAL(12)",       "MEM_HUGE(13)",         "MEM_HUGE1G(14)",
        "MEM_P2P_NORMAL(15)",   "MEM_P2P_HUGE(16)",     "MEM_P2P_HUGE1G(17)"};
    if ((int)a >= 0 && (int)a < 18)
        return names[a];
    snprintf(buf, len, "UNKNOWN(%d)", (int)a);
    return buf;
}

static const char *location_desc(aclrtMemLocationType t, char *buf, size_t len)
{
    static const char *names[] = {"MEM_LOCATION_TYPE_HOST(0)", "MEM_LOCATION_TYPE_DEVICE(1)",
                                  "MEM_LOCATION_TYPE_UNREGISTERED(2)",
                                  "MEM_LOCATION_TYPE_MANAGED(3)",
                                  "MEM_LOCATION_TYPE_HOST_NUMA(4)"};
    if ((int)t >= 0 && (int)t < 5)
        return names[t];
    snprintf(buf, len, "UNKNOWN(%d)", (int)t);
    return buf;
}

static aclError size_zero(const char *fn)
{
    return api_err_value(fn, "0", "size", "must be greater than 0");
}

/* EH0009 for a reserved parameter that is not what it must be. */
static aclError reserved_param(const char *fn, const char *param, uint64_t value)
{
    api_report(API_MSG_EH0009, "%s failed. Value %" PRIu64 " for parameter %s is invalid. "
               "Reason: %s is a reserved parameter and must be 0.", fn, value, param, param);
    return ACL_ERROR_INVALID_PARAM;
}

/* The message of a failure below the ACL layer; returns rc. */
aclError api_vmm_failed(const char *fn, aclError rc, const char *why)
{
    if (rc == ACL_SUCCESS)
        return rc;
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION) {
        api_report(API_MSG_EL0004, "Failed to allocate memory.");
        api_report(API_MSG_EH9999, "%s failed: %s, runtime result = %d.", fn,
                   why ? why : "out of device memory", rc);
    } else if (why && rc == ACL_ERROR_RT_INTERNAL_ERROR) {
        /* an inner error of the runtime (no external code), with what went wrong */
        api_report(API_MSG_EH9999, "%s failed: %s, runtime result = %d.", fn, why, rc);
    } else {
        api_err_refused(fn, rc, why);
    }
    return rc;
}

/* The attribute checks of aclrtMallocPhysical and
 * aclrtMemGetAllocationGranularity (memory.cpp: device memory with a DDR
 * attribute, then an attribute with no handler). */
static aclError check_attr(const char *fn, const aclrtPhysicalMemProp *prop)
{
    char buf[32];
    aclrtMemAttr a = prop->memAttr;
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
        (a == ACL_DDR_MEM_HUGE || a == ACL_DDR_MEM_NORMAL || a == ACL_DDR_MEM_P2P_HUGE ||
         a == ACL_DDR_MEM_P2P_NORMAL))
        return api_err_value(fn, attr_desc(a, buf, sizeof buf), "memAttr",
                             "MEM_LOCATION_TYPE_HOST(0) or MEM_LOCATION_TYPE_HOST_NUMA(4)");
    switch (a) {
    case ACL_HBM_MEM_HUGE:
    case ACL_HBM_MEM_NORMAL:
    case ACL_HBM_MEM_HUGE1G:
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_DDR_MEM_P2P_NORMAL:
    case ACL_MEM_NORMAL:
    case ACL_MEM_HUGE:
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_NORMAL:
    case ACL_MEM_P2P_HUGE:
    case ACL_MEM_P2P_HUGE1G:
        return ACL_SUCCESS;
    default:
        api_report(API_MSG_EH0009, "%s failed. Value %s for parameter memAttr is invalid. "
                   "Reason: The current physical memory attribute is not supported.", fn,
                   attr_desc(a, buf, sizeof buf));
        return ACL_ERROR_INVALID_PARAM;
    }
}

static aclError reserve(const char *fn, void **virPtr, size_t size, size_t alignment,
                        void *expectPtr, uint64_t flags, int no_uc)
{
    API_FAULT(ACL_RT_VMM, fn);
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    if (size == 0)
        return size_zero(fn);
    if (flags != 0 && flags != 1) {
        char v[24];
        snprintf(v, sizeof v, "%" PRIu64, flags);
        return api_err_value(fn, v, "flags", "0");
    }
    int32_t dev;
    if (!api_device_for_call(&dev))
        return api_vmm_failed(fn, ACL_ERROR_RT_INVALID_HANDLE,
                              "no device is open, and the driver's address space opens with the "
                              "first aclrtSetDevice");
    const char *why = NULL;
    aclError rc =
        be_get()->vmm_reserve(dev, size, alignment, expectPtr, flags, no_uc, virPtr, &why);
    return api_vmm_failed(fn, rc, why);
}

aclError api_impl_aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
                                         void *expectPtr, uint64_t flags)
{
    return reserve("aclrtReserveMemAddress", virPtr, size, alignment, expectPtr, flags, 0);
}

aclError api_impl_aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
                                                   void *expectPtr, uint64_t flags)
{
    return reserve("aclrtReserveMemAddressNoUCMemory", virPtr, size, alignment, expectPtr, flags,
                   1);
}

aclError api_impl_aclrtReleaseMemAddress(void *virPtr)
{
    static const char fn[] = "aclrtReleaseMemAddress";
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_release(virPtr, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                      const aclrtPhysicalMemProp *prop, uint64_t flags)
{
    static const char fn[] = "aclrtMallocPhysical";
    char buf[40];
    API_FAULT(ACL_RT_VMM, fn);
    if (!handle)
        return api_err_null(fn, "handle");
    if (!prop)
        return api_err_null(fn, "prop");
    if (size == 0)
        return size_zero(fn);
    if (flags != 0)
        return reserved_param(fn, "flags", flags);
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE) {
        snprintf(buf, sizeof buf, "%d", (int)prop->handleType);
        return api_err_value(fn, buf, "prop->handleType", "ACL_MEM_HANDLE_TYPE_NONE");
    }
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED) {
        snprintf(buf, sizeof buf, "%d", (int)prop->allocationType);
        return api_err_value(fn, buf, "prop->allocationType", "ACL_MEM_ALLOCATION_TYPE_PINNED");
    }
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED ||
        prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED) {
        const char *d = location_desc(prop->location.type, buf, sizeof buf);
        api_report(API_MSG_EH0009, "%s failed. Value %s for parameter prop->location.type is "
                   "invalid. Reason: location type does not support %s.", fn, d, d);
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc = check_attr(fn, prop);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The runtime's checks (api_error.cc:6335-6356): a device location's
     * id must name a device; a host NUMA node asks for a context. */
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
        (rc = api_device_id_check("Verifying the device ID validity", "devId",
                                  prop->location.id > INT32_MAX ? -1
                                                                : (int32_t)prop->location.id)) !=
            ACL_SUCCESS)
        return rc;
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
        struct api_ctx *c;
        if ((rc = api_current_ctx(fn, &c)) != ACL_SUCCESS)
            return rc;
    }
    /* A device this process has not opened has no driver address space
     * for the handle (as a reservation with none open, above). */
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
        !api_device_is_open((int32_t)prop->location.id)) {
        char why[96];
        snprintf(why, sizeof why, "device %u is not open (aclrtSetDevice opens it)",
                 (unsigned)prop->location.id);
        return api_vmm_failed(fn, ACL_ERROR_RT_INVALID_HANDLE, why);
    }
    const char *why = NULL;
    rc = be_get()->vmm_phys_alloc(size, prop, flags, handle, &why);
    return api_vmm_failed(fn, rc, why);
}

aclError api_impl_aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    static const char fn[] = "aclrtFreePhysical";
    if (!handle)
        return api_err_null(fn, "handle");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_phys_free(handle, &why);
    return api_vmm_failed(fn, rc_, why);
}

static aclError map(const char *fn, void *virPtr, size_t size, size_t offset,
                    aclrtDrvMemHandle handle, uint64_t flags, int no_access)
{
    API_FAULT(ACL_RT_VMM, fn);
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    if (!handle)
        return api_err_null(fn, "handle");
    if (size == 0)
        return size_zero(fn);
    if (flags != 0) {
        char v[24];
        snprintf(v, sizeof v, "%" PRIu64, flags);
        return api_err_value(fn, v, "flags", "0");
    }
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_map(virPtr, size, offset, handle, flags, no_access,
                                                 &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                              uint64_t flags)
{
    return map("aclrtMapMem", virPtr, size, offset, handle, flags, 0);
}

aclError api_impl_aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
                                      aclrtDrvMemHandle handle, uint64_t flags)
{
    return map("aclrtMemMapNoAccess", virPtr, size, offset, handle, flags, 1);
}

aclError api_impl_aclrtUnmapMem(void *virPtr)
{
    static const char fn[] = "aclrtUnmapMem";
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_unmap(virPtr, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                   aclrtMemGranularityOptions option,
                                                   size_t *granularity)
{
    static const char fn[] = "aclrtMemGetAllocationGranularity";
    if (!prop)
        return api_err_null(fn, "prop");
    if (!granularity)
        return api_err_null(fn, "granularity");
    aclError rc = check_attr(fn, prop);
    if (rc != ACL_SUCCESS)
        return rc;
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
        option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)option);
        api_report(API_MSG_EE1003, "%s failed because value %s for parameter option is invalid. "
                   "Expected value: ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM(0) or "
                   "ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED(1).", fn, v);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* The runtime's device check of a device location (hicann/runtime
     * src/runtime/api/impl/api_error.cc:6498-6519, CheckDeviceIdIsValid). */
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
        (rc = api_device_id_check("Verifying the device ID validity", "devId",
                                  prop->location.id > INT32_MAX ? -1
                                                                : (int32_t)prop->location.id)) !=
            ACL_SUCCESS)
        return rc;
    /* No context: the runtime asks the driver directly (api_impl.cc:
     * 7494-7499), which answers from the page type alone (hicann/driver
     * src/ascend_hal/svm/v2/devmm/devmm_svm.c:6953-6979). */
    int32_t dev = prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE
                      ? (int32_t)prop->location.id : 0;
    rc = be_get()->vmm_granularity(dev, prop, option, granularity);
    return api_vmm_failed(fn, rc, rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
                                      ? "this SoC has no 1 GB pages (HUGE1G)" : NULL);
}

aclError api_impl_aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
                                    size_t count)
{
    static const char fn[] = "aclrtMemSetAccess";
    /* The ACL layer checks nothing (memory.cpp:1956-1965); the runtime's
     * decorator rejects NULL virPtr and desc (api_error.cc:6391-6396), the
     * driver a count of 0 (hicann/driver src/ascend_hal/svm/v2/devmm/
     * devmm_svm.c:6201-6203: DRV_ERROR_INVALID_VALUE, 107000). */
    if (!virPtr)
        return api_rt_null("Setting the memory access permission", "virPtr");
    if (!desc)
        return api_rt_null("Setting the memory access permission", "desc");
    if (count == 0)
        return api_vmm_failed(fn, ACL_ERROR_RT_PARAM_INVALID,
                              "count is 0: the driver wants one access description at least");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_set_access(virPtr, size, desc, count, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    static const char fn[] = "aclrtMemGetAccess";
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    if (!location)
        return api_err_null(fn, "location");
    if (!flag)
        return api_err_null(fn, "flag");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_get_access(virPtr, location, flag, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    static const char fn[] = "aclrtMemRetainAllocationHandle";
    if (!virPtr)
        return api_err_null(fn, "virPtr");
    if (!handle)
        return api_err_null(fn, "handle");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_retain(virPtr, handle, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                           aclrtPhysicalMemProp *prop)
{
    static const char fn[] = "aclrtMemGetAllocationPropertiesFromHandle";
    if (!handle)
        return api_err_null(fn, "handle");
    if (!prop)
        return api_err_null(fn, "prop");
    const char *why = NULL;
    aclError rc_ = be_get()->vmm_props(handle, prop, &why);
    return api_vmm_failed(fn, rc_, why);
}

aclError api_impl_aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    static const char fn[] = "aclrtMemGetAddressRange";
    if (!ptr) /* memory.cpp:2057-2065: the ACL layer checks ptr only */
        return api_err_null(fn, "ptr");
    /* The runtime asks for one output at least (hicann/runtime
     * src/runtime/api/impl/api_error.cc:7673-7683): either may be NULL. */
    if (!pbase && !psize) {
        api_report(API_MSG_EE1022, "Obtaining the start address and size of the memory block to "
                   "which the address to be queried belongs failed. Values nullptr and nullptr "
                   "for parameters pbase and psize are invalid. Reason: Parameters pbase and "
                   "psize cannot both be nullptr.");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    void *base = NULL;
    size_t size = 0;
    aclError rc = be_get()->mem_range(ptr, &base, &size);
    if (rc == ACL_SUCCESS) {
        if (pbase)
            *pbase = base;
        if (psize)
            *psize = size;
    }
    return api_vmm_failed(fn, rc, rc == ACL_ERROR_RT_PARAM_INVALID
                                      ? "ptr lies in no allocation (device block, host block "
                                        "or mapping)"
                                      : NULL);
}
