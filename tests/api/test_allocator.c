/*
 * test_allocator.c - the custom-allocator API pinned row by row against
 * CANN's behaviour (hicann/runtime src/acl/aclrt_impl/allocator.cpp), messages
 * included; hostile desc
 * handles (aclsim rejects what CANN would crash on or write through); and
 * multi-threaded cases: register/lookup/unregister, and descs destroyed
 * while other threads set and register them.
 *
 * The allocator API needs no aclInit, no device and no real stream: any
 * non-NULL pointer is a stream key, exactly as in CANN's own unit tests.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

static int obj_a, obj_b;
#define STREAM(n) ((aclrtStream)(uintptr_t)(0x1000 + 16 * (n)))

static void *alloc_a(aclrtAllocator a, size_t n) { (void)a; (void)n; return NULL; }
static void *alloc_b(aclrtAllocator a, size_t n) { (void)a; (void)n; return NULL; }
static void free_a(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void free_b(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void *advise_a(aclrtAllocator a, size_t n, aclrtAllocatorAddr h) { (void)a; (void)n; (void)h; return NULL; }
static void *addr_a(aclrtAllocatorBlock b) { return b; }
static void *addr_b(aclrtAllocatorBlock b) { return b; }

/* A desc with every required field set (advise too when with_advise). */
static aclrtAllocatorDesc full_desc(int *obj, int with_advise)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_non_null(d);
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, obj), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, alloc_a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, free_a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_a), ACL_SUCCESS);
    if (with_advise)
        assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_a), ACL_SUCCESS);
    return d;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 64; i++)
        aclrtAllocatorUnregister(STREAM(i));
    (void)aclGetRecentErrMsg();
    return aclsim_registered_count() == 0 ? 0 : -1;
}

/* ---- CreateDesc / DestroyDesc ---- */

static void test_create_desc_returns_distinct_handles(void **state)
{
    (void)state;
    aclrtAllocatorDesc a = aclrtAllocatorCreateDesc(), b = aclrtAllocatorCreateDesc();
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_int_equal(aclrtAllocatorDestroyDesc(a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(b), ACL_SUCCESS);
    expect_no_msg();
}

static void test_fresh_desc_has_no_fields_so_register_rejects_obj(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorRegister(STREAM(1), d), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc->obj");
    aclrtAllocatorDestroyDesc(d);
}

static void test_destroy_desc_null_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorDestroyDesc", "allocatorDesc");
}

static void test_destroy_desc_keeps_registration_and_snapshot(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    assert_int_equal(aclrtAllocatorRegister(STREAM(2), d), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    aclrtAllocatorDesc out = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc af = NULL;
    aclrtAllocatorAllocAdviseFunc adv = NULL;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(2), &out, &obj, &af, NULL, &adv, NULL),
                     ACL_SUCCESS);
    assert_ptr_equal(out, d); /* the dangling handle, as CANN returns it */
    assert_ptr_equal(obj, &obj_a);
    assert_true(af == alloc_a);
    assert_true(adv == advise_a);
}

/* ---- Set*ToDesc ---- */

static void test_set_obj_null_desc_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorSetObjToDesc(NULL, &obj_a), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetObjToDesc", "allocatorDesc");
}

static void test_set_obj_null_allocator_rejected(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetObjToDesc", "allocator");
    aclrtAllocatorDestroyDesc(d);
}

static void test_set_funcs_null_desc_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(NULL, alloc_a), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetAllocFuncToDesc", "allocatorDesc");
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(NULL, free_a), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetFreeFuncToDesc", "allocatorDesc");
    assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, advise_a),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetAllocAdviseFuncToDesc", "allocatorDesc");
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(NULL, addr_a),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", "allocatorDesc");
}

static void test_set_funcs_null_func_rejected_and_field_not_cleared(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetAllocFuncToDesc", "func");
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetFreeFuncToDesc", "func");
    assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetAllocAdviseFuncToDesc", "func");
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", "func");
    /* The fields are still set: registration works. */
    assert_int_equal(aclrtAllocatorRegister(STREAM(3), d), ACL_SUCCESS);
    aclrtAllocatorFreeFunc ff = NULL;
    aclrtAllocatorDesc out;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(3), &out, NULL, NULL, &ff, NULL, NULL),
                     ACL_SUCCESS);
    assert_true(ff == free_a);
    aclrtAllocatorDestroyDesc(d);
}

/* ---- Register ---- */

static void test_register_null_stream_checked_before_desc(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorRegister(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "stream");
}

static void test_register_null_desc_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorRegister(STREAM(4), NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc");
    assert_int_equal(aclsim_registered_count(), 0);
}

/* Register checks obj, allocFunc, freeFunc, getAddrFromBlockFunc in order. */
static void test_register_missing_fields_rejected_in_order(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(STREAM(5), d), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc->obj");
    aclrtAllocatorSetObjToDesc(d, &obj_a);
    assert_int_equal(aclrtAllocatorRegister(STREAM(5), d), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc->allocFunc");
    aclrtAllocatorSetAllocFuncToDesc(d, alloc_a);
    assert_int_equal(aclrtAllocatorRegister(STREAM(5), d), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc->freeFunc");
    aclrtAllocatorDesc e = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(e, &obj_a);
    aclrtAllocatorSetAllocFuncToDesc(e, alloc_a);
    aclrtAllocatorSetFreeFuncToDesc(e, free_a);
    assert_int_equal(aclrtAllocatorRegister(STREAM(5), e), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorRegister", "allocatorDesc->getAddrFromBlockFunc");
    assert_int_equal(aclsim_registered_count(), 0);
    aclrtAllocatorDestroyDesc(d);
    aclrtAllocatorDestroyDesc(e);
}

static void test_register_without_advise_succeeds_and_reports_null_advise(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    assert_int_equal(aclrtAllocatorRegister(STREAM(6), d), ACL_SUCCESS);
    expect_no_msg();
    aclrtAllocatorDesc out = NULL;
    aclrtAllocatorAllocAdviseFunc adv = advise_a;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(6), &out, NULL, NULL, NULL, &adv, NULL),
                     ACL_SUCCESS);
    assert_null(adv);
    aclrtAllocatorDestroyDesc(d);
}

static void test_register_twice_same_stream_last_wins(void **state)
{
    (void)state;
    aclrtAllocatorDesc a = full_desc(&obj_a, 0), b = full_desc(&obj_b, 0);
    aclrtAllocatorSetAllocFuncToDesc(b, alloc_b);
    aclrtAllocatorSetFreeFuncToDesc(b, free_b);
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(b, addr_b);
    assert_int_equal(aclrtAllocatorRegister(STREAM(7), a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(STREAM(7), b), ACL_SUCCESS);
    assert_int_equal(aclsim_registered_count(), 1);
    aclrtAllocatorDesc out;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc af;
    aclrtAllocatorFreeFunc ff;
    aclrtAllocatorGetAddrFromBlockFunc gf;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(7), &out, &obj, &af, &ff, NULL, &gf),
                     ACL_SUCCESS);
    assert_ptr_equal(out, b);
    assert_ptr_equal(obj, &obj_b);
    assert_true(af == alloc_b && ff == free_b && gf == addr_b);
    aclrtAllocatorDestroyDesc(a);
    aclrtAllocatorDestroyDesc(b);
}

static void test_register_takes_snapshot_later_sets_ignored(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    assert_int_equal(aclrtAllocatorRegister(STREAM(8), d), ACL_SUCCESS);
    aclrtAllocatorSetObjToDesc(d, &obj_b);
    aclrtAllocatorSetAllocFuncToDesc(d, alloc_b);
    aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_a);
    aclrtAllocatorDesc out;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc af;
    aclrtAllocatorAllocAdviseFunc adv = advise_a;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(8), &out, &obj, &af, NULL, &adv, NULL),
                     ACL_SUCCESS);
    assert_ptr_equal(obj, &obj_a);
    assert_true(af == alloc_a);
    assert_null(adv);
    aclrtAllocatorDestroyDesc(d);
}

static void test_register_same_desc_on_many_streams(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    for (int i = 10; i < 40; i++)
        assert_int_equal(aclrtAllocatorRegister(STREAM(i), d), ACL_SUCCESS);
    assert_int_equal(aclsim_registered_count(), 30);
    for (int i = 10; i < 40; i++) {
        aclrtAllocatorDesc out = NULL;
        assert_int_equal(aclrtAllocatorGetByStream(STREAM(i), &out, NULL, NULL, NULL, NULL,
                                                   NULL), ACL_SUCCESS);
        assert_ptr_equal(out, d);
    }
    aclrtAllocatorDestroyDesc(d);
}

/* ---- GetByStream ---- */

static void test_get_by_stream_null_desc_out_checked_before_stream(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorGetByStream(NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorGetByStream", "allocatorDesc");
}

static void test_get_by_stream_null_stream_rejected(void **state)
{
    (void)state;
    aclrtAllocatorDesc out;
    assert_int_equal(aclrtAllocatorGetByStream(NULL, &out, NULL, NULL, NULL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorGetByStream", "stream");
}

static void test_get_by_stream_unregistered_returns_invalid_param_eh0012(void **state)
{
    (void)state;
    aclrtAllocatorDesc out = (aclrtAllocatorDesc)0x1;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(50), &out, NULL, NULL, NULL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    assert_ptr_equal(out, (aclrtAllocatorDesc)0x1); /* untouched */
    expect_msg("Invalid_Argument(EH0012)",
               "aclrtAllocatorGetByStream failed. Parameter stream is invalid. Reason: The "
               "stream is not registered with any allocator.");
}

static void test_get_by_stream_all_out_params_filled(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    assert_int_equal(aclrtAllocatorRegister(STREAM(9), d), ACL_SUCCESS);
    aclrtAllocatorDesc out;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc af;
    aclrtAllocatorFreeFunc ff;
    aclrtAllocatorAllocAdviseFunc adv;
    aclrtAllocatorGetAddrFromBlockFunc gf;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(9), &out, &obj, &af, &ff, &adv, &gf),
                     ACL_SUCCESS);
    assert_ptr_equal(out, d);
    assert_ptr_equal(obj, &obj_a);
    assert_true(af == alloc_a && ff == free_a && adv == advise_a && gf == addr_a);
    expect_no_msg();
    aclrtAllocatorDestroyDesc(d);
}

/* Any one callback out-param alone is filled, and the others are left as
 * they were (the lookup skips the four with one test when none is asked
 * for, and must still honour each one that is). */
static void test_get_by_stream_each_callback_out_param_alone(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    assert_int_equal(aclrtAllocatorRegister(STREAM(8), d), ACL_SUCCESS);
    for (int which = 0; which < 4; which++) {
        aclrtAllocatorDesc out = NULL;
        aclrtAllocatorAllocFunc af = NULL;
        aclrtAllocatorFreeFunc ff = NULL;
        aclrtAllocatorAllocAdviseFunc adv = NULL;
        aclrtAllocatorGetAddrFromBlockFunc gf = NULL;
        assert_int_equal(aclrtAllocatorGetByStream(STREAM(8), &out, NULL, which == 0 ? &af : NULL,
                                                   which == 1 ? &ff : NULL,
                                                   which == 2 ? &adv : NULL,
                                                   which == 3 ? &gf : NULL),
                         ACL_SUCCESS);
        assert_ptr_equal(out, d);
        assert_true(af == (which == 0 ? alloc_a : NULL));
        assert_true(ff == (which == 1 ? free_a : NULL));
        assert_true(adv == (which == 2 ? advise_a : NULL));
        assert_true(gf == (which == 3 ? addr_a : NULL));
    }
    aclrtAllocatorDestroyDesc(d);
}

/* Registrations are kept as immutable records that live as long as the
 * library; the same stream and allocator registered again reuse their
 * record, so a program that registers and unregisters in a loop does not
 * grow the host heap. */
static void test_register_again_and_again_keeps_the_heap_flat(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND(); /* memcheck's allocator is not glibc's: mallinfo2 says nothing */
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    assert_int_equal(aclrtAllocatorRegister(STREAM(7), d), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(STREAM(7)), ACL_SUCCESS);
    size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 100000; i++) {
        assert_int_equal(aclrtAllocatorRegister(STREAM(7 + i % 4), d), ACL_SUCCESS);
        assert_int_equal(aclrtAllocatorUnregister(STREAM(7 + i % 4)), ACL_SUCCESS);
    }
    size_t after = mallinfo2().uordblks;
    /* Three more streams' records (and room for them); not 100000. */
    assert_true(after < before + 64 * 1024);
    aclrtAllocatorDestroyDesc(d);
}

/* ---- Unregister ---- */

static void test_unregister_null_stream_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtAllocatorUnregister", "stream");
}

static void test_unregister_unknown_stream_succeeds(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorUnregister(STREAM(60)), ACL_SUCCESS);
    expect_no_msg();
}

static void test_unregister_twice_succeeds_and_lookup_then_misses(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    assert_int_equal(aclrtAllocatorRegister(STREAM(11), d), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(STREAM(11)), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(STREAM(11)), ACL_SUCCESS);
    aclrtAllocatorDesc out;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(11), &out, NULL, NULL, NULL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    aclrtAllocatorDestroyDesc(d);
}

/* Removing one entry of a probe chain must keep the others reachable. */
static void test_unregister_keeps_other_streams_registered(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(aclrtAllocatorRegister(STREAM(i), d), ACL_SUCCESS);
    for (int i = 0; i < 64; i += 3)
        assert_int_equal(aclrtAllocatorUnregister(STREAM(i)), ACL_SUCCESS);
    for (int i = 0; i < 64; i++) {
        aclrtAllocatorDesc out = NULL;
        aclError rc = aclrtAllocatorGetByStream(STREAM(i), &out, NULL, NULL, NULL, NULL, NULL);
        assert_int_equal(rc, i % 3 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM);
        (void)aclGetRecentErrMsg();
    }
    aclrtAllocatorDestroyDesc(d);
}

/* ---- Hostile desc handles ----
 * aclsim's own checks (CANN dereferences whatever it is given): every call
 * taking a desc rejects a handle that is not a live desc with 100000 and
 * an EH0012 message, and writes nothing through it. */

static void expect_bad_desc_msg(const char *func, int destroyed)
{
    char text[256];
    snprintf(text, sizeof text, "%s failed. Parameter allocatorDesc is invalid. Reason: %s.",
             func, destroyed ? "the allocator description has already been destroyed"
                             : "it is not a live allocator description");
    expect_msg("Invalid_Argument(EH0012)", text);
}

/* Each of the seven calls that take a desc rejects h; nothing registers. */
static void expect_every_call_rejects(aclrtAllocatorDesc h, int destroyed)
{
    size_t before = aclsim_registered_count();
    assert_int_equal(aclrtAllocatorSetObjToDesc(h, &obj_a), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorSetObjToDesc", destroyed);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(h, alloc_a), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorSetAllocFuncToDesc", destroyed);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(h, free_a), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorSetFreeFuncToDesc", destroyed);
    assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(h, advise_a),
                     ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorSetAllocAdviseFuncToDesc", destroyed);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(h, addr_a),
                     ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", destroyed);
    assert_int_equal(aclrtAllocatorRegister(STREAM(41), h), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorRegister", destroyed);
    assert_int_equal(aclsim_registered_count(), before);
    assert_int_equal(aclrtAllocatorDestroyDesc(h), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorDestroyDesc", destroyed);
}

static void test_desc_unmapped_pointer_rejected(void **state)
{
    (void)state;
    expect_every_call_rejects((aclrtAllocatorDesc)(uintptr_t)0x10, 0);
}

static void test_desc_stack_address_rejected_and_left_untouched(void **state)
{
    (void)state;
    unsigned char local[64], want[64];
    memset(local, 0xA5, sizeof local);
    memcpy(want, local, sizeof want);
    expect_every_call_rejects(local, 0);
    assert_memory_equal(local, want, sizeof want);
}

static void test_desc_heap_block_rejected_and_left_untouched(void **state)
{
    (void)state;
    unsigned char *block = malloc(64), want[64];
    assert_non_null(block);
    memset(block, 0x5A, 64);
    memcpy(want, block, sizeof want);
    expect_every_call_rejects(block, 0);
    assert_memory_equal(block, want, sizeof want);
    free(block);
}

/* A pointer into a live desc is not a desc; the desc keeps its fields. */
static void test_desc_interior_pointer_rejected_desc_unchanged(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 1);
    expect_every_call_rejects((char *)d + sizeof(void *), 0);
    expect_every_call_rejects((char *)d + 1, 0);
    assert_int_equal(aclrtAllocatorRegister(STREAM(12), d), ACL_SUCCESS);
    aclrtAllocatorDesc out;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc af;
    aclrtAllocatorFreeFunc ff;
    aclrtAllocatorAllocAdviseFunc adv;
    aclrtAllocatorGetAddrFromBlockFunc gf;
    assert_int_equal(aclrtAllocatorGetByStream(STREAM(12), &out, &obj, &af, &ff, &adv, &gf),
                     ACL_SUCCESS);
    assert_ptr_equal(out, d);
    assert_ptr_equal(obj, &obj_a);
    assert_true(af == alloc_a && ff == free_a && adv == advise_a && gf == addr_a);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
}

static void test_destroyed_desc_rejected_as_destroyed(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = full_desc(&obj_a, 0);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    expect_every_call_rejects(d, 1);
}

static void test_destroy_desc_twice_second_rejected(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    expect_no_msg();
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_ERROR_INVALID_PARAM);
    expect_bad_desc_msg("aclrtAllocatorDestroyDesc", 1);
}

/* A destroyed desc's address is not handed out again at once, so a stale
 * handle cannot reach a new desc: it stays "destroyed" for the next 64
 * destroys, then its memory is freed and it is simply not a desc. */
static void test_destroyed_desc_not_reused_then_forgotten(void **state)
{
    (void)state;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc(), fresh[64];
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    for (int i = 0; i < 64; i++) {
        fresh[i] = aclrtAllocatorCreateDesc();
        assert_ptr_not_equal(fresh[i], d);
    }
    expect_every_call_rejects(d, 1);
    for (int i = 0; i < 64; i++)
        assert_int_equal(aclrtAllocatorDestroyDesc(fresh[i]), ACL_SUCCESS);
    expect_every_call_rejects(d, 0);
}

/* ---- Concurrency ---- */

#define THREADS 4
#define ROUNDS 20000

struct worker {
    int id;
    aclrtAllocatorDesc desc[2];
    int errors;
};

/* Each thread owns 32 streams and keeps one stable stream registered the
 * whole time; it churns its other streams while looking up all of them.
 * A lookup must either miss or return one of the thread's two descs with
 * matching fields, never a torn mix. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint32_t x = 2463534242u + (uint32_t)w->id;
    aclrtStream stable = STREAM(1000 + w->id * 32);
    if (aclrtAllocatorRegister(stable, w->desc[0]) != ACL_SUCCESS)
        w->errors++;
    for (int r = 0; r < ROUNDS; r++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        aclrtStream s = STREAM(1000 + w->id * 32 + 1 + (int)(x % 31));
        switch (x >> 29) {
        case 0:
        case 1:
            if (aclrtAllocatorRegister(s, w->desc[(x >> 8) & 1]) != ACL_SUCCESS)
                w->errors++;
            break;
        case 2:
            if (aclrtAllocatorUnregister(s) != ACL_SUCCESS)
                w->errors++;
            break;
        default: {
            aclrtAllocatorDesc out = NULL;
            aclrtAllocator obj = NULL;
            aclrtAllocatorAllocFunc af = NULL;
            if (aclrtAllocatorGetByStream(s, &out, &obj, &af, NULL, NULL, NULL) == ACL_SUCCESS) {
                int k = out == w->desc[0] ? 0 : out == w->desc[1] ? 1 : -1;
                if (k < 0 || obj != (k ? (void *)&obj_b : (void *)&obj_a) ||
                    af != (k ? alloc_b : alloc_a))
                    w->errors++;
            }
            (void)aclGetRecentErrMsg();
            if (aclrtAllocatorGetByStream(stable, &out, NULL, NULL, NULL, NULL, NULL) !=
                    ACL_SUCCESS || out != w->desc[0])
                w->errors++;
        }
        }
    }
    for (int i = 0; i < 32; i++)
        aclrtAllocatorUnregister(STREAM(1000 + w->id * 32 + i));
    return NULL;
}

static void test_concurrent_register_lookup_unregister_never_tears(void **state)
{
    (void)state;
    aclrtAllocatorDesc a = full_desc(&obj_a, 0), b = full_desc(&obj_b, 0);
    aclrtAllocatorSetAllocFuncToDesc(b, alloc_b);
    pthread_t th[THREADS];
    struct worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){i, {a, b}, 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].errors, 0);
    }
    assert_int_equal(aclsim_registered_count(), 0);
    aclrtAllocatorDestroyDesc(a);
    aclrtAllocatorDestroyDesc(b);
}

/* One thread destroys descs (and each one twice) while others set and
 * register whatever the shared pool holds at that moment. Every call must
 * either succeed or reject the desc with EH0012; the build with
 * ThreadSanitizer (scons san=thread test) and AddressSanitizer must find
 * no race and no use after free. */

#define POOL 8
#define CHURN_ROUNDS 20000

static _Atomic(aclrtAllocatorDesc) pool[POOL];

struct churner {
    int id;
    int errors;
};

/* A full desc, without cmocka asserts (they are not thread-safe). */
static aclrtAllocatorDesc make_desc(int *errors)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    if (!d || aclrtAllocatorSetObjToDesc(d, &obj_a) != ACL_SUCCESS ||
        aclrtAllocatorSetAllocFuncToDesc(d, alloc_a) != ACL_SUCCESS ||
        aclrtAllocatorSetFreeFuncToDesc(d, free_a) != ACL_SUCCESS ||
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_a) != ACL_SUCCESS)
        (*errors)++;
    return d;
}

/* rc is a success, or a rejection of the desc with its message. */
static int acceptable(aclError rc)
{
    if (rc == ACL_SUCCESS)
        return 1;
    const char *m = aclGetRecentErrMsg();
    return rc == ACL_ERROR_INVALID_PARAM && m &&
           strstr(m, "Invalid_Argument(EH0012): ") != NULL &&
           strstr(m, " failed. Parameter allocatorDesc is invalid. Reason: ") != NULL;
}

static void *destroyer_main(void *arg)
{
    struct churner *c = arg;
    for (int r = 0; r < CHURN_ROUNDS / 4; r++) {
        aclrtAllocatorDesc old = atomic_exchange(&pool[r % POOL], make_desc(&c->errors));
        if (aclrtAllocatorDestroyDesc(old) != ACL_SUCCESS)
            c->errors++;
        if (aclrtAllocatorDestroyDesc(old) != ACL_ERROR_INVALID_PARAM)
            c->errors++;
        (void)aclGetRecentErrMsg();
    }
    return NULL;
}

static void *setter_main(void *arg)
{
    struct churner *c = arg;
    uint32_t x = 88675123u + (uint32_t)c->id;
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        aclrtAllocatorDesc d = atomic_load(&pool[x % POOL]);
        aclError rc;
        switch ((x >> 8) % 4) {
        case 0:
            rc = aclrtAllocatorSetObjToDesc(d, &obj_b);
            break;
        case 1:
            rc = aclrtAllocatorSetAllocFuncToDesc(d, alloc_b);
            break;
        case 2:
            rc = aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_a);
            break;
        default:
            rc = aclrtAllocatorRegister(STREAM(2000 + c->id * 8 + (int)((x >> 12) % 8)), d);
        }
        if (!acceptable(rc))
            c->errors++;
    }
    for (int i = 0; i < 8; i++)
        aclrtAllocatorUnregister(STREAM(2000 + c->id * 8 + i));
    return NULL;
}

static void test_concurrent_destroy_while_setting_and_registering_is_safe(void **state)
{
    (void)state;
    /* Differential mode mirrors each call into the real runtime, which
     * cannot survive a desc destroyed under a concurrent Set. */
    const char *diff = getenv("ACLSIM_DIFF");
    if (diff && strcmp(diff, "0") != 0)
        skip();
    int errors = 0;
    for (int i = 0; i < POOL; i++)
        atomic_store(&pool[i], make_desc(&errors));
    assert_int_equal(errors, 0);
    pthread_t th[THREADS];
    struct churner c[THREADS];
    for (int i = 0; i < THREADS; i++) {
        c[i] = (struct churner){i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, i ? setter_main : destroyer_main, &c[i]),
                         0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(c[i].errors, 0);
    }
    assert_int_equal(aclsim_registered_count(), 0);
    for (int i = 0; i < POOL; i++)
        assert_int_equal(aclrtAllocatorDestroyDesc(atomic_load(&pool[i])), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, teardown)
    const struct CMUnitTest tests[] = {
        T(test_create_desc_returns_distinct_handles),
        T(test_fresh_desc_has_no_fields_so_register_rejects_obj),
        T(test_destroy_desc_null_rejected),
        T(test_destroy_desc_keeps_registration_and_snapshot),
        T(test_set_obj_null_desc_rejected),
        T(test_set_obj_null_allocator_rejected),
        T(test_set_funcs_null_desc_rejected),
        T(test_set_funcs_null_func_rejected_and_field_not_cleared),
        T(test_register_null_stream_checked_before_desc),
        T(test_register_null_desc_rejected),
        T(test_register_missing_fields_rejected_in_order),
        T(test_register_without_advise_succeeds_and_reports_null_advise),
        T(test_register_twice_same_stream_last_wins),
        T(test_register_takes_snapshot_later_sets_ignored),
        T(test_register_same_desc_on_many_streams),
        T(test_get_by_stream_null_desc_out_checked_before_stream),
        T(test_get_by_stream_null_stream_rejected),
        T(test_get_by_stream_unregistered_returns_invalid_param_eh0012),
        T(test_get_by_stream_all_out_params_filled),
        T(test_get_by_stream_each_callback_out_param_alone),
        T(test_register_again_and_again_keeps_the_heap_flat),
        T(test_unregister_null_stream_rejected),
        T(test_unregister_unknown_stream_succeeds),
        T(test_unregister_twice_succeeds_and_lookup_then_misses),
        T(test_unregister_keeps_other_streams_registered),
        T(test_desc_unmapped_pointer_rejected),
        T(test_desc_stack_address_rejected_and_left_untouched),
        T(test_desc_heap_block_rejected_and_left_untouched),
        T(test_desc_interior_pointer_rejected_desc_unchanged),
        T(test_destroyed_desc_rejected_as_destroyed),
        T(test_destroy_desc_twice_second_rejected),
        T(test_destroyed_desc_not_reused_then_forgotten),
        T(test_concurrent_register_lookup_unregister_never_tears),
        T(test_concurrent_destroy_while_setting_and_registering_is_safe),
    };
    return cmocka_run_group_tests_name("allocator", tests, NULL, NULL);
}
