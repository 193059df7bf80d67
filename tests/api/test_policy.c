/*
 * test_policy.c - CANN's size rounding and page policies per SoC profile
 * (hicann/runtime src/acl/aclrt_impl/memory.cpp; the SoC figures as sim/profile.c
 * sources them), seen through aclrtGetMemInfo and
 * aclrtPointerGetAttributes, plus aclrtGetMemUsageInfo.
 *
 * Each case opens the simulator with its own profile and a small HBM; one
 * opens every profile of docs/timing.md's "SoC profiles" table at its full size
 * and checks what the API shows of each row.
 */
#include <stdlib.h>
#include "testutil.h"
#include "tests/soc_table.h"

#define MiB (1024u * 1024u)
#define GiB (1024ull * MiB)

/* The driver's normal page: device memory on normal pages is handed out
 * in 4 KiB units, each block starting on one (hicann/driver
 * src/ascend_hal/svm/v2/devmm/devmm_virt_interface.c:1212-1214,
 * DEVMM_DEV_PAGE_SIZE at v2/common/devmm_svm.h:43; devmm_virt_com_heap.c:1527
 * rounds a block to it). */
#define PAGE 4096u

static void open_sim(const char *soc, const char *hbm)
{
    setenv("ACLSIM_SOC", soc, 1);
    setenv("ACLSIM_HBM_BYTES", hbm, 1);
    unsetenv("ACLSIM_MALLOC_ALIGN");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

/* As open_sim, with blocks packed at CANN's documented 64-byte minimum
 * (ACLSIM_MALLOC_ALIGN=64): what a block costs is then CANN's rounding
 * alone, which the page would hide. */
static void open_packed(const char *soc, const char *hbm)
{
    setenv("ACLSIM_SOC", soc, 1);
    setenv("ACLSIM_HBM_BYTES", hbm, 1);
    setenv("ACLSIM_MALLOC_ALIGN", "64", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static int close_sim(void **state)
{
    (void)state;
    unsetenv("ACLSIM_MALLOC_ALIGN");
    (void)aclGetRecentErrMsg();
    aclrtResetDeviceForce(0);
    return aclFinalize();
}

/* Bytes of device memory one allocation takes, and its page size. */
static size_t cost(aclError (*fn)(void **, size_t, aclrtMemMallocPolicy), size_t size,
                   aclrtMemMallocPolicy policy, uint32_t *page)
{
    size_t before = hbm_free_bytes();
    void *p = NULL;
    assert_int_equal(fn(&p, size, policy), ACL_SUCCESS);
    size_t used = before - hbm_free_bytes();
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(p, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(a.location.id, 0);
    assert_int_equal((uintptr_t)p % (a.pageSize > 4096 ? a.pageSize : 64), 0);
    *page = a.pageSize;
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return used;
}

static void test_910b_malloc_pads_32_align32_does_not(void **state)
{
    (void)state;
    uint32_t page;
    open_packed("Ascend910B1", "268435456");
    assert_string_equal(aclrtGetSocName(), "Ascend910B1");
    /* ALIGN_UP(200, 32) + 32 = 256; Align32: 224 -> 256 in 64-byte granules. */
    assert_int_equal(cost(aclrtMalloc, 200, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 256);
    assert_int_equal(page, 4096);
    assert_int_equal(cost(aclrtMalloc, 224, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 256);
    assert_int_equal(cost(aclrtMallocAlign32, 224, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 256);
    assert_int_equal(cost(aclrtMallocAlign32, 100, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 128);
    assert_int_equal(cost(aclrtMallocCached, 100, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 192);
}

static void test_950_malloc_does_not_pad(void **state)
{
    (void)state;
    uint32_t page;
    open_packed("Ascend950PR_9599", "268435456");
    assert_string_equal(aclrtGetSocName(), "Ascend950PR_9599");
    assert_int_equal(cost(aclrtMalloc, 224, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 256);
    assert_int_equal(cost(aclrtMalloc, 100, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 128);
}

static void test_huge_first_uses_normal_pages_up_to_1mb(void **state)
{
    (void)state;
    uint32_t page;
    open_sim("Ascend910B1", "268435456");
    size_t c = cost(aclrtMalloc, MiB - 64, ACL_MEM_MALLOC_HUGE_FIRST, &page);
    assert_int_equal(page, 4096);
    assert_int_equal(c, MiB - 32 + 32); /* ALIGN_UP + 32 = exactly 1 MiB - 0 */
    c = cost(aclrtMalloc, MiB + 1, ACL_MEM_MALLOC_HUGE_FIRST, &page);
    assert_int_equal(page, 2 * MiB);
    assert_int_equal(c, 2 * MiB);
}

static void test_huge_only_rounds_to_2mb_pages(void **state)
{
    (void)state;
    uint32_t page;
    open_sim("Ascend910B1", "268435456");
    assert_int_equal(cost(aclrtMalloc, 100, ACL_MEM_MALLOC_HUGE_ONLY, &page), 2 * MiB);
    assert_int_equal(page, 2 * MiB);
    assert_int_equal(cost(aclrtMalloc, 3 * MiB, ACL_MEM_MALLOC_HUGE_ONLY_P2P, &page), 4 * MiB);
}

static void test_normal_only_never_uses_huge_pages(void **state)
{
    (void)state;
    uint32_t page;
    open_packed("Ascend910B1", "268435456");
    assert_int_equal(cost(aclrtMalloc, 8 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 8 * MiB + 32 + 32);
    assert_int_equal(page, 4096);
}

/* Without the test mode, blocks on normal pages take whole 4 KiB pages and
 * start on one; CANN's rounding and padding show where they cross a page:
 * 4064 + 32 padding fits one page, 4065 needs two. */
static void test_normal_pages_are_4kib_pages(void **state)
{
    (void)state;
    uint32_t page;
    void *p[3];
    open_sim("Ascend910B1", "268435456");
    assert_int_equal(cost(aclrtMalloc, 1, ACL_MEM_MALLOC_NORMAL_ONLY, &page), PAGE);
    assert_int_equal(cost(aclrtMalloc, 4064, ACL_MEM_MALLOC_NORMAL_ONLY, &page), PAGE);
    assert_int_equal(cost(aclrtMalloc, 4065, ACL_MEM_MALLOC_NORMAL_ONLY, &page), 2 * PAGE);
    assert_int_equal(cost(aclrtMallocAlign32, 4096, ACL_MEM_MALLOC_NORMAL_ONLY, &page), PAGE);
    assert_int_equal(cost(aclrtMalloc, 8 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY, &page),
                     8 * MiB + PAGE);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtMalloc(&p[i], 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal((uintptr_t)p[i] % PAGE, 0);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
}

/* ACLSIM_MALLOC_ALIGN=64 hands out starts at CANN's documented minimum,
 * 64 bytes (docs/zh/api_ref, aclrtMalloc): two 64-byte blocks in a row
 * are 64 bytes apart, so one of them is not 128-byte aligned. */
static void test_packed_mode_starts_at_64_bytes(void **state)
{
    (void)state;
    void *p[4];
    int odd = 0;
    open_packed("Ascend950PR_9599", "268435456"); /* no padding: 64 bytes a block */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(aclrtMalloc(&p[i], 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
        assert_int_equal((uintptr_t)p[i] % 64, 0);
        odd = odd || (uintptr_t)p[i] % 128 != 0;
    }
    assert_true(odd);
    for (int i = 0; i < 4; i++)
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
}

/* Values of ACLSIM_MALLOC_ALIGN other than powers of two from 64 to 4096
 * fail at aclInit, in the options' words. */
static void test_malloc_align_must_be_a_power_of_two(void **state)
{
    (void)state;
    static const char *const bad[] = {"96", "32", "8192", "0"};
    setenv("ACLSIM_SOC", "Ascend910B1", 1);
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("ACLSIM_MALLOC_ALIGN", bad[i], 1);
        assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
        const char *m = aclGetRecentErrMsg();
        assert_non_null(m);
        assert_non_null(strstr(m, "ACLSIM_MALLOC_ALIGN="));
    }
    unsetenv("ACLSIM_MALLOC_ALIGN");
    open_sim("Ascend910B1", "268435456");
}

static void test_out_of_range_policy_huge_from_2mb(void **state)
{
    (void)state;
    uint32_t page;
    open_sim("Ascend910B1", "268435456");
    aclrtMemMallocPolicy odd = (aclrtMemMallocPolicy)(ACL_MEM_MALLOC_HUGE_FIRST |
                                                      ACL_MEM_TYPE_HIGH_BAND_WIDTH);
    cost(aclrtMalloc, 2 * MiB, odd, &page);
    assert_int_equal(page, 2 * MiB);
    cost(aclrtMalloc, 1536 * 1024, odd, &page); /* > 1 MiB but < 2 MiB: normal */
    assert_int_equal(page, 4096);
}

static void test_huge1g_on_910b_rounds_to_1gb_without_padding(void **state)
{
    (void)state;
    uint32_t page;
    open_sim("Ascend910B1", "4294967296");
    assert_int_equal(cost(aclrtMalloc, GiB + 1, ACL_MEM_MALLOC_HUGE1G_ONLY, &page), 2 * GiB);
    assert_int_equal(page, GiB);
    assert_int_equal(cost(aclrtMalloc, GiB, ACL_MEM_MALLOC_HUGE1G_ONLY, &page), GiB);
}

static void test_huge1g_on_950_not_supported(void **state)
{
    (void)state;
    void *p = NULL;
    open_sim("Ascend950DT_9581", "4294967296");
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE1G_ONLY),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_non_null(aclGetRecentErrMsg());
    assert_null(p);
}

/* Huge pages need pages, not a free 2 MB-aligned run of addresses: the
 * driver maps physical pages into a virtual heap larger than the device
 * (hicann/driver src/ascend_hal/svm/v2/devmm/devmm_virt_interface.c:1594-1655
 * takes a new heap's addresses when the heaps it has lack a free range;
 * devmm_virt_interface.c:1562 stops only on DEVMM_OUT_OF_PHYS_MEM). Fill
 * the device with 512 KiB blocks and free three of every four: no 2 MB of
 * addresses among them is free, yet a 2 MB page is had while the device
 * has the pages. When fewer than 2 MB of pages are left, HUGE_ONLY fails
 * and HUGE_FIRST falls back to normal pages (hicann/runtime
 * src/runtime/driver/npu_driver_mem.cc:1038-1053). */
static void test_huge_pages_need_pages_not_a_free_range(void **state)
{
    (void)state;
    open_sim("Ascend910B1", "25165824"); /* 24 MiB, 16 after the cmodel reserve */
    void *blk[32], *big = NULL, *more[4];
    for (int i = 0; i < 32; i++)
        assert_int_equal(aclrtMalloc(&blk[i], 512 * 1024 - 64, ACL_MEM_MALLOC_NORMAL_ONLY),
                         ACL_SUCCESS);
    for (int i = 0; i < 32; i++)
        if (i % 4 != 3)
            assert_int_equal(aclrtFree(blk[i]), ACL_SUCCESS);
    /* 12 MiB of pages free: five 2 MB pages of HUGE_ONLY blocks fit */
    for (int i = 0; i < 4; i++)
        assert_int_equal(aclrtMalloc(&more[i], 5 * MiB / 4, ACL_MEM_MALLOC_HUGE_ONLY),
                         ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&big, 3 * MiB, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(big, &a), ACL_SUCCESS);
    assert_int_equal(a.pageSize, 2 * MiB);
    assert_int_equal((uintptr_t)big % (2 * MiB), 0);
    /* 12 - 8 - 4 = 0 MiB left: free one 2 MB page's block, keep 1.5 MiB */
    assert_int_equal(aclrtFree(more[0]), ACL_SUCCESS);
    void *hold;
    assert_int_equal(aclrtMalloc(&hold, 512 * 1024 - 64, ACL_MEM_MALLOC_NORMAL_ONLY),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&more[0], 5 * MiB / 4, ACL_MEM_MALLOC_HUGE_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMalloc(&more[0], 5 * MiB / 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtPointerGetAttributes(more[0], &a), ACL_SUCCESS);
    assert_int_equal(a.pageSize, 4096);
    for (int i = 0; i < 4; i++)
        assert_int_equal(aclrtFree(more[i]), ACL_SUCCESS);
    assert_int_equal(aclrtFree(hold), ACL_SUCCESS);
    assert_int_equal(aclrtFree(big), ACL_SUCCESS);
    for (int i = 3; i < 32; i += 4)
        assert_int_equal(aclrtFree(blk[i]), ACL_SUCCESS);
}

/* The largest device ACLSIM_HBM_BYTES gives (16 TiB: would it fit a larger
 * part?) still opens: its virtual heap of twice the HBM and its other
 * windows fit the host's 128 TiB of user addresses. */
static void test_largest_device_opens(void **state)
{
    (void)state;
    open_sim("Ascend910B1", "17592186044416");
    size_t fr, total;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(total, ((size_t)16 << 40) - (8u << 20)); /* the cmodel reserve */
    void *p;
    /* (4 GiB: under ThreadSanitizer, where the range is claimed piece by
     * piece past its first 16 GiB, farther pieces may lie outside the
     * addresses the sanitizer lets a program map) */
    assert_int_equal(aclrtMalloc(&p, (size_t)4 << 30, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal((uintptr_t)p % GiB, 0);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_pointer_attributes_host_kinds_and_null_args(void **state)
{
    (void)state;
    open_sim("Ascend910B1", "268435456");
    aclrtPtrAttributes a;
    int local;
    void *pinned;
    assert_int_equal(aclrtPointerGetAttributes(&local, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    assert_int_equal(aclrtMallocHost(&pinned, 100), ACL_SUCCESS);
    assert_int_equal(aclrtPointerGetAttributes((char *)pinned + 50, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtFreeHost(pinned), ACL_SUCCESS);
    assert_int_equal(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtPointerGetAttributes", "ptr");
    assert_int_equal(aclrtPointerGetAttributes(&local, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtPointerGetAttributes", "attributes");
}

static void test_mem_usage_info_tracks_current_and_peak(void **state)
{
    (void)state;
    open_packed("Ascend910B1", "268435456");
    aclrtMemUsageInfo info[4];
    size_t n = 0;
    void *a, *b;
    assert_int_equal(aclrtMalloc(&a, 1000, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, 3000, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemUsageInfo(0, info, 4, &n), ACL_SUCCESS);
    assert_true(n >= 1);
    assert_string_equal(info[0].name, "aclrtMalloc");
    assert_int_equal(info[0].curMemSize, 1088);            /* 1024 + 32 -> 64 granules */
    assert_int_equal(info[0].memPeakSize, 1088 + 3072);    /* 3008 + 32 -> 3072 */
    assert_int_equal(aclrtGetMemUsageInfo(0, info, 1, &n), ACL_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(aclrtGetMemUsageInfo(0, info, 0, &n), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtGetMemUsageInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetMemUsageInfo", "memUsageInfo");
    assert_int_equal(aclrtGetMemUsageInfo(5, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
}

/* HBM bandwidth in GB/s as the device's timeline shows it: three fills on
 * one stream, timed by events; the difference between an 8 MiB and a
 * 16 MiB fill is 8 MiB at the HBM's rate (the fixed latency cancels). */
static double hbm_gbps_of_fills(void)
{
    enum { SMALL = 8 << 20, BIG = 16 << 20 };
    aclrtStream s;
    aclrtEvent e[3];
    void *d;
    float first, second;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, BIG, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtCreateEvent(&e[i]), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, BIG, 0, BIG, s), ACL_SUCCESS); /* the stream runs ahead */
    assert_int_equal(aclrtRecordEvent(e[0], s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, BIG, 1, SMALL, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e[1], s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, BIG, 2, BIG, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e[2], s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtEventElapsedTime(&first, e[0], e[1]), ACL_SUCCESS);
    assert_int_equal(aclrtEventElapsedTime(&second, e[1], e[2]), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtDestroyEvent(e[i]), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return (double)(BIG - SMALL) / ((double)(second - first) * 1e-3) / 1e9;
}

/* The host link's bandwidth for pinned memory as the timeline shows it:
 * the difference between an 8 MiB and a 16 MiB copy from aclrtMallocHost
 * memory, timed by events. */
static double host_gbps_of_copies(void)
{
    enum { SMALL = 8 << 20, BIG = 16 << 20 };
    aclrtStream s;
    aclrtEvent e[3];
    void *d, *h;
    float first, second;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, BIG, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, BIG), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtCreateEvent(&e[i]), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, BIG, h, BIG, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e[0], s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, BIG, h, SMALL, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e[1], s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, BIG, h, BIG, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e[2], s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtEventElapsedTime(&first, e[0], e[1]), ACL_SUCCESS);
    assert_int_equal(aclrtEventElapsedTime(&second, e[1], e[2]), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtDestroyEvent(e[i]), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return (double)(BIG - SMALL) / ((double)(second - first) * 1e-3) / 1e9;
}

/* Each profile a table row names opens as the row says: aclrtGetSocName
 * gives its name, aclrtGetMemInfo its HBM less the row's reserve, a
 * 100-byte aclrtMalloc takes one 4 KiB page (128 bytes plus the padding,
 * rounded to the page), 1 GB pages exist or give 207000, fills run at its HBM
 * bandwidth, pinned copies at its host link's, and managed memory exists
 * or gives 207000. */
static void test_every_readme_profile_opens_as_its_row_says(void **state)
{
    (void)state;
    static struct soc_row rows[SOC_TABLE_MAX_ROWS];
    int n = soc_table_read(ACLSIM_ROOT "/docs/timing.md", rows, SOC_TABLE_MAX_ROWS), opened = 0;
    assert_true(n > 0);
    unsetenv("ACLSIM_HBM_BYTES");
    for (int r = 0; r < n; r++) {
        if (!rows[r].parsed)
            fail_msg("docs/timing.md row not in the table's form: %s", rows[r].line);
        for (int k = 0; k < rows[r].n_names; k++) {
            const struct soc_row *row = &rows[r];
            size_t fr, total;
            uint32_t page;
            void *p = NULL;
            setenv("ACLSIM_SOC", row->names[k], 1);
            assert_int_equal(aclInit(NULL), ACL_SUCCESS);
            assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
            assert_string_equal(aclrtGetSocName(), row->names[k]);
            assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
            assert_true(total == row->hbm_bytes - row->reserve_bytes);
            assert_true(fr == total);
            assert_int_equal(cost(aclrtMalloc, 100, ACL_MEM_MALLOC_NORMAL_ONLY, &page), PAGE);
            aclError rc = aclrtMalloc(&p, 1, ACL_MEM_MALLOC_HUGE1G_ONLY);
            assert_int_equal(rc, row->huge1g ? ACL_SUCCESS : ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            if (rc == ACL_SUCCESS)
                assert_int_equal(aclrtFree(p), ACL_SUCCESS);
            (void)aclGetRecentErrMsg();
            double gbps = hbm_gbps_of_fills();
            if (gbps < row->hbm_gbps * 0.999 || gbps > row->hbm_gbps * 1.001)
                fail_msg("%s fills at %g GB/s, its docs/timing.md row says %g", row->names[k], gbps,
                         row->hbm_gbps);
            gbps = host_gbps_of_copies();
            if (gbps < row->host_gbps * 0.999 || gbps > row->host_gbps * 1.001)
                fail_msg("%s copies pinned memory at %g GB/s, its docs/timing.md row says %g",
                         row->names[k], gbps, row->host_gbps);
            p = NULL;
            rc = aclrtMemAllocManaged(&p, 4096, ACL_RT_MEM_ATTACH_GLOBAL);
            assert_int_equal(rc, row->uvm ? ACL_SUCCESS : ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            if (rc == ACL_SUCCESS)
                assert_int_equal(aclrtFree(p), ACL_SUCCESS);
            (void)aclGetRecentErrMsg();
            assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
            assert_int_equal(aclFinalize(), ACL_SUCCESS);
            opened++;
        }
    }
    assert_true(opened >= n);
    setenv("ACLSIM_SOC", "Ascend910B1", 1);
}

static void test_unknown_soc_makes_init_fail_with_message(void **state)
{
    (void)state;
    setenv("ACLSIM_SOC", "Ascend999", 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "ACLSIM_SOC"));
    setenv("ACLSIM_SOC", "Ascend910B1", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, close_sim)
    const struct CMUnitTest tests[] = {
        T(test_910b_malloc_pads_32_align32_does_not),
        T(test_950_malloc_does_not_pad),
        T(test_huge_first_uses_normal_pages_up_to_1mb),
        T(test_huge_only_rounds_to_2mb_pages),
        T(test_normal_only_never_uses_huge_pages),
        T(test_normal_pages_are_4kib_pages),
        T(test_packed_mode_starts_at_64_bytes),
        T(test_malloc_align_must_be_a_power_of_two),
        T(test_out_of_range_policy_huge_from_2mb),
        T(test_huge1g_on_910b_rounds_to_1gb_without_padding),
        T(test_huge1g_on_950_not_supported),
        T(test_huge_pages_need_pages_not_a_free_range),
        T(test_largest_device_opens),
        T(test_pointer_attributes_host_kinds_and_null_args),
        T(test_mem_usage_info_tracks_current_and_peak),
        T(test_unknown_soc_makes_init_fail_with_message),
        /* opens and closes the simulator itself, once per profile */
        cmocka_unit_test(test_every_readme_profile_opens_as_its_row_says),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
