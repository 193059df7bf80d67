/*
 * test_pool.c - stream-ordered memory pools: CANN's checks
 * (src/acl/aclrt_impl/memory.cpp aclrtMemPoolCreateImpl...), soma's rules
 * (hicann/runtime src/runtime/feature/soma/soma.cc, stream_mem_pool.cc,
 * src/runtime/api/impl/api_impl_soma.cc), each pinned with its line, and
 * reuse in stream order, in simulated time (docs/memory.md, "Virtual
 * memory and pools"). soma's own codes (RT_ERROR_MEM_POOL_NULL,
 * RT_ERROR_POOL_*) have no external code: 507000 (src/runtime/core/src/
 * common/errcode_manage.cc:612-616).
 */
#include <stdint.h>
#include <stdlib.h>
#include "acl/acl_rt_memory_soma.h"
#include "testutil.h"

#define MB2 ((uint64_t)2 << 20)

static aclrtStream s1, s2;

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1); /* 256 MiB */
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&s1) != ACL_SUCCESS || aclrtCreateStream(&s2) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(s1);
    aclrtDestroyStream(s2);
    aclrtResetDevice(0);
    return aclFinalize();
}

static int after_each(void **state)
{
    (void)state;
    size_t fr, total;
    (void)aclGetRecentErrMsg();
    if (aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS || fr != total)
        return -1;
    return 0;
}

static aclrtMemPoolProps props(size_t max)
{
    aclrtMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    p.maxSize = max;
    return p;
}

static uint64_t get64(aclrtMemPool pool, aclrtMemPoolAttr a)
{
    uint64_t v = 12345;
    assert_int_equal(aclrtMemPoolGetAttr(pool, a, &v), ACL_SUCCESS);
    return v;
}

static void set32(aclrtMemPool pool, aclrtMemPoolAttr a, uint32_t v)
{
    assert_int_equal(aclrtMemPoolSetAttr(pool, a, &v), ACL_SUCCESS);
}

static void test_create_bad_input(void **state)
{
    (void)state;
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(0);
    assert_int_equal(aclrtMemPoolCreate(NULL, &p), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolCreate", "memPool");
    assert_int_equal(aclrtMemPoolCreate(&pool, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolCreate", "poolProps");
    p.allocType = (aclrtMemAllocationType)3;
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemPoolCreate failed because value UNKNOWN(3) "
               "for parameter poolProps->allocType is invalid. Expected value: "
               "MEM_ALLOCATION_TYPE_PINNED(0).");
    p = props(0);
    p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemPoolCreate failed because value "
               "MEM_LOCATION_TYPE_HOST(0) for parameter poolProps->location.type is invalid. "
               "Expected value: MEM_LOCATION_TYPE_DEVICE(1).");
    p = props(0);
    p.reserved[5] = 1;
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtMemPoolCreate failed. Parameter "
               "poolProps->reserved is invalid. Reason: poolProps->reserved is a reserved "
               "parameter and must be nullptr.");
    p = props(0);
    p.location.id = 9;
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: invalid device id 9, "
               "valid range is [0, 1).");
    assert_null(pool);
    assert_int_equal(aclrtMemPoolDestroy(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolDestroy", "memPool");
    assert_int_equal(aclrtMemPoolTrimTo(NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolTrimTo", "memPool");
    uint64_t v;
    assert_int_equal(aclrtMemPoolGetAttr(NULL, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolGetAttr", "memPool");
}

static void test_malloc_free_bad_input(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(4u << 20);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    void *ptr = (void *)0x1;
    assert_int_equal(aclrtMemPoolMallocAsync(NULL, 64, pool, s1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolMallocAsync", "ptr");
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 64, NULL, s1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolMallocAsync", "memPool");
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 64, pool, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolMallocAsync", "stream");
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 0, pool, s1), ACL_SUCCESS); /* CANN: nothing */
    assert_ptr_equal(ptr, (void *)0x1);
    /* beyond maxSize: RT_ERROR_MEM_POOL_ALLOC (soma.cc:247-251,
     * stream_mem_pool.cc:163-166) */
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 8u << 20, pool, s1),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolMallocAsync failed: the pool's maxSize "
               "cannot hold the request, runtime result = 507000.");
    assert_int_equal(aclrtMemPoolFreeAsync(NULL, s1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemPoolFreeAsync", "ptr");
    /* No default stream: the runtime refuses NULL (api_impl_soma.cc:110-120;
     * RT_ERROR_STREAM_NULL is 507000: errcode_manage.cc:123). */
    void *d;
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(d, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Asynchronously releasing memory in the "
               "memory pool failed because stm cannot be a NULL pointer.");
    /* Memory of no pool is freed in the stream's order (api_impl_soma.cc:
     * 147-165: a host function on the stream frees it). */
    assert_int_equal(aclrtMemsetAsync(d, 64, 3, 64, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(d, s1), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE); /* gone already */
    (void)aclGetRecentErrMsg();
    void *not_a_block = (void *)0x1000;
    assert_int_equal(aclrtMemPoolFreeAsync(not_a_block, s1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtMemPoolFreeAsync failed, ptr is not memory of a pool (not from "
               "aclrtMemPoolMallocAsync, or already freed).");
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 64, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(ptr, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(ptr, s1), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    /* RT_ERROR_MEM_POOL_NULL (soma.cc:128-129) */
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolDestroy failed: Memory pool is not created "
               "or destroyed, runtime result = 507000.");
    assert_int_equal(aclrtMemPoolMallocAsync(&ptr, 64, pool, s1), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolMallocAsync failed: Memory pool is not "
               "created or destroyed, runtime result = 507000."); /* api_impl_soma.cc:82-83 */
    assert_int_equal(aclrtMemPoolTrimTo(pool, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolTrimTo failed: Memory pool invalid or "
               "destroyed, runtime result = 507000."); /* soma.cc:291-292 */
}

static void test_attributes_and_statistics(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(0);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    uint32_t sw = 9;
    assert_int_equal(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES,
                                         &sw), ACL_SUCCESS);
    assert_int_equal(sw, 1);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD), 0); /* CANN: 0 */
    /* A NULL value passes the ACL layer (memory.cpp:2124-2141): the
     * runtime's EE1004, 107000 (api_impl_soma.cc:41-58). */
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Setting the attribute value of a "
               "memory pool failed because value cannot be a NULL pointer.");
    assert_int_equal(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining the specified attribute "
               "value of a memory pool failed because value cannot be a NULL pointer.");
    uint64_t big = 128u << 20; /* within the pool's size: the HBM, 248 MiB */
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &big),
                     ACL_SUCCESS);
    /* Every request takes whole 2 MiB pool blocks (api_impl_soma.cc:76-81,
     * DEVICE_POOL_MIN_BLOCK_SIZE: feature/soma/stream_mem_pool.hpp:38). */
    void *a, *b;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 1000, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 3000, pool, s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), 2 * MB2);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 2 * MB2);
    assert_int_equal(aclrtMemPoolFreeAsync(b, s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), MB2);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH), 2 * MB2);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 2 * MB2);
    /* a high-water mark takes 0 only: RT_ERROR_POOL_PROP_INVALID
     * (stream_mem_pool.cc:502-517) */
    uint64_t v = 5;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolSetAttr failed: a high-water mark can only "
               "be reset, with the value 0, runtime result = 507000.");
    /* read-only: soma.cc:159-164, EE1011 */
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Setting memory pool attribute failed. Value "
               "rtMemPoolAttrUsedMemCurrent(7) for parameter attr is invalid. Reason: This "
               "attribute is read-only and does not support setting.");
    v = 0;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                     ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH), MB2);
    /* a sync keeps idle memory under the threshold ... */
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 2 * MB2);
    /* ... and gives it back above it */
    big = 0;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &big),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), MB2);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH), 2 * MB2);
    void *busy;
    assert_int_equal(aclrtMalloc(&busy, 64u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(busy, 64u << 20, 1, 64u << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolTrimTo(pool, 0), ACL_SUCCESS);
    /* the free is not complete yet as the host sees it: kept */
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), MB2);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 0);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    assert_int_equal(aclrtFree(busy), ACL_SUCCESS);
}

/* ---- soma's remaining rules ---- */

/* A pool is destroyed with blocks still handed out: soma refuses only a
 * pool its creator marked undeletable (soma.cc:125-146; CreateManager's
 * flag, stream_mem_pool.cc:549-552; aclrtMemPoolCreate's pools are
 * deletable, soma.cc:96); CANN's own test rt_free_from_mempool_invaild_ptr
 * destroys a pool with a block allocated and expects success (tests/ut/
 * runtime/runtime/test/platform/910B/rt_utest_api_soma.cc:476-513). The
 * blocks go with the pool. */
static void test_destroy_with_blocks_out(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(0);
    size_t f0, f1, t;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    void *a, *b;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 6u << 10, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 3u << 20, pool, s2), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT), 3 * MB2);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
    assert_int_equal(f1, f0); /* the pool's memory is the device's again */
    /* the blocks went with it: no pool, no live block there */
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
}

/* The pool's size: maxSize rounded up to the 2 MB granularity, more than
 * the HBM refused with the runtime's EE1011 (soma.cc:80-93, 200-216); an
 * allocation the size cannot hold is RT_ERROR_MEM_POOL_ALLOC. */
static void test_create_sizes_the_pool(void **state)
{
    (void)state;
    aclrtMemPool pool = NULL;
    size_t fr, total;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    aclrtMemPoolProps p = props(total + 1);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_RT_PARAM_INVALID);
    char text[512];
    snprintf(text, sizeof text, "Create memory pool failed. Value %zu MB for parameter "
             "rtMemPoolProps.maxSize is invalid. Reason: The memory pool size after 2 MB "
             "alignment is %zu MB, which exceeds the available device memory %zu MB on the "
             "Device(device_id=0).", (total + 1) >> 20, ((total >> 20) + 2) & ~(size_t)1,
             total >> 20);
    expect_msg("Invalid_Argument(EE1011)", text);
    assert_null(pool);
    p = props(1); /* one byte: one 2 MB granule */
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    void *a, *b;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, MB2, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 1, pool, s1), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
}

/* A reuse switch stores 1 for any value but 0 (stream_mem_pool.cc:
 * 484-494); the release threshold is at most the pool's size
 * (stream_mem_pool.cc:495-500). */
static void test_switches_and_threshold_values(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(4u << 20);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    uint32_t sw = 7, got = 9;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &sw),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &got),
                     ACL_SUCCESS);
    assert_int_equal(got, 1);
    sw = 0;
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, sw);
    assert_int_equal(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &got),
                     ACL_SUCCESS);
    assert_int_equal(got, 0);
    uint64_t th = (4u << 20) + 1;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &th),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolSetAttr failed: the release threshold is "
               "more than the pool's maxSize, runtime result = 507000.");
    th = 4u << 20;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &th),
                     ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD), 4u << 20);
    /* an attribute soma does not know: RT_ERROR_POOL_PROP_INVALID
     * (stream_mem_pool.cc:466-468, 522-524) */
    assert_int_equal(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)9, &th),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
}

/* TrimTo above the pool's size is refused (stream_mem_pool.cc:424-426);
 * at or above what it reserves it trims nothing (427-429). */
static void test_trim_beyond_what_the_pool_holds(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(8u << 20);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    uint64_t keep = 8u << 20;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &keep),
                     ACL_SUCCESS);
    void *a;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, MB2, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), MB2);
    assert_int_equal(aclrtMemPoolTrimTo(pool, (8u << 20) + 1), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtMemPoolTrimTo failed: minBytesToKeep is more than "
               "the pool's maxSize, runtime result = 507000.");
    assert_int_equal(aclrtMemPoolTrimTo(pool, 8u << 20), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolTrimTo(pool, MB2), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), MB2);
    assert_int_equal(aclrtMemPoolTrimTo(pool, 0), ACL_SUCCESS);
    assert_int_equal(get64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT), 0);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
}

/* SetAttr and GetAttr of a handle that names no pool: the runtime's
 * EE1017 "is not created" (soma.cc:150-157, 179-186), 107000. */
static void test_attr_of_no_pool_is_not_created(void **state)
{
    (void)state;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(0);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    uint64_t v = 0;
    char text[512];
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Setting memory pool attribute failed. Parameter memPool is "
             "invalid. Reason: The specified memory pool %p is not created, please create the "
             "memory pool before setting its attributes.", (void *)pool);
    expect_msg("Invalid_Argument(EE1017)", text);
    int local;
    assert_int_equal(aclrtMemPoolGetAttr((aclrtMemPool)&local,
                                         ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Getting memory pool attribute failed. Parameter memPool is "
             "invalid. Reason: The specified memory pool %p is not created, please create the "
             "memory pool before getting its attributes.", (void *)&local);
    expect_msg("Invalid_Argument(EE1017)", text);
}

/* A pool with only the reuse switches given on. */
static aclrtMemPool strict_pool(uint32_t follow, uint32_t opportunistic, uint32_t internal)
{
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(0);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    set32(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, follow);
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, opportunistic);
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, internal);
    /* Idle blocks stay in the pool across synchronisations (a threshold of
     * 0 would give them back to the device at once); the threshold is at
     * most the pool's size (stream_mem_pool.cc:495-500). */
    uint64_t keep = 128u << 20;
    assert_int_equal(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &keep),
                     ACL_SUCCESS);
    return pool;
}

static void drain(aclrtMemPool pool, void **ptrs, int n, aclrtStream s)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(aclrtMemPoolFreeAsync(ptrs[i], s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolTrimTo(pool, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
}

static void test_reuse_in_stream_order(void **state)
{
    (void)state;
    aclrtMemPool pool = strict_pool(1, 0, 0);
    void *a, *b, *c, *d;
    /* keep s1 busy so that its free lies in the future */
    void *big;
    assert_int_equal(aclrtMalloc(&big, 64u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 1 << 20, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(big, 64u << 20, 1, 64u << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    /* the same stream takes it back at once */
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 1 << 20, pool, s1), ACL_SUCCESS);
    assert_ptr_equal(b, a);
    assert_int_equal(aclrtMemsetAsync(big, 64u << 20, 2, 64u << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(b, s1), ACL_SUCCESS);
    /* another stream, not ordered after the free: a new block */
    assert_int_equal(aclrtMemPoolMallocAsync(&c, 1 << 20, pool, s2), ACL_SUCCESS);
    assert_ptr_not_equal(c, a);
    /* once an event orders s2 after the free, the block is s2's to reuse */
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s1), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s2, e), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&d, 1 << 20, pool, s2), ACL_SUCCESS);
    assert_ptr_equal(d, a);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    void *live[] = {c, d};
    drain(pool, live, 2, s2);
    assert_int_equal(aclrtFree(big), ACL_SUCCESS);
}

static void test_reuse_opportunistic_and_internal(void **state)
{
    (void)state;
    void *big;
    assert_int_equal(aclrtMalloc(&big, 64u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    /* opportunistic: once the free completed as the host sees it */
    aclrtMemPool pool = strict_pool(0, 1, 0);
    void *a, *b, *c;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 4096, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(big, 64u << 20, 1, 64u << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 4096, pool, s2), ACL_SUCCESS);
    assert_ptr_not_equal(b, a); /* still pending on s1 */
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&c, 4096, pool, s2), ACL_SUCCESS);
    assert_ptr_equal(c, a);
    void *l1[] = {b, c};
    drain(pool, l1, 2, s2);
    /* internal dependencies: reused at once, s2 then waits for s1's free */
    pool = strict_pool(0, 0, 1);
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 4096, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(big, 64u << 20, 1, 64u << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    aclrtEvent e1, e2;
    assert_int_equal(aclrtCreateEvent(&e1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e2), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e1, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolMallocAsync(&b, 4096, pool, s2), ACL_SUCCESS);
    assert_ptr_equal(b, a);
    assert_int_equal(aclrtRecordEvent(e2, s2), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    float ms = -1;
    /* s2's work after the reuse starts no earlier than s1's free */
    assert_int_equal(aclrtEventElapsedTime(&ms, e1, e2), ACL_SUCCESS);
    assert_true(ms >= 0.0f);
    assert_int_equal(aclrtDestroyEvent(e1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e2), ACL_SUCCESS);
    void *l2[] = {b};
    drain(pool, l2, 1, s2);
    assert_int_equal(aclrtFree(big), ACL_SUCCESS);
}

static void test_pool_counts_against_hbm(void **state)
{
    (void)state;
    size_t f0, f1, t;
    aclrtMemPool pool;
    aclrtMemPoolProps p = props(0);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t), ACL_SUCCESS);
    assert_int_equal(aclrtMemPoolCreate(&pool, &p), ACL_SUCCESS);
    void *a;
    assert_int_equal(aclrtMemPoolMallocAsync(&a, 1 << 20, pool, s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(a, 1 << 20, 0x5a, 1 << 20, s1), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
    assert_true(f0 - f1 >= (1u << 20));
    unsigned char out[16];
    assert_int_equal(aclrtMemcpy(out, 16, a, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(out[7], 0x5a);
    assert_int_equal(aclrtMemPoolFreeAsync(a, s1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS); /* threshold 0: released */
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
    assert_int_equal(f1, f0);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, after_each)
    const struct CMUnitTest tests[] = {
        T(test_create_bad_input),
        T(test_malloc_free_bad_input),
        T(test_attributes_and_statistics),
        T(test_destroy_with_blocks_out),
        T(test_create_sizes_the_pool),
        T(test_switches_and_threshold_values),
        T(test_trim_beyond_what_the_pool_holds),
        T(test_attr_of_no_pool_is_not_created),
        T(test_reuse_in_stream_order),
        T(test_reuse_opportunistic_and_internal),
        T(test_pool_counts_against_hbm),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
