/*
 * test_vmm.c - virtual memory management: reserved ranges, physical
 * handles, mappings. Checks and messages of the ACL layer are CANN's
 * (src/acl/aclrt_impl/memory.cpp); the state checks below it are the
 * simulator's (aclsim's wording, docs/memory.md, "Virtual memory and pools").
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "testutil.h"

#define MB2 (2u << 20)

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1); /* 256 MiB */
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtResetDevice(0);
    return aclFinalize();
}

static int after_each(void **state)
{
    (void)state;
    size_t fr, total;
    (void)aclGetRecentErrMsg();
    if (aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS || fr != total)
        return -1; /* every case gives back what it took */
    return 0;
}

static aclrtPhysicalMemProp prop_of(aclrtMemAttr attr)
{
    aclrtPhysicalMemProp p;
    memset(&p, 0, sizeof p);
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.memAttr = attr;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    return p;
}

static size_t free_hbm(void)
{
    size_t f, t;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
    return f;
}

/* ---- bad input, in CANN's order ---- */

static void test_reserve_bad_input(void **state)
{
    (void)state;
    void *va = NULL;
    assert_int_equal(aclrtReserveMemAddress(NULL, MB2, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtReserveMemAddress", "virPtr");
    assert_int_equal(aclrtReserveMemAddress(&va, 0, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtReserveMemAddress failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, NULL, 2), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtReserveMemAddress failed because value 2 for "
               "parameter flags is invalid. Expected value: 0.");
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 4096, NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReserveMemAddress failed, alignment is reserved and must be 0.");
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, (void *)0x1234, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReserveMemAddress failed, expectPtr must be aligned to 2 MB.");
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, (void *)0x200000, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReserveMemAddress failed, expectPtr lies outside the device's reservation "
               "window.");
    assert_null(va);
    assert_int_equal(aclrtReleaseMemAddress(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtReleaseMemAddress", "virPtr");
    int x;
    assert_int_equal(aclrtReleaseMemAddress(&x), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReleaseMemAddress failed, it is not an address returned by "
               "aclrtReserveMemAddress (never reserved, or already released).");
}

static void test_malloc_physical_bad_input(void **state)
{
    (void)state;
    aclrtDrvMemHandle h = NULL;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    assert_int_equal(aclrtMallocPhysical(NULL, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMallocPhysical", "handle");
    assert_int_equal(aclrtMallocPhysical(&h, MB2, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMallocPhysical", "prop");
    assert_int_equal(aclrtMallocPhysical(&h, 0, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocPhysical failed because value 0 for "
               "parameter size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMallocPhysical failed. Value 1 for parameter "
               "flags is invalid. Reason: flags is a reserved parameter and must be 0.");
    p.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocPhysical failed because value 2 for "
               "parameter prop->handleType is invalid. Expected value: ACL_MEM_HANDLE_TYPE_NONE.");
    p = prop_of(ACL_HBM_MEM_HUGE);
    p.allocationType = (aclrtMemAllocationType)1;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocPhysical failed because value 1 for "
               "parameter prop->allocationType is invalid. Expected value: "
               "ACL_MEM_ALLOCATION_TYPE_PINNED.");
    p = prop_of(ACL_HBM_MEM_HUGE);
    p.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMallocPhysical failed. Value "
               "MEM_LOCATION_TYPE_MANAGED(3) for parameter prop->location.type is invalid. "
               "Reason: location type does not support MEM_LOCATION_TYPE_MANAGED(3).");
    p = prop_of(ACL_DDR_MEM_HUGE);
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMallocPhysical failed because value "
               "DDR_MEM_HUGE(2) for parameter memAttr is invalid. Expected value: "
               "MEM_LOCATION_TYPE_HOST(0) or MEM_LOCATION_TYPE_HOST_NUMA(4).");
    p = prop_of(ACL_HBM_MEM);
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMallocPhysical failed. Value HBM_MEM(1) for "
               "parameter memAttr is invalid. Reason: The current physical memory attribute is "
               "not supported.");
    /* The runtime's device check (hicann/runtime src/runtime/api/impl/
     * api_error.cc:6339-6349, CheckDeviceIdIsValid). */
    p = prop_of(ACL_HBM_MEM_HUGE);
    p.location.id = 7;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the device ID validity failed because "
               "value 7 for parameter devId is invalid. Expected value: [0, 1).");
    p = prop_of(ACL_HBM_MEM_HUGE);
    assert_int_equal(aclrtMallocPhysical(&h, (size_t)1 << 40, &p, 0),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_msg("Memory_Allocation_Failure(EL0004)", "Failed to allocate memory.");
    assert_null(h);
    assert_int_equal(aclrtFreePhysical(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtFreePhysical", "handle");
}

static void test_granularity(void **state)
{
    (void)state;
    size_t g = 0;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    assert_int_equal(aclrtMemGetAllocationGranularity(NULL, 0, &g), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemGetAllocationGranularity", "prop");
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, 0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemGetAllocationGranularity", "granularity");
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
                                                      &g), ACL_SUCCESS);
    assert_int_equal(g, MB2);
    p = prop_of(ACL_HBM_MEM_NORMAL); /* CANN: normal is served with huge pages */
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, 1, &g), ACL_SUCCESS);
    assert_int_equal(g, MB2);
    p = prop_of(ACL_HBM_MEM_HUGE1G); /* Atlas A2 has 1 GB pages */
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, 0, &g), ACL_SUCCESS);
    assert_int_equal(g, (size_t)1 << 30);
    /* A device that does not exist: the runtime's device check (hicann/runtime
     * src/runtime/api/impl/api_error.cc:6498-6519, CheckDeviceIdIsValid). */
    uint32_t n = 0;
    (void)aclGetRecentErrMsg(); /* the option's, above */
    assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    p = prop_of(ACL_HBM_MEM_HUGE);
    p.location.id = n;
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, 0, &g), ACL_ERROR_RT_INVALID_DEVICEID);
    char text[256];
    snprintf(text, sizeof text, "Verifying the device ID validity failed because value %u for "
             "parameter devId is invalid. Expected value: [0, %u).", n, n);
    expect_msg("Invalid_Argument(EE1003)", text);
}

/* ---- behaviour ---- */

static void test_physical_memory_counts_against_hbm(void **state)
{
    (void)state;
    size_t f0 = free_hbm();
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h;
    assert_int_equal(aclrtMallocPhysical(&h, 3 * MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(f0 - free_hbm(), 3 * MB2);
    void *va;
    assert_int_equal(aclrtReserveMemAddress(&va, 64 * MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(f0 - free_hbm(), 3 * MB2); /* address space is not memory */
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
    aclrtPhysicalMemProp q;
    assert_int_equal(aclrtMemGetAllocationPropertiesFromHandle(h, &q), ACL_SUCCESS);
    assert_int_equal(q.memAttr, ACL_HBM_MEM_HUGE);
    assert_int_equal(q.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(free_hbm(), f0);
    assert_int_equal(aclrtFreePhysical(h), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtFreePhysical "
               "failed, handle is not a live physical memory handle (never allocated, or "
               "already freed).");
    assert_int_equal(aclrtMemGetAllocationPropertiesFromHandle(h, &q), ACL_ERROR_RT_PARAM_INVALID);
    /* a handle is no memory: aclrtFree refuses it */
    assert_int_equal(aclrtFree(h), ACL_ERROR_RT_MEMORY_FREE);
}

static void test_same_handle_twice_shows_same_bytes(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h;
    void *va;
    assert_int_equal(aclrtReserveMemAddress(&va, 8 * MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_SUCCESS);
    char *a = va, *b = (char *)va + 5 * MB2;
    assert_int_equal(aclrtMapMem(a, MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(b, MB2, 0, h, 0), ACL_SUCCESS);
    static unsigned char in[8192], out[8192];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 13 + 5);
    assert_int_equal(aclrtMemcpy(a + 100, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, sizeof out, b + 100, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_memory_equal(in, out, sizeof in);
    /* a fill through one address shows through the other */
    assert_int_equal(aclrtMemset(b, MB2, 0x7e, 64), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, 64, a, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 0x7e);
    void *base = NULL;
    size_t size = 0;
    assert_int_equal(aclrtMemGetAddressRange(b + 77, &base, &size), ACL_SUCCESS);
    assert_ptr_equal(base, b);
    assert_int_equal(size, MB2);
    /* One output is enough; both NULL is the runtime's EE1022 (hicann/runtime
     * src/runtime/api/impl/api_error.cc:7673-7683). */
    size = 0;
    assert_int_equal(aclrtMemGetAddressRange(b + 77, NULL, &size), ACL_SUCCESS);
    assert_int_equal(size, MB2);
    base = NULL;
    assert_int_equal(aclrtMemGetAddressRange(b + 77, &base, NULL), ACL_SUCCESS);
    assert_ptr_equal(base, b);
    assert_int_equal(aclrtMemGetAddressRange(b + 77, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1022)", "Obtaining the start address and size of the memory "
               "block to which the address to be queried belongs failed. Values nullptr and "
               "nullptr for parameters pbase and psize are invalid. Reason: Parameters pbase and "
               "psize cannot both be nullptr.");
    aclrtDrvMemHandle r = NULL;
    assert_int_equal(aclrtMemRetainAllocationHandle(b, &r), ACL_SUCCESS);
    assert_ptr_equal(r, h);
    assert_int_equal(aclrtFreePhysical(r), ACL_SUCCESS); /* the retained reference */
    assert_int_equal(aclrtUnmapMem(a), ACL_SUCCESS);
    assert_int_equal(aclrtUnmapMem(b), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

static void test_unmapped_range_refuses_copies(void **state)
{
    (void)state;
    void *va;
    char buf[256], msg[512];
    assert_int_equal(aclrtReserveMemAddress(&va, 4 * MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(va, sizeof buf, buf, sizeof buf, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(msg, sizeof msg, "Synchronous memory copy failed because value %p for parameter "
             "dst is invalid. Expected value: mapped memory: %p lies in a range reserved with "
             "aclrtReserveMemAddress where no physical memory is mapped (aclrtMapMem), an access "
             "there faults on the device.", va, va);
    expect_msg("Invalid_Argument(EE1003)", msg);
    assert_int_equal(aclrtMemset(va, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID);
    void *base;
    size_t size;
    assert_int_equal(aclrtMemGetAddressRange(va, &base, &size), ACL_ERROR_RT_PARAM_INVALID);
    aclrtPtrAttributes at;
    assert_int_equal(aclrtPointerGetAttributes(va, &at), ACL_SUCCESS);
    assert_int_equal(at.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

static void test_copy_spans_adjacent_mappings(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h1, h2;
    void *va;
    assert_int_equal(aclrtReserveMemAddress(&va, 4 * MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h1, MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h2, MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h1, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem((char *)va + MB2, MB2, 0, h2, 0), ACL_SUCCESS);
    /* 1 MB on each side of the seam */
    size_t n = MB2;
    unsigned char *in = malloc(n), *out = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i ^ (i >> 9));
    char *mid = (char *)va + MB2 / 2;
    assert_int_equal(aclrtMemcpy(mid, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    memset(out, 0, n);
    assert_int_equal(aclrtMemcpy(out, n, mid, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(in, out, n);
    /* past the last mapping: refused, as an access running off mapped memory
     * (and told to memcheck: a reservation's unmapped bytes are no live
     * device memory to it either) */
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy(mid + n, n, in, n, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    free(in);
    free(out);
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtUnmapMem((char *)va + MB2), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h1), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h2), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

static void test_map_rules(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h;
    void *va;
    assert_int_equal(aclrtReserveMemAddress(&va, 4 * MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h, 2 * MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(NULL, MB2, 0, h, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMapMem", "virPtr");
    assert_int_equal(aclrtMapMem(va, MB2, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMapMem", "handle");
    assert_int_equal(aclrtMapMem(va, 0, 0, h, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMapMem failed because value 0 for parameter "
               "size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMapMem(va, 2 * MB2, 0, h, 3), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMapMem failed because value 3 for parameter "
               "flags is invalid. Expected value: 0.");
    assert_int_equal(aclrtMapMem(va, MB2, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "size must equal the size given to aclrtMallocPhysical for this handle.");
    assert_int_equal(aclrtMapMem(va, 2 * MB2, MB2, h, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "offset must be 0.");
    assert_int_equal(aclrtMapMem((char *)va + 4096, 2 * MB2, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "virPtr must be aligned to the allocation granularity.");
    assert_int_equal(aclrtMapMem((char *)va + 3 * MB2, 2 * MB2, 0, h, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "the range [virPtr, virPtr + size) runs past the end of its reservation.");
    int x;
    assert_int_equal(aclrtMapMem(&x, 2 * MB2, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "virPtr is not inside a range reserved with aclrtReserveMemAddress.");
    assert_int_equal(aclrtMapMem(va, 2 * MB2, 0, (aclrtDrvMemHandle)&x, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "handle is not a live physical memory handle (never allocated, or freed).");
    assert_int_equal(aclrtMapMem(va, 2 * MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem((char *)va + MB2, 2 * MB2, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMapMem failed, "
               "part of the range is already mapped: unmap it first.");
    /* what may not be undone while in use */
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReleaseMemAddress failed, physical memory is still mapped in the range: "
               "unmap it first (aclrtUnmapMem).");
    assert_int_equal(aclrtUnmapMem((char *)va + MB2), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtUnmapMem "
               "failed, virPtr lies inside a mapping, not at its start.");
    assert_int_equal(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtUnmapMem", "virPtr");
    /* a freed handle lives on while mapped (CANN: freed at unmap) */
    size_t before = free_hbm();
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(free_hbm(), before);
    assert_int_equal(aclrtMemset(va, 2 * MB2, 1, 2 * MB2), ACL_SUCCESS);
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(free_hbm(), before + 2 * MB2);
    assert_int_equal(aclrtUnmapMem(va), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtUnmapMem "
               "failed, nothing is mapped at virPtr.");
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

static void test_access(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h;
    void *va;
    aclrtMemLocation loc = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flag = 99;
    aclrtMemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
    d.location = loc;
    /* The ACL layer checks nothing (hicann/runtime src/acl/aclrt_impl/
     * memory.cpp:1956-1965): the runtime's decorator refuses, 107000 with
     * EE1004 (src/runtime/api/impl/api_error.cc:6391-6396). */
    assert_int_equal(aclrtMemSetAccess(NULL, MB2, &d, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Setting the memory access permission "
               "failed because virPtr cannot be a NULL pointer.");
    assert_int_equal(aclrtMemSetAccess((void *)0x1000, MB2, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Setting the memory access permission "
               "failed because desc cannot be a NULL pointer.");
    /* count 0: the driver's check (hicann/driver src/ascend_hal/svm/v2/devmm/
     * devmm_svm.c:6201-6203, DRV_ERROR_INVALID_VALUE: 107000). */
    assert_int_equal(aclrtMemSetAccess((void *)0x1000, MB2, &d, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMemSetAccess "
               "failed, count is 0: the driver wants one access description at least.");
    assert_int_equal(aclrtMemGetAccess(NULL, &loc, &flag), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemGetAccess", "virPtr");
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemGetAccess(va, &loc, &flag), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMemGetAccess "
               "failed, nothing is mapped at virPtr.");
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemGetAccess(va, &loc, &flag), ACL_SUCCESS);
    assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    assert_int_equal(aclrtMemSetAccess(va, MB2, &d, 1), ACL_SUCCESS);
    assert_int_equal(aclrtMemGetAccess(va, &loc, &flag), ACL_SUCCESS);
    assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READ);
    assert_int_equal(aclrtMemSetAccess(va, 2 * MB2, &d, 1), ACL_ERROR_RT_PARAM_INVALID);
    d.flags = ACL_RT_MEM_ACCESS_FLAGS_NONE; /* no access: copies are refused as unmapped */
    assert_int_equal(aclrtMemSetAccess(va, MB2, &d, 1), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(va, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtMemMapNoAccess(va, MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(va, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
}

static void test_expect_ptr_and_no_uc(void **state)
{
    (void)state;
    void *a, *b = NULL;
    assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, 3 * MB2, 0, NULL, 1), ACL_SUCCESS);
    assert_int_equal((uintptr_t)a % MB2, 0);
    /* a range just after it, asked for by address */
    void *want = (char *)a + 16 * MB2;
    assert_int_equal(aclrtReserveMemAddress(&b, MB2, 0, want, 0), ACL_SUCCESS);
    assert_ptr_equal(b, want);
    void *c = NULL;
    assert_int_equal(aclrtReserveMemAddress(&c, MB2, 0, want, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReserveMemAddress failed, the range at expectPtr is already reserved.");
    assert_int_equal(aclrtReleaseMemAddress((char *)a + MB2), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReleaseMemAddress failed, it lies inside a reservation, not at its start.");
    assert_int_equal(aclrtReleaseMemAddress(b), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(a), ACL_SUCCESS);
}

static void test_reset_releases_everything(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h;
    void *va;
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(va, MB2, 3, MB2), ACL_SUCCESS);
    /* proper teardown, then the device is as new */
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
}

/* ---- without a context ----
 *
 * The runtime's virtual-memory calls need no current context (hicann/runtime
 * src/runtime/api/impl/api_impl.cc:7293-7366, 7494-7499, 9363-9382 call the
 * driver straight away). ggml's CANN backend asks for the granularity at
 * start-up, before aclrtSetDevice, to choose its pool. */

static int init_only(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    return aclInit(NULL) == ACL_SUCCESS ? 0 : -1;
}

static int finalize_only(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    aclrtResetDeviceForce(0);
    return aclFinalize();
}

/* Before any aclrtSetDevice: the granularity answers from the page type
 * (hicann/driver src/ascend_hal/svm/v2/devmm/devmm_svm.c:6953-6979, 2 MB but
 * for 1 GB pages), and no error is left to prefix later messages. A
 * reservation and physical memory need the driver's address space, which
 * the first aclrtSetDevice opens: without it the driver answers
 * DRV_ERROR_INVALID_HANDLE (devmm_svm.c:5616-5619), 107017
 * (src/runtime/core/src/common/errcode_manage.cc:87, 566). */
static void test_granularity_before_any_device(void **state)
{
    (void)state;
    size_t g = 0;
    void *va = NULL;
    aclrtDrvMemHandle h = NULL;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE);
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
                                                      &g), ACL_SUCCESS);
    assert_int_equal(g, MB2);
    assert_null(aclGetRecentErrMsg());
    p = prop_of(ACL_HBM_MEM_NORMAL);
    assert_int_equal(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                                                      &g), ACL_SUCCESS);
    assert_int_equal(g, MB2);
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, NULL, 0), ACL_ERROR_RT_INVALID_HANDLE);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtReserveMemAddress failed, no device is open, and the driver's address "
               "space opens with the first aclrtSetDevice.");
    assert_null(va);
    p = prop_of(ACL_HBM_MEM_HUGE);
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &p, 0), ACL_ERROR_RT_INVALID_HANDLE);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMallocPhysical "
               "failed, device 0 is not open (aclrtSetDevice opens it).");
    assert_null(h);
}

/* A thread with no context reaches a device another thread opened: every
 * virtual-memory call of the family answers, as the runtime's do. */
static void *no_context_thread(void *arg)
{
    int *ok = arg;
    size_t g = 0, size = 0;
    void *va = NULL, *base = NULL;
    aclrtDrvMemHandle h = NULL, h2 = NULL;
    aclrtPhysicalMemProp p = prop_of(ACL_HBM_MEM_HUGE), q;
    aclrtMemLocation loc = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flag = 0;
    aclrtMemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    d.location = loc;
    *ok = aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g) == 0 &&
          g == MB2 && aclrtReserveMemAddress(&va, MB2, 0, NULL, 0) == 0 &&
          aclrtMallocPhysical(&h, MB2, &p, 0) == 0 && aclrtMapMem(va, MB2, 0, h, 0) == 0 &&
          aclrtMemSetAccess(va, MB2, &d, 1) == 0 && aclrtMemGetAccess(va, &loc, &flag) == 0 &&
          flag == ACL_RT_MEM_ACCESS_FLAGS_READWRITE &&
          aclrtMemRetainAllocationHandle(va, &h2) == 0 && h2 == h &&
          aclrtMemGetAllocationPropertiesFromHandle(h, &q) == 0 &&
          q.memAttr == ACL_HBM_MEM_HUGE && aclrtMemGetAddressRange(va, &base, &size) == 0 &&
          base == va && size == MB2 && aclrtFreePhysical(h2) == 0 && aclrtUnmapMem(va) == 0 &&
          aclrtFreePhysical(h) == 0 && aclrtReleaseMemAddress(va) == 0;
    if (!*ok)
        fprintf(stderr, "without a context: %s\n", aclGetRecentErrMsg());
    return NULL;
}

static void test_family_answers_on_a_thread_without_context(void **state)
{
    (void)state;
    pthread_t t;
    int ok = 0;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(pthread_create(&t, NULL, no_context_thread, &ok), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(ok);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, after_each)
    const struct CMUnitTest tests[] = {
        T(test_reserve_bad_input),
        T(test_malloc_physical_bad_input),
        T(test_granularity),
        T(test_physical_memory_counts_against_hbm),
        T(test_same_handle_twice_shows_same_bytes),
        T(test_unmapped_range_refuses_copies),
        T(test_copy_spans_adjacent_mappings),
        T(test_map_rules),
        T(test_access),
        T(test_expect_ptr_and_no_uc),
        T(test_reset_releases_everything),
    };
    const struct CMUnitTest no_context[] = {
        cmocka_unit_test(test_granularity_before_any_device),
        cmocka_unit_test(test_family_answers_on_a_thread_without_context),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return failed + cmocka_run_group_tests_name("vmm without a context", no_context, init_only,
                                                finalize_only);
}
