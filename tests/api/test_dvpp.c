/*
 * test_dvpp.c - DVPP memory (acldvppMalloc, acldvppFree): device memory with
 * DVPP's documented size and alignment rules, in a DVPP range of its own
 * per device, seen by copies, the bounds checks, the leak report and the
 * accounting of aclrtGetMemInfo.
 *
 * Sources: CANN's documentation of acldvppMalloc (hiascend.com/document/
 * detail/zh/canncommercial/800/apiref/appdevgapi/aclcppdevg_03_0323.html:
 * the size rounded up to 32 plus 32 bytes, starts 128-byte aligned, a DVPP
 * address space of at most 16 GB per process); hicann/runtime
 * src/runtime/api/impl/api_impl.cc:2386-2423 (DevDvppMalloc needs a
 * context, DevDvppFree a device address); hicann/driver
 * src/ascend_hal/svm/v2/devmm/devmm_virt_dvpp_heap.c (one heap per device in
 * 4 KiB units) and devmm_virt_interface.c:1288-1296 (no new heap for DVPP).
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "acl/ops/acl_dvpp.h"
#include "testutil.h"
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static void open_device(const char *hbm)
{
    setenv("ACLSIM_HBM_BYTES", hbm, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static int close_device(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    aclrtResetDeviceForce(0);
    return aclFinalize();
}

/* ALIGN_UP(size, 32) + 32 in the DVPP heap's 4 KiB units, taken from the
 * device's pages; starts on a unit, 128-byte aligned at the least. */
static void test_size_and_alignment(void **state)
{
    (void)state;
    open_device("268435456");
    void *a, *b;
    size_t f0 = hbm_free_bytes();
    assert_int_equal(acldvppMalloc(&a, 4064), ACL_SUCCESS); /* 4064 + 32: one unit */
    assert_int_equal(f0 - hbm_free_bytes(), 4096);
    assert_int_equal(acldvppMalloc(&b, 4065), ACL_SUCCESS); /* 4096 + 32: two */
    assert_int_equal(f0 - hbm_free_bytes(), 4096 + 8192);
    assert_int_equal((uintptr_t)a % 4096, 0);
    assert_int_equal((uintptr_t)b % 128, 0);
    aclrtPtrAttributes at;
    assert_int_equal(aclrtPointerGetAttributes(b, &at), ACL_SUCCESS);
    assert_int_equal(at.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(at.location.id, 0);
    assert_int_equal(acldvppFree(a), ACL_SUCCESS);
    assert_int_equal(acldvppFree(b), ACL_SUCCESS);
    assert_int_equal(hbm_free_bytes(), f0);
}

/* Under ACLSIM_MALLOC_ALIGN=64 DVPP blocks still start 128-byte aligned:
 * that is what acldvppMalloc's documentation promises. */
static void test_packed_mode_keeps_128_byte_starts(void **state)
{
    (void)state;
    setenv("ACLSIM_MALLOC_ALIGN", "64", 1);
    open_device("268435456");
    unsetenv("ACLSIM_MALLOC_ALIGN");
    void *p[4];
    size_t f0 = hbm_free_bytes();
    for (int i = 0; i < 4; i++) {
        assert_int_equal(acldvppMalloc(&p[i], 1), ACL_SUCCESS); /* 32 + 32 = 64: one 128 */
        assert_int_equal((uintptr_t)p[i] % 128, 0);
    }
    assert_int_equal(f0 - hbm_free_bytes(), 4 * 128);
    for (int i = 0; i < 4; i++)
        assert_int_equal(acldvppFree(p[i]), ACL_SUCCESS);
}

/* The bytes: a round trip, and what the bounds checks make of the block:
 * past ALIGN_UP(size, 32) is refused, after the free too. */
static void test_bytes_and_bounds(void **state)
{
    (void)state;
    open_device("268435456");
    unsigned char in[1000], out[1000];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 7);
    void *d;
    assert_int_equal(acldvppMalloc(&d, sizeof in), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(d, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, sizeof out, d, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_memory_equal(in, out, sizeof in);
    /* 1000 rounds to 1024: 1024 bytes are the program's, not 1025 */
    assert_int_equal(aclrtMemset(d, 1024, 0, 1024), ACL_SUCCESS);
    MISUSE_BEGIN(); /* memcheck sees these too: the block's end, the freed block */
    aclError past = aclrtMemset(d, 1025, 0, 1025);
    MISUSE_END();
    assert_int_equal(past, ACL_ERROR_RT_PARAM_INVALID);
    assert_non_null(strstr(aclGetRecentErrMsg(), "run past its end"));
    assert_int_equal(acldvppFree(d), ACL_SUCCESS);
    MISUSE_BEGIN();
    aclError after = aclrtMemcpy(out, sizeof out, d, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    MISUSE_END();
    assert_int_equal(after, ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(acldvppFree(d), ACL_ERROR_RT_MEMORY_FREE); /* twice */
    (void)aclGetRecentErrMsg();
}

/* The driver frees a device block by its address whichever call made it:
 * aclrtFree takes DVPP memory and acldvppFree aclrtMalloc's (api_impl.cc:
 * 2356-2380, DevFree; 2396-2423, DevDvppFree: a device location, then
 * DevMemFree). */
static void test_either_free_takes_either_block(void **state)
{
    (void)state;
    open_device("268435456");
    void *d, *m;
    size_t f0 = hbm_free_bytes();
    assert_int_equal(acldvppMalloc(&d, 100), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&m, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(acldvppFree(m), ACL_SUCCESS);
    assert_int_equal(hbm_free_bytes(), f0);
}

/* Bad input: NULL and size 0 (the aclrt family's checks: DVPP's own ACL
 * layer is not public), no context (DevDvppMalloc: 107002), a host address
 * to acldvppFree (DevDvppFree's location check, EE1011: api_impl.cc:
 * 2410-2420). */
static void test_bad_input(void **state)
{
    (void)state;
    void *p = (void *)0x1;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(acldvppMalloc(&p, 64), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(acldvppMalloc(NULL, 64), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("acldvppMalloc", "devPtr");
    assert_int_equal(acldvppMalloc(&p, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "acldvppMalloc failed because value 0 for parameter "
               "size is invalid. Expected value: must be greater than 0.");
    assert_ptr_equal(p, (void *)0x1);
    assert_int_equal(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("acldvppFree", "devPtr");
    int local = 0;
    assert_int_equal(acldvppFree(&local), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Releasing DVPP device memory failed. Value "
               "MEMORY_LOC_UNREGISTERED(2) for parameter devPtr locationType is invalid. Reason: "
               "The specified address must be a device address.");
    void *h;
    assert_int_equal(aclrtMallocHost(&h, 64), ACL_SUCCESS);
    assert_int_equal(acldvppFree(h), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Releasing DVPP device memory failed. Value "
               "MEMORY_LOC_HOST(0) for parameter devPtr locationType is invalid. Reason: The "
               "specified address must be a device address.");
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    /* more than the device has: 207001 with CANN's EL0004 */
    assert_int_equal(acldvppMalloc(&p, 1u << 30), ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_msg("Memory_Allocation_Failure(EL0004)", "Failed to allocate memory.");
}

/* The one place where a fragmented range refuses what the device's pages
 * would give: the driver's DVPP heap is a fixed range of at most 16 GiB
 * that never grows (devmm_virt_dvpp_heap.c:20-39; svm_define.h:144-146;
 * devmm_virt_interface.c:1288-1296 and 1479-1482 refuse a new heap for it).
 * Fill it with 1 GiB blocks, free every other one: 2 GiB of DVPP memory is
 * refused with 7 GiB of the range free in pieces, while aclrtMalloc of
 * 2 GiB, from the device's own virtual heap, is had. */
static void test_dvpp_range_fragments(void **state)
{
    (void)state;
    open_device("25769803776"); /* 24 GiB */
    void *b[16], *big = NULL, *m;
    int n = 0;
    while (n < 16 && acldvppMalloc(&b[n], GiB) == ACL_SUCCESS)
        n++;
    (void)aclGetRecentErrMsg();
    assert_int_equal(n, 15); /* 1 GiB + 32 takes 1 GiB + 4 KiB: 15 in 16 GiB */
    for (int i = 0; i < n; i += 2)
        assert_int_equal(acldvppFree(b[i]), ACL_SUCCESS);
    assert_true(hbm_free_bytes() > 8 * GiB);
    assert_int_equal(acldvppMalloc(&big, 2 * GiB), ACL_ERROR_RT_MEMORY_ALLOCATION);
    (void)aclGetRecentErrMsg();
    assert_null(big);
    assert_int_equal(acldvppMalloc(&big, GiB), ACL_SUCCESS); /* a hole of 1 GiB fits */
    assert_int_equal(aclrtMalloc(&m, 2 * GiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(m), ACL_SUCCESS);
    assert_int_equal(acldvppFree(big), ACL_SUCCESS);
    for (int i = 1; i < n; i += 2)
        assert_int_equal(acldvppFree(b[i]), ACL_SUCCESS);
}

/* The leak report names a DVPP block never freed, with its bytes. */
static void test_leak_report_names_dvpp_blocks(void **state)
{
    (void)state;
    char path[] = "/tmp/aclsim-dvpp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    setenv("ACLSIM_LEAK_CHECK", "warn", 1);
    setenv("ACLSIM_REPORT", path, 1);
    open_device("268435456");
    void *p;
    assert_int_equal(acldvppMalloc(&p, 1000), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS); /* the report */
#ifdef VALGRIND_FREELIKE_BLOCK
    VALGRIND_FREELIKE_BLOCK(p, 0); /* left allocated on purpose */
#endif
    unsetenv("ACLSIM_LEAK_CHECK");
    unsetenv("ACLSIM_REPORT");
    char text[16384] = "";
    read_report(path, text, sizeof text);
    char want[128];
    snprintf(want, sizeof want, "device memory: 1024 bytes at %p never freed", p);
    if (!strstr(text, want))
        fail_msg("the report\n%s\nlacks\n%s", text, want);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, close_device)
    const struct CMUnitTest tests[] = {
        T(test_size_and_alignment),
        T(test_packed_mode_keeps_128_byte_starts),
        T(test_bytes_and_bounds),
        T(test_either_free_takes_either_block),
        T(test_bad_input),
        T(test_dvpp_range_fragments),
        T(test_leak_report_names_dvpp_blocks),
    };
    return cmocka_run_group_tests_name("dvpp memory", tests, NULL, NULL);
}
