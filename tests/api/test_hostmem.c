/*
 * test_hostmem.c - registered, managed and configured memory, the device's
 * record of uncorrectable errors, aclrtCheckMemType and cache maintenance:
 * CANN's codes and texts for bad input in its check order (hicann/runtime
 * src/acl/aclrt_impl/memory.cpp, event.cpp; src/runtime/api/impl/
 * api_error.cc, api_error_uvm.cc, api_impl.cc), what each call does, the
 * SoCs that have managed memory, and registered memory counting as pinned.
 */
#include <stdint.h>
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

#define MiB (1024u * 1024u)

static aclrtStream s;

static int open_soc(const char *soc)
{
    setenv("ACLSIM_SOC", soc, 1);
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s))
        return -1;
    return 0;
}

static int close_soc(void)
{
    (void)aclGetRecentErrMsg();
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    unsetenv("ACLSIM_HBM_BYTES");
    unsetenv("ACLSIM_SOC");
    return aclFinalize();
}

static int up(void **state)
{
    (void)state;
    return open_soc("Ascend910B1");
}

static int down(void **state)
{
    (void)state;
    return close_soc();
}

static uint64_t host_ps(void)
{
    uint64_t t;
    assert_int_equal(aclsim_clock_host(&t), ACL_SUCCESS);
    return t;
}

static uint64_t stream_ps(void)
{
    uint64_t t;
    assert_int_equal(aclsim_clock_stream(s, &t), ACL_SUCCESS);
    return t;
}

/* ---- allocations with a configuration ---- */

static void test_malloc_with_cfg_bad_input(void **state)
{
    (void)state;
    void *p = NULL;
    aclrtMallocAttribute attr = {.attr = ACL_RT_MEM_ATTR_VA_FLAG};
    aclrtMallocConfig cfg = {NULL, 1};
    assert_int_equal(aclrtMallocWithCfg(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMallocInnerWithCfg", "devPtr"); /* CANN's inner function names it */
    assert_int_equal(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMallocInnerWithCfg failed. Value 1 for parameter "
               "cfg->numAttrs is invalid. Reason: cfg->attrs must not be null when cfg->numAttrs "
               "is not 0.");
    assert_int_equal(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocInnerWithCfg failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    cfg.numAttrs = 0; /* no attributes, and none given: the runtime still wants the array */
    assert_int_equal(aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Allocating device memory failed because "
               "cfg->attrs cannot be a NULL pointer.");
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    assert_int_equal(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Parsing the memory allocation configuration failed "
               "because value MEM_MALLOC_ATTR_VA_FLAG(3) for parameter cfg->attrs[i].attr is "
               "invalid. Expected value: [0, 2].");
    attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attr.value.deviceId = 3;
    assert_int_equal(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_non_null(aclGetRecentErrMsg());
    assert_null(p);
}

/* The size reaches the runtime as given: no padding, unlike aclrtMalloc. */
static void test_malloc_with_cfg_allocates_without_padding(void **state)
{
    (void)state;
    void *p = NULL, *q = NULL;
    aclrtMallocAttribute attrs[2] = {{.attr = ACL_RT_MEM_ATTR_MODULE_ID},
                                     {.attr = ACL_RT_MEM_ATTR_DEVICE_ID}};
    attrs[0].value.moduleId = 7;
    attrs[1].value.deviceId = 0;
    aclrtMallocConfig cfg = {attrs, 2};
    size_t before = hbm_free_bytes();
    /* 4080 rounds to 4096, one 4 KiB page; aclrtMalloc's 32 bytes of
     * padding make it two (the driver's pages: hicann/driver
     * src/ascend_hal/svm/v2/devmm/devmm_virt_com_heap.c:1527). */
    assert_int_equal(aclrtMallocWithCfg(&p, 4080, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg), ACL_SUCCESS);
    assert_int_equal(before - hbm_free_bytes(), 4096);
    assert_int_equal(aclrtMalloc(&q, 4080, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(before - hbm_free_bytes(), 4096 + 8192);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(p, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtFree(q), ACL_SUCCESS);
    assert_int_equal(aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                     ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(hbm_free_bytes(), before);
}

static void test_malloc_host_with_cfg(void **state)
{
    (void)state;
    void *p = NULL;
    aclrtMallocConfig cfg = {NULL, 0};
    assert_int_equal(aclrtMallocHostWithCfg(NULL, 64, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMallocHostWithCfg", "ptr");
    assert_int_equal(aclrtMallocHostWithCfg(&p, 0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocHostWithCfg failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Allocating host memory based on the "
               "configuration attributes failed because cfg->attrs cannot be a NULL pointer.");
    aclrtMallocAttribute attr = {.attr = ACL_RT_MEM_ATTR_MODULE_ID};
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    assert_int_equal(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes((char *)p + 99, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal((uintptr_t)p % 64, 0);
    assert_int_equal(aclrtFreeHost(p), ACL_SUCCESS);
}

/* ---- frees after the device's work ---- */

static void test_free_with_dev_sync_waits_for_the_device(void **state)
{
    (void)state;
    void *d, *h;
    char text[256];
    assert_int_equal(aclrtFreeWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtFreeWithDevSync", "devPtr");
    assert_int_equal(aclrtMalloc(&d, 16 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFreeWithDevSync((char *)d + 64), ACL_ERROR_RT_MEMORY_FREE);
    snprintf(text, sizeof text, "The argument is invalid. Reason: aclrtFreeWithDevSync failed, %p "
             "is inside the block of %d bytes at %p, not its start.", (void *)((char *)d + 64),
             16 * 1024 * 1024, d);
    expect_msg("Invalid_Argument(EE1001)", text);
    assert_int_equal(aclrtMallocHost(&h, 16 * MiB), ACL_SUCCESS);
    /* queued work still reads the block when the free is asked for */
    assert_int_equal(aclrtMemcpyAsync(h, 16 * MiB, d, 16 * MiB, ACL_MEMCPY_DEVICE_TO_HOST, s),
                     ACL_SUCCESS);
    uint64_t end = stream_ps();
    assert_true(host_ps() < end);
    assert_int_equal(aclrtFreeWithDevSync(d), ACL_SUCCESS);
    assert_true(host_ps() >= end); /* freed only once the device was done */
    assert_int_equal(aclrtFreeHostWithDevSync(d), ACL_ERROR_RT_MEMORY_FREE); /* freed, and device memory */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemcpyAsync(h, 64, h, 64, ACL_MEMCPY_HOST_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHostWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtFreeHostWithDevSync", "hostPtr");
    assert_int_equal(aclrtFreeHostWithDevSync(h), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE); /* gone */
    (void)aclGetRecentErrMsg();
}

/* ---- host memory registered for the devices ---- */

static _Alignas(4096) char area[4 * 4096];

static void test_host_register_bad_input(void **state)
{
    (void)state;
    void *dev = NULL;
    char text[256];
    assert_int_equal(aclrtHostRegister(NULL, 64, ACL_HOST_REGISTER_MAPPED, &dev),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostRegister", "ptr");
    assert_int_equal(aclrtHostRegister(area, 64, ACL_HOST_REGISTER_MAPPED, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostRegister", "devPtr");
    assert_int_equal(aclrtHostRegister(area, 0, ACL_HOST_REGISTER_MAPPED, &dev),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtHostRegister failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtHostRegister(area, 64, ACL_HOST_REGISTER_IOMEMORY, &dev),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support host "
               "memory registration type 4.");
    assert_int_equal(aclrtHostRegister(area + 8, 64, ACL_HOST_REGISTER_MAPPED, &dev),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Registering the host memory as device-accessible memory failed "
             "because value %p for parameter ptr is invalid. Expected value: a 4 KB aligned "
             "address.", (void *)(area + 8));
    expect_msg("Invalid_Argument(EE1003)", text);
    assert_int_equal(aclrtHostRegisterV2(NULL, 64, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostRegisterV2", "ptr");
    assert_int_equal(aclrtHostRegisterV2(area, 64, 0x1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Host memory address registration failed. Value 1 for "
               "parameter flag is invalid. Reason: The valid flag is an OR combination of "
               "RT_MEM_HOST_REGISTER_MAPPED(0x2U), RT_MEM_HOST_REGISTER_IOMEMORY(0x4U), "
               "RT_MEM_HOST_REGISTER_READONLY(0x8U), and RT_MEM_HOST_REGISTER_PINNED(0x10000000U).");
    assert_int_equal(aclrtHostRegisterV2(area, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtHostRegisterV2(area, 64, ACL_HOST_REG_READONLY),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support "
               "ACL_HOST_REG_READONLY.");
    assert_int_equal(aclrtHostUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostUnregister", "ptr");
    assert_int_equal(aclrtHostUnregister(area), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    expect_msg("Invalid_Argument_API_Call_Sequence(EE1018)", "Unregistering host memory failed. "
               "Reason: The host pointer has not been registered for device memory mapping.");
}

static void test_host_register_maps_and_refuses_overlaps(void **state)
{
    (void)state;
    void *dev = NULL, *got = NULL, *pinned;
    char text[512];
    assert_int_equal(aclrtHostRegister(area, 2 * 4096, ACL_HOST_REGISTER_MAPPED, &dev),
                     ACL_SUCCESS);
    assert_ptr_equal(dev, area); /* one address space */
    assert_int_equal(aclrtHostGetDevicePointer(area, &got, 0), ACL_SUCCESS);
    assert_ptr_equal(got, dev);
    assert_int_equal(aclrtHostGetDevicePointer(area, &got, 1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtHostGetDevicePointer failed. Value 1 for "
               "parameter flag is invalid. Reason: flag is a reserved parameter and must be 0.");
    assert_int_equal(aclrtHostGetDevicePointer(NULL, &got, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostGetDevicePointer", "pHost");
    /* a range overlapping the registration, by either version */
    assert_int_equal(aclrtHostRegisterV2(area + 4096, 2 * 4096, ACL_HOST_REG_PINNED),
                     ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    expect_msg("Invalid_Argument_API_Call_Sequence(EE1018)", "Host memory address registration "
               "failed. Reason: The memory range has already been registered.");
    /* the registration counts as host memory the runtime knows */
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(area + 100, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtHostUnregister(area + 4096), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    (void)aclGetRecentErrMsg(); /* not its start */
    assert_int_equal(aclrtHostUnregister(area), ACL_SUCCESS);
    assert_int_equal(aclrtPointerGetAttributes(area + 100, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    /* pinned only: no device address */
    assert_int_equal(aclrtHostRegisterV2(area, 4096, ACL_HOST_REG_PINNED), ACL_SUCCESS);
    assert_int_equal(aclrtHostGetDevicePointer(area, &got, 0), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Obtaining the on-device memory pointer based on the on-host "
             "virtual address failed. Value %#llx for parameter pHost is invalid. Reason: The "
             "host pointer has not been registered for device address mapping.",
             (unsigned long long)(uintptr_t)area);
    expect_msg("Invalid_Argument(EE1011)", text);
    assert_int_equal(aclrtHostUnregister(area), ACL_SUCCESS);
    /* memory from aclrtMallocHost is already page-locked */
    assert_int_equal(aclrtMallocHost(&pinned, 2 * 4096), ACL_SUCCESS);
    void *page = (void *)(((uintptr_t)pinned + 4095) & ~(uintptr_t)4095);
    assert_int_equal(aclrtHostRegisterV2(page, 64, ACL_HOST_REG_PINNED),
                     ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFreeHost(pinned), ACL_SUCCESS);
    /* registered memory is not aclrtMallocHost's to free */
    assert_int_equal(aclrtHostRegisterV2(area, 4096, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED),
                     ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(area), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtHostUnregister(area), ACL_SUCCESS);
}

/* Registered memory is pinned: an async copy from it leaves the host
 * free; past the registration it is pageable again (the host waits). */
static void test_registered_memory_copies_asynchronously(void **state)
{
    (void)state;
    void *d;
    char back[4096];
    assert_int_equal(aclrtMalloc(&d, 3 * 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    memset(area, 0x6b, sizeof area);
    assert_int_equal(aclrtHostRegisterV2(area, 2 * 4096, ACL_HOST_REG_PINNED), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, 4096, area, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_SUCCESS);
    assert_true(host_ps() < stream_ps());
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, 3 * 4096, area, 3 * 4096, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_SUCCESS);
    assert_true(host_ps() >= stream_ps());
    /* as a device side it is refused: it is host memory */
    assert_int_equal(aclrtMemcpy(area, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_int_equal(back[4095], 0x6b);
    assert_int_equal(aclrtHostUnregister(area), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_host_mem_map_capabilities(void **state)
{
    (void)state;
    aclrtHostMemMapCapability cap = ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    assert_int_equal(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtHostMemMapCapabilities", "capabilities");
    assert_int_equal(aclrtHostMemMapCapabilities(4, ACL_RT_HAC_TYPE_AIC, &cap),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtHostMemMapCapabilities(0, (aclrtHacType)10, &cap),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Querying the host memory mapping capability on a "
               "specified device failed because value 10 for parameter hacType is invalid. "
               "Expected value: [0, 10).");
    assert_int_equal(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIV, &cap), ACL_SUCCESS);
    assert_int_equal(cap, ACL_RT_HOST_MEM_MAP_SUPPORTED);
    assert_int_equal(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_DVPP, &cap), ACL_SUCCESS);
    assert_int_equal(cap, ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED);
}

/* ---- aclrtCheckMemType ---- */

static void test_check_mem_type(void **state)
{
    (void)state;
    void *d, *e;
    uint32_t result = 7;
    char host[8];
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&e, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    void *list[3] = {d, (char *)e + 8, host};
    assert_int_equal(aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &result, 0),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCheckMemType", "addrList");
    assert_int_equal(aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCheckMemType", "checkResult");
    assert_int_equal(aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &result, 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Device memory type check failed because value 1 for "
               "parameter reserve is invalid. Expected value: 0.");
    assert_int_equal(result, 0); /* cleared first */
    assert_int_equal(aclrtCheckMemType(list, 0, ACL_RT_MEM_TYPE_DEV, &result, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Device memory type check failed because value 0 for "
               "parameter size is invalid. Expected value: greater than 0.");
    assert_int_equal(aclrtCheckMemType(list, 1, 0x1, &result, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1006)", "Device memory type check failed. Parameter memType value "
               "1 is not supported. Reason: Parameter memType only supports OR combinations of "
               "one or more of RT_MEM_MASK_DEV_TYPE(0x2U), RT_MEM_MASK_RSVD_TYPE(0x20U), and "
               "RT_MEM_MASK_DVPP_TYPE(0x8U).");
    assert_int_equal(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_SUCCESS);
    assert_int_equal(result, 1);
    assert_int_equal(aclrtCheckMemType(list, 3, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_SUCCESS);
    assert_int_equal(result, 0); /* host memory is no device memory */
    assert_int_equal(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_DVPP, &result, 0), ACL_SUCCESS);
    assert_int_equal(result, 0);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_SUCCESS);
    assert_int_equal(result, 0); /* freed */
    assert_int_equal(aclrtFree(e), ACL_SUCCESS);
}

/* ---- managed (UVM) memory ---- */

static void test_managed_alloc_bad_input(void **state)
{
    (void)state;
    void *p = NULL;
    assert_int_equal(aclrtMemAllocManaged(NULL, 64, ACL_RT_MEM_ATTACH_GLOBAL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemAllocManaged", "ptr");
    assert_int_equal(aclrtMemAllocManaged(&p, 64, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemAllocManaged failed because value 0 for "
               "parameter flag is invalid. Expected value: ACL_RT_MEM_ATTACH_GLOBAL.");
    assert_int_equal(aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Unified virtual memory (UVM) allocation failed "
               "because value 0 for parameter size is invalid. Expected value: not equal to 0.");
    assert_null(p);
}

/* Both sides reach managed memory: copies in either role, fills, and
 * aclrtFree gives it back. */
static void test_managed_memory_is_reached_from_both_sides(void **state)
{
    (void)state;
    void *m = NULL, *d;
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)(i ^ 0x5a);
    assert_int_equal(aclrtMemAllocManaged(&m, 1000, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes((char *)m + 2 * MiB - 1, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED); /* rounded to 2 MiB */
    assert_int_equal(a.pageSize, 2 * MiB);
    assert_int_equal(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(m, 256, in, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(d, 256, m, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(out, in, 256);
    assert_memory_equal(m, in, 256); /* the host reads it directly */
    assert_int_equal(aclrtMemset(m, 256, 0x11, 16), ACL_SUCCESS);
    assert_int_equal(((unsigned char *)m)[15], 0x11);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy(out, 256, (char *)m + 2 * MiB - 8, 16, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_PARAM_INVALID); /* past its end */
    MISUSE_END();
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(m), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_managed_advice_per_page(void **state)
{
    (void)state;
    void *m = NULL;
    int32_t flag = -1;
    aclrtMemManagedLocation loc = {ACL_MEM_LOCATIONTYPE_DEVICE, 0}, got;
    assert_int_equal(aclrtMemAllocManaged(&m, 4 * MiB, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemManagedAdvise(NULL, 2 * MiB, ACL_MEM_ADVISE_SET_READ_MOSTLY, loc),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemManagedAdvise", "ptr");
    assert_int_equal(aclrtMemManagedAdvise(m, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, loc),
                     ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemManagedAdvise(m, 2 * MiB, (aclrtMemManagedAdviseType)6, loc),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Managing the policy attributes of the unified virtual "
               "memory (UVM) failed because value 6 for parameter advise is invalid. Expected "
               "value: [0, 5].");
    aclrtMemManagedLocation bad = {ACL_MEM_LOCATIONTYPE_DEVICE, 3};
    assert_int_equal(aclrtMemManagedAdvise(m, 2 * MiB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, bad),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Managing the policy attributes of the unified virtual "
               "memory (UVM) failed because value 3 for parameter location.id is invalid. "
               "Expected value: [0, 0].");
    char text[256];
    char local[16];
    assert_int_equal(aclrtMemManagedAdvise(local, 16, ACL_MEM_ADVISE_SET_READ_MOSTLY, loc),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Managing the policy attributes of the unified virtual memory "
             "(UVM) failed because value %p for parameter ptr is invalid. Expected value: a range "
             "inside memory from aclrtMemAllocManaged.", (void *)local);
    expect_msg("Invalid_Argument(EE1003)", text);
    /* read mostly on the first page only */
    assert_int_equal(aclrtMemManagedAdvise(m, 2 * MiB, ACL_MEM_ADVISE_SET_READ_MOSTLY, loc),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 2 * MiB,
                                            &flag, sizeof flag), ACL_SUCCESS);
    assert_int_equal(flag, 1);
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4 * MiB,
                                            &flag, sizeof flag), ACL_SUCCESS);
    assert_int_equal(flag, 0); /* the pages disagree */
    /* a preferred location over both pages */
    assert_int_equal(aclrtMemManagedAdvise(m, 4 * MiB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, loc),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m,
                                            4 * MiB, &got, sizeof got), ACL_SUCCESS);
    assert_int_equal(got.type, ACL_MEM_LOCATIONTYPE_DEVICE);
    assert_int_equal(got.id, 0);
    aclrtMemManagedLocation host = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    assert_int_equal(aclrtMemManagedAdvise((char *)m + 2 * MiB, 2 * MiB,
                                           ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, host),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m,
                                            4 * MiB, &flag, sizeof flag), ACL_SUCCESS);
    assert_int_equal(flag, ACL_MEM_LOCATIONTYPE_INVALID); /* they disagree */
    /* several attributes at once; accessed-by as locations */
    assert_int_equal(aclrtMemManagedAdvise(m, 4 * MiB, ACL_MEM_ADVISE_SET_ACCESSED_BY, loc),
                     ACL_SUCCESS);
    aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
                                              ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE};
    aclrtMemManagedLocation by[2];
    int32_t type = -1;
    void *data[2] = {by, &type};
    size_t sizes[2] = {sizeof by, sizeof type};
    assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, (char *)m + 2 * MiB, 2 * MiB, data, sizes),
                     ACL_SUCCESS);
    assert_int_equal(by[0].type, ACL_MEM_LOCATIONTYPE_DEVICE);
    assert_int_equal(by[0].id, 0);
    assert_int_equal(by[1].type, ACL_MEM_LOCATIONTYPE_INVALID);
    assert_int_equal(type, ACL_MEM_LOCATIONTYPE_HOST);
    /* bad queries */
    assert_int_equal(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, m, 4 * MiB, &flag,
                                            sizeof flag), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Querying a policy attribute value of the UVM of a "
               "specified size failed because value 0 for parameter attribute is invalid. "
               "Expected value: [1, 8].");
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m,
                                            4 * MiB, &flag, sizeof flag),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Querying a policy attribute value of the UVM of a "
               "specified size failed because value 4 for parameter dataSize is invalid. "
               "Expected value: at least 8.");
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4 * MiB,
                                            NULL, 4), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemManagedGetAttr", "data");
    assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, m, 4 * MiB, data, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemManagedGetAttrs", "dataSizes");
    assert_int_equal(aclrtFree(m), ACL_SUCCESS);
}

static void test_managed_prefetch(void **state)
{
    (void)state;
    void *m = NULL, *m2 = NULL;
    aclrtMemManagedLocation dev0 = {ACL_MEM_LOCATIONTYPE_DEVICE, 0}, got;
    aclrtMemManagedLocation host = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    assert_int_equal(aclrtMemAllocManaged(&m, 4 * MiB, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemAllocManaged(&m2, 2 * MiB, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemManagedPrefetchAsync(m, 2 * MiB, dev0, 1, s), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMemManagedPrefetchAsync failed. Value 1 for "
               "parameter flags is invalid. Reason: flags is a reserved parameter and must be 0.");
    /* the pages move over the host link, in stream order */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint64_t t0 = host_ps();
    assert_int_equal(aclrtMemManagedPrefetchAsync(m, 4 * MiB, dev0, 0, s), ACL_SUCCESS);
    double us = (double)(stream_ps() - t0) / 1e6;
    double want = 1.0 + 0.2 + 4.0 * MiB / 23.4e9 * 1e6;
    assert_true(us > want * 0.999 && us < want * 1.001);
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m,
                                            4 * MiB, &got, sizeof got), ACL_SUCCESS);
    assert_int_equal(got.type, ACL_MEM_LOCATIONTYPE_DEVICE);
    /* a batch: the first range to the device, the second to the host */
    const void *ptrs[2] = {m, m2};
    size_t sizes[2] = {2 * MiB, 2 * MiB}, idx[2] = {0, 1};
    aclrtMemManagedLocation locs[2] = {dev0, host};
    assert_int_equal(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 3, 0, s),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMemManagedPrefetchBatchAsync failed. Value 2 for "
               "parameter count is invalid. Reason: must be greater than or equal to "
               "numPrefetchLocs 3.");
    idx[1] = 0;
    assert_int_equal(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Managing the batch prefetching of the unified virtual "
               "memory (UVM) failed. Parameter prefetchLocIdxs[1] or prefetchLocIdxs[0] is "
               "invalid. Reason: Each element in prefetchLocIdxs must be greater than the previous "
               "element. Parameter prefetchLocIdxs[1] is 0, and prefetchLocIdxs[0] is 0.");
    idx[1] = 1;
    ptrs[1] = NULL;
    assert_int_equal(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Managing the batch prefetching of the "
               "unified virtual memory (UVM) failed because ptrs[idx] cannot be a NULL pointer.");
    ptrs[1] = m2;
    assert_int_equal(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, s),
                     ACL_SUCCESS);
    int32_t type = -1;
    assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
                                            m2, 2 * MiB, &type, sizeof type), ACL_SUCCESS);
    assert_int_equal(type, ACL_MEM_LOCATIONTYPE_HOST);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(m), ACL_SUCCESS);
    assert_int_equal(aclrtFree(m2), ACL_SUCCESS);
}

/* ---- uncorrectable memory errors ---- */

static void test_mem_uce_info(void **state)
{
    (void)state;
    aclrtMemUceInfo info[4];
    size_t n = 99;
    assert_int_equal(aclrtGetMemUceInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetMemUceInfo", "memUceInfoArray");
    assert_int_equal(aclrtGetMemUceInfo(0, info, 4, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetMemUceInfo", "retSize");
    assert_int_equal(aclrtGetMemUceInfo(2, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the virtual address of the memory "
               "Uncorrectable Error (UCE) failed because value 2 for parameter realDeviceId is "
               "invalid. Expected value: [0, 1).");
    assert_int_equal(aclrtGetMemUceInfo(0, info, 4, &n), ACL_SUCCESS);
    assert_int_equal(n, 0); /* simulated memory has none */
}

/* ---- cache maintenance ---- */

static void test_cache_maintenance_checks_the_range(void **state)
{
    (void)state;
    void *d;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemFlush(NULL, 64), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemFlush", "devPtr");
    assert_int_equal(aclrtMemInvalidate(d, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemInvalidate failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMemFlush(d, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtMemInvalidate((char *)d + 64, 128), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemFlush(d, 8192), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemInvalidate(d, 64), ACL_ERROR_RT_PARAM_INVALID); /* freed */
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
}

/* ---- cache operations on streams (hicann/runtime src/acl/aclrt_impl/
 * memory.cpp aclrtCmoAsyncImpl line 1363, aclrtCmoAsyncWithBarrierImpl line
 * 1677, aclrtCmoGetDescSize/SetDesc/AsyncWithDescImpl lines 1921-1955;
 * kernel.cpp aclrtCmoWaitBarrierImpl line 433; device.cpp
 * aclrtDeviceL2CacheFlushImpl line 688; the runtime's api_c_standard_soc.cc
 * rtCmoAsync line 835, rtsLaunchCmoAddrTask line 520, api_c_memory.cc
 * rtsCmoAsyncWithBarrier line 666, rtsLaunchBarrierTask line 715, and
 * api_error.cc CmoAddrTaskLaunch line 5928, SetCmoDesc line 7397) ---- */

static void test_cmo_bad_input(void **state)
{
    (void)state;
    void *d;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCmoAsync(NULL, 64, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCmoAsync", "src");
    assert_int_equal(aclrtCmoAsync(d, 0, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtCmoAsync failed because value 0 for parameter "
               "size is invalid. Expected value: must be greater than 0.");
    /* an operation outside prefetch..flush: "not supported", a warning only */
    assert_int_equal(aclrtCmoAsync(d, 64, (aclrtCmoType)4, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    MISUSE_BEGIN();
    assert_int_equal(aclrtCmoAsync(d, 8192, ACL_RT_CMO_TYPE_FLUSH, s), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
    /* barriers: an invalidation needs an id, the others none */
    assert_int_equal(aclrtCmoAsyncWithBarrier(NULL, 64, ACL_RT_CMO_TYPE_INVALID, 1, s),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCmoAsyncWithBarrier", "src");
    assert_int_equal(aclrtCmoAsyncWithBarrier(d, 0, ACL_RT_CMO_TYPE_INVALID, 1, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsCmoAsyncWithBarrier failed because value 0 for "
               "parameter srcLen is invalid. Expected value: greater than 0.");
    assert_int_equal(aclrtCmoAsyncWithBarrier(d, 64, ACL_RT_CMO_TYPE_INVALID, 0, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "rtsCmoAsyncWithBarrier failed. Value 0 for parameter "
               "logicId is invalid. Reason: If parameter cmoType is equal to RT_CMO_INVALID, the "
               "value of parameter logicId cannot be 0.");
    assert_int_equal(aclrtCmoAsyncWithBarrier(d, 64, ACL_RT_CMO_TYPE_FLUSH, 3, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "rtsCmoAsyncWithBarrier failed. Value 3 for parameter "
               "logicId is invalid. Reason: If parameter cmoType is equal to RT_CMO_PREFETCH, "
               "RT_CMO_WRITEBACK, or RT_CMO_FLUSH, the value of parameter logicId should be 0.");
    aclrtBarrierTaskInfo info = {0};
    assert_int_equal(aclrtCmoWaitBarrier(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCmoWaitBarrier", "taskInfo");
    assert_int_equal(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtCmoWaitBarrier failed because value 0 for "
               "parameter taskInfo->barrierNum is invalid. Expected value: (0, 6].");
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_FLUSH;
    info.cmoInfo[0].barrierId = 1;
    assert_int_equal(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsLaunchBarrierTask failed because value 9 for "
               "parameter cmoInfo.cmoType is invalid. Expected value: CMO_INVALID(8).");
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 0;
    assert_int_equal(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsLaunchBarrierTask failed because value 0 for "
               "parameter cmoInfo.logicId is invalid. Expected value: not equal to 0.");
    /* descriptors */
    size_t n = 0;
    assert_int_equal(aclrtCmoGetDescSize(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining the memory size used by the "
               "cache memory descriptor of the current device failed because size cannot be a "
               "NULL pointer.");
    assert_int_equal(aclrtCmoGetDescSize(&n), ACL_SUCCESS);
    assert_int_equal(n, 32); /* sizeof(rtCmoAddrInfo), rt_external_stars_define.h */
    assert_int_equal(aclrtCmoSetDesc(NULL, d, 64), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Setting the cache memory descriptor "
               "failed because cmoDesc cannot be a NULL pointer.");
    assert_int_equal(aclrtCmoSetDesc(d, NULL, 64), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Setting the cache memory descriptor "
               "failed because srcAddr cannot be a NULL pointer.");
    assert_int_equal(aclrtCmoSetDesc(d, d, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the cache memory descriptor failed because "
               "value 0 for parameter srcLen is invalid. Expected value: not equal to 0.");
    assert_int_equal(aclrtCmoAsyncWithDesc(d, ACL_RT_CMO_TYPE_PREFETCH, s, d),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, s, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Using the memory descriptor to operate "
               "the cache memory on the device failed because cmoAddrInfo cannot be a NULL "
               "pointer.");
    assert_int_equal(aclrtCmoAsyncWithDesc(d, (aclrtCmoType)7, s, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Using the memory descriptor to operate the cache "
               "memory on the device failed because value 13 for parameter cmoOpCode is "
               "invalid. Expected value: [6, 10).");
    /* the L2 flush: rsv must be NULL (EH0012) */
    assert_int_equal(aclrtDeviceL2CacheFlush(d), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtDeviceL2CacheFlush failed. Parameter rsv is "
               "invalid. Reason: rsv must be nullptr.");
    assert_int_equal(aclrtDeviceL2CacheFlush(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* A cache operation is a task on its stream: it takes time in proportion
 * to its range and changes no byte; a barrier wait on another stream waits
 * for the invalidations done under its ids. */
static void test_cmo_tasks_take_time_and_touch_nothing(void **state)
{
    (void)state;
    void *dev;
    unsigned char pattern[256], back[256];
    for (int i = 0; i < 256; i++)
        pattern[i] = (unsigned char)(i * 7 + 1);
    assert_int_equal(aclrtMalloc(&dev, 8 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dev, 256, pattern, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* Each operation from an idle stream: launch plus one pass of its range
     * through HBM, so the time grows linearly with the bytes. */
    uint64_t d[3];
    size_t sizes[3] = {1 * MiB, 2 * MiB, 8 * MiB};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
        uint64_t h = host_ps();
        assert_int_equal(aclrtCmoAsync(dev, sizes[i], (aclrtCmoType)(i + 1), s), ACL_SUCCESS);
        d[i] = stream_ps() - h;
    }
    assert_true(d[0] > 0 && d[1] > d[0]);
    uint64_t per_mib = d[1] - d[0], seven = d[2] - d[0];
    assert_true(seven > 7 * per_mib * 9 / 10 && seven < 7 * per_mib * 11 / 10);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, pattern, 256);
    /* barrier: s invalidates 8 MiB under id 7; s2 waits for it */
    aclrtStream s2;
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtCmoAsyncWithBarrier(dev, 8 * MiB, ACL_RT_CMO_TYPE_INVALID, 7, s),
                     ACL_SUCCESS);
    uint64_t inv_end = stream_ps();
    aclrtBarrierTaskInfo info = {0};
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 7;
    assert_int_equal(aclrtCmoWaitBarrier(&info, s2, 0), ACL_SUCCESS);
    uint64_t w;
    assert_int_equal(aclsim_clock_stream(s2, &w), ACL_SUCCESS);
    assert_true(w >= inv_end);
    /* a descriptor names the range; its operation takes the same time */
    void *desc;
    assert_int_equal(aclrtMalloc(&desc, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCmoSetDesc(desc, dev, 1 * MiB), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint64_t u0 = stream_ps();
    assert_int_equal(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, NULL), ACL_SUCCESS);
    uint64_t u1 = stream_ps();
    assert_true(u1 > u0);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, pattern, 256);
    /* the range must be live: after a free, the descriptor names nothing */
    assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    expect_msg("Invalid_Argument(EE1017)", "Using the memory descriptor to operate the cache "
               "memory on the device failed. Parameter cmoDesc is invalid. Reason: the range it "
               "describes is not inside one live allocation of the stream's device (set it "
               "with aclrtCmoSetDesc).");
    MISUSE_BEGIN();
    assert_int_equal(aclrtCmoAsync(dev, 64, ACL_RT_CMO_TYPE_PREFETCH, s), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtFree(desc), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
}

/* ---- per SoC: Ascend 950 has no managed memory and no UCE record ---- */

static void test_950_has_no_managed_memory(void **state)
{
    (void)state;
    void *m = NULL;
    aclrtMemUceInfo info[1];
    size_t n;
    assert_int_equal(close_soc(), ACL_SUCCESS);
    assert_int_equal(open_soc("Ascend950PR_9599"), 0);
    assert_int_equal(aclrtMemAllocManaged(&m, 64, ACL_RT_MEM_ATTACH_GLOBAL),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support "
               "aclrtMemAllocManaged.");
    assert_null(m);
    assert_int_equal(aclrtGetMemUceInfo(0, info, 1, &n), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support "
               "aclrtGetMemUceInfo.");
    /* registration exists there */
    assert_int_equal(aclrtHostRegisterV2(area, 4096, ACL_HOST_REG_PINNED), ACL_SUCCESS);
    assert_int_equal(aclrtHostUnregister(area), ACL_SUCCESS);
    assert_int_equal(close_soc(), ACL_SUCCESS);
    assert_int_equal(open_soc("Ascend910B1"), 0);
}

/* ---- pinned memory outlives the runtime ----
 *
 * aclrtMallocHost memory is host memory tied to no device (hicann/runtime
 * src/runtime/driver/npu_driver_mem.cc:838-862, MEM_HOST), and aclrtFreeHost
 * checks neither aclInit nor a device: the ACL layer checks the pointer only
 * (src/acl/aclrt_impl/memory.cpp:616-625) and the runtime takes the driver
 * of no context when there is none (src/runtime/api/impl/api_impl.cc:
 * 2512-2536). Run in a group of its own: it ends the runtime. */

static int nothing(void **state)
{
    (void)state;
    return 0;
}

static void test_pinned_memory_outlives_the_runtime(void **state)
{
    (void)state;
    void *b = NULL, *c = NULL;
    unsigned char *u;
    setenv("ACLSIM_SOC", "Ascend910B1", 1);
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&b, 64), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&c, 4096), ACL_SUCCESS);
    memset(b, 0x3c, 64);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    (void)aclrtResetDevice(0);
    (void)aclGetRecentErrMsg();
    u = b;
    assert_int_equal(u[63], 0x3c); /* still the program's memory */
    assert_int_equal(aclrtFreeHost(b), ACL_SUCCESS);
    assert_null(aclGetRecentErrMsg());
    /* freed once: a second free is refused as before */
    assert_int_equal(aclrtFreeHost(b), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    /* and across a new runtime: still pinned, still freed by aclrtFreeHost */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(c, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtFreeHost(c), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malloc_with_cfg_bad_input),
        cmocka_unit_test(test_malloc_with_cfg_allocates_without_padding),
        cmocka_unit_test(test_malloc_host_with_cfg),
        cmocka_unit_test(test_free_with_dev_sync_waits_for_the_device),
        cmocka_unit_test(test_host_register_bad_input),
        cmocka_unit_test(test_host_register_maps_and_refuses_overlaps),
        cmocka_unit_test(test_registered_memory_copies_asynchronously),
        cmocka_unit_test(test_host_mem_map_capabilities),
        cmocka_unit_test(test_check_mem_type),
        cmocka_unit_test(test_managed_alloc_bad_input),
        cmocka_unit_test(test_managed_memory_is_reached_from_both_sides),
        cmocka_unit_test(test_managed_advice_per_page),
        cmocka_unit_test(test_managed_prefetch),
        cmocka_unit_test(test_mem_uce_info),
        cmocka_unit_test(test_cache_maintenance_checks_the_range),
        cmocka_unit_test(test_cmo_bad_input),
        cmocka_unit_test(test_cmo_tasks_take_time_and_touch_nothing),
        cmocka_unit_test(test_950_has_no_managed_memory),
    };
    const struct CMUnitTest runtime_end[] = {
        cmocka_unit_test(test_pinned_memory_outlives_the_runtime),
    };
    int failed = cmocka_run_group_tests_name("hostmem", tests, up, down);
    return failed + cmocka_run_group_tests_name("pinned memory and the runtime's end", runtime_end,
                                                nothing, nothing);
}
