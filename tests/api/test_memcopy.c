/*
 * test_memcopy.c - 2-D copies, batch copies and 32-bit fills: CANN's codes
 * and texts for bad input in its check order (hicann/runtime
 * src/acl/aclrt_impl/memory.cpp, src/runtime/api/impl/api_error.cc,
 * api_impl.cc), the bytes each moves, aclsim's bounds and use-after-free
 * checks on every row and entry, and the time each takes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

#define MiB (1024u * 1024u)

static aclrtStream s;

static int up(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s))
        return -1;
    return 0;
}

static int down(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    unsetenv("ACLSIM_HBM_BYTES");
    return aclFinalize();
}

static void *dev(size_t n)
{
    void *d = NULL;
    assert_int_equal(aclrtMalloc(&d, n, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d, n, 0, n), ACL_SUCCESS);
    return d;
}

static uint64_t stream_ps(void)
{
    uint64_t t;
    assert_int_equal(aclsim_clock_stream(s, &t), ACL_SUCCESS);
    return t;
}

/* ---- 2-D copies: bad input ---- */

static const char check2d[] = "Checking the synchronous memory copy parameter validity";

static void test_2d_zero_width_or_height_succeeds_before_any_check(void **state)
{
    (void)state;
    assert_int_equal(aclrtMemcpy2d(NULL, 0, NULL, 0, 0, 5, (aclrtMemcpyKind)99), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy2dAsync(NULL, 0, NULL, 0, 5, 0, (aclrtMemcpyKind)99, s),
                     ACL_SUCCESS);
    expect_no_msg();
}

static void test_2d_null_pointers(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    char text[256];
    assert_int_equal(aclrtMemcpy2d(NULL, 8, h, 8, 8, 2, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg(check2d, "dst");
    /* the async copy shares the ACL layer's check, its words too */
    assert_int_equal(aclrtMemcpy2dAsync(d, 8, NULL, 8, 8, 2, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_INVALID_PARAM);
    snprintf(text, sizeof text, "%s failed because src cannot be a NULL pointer.", check2d);
    expect_msg("Invalid_Argument_Null_Pointer(EH0008)", text);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_2d_width_past_a_pitch(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    char text[256];
    assert_int_equal(aclrtMemcpy2d(d, 16, h, 8, 9, 2, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    snprintf(text, sizeof text, "%s failed. Value 9 for parameter width is invalid. Reason: must "
             "be less than spitch and dpitch, spitch=8, dpitch=16.", check2d);
    expect_msg("Invalid_Argument(EH0009)", text);
    assert_int_equal(aclrtMemcpy2dAsync(d, 4, h, 16, 8, 2, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_2d_kind_must_be_a_device_direction(void **state)
{
    (void)state;
    char a[64], b[64] = {0};
    char text[512];
    assert_int_equal(aclrtMemcpy2d(a, 8, b, 8, 8, 2, ACL_MEMCPY_HOST_TO_HOST),
                     ACL_ERROR_INVALID_PARAM);
    snprintf(text, sizeof text, "%s failed because value MEMCPY_HOST_TO_HOST(0) for parameter "
             "kind is invalid. Expected value: ACL_MEMCPY_HOST_TO_DEVICE or "
             "ACL_MEMCPY_DEVICE_TO_HOST or ACL_MEMCPY_DEVICE_TO_DEVICE or ACL_MEMCPY_DEFAULT.",
             check2d);
    expect_msg("Invalid_Argument(EH0007)", text);
    assert_int_equal(aclrtMemcpy2dAsync(a, 8, b, 8, 8, 2, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s),
                     ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
}

static void test_2d_runtime_limits_on_height_and_width(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    assert_int_equal(aclrtMemcpy2d(d, 8, h, 8, 8, 5242881, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Checking the validity of 2D memory copy parameters "
               "failed because value 5242881 for parameter height is invalid. Expected value: "
               "less than or equal to 5242880.");
    assert_int_equal(aclrtMemcpy2dAsync(d, 5000001, h, 5000001, 5000001, 1,
                                        ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Checking the validity of 2D memory copy parameters "
               "failed because value 5000001 for parameter width is invalid. Expected value: "
               "less than or equal to 5000000.");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* The synchronous runtime copies H2D and D2H only; DEFAULT must resolve to
 * one of them (asynchronously D2D too). */
static void test_2d_directions_the_runtime_refuses(void **state)
{
    (void)state;
    void *a = dev(256), *b = dev(256);
    char h1[64], h2[64] = {0};
    assert_int_equal(aclrtMemcpy2d(a, 16, b, 16, 16, 4, ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMemcpy2d failed, "
               "this memcpy2d feature supports only host2device or device2host kinds.");
    assert_int_equal(aclrtMemcpy2d(a, 16, b, 16, 16, 4, ACL_MEMCPY_DEFAULT),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Synchronous 2D memory copy task failed. Parameter "
               "kind or newKind is invalid. Reason: Memcpy2dSync supports only H2D or D2H. "
               "Parameter kind is MEMCPY_DEFAULT(8), and newKind is MEMCPY_KIND_MAX(8).");
    assert_int_equal(aclrtMemcpy2dAsync(h1, 16, h2, 16, 16, 4, ACL_MEMCPY_DEFAULT, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Asynchronous 2D memory copy failed. Parameter kind "
               "or newKind is invalid. Reason: Memcpy2dAsync supports only H2D, D2H, or D2D. "
               "Parameter kind is MEMCPY_DEFAULT(8), and reviseKind is MEMCPY_HOST_TO_HOST(0).");
    /* asynchronously, D2D and a DEFAULT between device blocks are fine */
    assert_int_equal(aclrtMemcpy2dAsync(a, 16, b, 16, 16, 4, ACL_MEMCPY_DEFAULT, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
}

static void test_2d_invalid_stream_and_no_context(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    assert_int_equal(aclrtMemcpy2dAsync(d, 8, h, 8, 8, 2, ACL_MEMCPY_HOST_TO_DEVICE,
                                        (aclrtStream)(uintptr_t)0x1234),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- 2-D copies: bounds and use after free, row by row ---- */

static void test_2d_last_row_past_the_block_is_refused(void **state)
{
    (void)state;
    char h[256] = {0}, text[512];
    void *d = dev(100); /* usable 128: rows at 0, 40, 80, 120 run to 128 */
    assert_int_equal(aclrtMemcpy2d(d, 40, h, 8, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy2d(d, 40, h, 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    snprintf(text, sizeof text, "Synchronous 2D memory copy task failed because value 136 for "
             "parameter count is invalid. Expected value: at most 128: dst %p lies 0 bytes into a "
             "block of 128 bytes, the access would run past its end.", d);
    expect_msg("Invalid_Argument(EE1003)", text);
    /* the source side too, asynchronously */
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy2dAsync(h, 64, d, 64, 8, 3, ACL_MEMCPY_DEVICE_TO_HOST, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_2d_from_freed_memory_is_a_use_after_free(void **state)
{
    (void)state;
    char h[64], text[512];
    void *d = dev(64);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    MISUSE_BEGIN();
    aclError rc = aclrtMemcpy2d(h, 8, d, 8, 8, 2, ACL_MEMCPY_DEVICE_TO_HOST);
    MISUSE_END();
    assert_int_equal(rc, ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Synchronous 2D memory copy task failed because value %p for "
             "parameter src is invalid. Expected value: an address inside a live allocation of "
             "aclrtMalloc (is it freed?).", d);
    expect_msg("Invalid_Argument(EE1003)", text);
}

/* ---- 2-D copies: the bytes ---- */

static void test_2d_copies_rows_with_their_pitches(void **state)
{
    (void)state;
    unsigned char in[16 * 6], out[64 * 6];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 13 + 5);
    void *d = dev(64 * 6), *e = dev(64 * 6);
    assert_int_equal(aclrtMemcpy2d(d, 64, in, 16, 16, 6, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    /* device to device, asynchronously, into a pitch of 32 */
    assert_int_equal(aclrtMemcpy2dAsync(e, 32, d, 64, 16, 6, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    memset(out, 0xee, sizeof out);
    /* back by DEFAULT: device to host */
    assert_int_equal(aclrtMemcpy2d(out, 64, e, 32, 16, 6, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
    for (int r = 0; r < 6; r++) {
        assert_memory_equal(out + r * 64, in + r * 16, 16);
        assert_int_equal(out[r * 64 + 16], 0xee); /* the gap is untouched */
    }
    /* the gaps of the device rows stayed zero */
    assert_int_equal(aclrtMemcpy(out, sizeof out, d, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    for (int r = 0; r < 6; r++)
        assert_int_equal(out[r * 64 + 20], 0);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtFree(e), ACL_SUCCESS);
}

/* One operation of width x height bytes on the timeline: 1024 rows of
 * 4 KiB from pinned memory take 4 MiB at the host link's 23.4 GB/s. */
static void test_2d_is_timed_as_the_bytes_it_moves(void **state)
{
    (void)state;
    void *h, *d = dev(8 * MiB);
    assert_int_equal(aclrtMallocHost(&h, 4 * MiB), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint64_t t0;
    assert_int_equal(aclsim_clock_host(&t0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy2dAsync(d, 8192, h, 4096, 4096, 1024, ACL_MEMCPY_HOST_TO_DEVICE,
                                        s), ACL_SUCCESS);
    double us = (double)(stream_ps() - t0) / 1e6;
    double want = 1.0 + 0.2 + 4.0 * MiB / 23.4e9 * 1e6; /* call, latency, bytes */
    assert_true(us > want * 0.999 && us < want * 1.001);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- batch copies ---- */

static void test_batch_checks_of_the_acl_layer(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    void *dsts[2] = {d, h}, *srcs[2] = {h, d};
    size_t maxs[2] = {64, 64}, sizes[2] = {64, 64}, idx[1] = {0}, fail = 7;
    aclrtMemcpyBatchAttr attr;
    memset(&attr, 0, sizeof attr);
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemcpyBatch", "failIndex");
    assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, NULL, s),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemcpyBatchAsync", "failIndex");
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, NULL, 2, &attr, idx, 1, &fail),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("Batch memory copy", "sizes");
    assert_int_equal(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 0, &attr, idx, 1),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "Batch memory copy failed because value 0 for "
               "parameter numBatches is invalid. Expected value: must be greater than 0.");
    /* every size 0: nothing else is looked at */
    size_t zero[2] = {0, 0};
    assert_int_equal(aclrtMemcpyBatch(NULL, NULL, NULL, zero, 2, NULL, NULL, 0, &fail),
                     ACL_SUCCESS);
    assert_true(fail == SIZE_MAX);
    expect_no_msg();
    assert_int_equal(aclrtMemcpyBatch(dsts, NULL, srcs, sizes, 2, &attr, idx, 1, &fail),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("Checking the batch memory copy parameter validity", "destMaxs");
    assert_int_equal(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, &attr, NULL, 1, s),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("Checking the batch memory copy parameter validity", "attrsIndexes");
    maxs[1] = 63;
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, &fail),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "Checking the batch memory copy parameter validity "
               "failed. Value 63 for parameter destMaxs is invalid. Reason: The memory copy size "
               "64 at index 1 exceeds the size 63 of the destination buffer.");
    maxs[1] = 64;
    attr.rsv[3] = 1;
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, &fail),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "Checking the batch memory copy parameter validity "
               "failed because value 1 for parameter attrs.rsv is invalid. Expected value: 0.");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_batch_checks_of_the_runtime(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    void *dsts[2] = {d, h}, *srcs[2] = {h, d};
    size_t maxs[2] = {64, 64}, sizes[2] = {64, 64}, idx[2] = {0, 1}, fail = 7;
    aclrtMemcpyBatchAttr attrs[2];
    memset(attrs, 0, sizeof attrs);
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 0, &fail),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Batch synchronous memory copy failed because value 0 "
               "for parameter numAttrs is invalid. Expected value: not equal to 0.");
    assert_true(fail == SIZE_MAX);
    assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 1, attrs, idx, 2, &fail, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Batch asynchronous memory copy failed. Parameter "
               "numAttrs or count is invalid. Reason: Parameter numAttrs 2 should be less than or "
               "equal to parameter count 1.");
    idx[0] = 1;
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, &fail),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Batch synchronous memory copy failed because value 1 "
               "for parameter attrsIdxs[0] is invalid. Expected value: 0.");
    idx[0] = 0;
    idx[1] = 2;
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, &fail),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Batch synchronous memory copy failed. Parameter "
               "attrsIdxs[1] or count is invalid. Reason: Each entry in attrsIdxs must be less "
               "than the parameter count. Parameter attrsIdxs[1] is 2, and count is 2.");
    idx[1] = 0;
    assert_int_equal(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 2, attrs, idx, 2),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Batch synchronous memory copy failed. Parameter "
               "attrsIdxs[1] or attrsIdxs[0] is invalid. Reason: Each entry in attrsIdxs must be "
               "greater than the previous entry. Parameter attrsIdxs[1] is 0, and attrsIdxs[0] "
               "is 0.");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static aclrtMemcpyBatchAttr attr_of(aclrtMemLocationType dst, aclrtMemLocationType src)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = dst;
    a.srcLoc.type = src;
    return a;
}

static void test_batch_entries_must_match_their_attributes(void **state)
{
    (void)state;
    char h[64] = {0};
    void *d = dev(64);
    void *dsts[2] = {d, h}, *srcs[2] = {h, d};
    size_t maxs[2] = {64, 64}, sizes[2] = {64, 64}, idx[1] = {0}, fail = 7;
    /* one attribute for both: the second entry goes the other way */
    aclrtMemcpyBatchAttr a = attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, &a, idx, 1, &fail),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Checking memory copy attributes failed. Parameter dst "
               "is invalid. Reason: The input memory type MEMORY_LOC_DEVICE(1) and the actual "
               "memory type MEMORY_LOC_UNREGISTERED(2) do not match, or the input device ID "
               "(device_id=0) and the actual device ID (device_id=0) do not match.");
    assert_int_equal(fail, 1);
    /* host to host is no direction a batch copies */
    char h2[64] = {0};
    void *hh_d[1] = {h2}, *hh_s[1] = {h};
    a = attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtMemcpyBatch(hh_d, maxs, hh_s, sizes, 1, &a, idx, 1, &fail),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Batch synchronous memory copy failed. Reason: Only H2D "
               "and D2H copy directions are supported. The destination location type is "
               "MEMORY_LOC_HOST(0), and the source location type is MEMORY_LOC_HOST(0).");
    assert_int_equal(fail, 0);
    assert_int_equal(aclrtMemcpyBatchAsync(hh_d, maxs, hh_s, sizes, 1, &a, idx, 1, &fail, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Checking memory copy params failed. Reason: Only H2D "
               "and D2H copy directions are supported. The destination location type is "
               "MEMORY_LOC_HOST(0), and the source location type is MEMORY_LOC_HOST(0).");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_batch_copies_each_entry_in_its_direction(void **state)
{
    (void)state;
    unsigned char in[3][32], out[2][32];
    for (int i = 0; i < 3; i++)
        memset(in[i], 0x10 + i, 32);
    void *d = dev(96);
    void *h;
    assert_int_equal(aclrtMallocHost(&h, 64), ACL_SUCCESS);
    /* three H2D entries (pageable, pinned, pageable), then two D2H */
    memcpy(h, in[1], 32);
    void *dsts[5] = {d, (char *)d + 32, (char *)d + 64, out[0], out[1]};
    void *srcs[5] = {in[0], h, in[2], (char *)d + 64, d};
    size_t maxs[5] = {32, 32, 32, 32, 32}, sizes[5] = {32, 32, 32, 32, 32}, idx[2] = {0, 3};
    size_t fail = 7;
    aclrtMemcpyBatchAttr a[2] = {attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST),
                                 attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE)};
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 5, a, idx, 2, &fail), ACL_SUCCESS);
    assert_true(fail == SIZE_MAX);
    assert_memory_equal(out[0], in[2], 32);
    assert_memory_equal(out[1], in[0], 32);
    /* asynchronously, and V2 */
    memset(out, 0, sizeof out);
    assert_int_equal(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 5, a, idx, 2, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_memory_equal(out[0], in[2], 32);
    unsigned char back[32];
    assert_int_equal(aclrtMemcpy(back, 32, (char *)d + 32, 32, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_memory_equal(back, in[1], 32);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* Asynchronously each entry is checked and queued in turn: one that fails
 * leaves those before it queued, and failIndex names it. Synchronously
 * every entry is checked before any moves. */
static void test_batch_failure_leaves_earlier_async_entries_done(void **state)
{
    (void)state;
    unsigned char in[32], back[32];
    memset(in, 0x5a, sizeof in);
    void *d = dev(64);
    void *dsts[2] = {d, (char *)d + 48}, *srcs[2] = {in, in};
    size_t maxs[2] = {32, 32}, sizes[2] = {32, 32}, idx[1] = {0}, fail = 7;
    aclrtMemcpyBatchAttr a = attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, &a, idx, 1, &fail),
                     ACL_ERROR_RT_PARAM_INVALID); /* the second runs past the block's 64 */
    MISUSE_END();
    assert_int_equal(fail, 1);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemcpy(back, 32, d, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(back[0], 0); /* nothing moved */
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &a, idx, 1, &fail, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_int_equal(fail, 1);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 32, d, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, in, 32); /* the first was done */
    /* an async entry of size 0 (not all are) is refused */
    sizes[1] = 0;
    assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &a, idx, 1, &fail, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Checking memory copy params failed. Parameter size "
               "is invalid. Reason: Parameter size 0 should be greater than 0 and less than or "
               "equal to parameter destMax 32.");
    assert_int_equal(fail, 1);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_batch_from_freed_memory_is_a_use_after_free(void **state)
{
    (void)state;
    unsigned char out[32];
    void *d = dev(64);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    void *dsts[1] = {out}, *srcs[1] = {d};
    size_t maxs[1] = {32}, sizes[1] = {32}, idx[1] = {0}, fail = 7;
    aclrtMemcpyBatchAttr a = attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    MISUSE_BEGIN();
    aclError rc = aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, &a, idx, 1, &fail);
    MISUSE_END();
    assert_int_equal(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(fail, 0);
    char text[512];
    snprintf(text, sizeof text, "Batch synchronous memory copy failed because value %p for "
             "parameter src is invalid. Expected value: an address inside a live allocation of "
             "aclrtMalloc (is it freed?).", d);
    expect_msg("Invalid_Argument(EE1003)", text);
}

/* ---- 32-bit fills ---- */

static void test_d32_bad_input(void **state)
{
    (void)state;
    char text[256];
    void *d = dev(64);
    assert_int_equal(aclrtMemsetD32(NULL, 0, 1, 0), ACL_SUCCESS); /* N 0 first */
    assert_int_equal(aclrtMemsetD32(NULL, 64, 1, 4), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemsetD32", "ptr");
    assert_int_equal(aclrtMemsetD32Async((char *)d + 2, 32, 1, 4, s), ACL_ERROR_INVALID_PARAM);
    snprintf(text, sizeof text, "aclrtMemsetD32Async failed because value %p for parameter ptr "
             "is invalid. Expected value: a 4-byte aligned address.", (void *)((char *)d + 2));
    expect_msg("Invalid_Argument(EH0007)", text);
    assert_int_equal(aclrtMemsetD32(d, 15, 1, 4), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMemsetD32 failed. Value 4 for parameter N is "
               "invalid. Reason: N \u00d7 4 (16) is greater than memSize (15), which does not meet "
               "the requirement.");
    uint32_t pageable[4];
    assert_int_equal(aclrtMemsetD32(pageable, 16, 1, 4), ACL_ERROR_INVALID_PARAM);
    expect_msg("Inner_Error(EH9999)", "Only memory allocated by aclrtMalloc or aclrtMallocHost "
               "is supported.");
    /* memSize larger than the block: aclsim's bounds check */
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemsetD32(d, 1024, 1, 32), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemsetD32(d, 64, 1, 4), ACL_ERROR_INVALID_PARAM); /* freed */
    MISUSE_END();
    (void)aclGetRecentErrMsg();
}

static void test_d32_fills_device_and_pinned_memory(void **state)
{
    (void)state;
    uint32_t back[16];
    void *d = dev(64), *h;
    assert_int_equal(aclrtMemsetD32(d, 64, 0xa1b2c3d4u, 15), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 15; i++)
        assert_int_equal(back[i], 0xa1b2c3d4u);
    assert_int_equal(back[15], 0);
    assert_int_equal(aclrtMemsetD32Async((char *)d + 8, 56, 7, 2, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(back[1], 0xa1b2c3d4u);
    assert_int_equal(back[2], 7);
    assert_int_equal(back[3], 7);
    assert_int_equal(back[4], 0xa1b2c3d4u);
    /* page-locked host memory is filled by the host, at once */
    assert_int_equal(aclrtMallocHost(&h, 64), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetD32Async(h, 64, 0x01020304u, 16, s), ACL_SUCCESS);
    for (int i = 0; i < 16; i++)
        assert_int_equal(((uint32_t *)h)[i], 0x01020304u);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* A 32-bit fill writes HBM once: 64 MiB at 1600 GB/s. */
static void test_d32_is_timed_as_a_fill(void **state)
{
    (void)state;
    void *d = NULL;
    assert_int_equal(aclrtMalloc(&d, 64 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint64_t t0;
    assert_int_equal(aclsim_clock_host(&t0), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetD32Async(d, 64 * MiB, 3, 16 * MiB, s), ACL_SUCCESS);
    double us = (double)(stream_ps() - t0) / 1e6;
    double want = 1.0 + 0.2 + 64.0 * MiB / 1600e9 * 1e6;
    assert_true(us > want * 0.999 && us < want * 1.001);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- copies through descriptors and at device-held addresses
 * (hicann/runtime src/acl/aclrt_impl/memory.cpp aclrtGetMemcpyDescSizeImpl
 * line 1375, aclrtSetMemcpyDescImpl line 1387, aclrtMemcpyAsyncWithDescImpl
 * line 1407, aclrtMemcpyAsyncWithOffsetImpl line 1422; the runtime's
 * api_c_memory.cc rtsGetMemcpyDescSize line 343, api_error.cc SetMemcpyDesc
 * line 2464, MemcpyAsyncWithDesc line 2525, api_c_standard_soc.cc
 * rtMemcpyAsyncWithOffset line 957) ---- */

static void test_memcpy_desc_bad_input(void **state)
{
    (void)state;
    const aclrtMemcpyKind d2d = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
    size_t n = 0;
    char *a = dev(4096);
    assert_int_equal(aclrtGetMemcpyDescSize(d2d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetMemcpyDescSize", "descSize");
    assert_int_equal(aclrtGetMemcpyDescSize((aclrtMemcpyKind)8, &n), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtGetMemcpyDescSize failed because value "
               "UNKNOWN(8) for parameter kind is invalid. Expected value: "
               "[RT_MEMCPY_KIND_HOST_TO_HOST, RT_MEMCPY_KIND_MAX).");
    /* only the inner device-to-device kind: 207000, a warning only */
    assert_int_equal(aclrtGetMemcpyDescSize(ACL_MEMCPY_DEVICE_TO_DEVICE, &n),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    assert_int_equal(aclrtGetMemcpyDescSize(d2d, &n), ACL_SUCCESS);
    assert_int_equal(n, 32); /* device_properties.h MEMCPY_DESC_SIZE_V1 (910B) */
    assert_int_equal(aclrtSetMemcpyDesc(NULL, d2d, a + 1024, a + 2048, 64, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetMemcpyDesc", "desc");
    assert_int_equal(aclrtSetMemcpyDesc(a, d2d, NULL, a + 2048, 64, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetMemcpyDesc", "srcAddr");
    assert_int_equal(aclrtSetMemcpyDesc(a, d2d, a + 1024, NULL, 64, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetMemcpyDesc", "dstAddr");
    assert_int_equal(aclrtSetMemcpyDesc(a, d2d, a + 1024, a + 2048, 0, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSetMemcpyDesc failed because value 0 for "
               "parameter count is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtSetMemcpyDesc(a, d2d, a + 1024, a + 2048, 64, a), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtSetMemcpyDesc failed. Parameter reserve is "
               "invalid. Reason: config is a reserved parameter and must be nullptr.");
    assert_int_equal(aclrtSetMemcpyDesc(a, ACL_MEMCPY_DEVICE_TO_DEVICE, a + 1024, a + 2048, 64,
                                        NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    assert_int_equal(aclrtSetMemcpyDesc(a + 8, d2d, a + 1024, a + 2048, 64, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    char want[256];
    snprintf(want, sizeof want, "Setting the memory copy descriptor failed. Value %p for "
             "parameter desc is invalid. Reason: desc is not 64-byte aligned.", (void *)(a + 8));
    expect_msg("Invalid_Argument(EE1011)", want);
    char host[64];
    assert_int_equal(aclrtSetMemcpyDesc(a, d2d, host, a + 2048, 64, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Setting the memory copy descriptor failed. Parameter "
               "dstAddr or srcAddr is invalid. Reason: DstAddr and srcAddr do not match with the "
               "kind RT_MEMCPY_KIND_INNER_DEVICE_TO_DEVICE, dstAddr DeviceId=0, srcAddr "
               "DeviceId=0, dstAddr type=device, srcAddr type=host.");
    assert_int_equal(aclrtMemcpyAsyncWithDesc(NULL, d2d, s), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemcpyAsyncWithDesc", "desc");
    assert_int_equal(aclrtMemcpyAsyncWithDesc(a, d2d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemcpyAsyncWithDesc", "stream");
    assert_int_equal(aclrtMemcpyAsyncWithDesc(a, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    /* offsets: count 0 succeeds first, then only the inner kind */
    void **pp = (void **)a;
    assert_int_equal(aclrtMemcpyAsyncWithOffset(NULL, 0, 0, NULL, 0, 0, ACL_MEMCPY_DEFAULT, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsyncWithOffset(pp, 64, 0, (const void **)pp, 8, 0,
                                                ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtMemcpyAsyncWithOffset failed because value "
               "MEMCPY_KIND_DEVICE_TO_DEVICE(3) for parameter kind is invalid. Expected value: "
               "MEMCPY_KIND_INNER_DEVICE_TO_DEVICE(6).");
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
}

/* What a descriptor names is copied when it is launched, in the stream's
 * order; an offset copy reads its two addresses from device memory. */
static void test_memcpy_desc_and_offset_copy_bytes(void **state)
{
    (void)state;
    const aclrtMemcpyKind d2d = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
    char *a = dev(64 * 1024);
    unsigned char pattern[512], back[512], zero[512] = {0};
    for (int i = 0; i < 512; i++)
        pattern[i] = (unsigned char)(i * 13 + 5);
    char *src = a + 4096, *dst = a + 8192, *desc = a; /* 64-byte aligned */
    assert_int_equal(aclrtMemcpy(src, 512, pattern, 512, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtSetMemcpyDesc(desc, d2d, src, dst, 512, NULL), ACL_SUCCESS);
    /* the descriptor's bytes: the length at 12, the addresses at 16 and 24 */
    unsigned char raw[32];
    assert_int_equal(aclrtMemcpy(raw, 32, desc, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    uint32_t len;
    uint64_t from, to;
    memcpy(&len, raw + 12, 4);
    memcpy(&from, raw + 16, 8);
    memcpy(&to, raw + 24, 8);
    assert_int_equal(len, 512);
    assert_true(from == (uint64_t)(uintptr_t)src && to == (uint64_t)(uintptr_t)dst);
    /* setting it moves nothing; launching it copies */
    assert_int_equal(aclrtMemcpy(back, 512, dst, 512, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, zero, 512);
    uint64_t t0 = stream_ps();
    assert_int_equal(aclrtMemcpyAsyncWithDesc(desc, d2d, s), ACL_SUCCESS);
    assert_true(stream_ps() > t0);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 512, dst, 512, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, pattern, 512);
    /* offset copy: *dp + 100 <- *sp + 3, 200 bytes */
    void **dp = (void **)(a + 16384), **sp = (void **)(a + 16392);
    char *dst2 = a + 20480;
    void *vals[2] = {dst2, src};
    assert_int_equal(aclrtMemcpy(dp, 16, vals, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsyncWithOffset(dp, 1024, 100, (const void **)sp, 200, 3, d2d, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 512, dst2, 512, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, zero, 100);
    assert_memory_equal(back + 100, pattern + 3, 200);
    assert_memory_equal(back + 300, zero, 212);
    /* past destMax or past the block: refused, nothing copied */
    assert_int_equal(aclrtMemcpyAsyncWithOffset(dp, 256, 100, (const void **)sp, 200, 3, d2d, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Asynchronous memory copy failed. Parameter dst or "
               "src is invalid. Reason: the copy it names is not inside live allocations of the "
               "stream's device.");
    /* a descriptor whose source was freed names nothing live */
    char *b = dev(4096);
    assert_int_equal(aclrtSetMemcpyDesc(desc, d2d, b, dst, 512, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsyncWithDesc(desc, d2d, s), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Performing asynchronous memory copy using the memory "
               "copy descriptor failed. Parameter desc is invalid. Reason: the copy it names is "
               "not inside live allocations of the stream's device.");
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memcpy_desc_bad_input),
        cmocka_unit_test(test_memcpy_desc_and_offset_copy_bytes),
        cmocka_unit_test(test_2d_zero_width_or_height_succeeds_before_any_check),
        cmocka_unit_test(test_2d_null_pointers),
        cmocka_unit_test(test_2d_width_past_a_pitch),
        cmocka_unit_test(test_2d_kind_must_be_a_device_direction),
        cmocka_unit_test(test_2d_runtime_limits_on_height_and_width),
        cmocka_unit_test(test_2d_directions_the_runtime_refuses),
        cmocka_unit_test(test_2d_invalid_stream_and_no_context),
        cmocka_unit_test(test_2d_last_row_past_the_block_is_refused),
        cmocka_unit_test(test_2d_from_freed_memory_is_a_use_after_free),
        cmocka_unit_test(test_2d_copies_rows_with_their_pitches),
        cmocka_unit_test(test_2d_is_timed_as_the_bytes_it_moves),
        cmocka_unit_test(test_batch_checks_of_the_acl_layer),
        cmocka_unit_test(test_batch_checks_of_the_runtime),
        cmocka_unit_test(test_batch_entries_must_match_their_attributes),
        cmocka_unit_test(test_batch_copies_each_entry_in_its_direction),
        cmocka_unit_test(test_batch_failure_leaves_earlier_async_entries_done),
        cmocka_unit_test(test_batch_from_freed_memory_is_a_use_after_free),
        cmocka_unit_test(test_d32_bad_input),
        cmocka_unit_test(test_d32_fills_device_and_pinned_memory),
        cmocka_unit_test(test_d32_is_timed_as_a_fill),
    };
    return cmocka_run_group_tests_name("memcopy", tests, up, down);
}
