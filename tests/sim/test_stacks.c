/*
 * tests/sim/test_stacks.c - cmocka suite for sim/stacks (the allocation
 * stacks of ACLSIM_TRACK=1): each remembered block has the stack of the
 * call that remembered it, a forgotten one has none, and many blocks
 * coming and going keep the others' stacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/internal.h"

/* Not inlined: its return address must lie in this function's caller. */
static __attribute__((noinline)) void remember_here(struct sim_stacks *t, uint64_t off)
{
    sim_stacks_remember(t, off);
}

static void test_remembered_block_has_a_stack_forgotten_has_none(void **state)
{
    (void)state;
    struct sim_stacks *t = sim_stacks_create();
    void *const *frames = NULL;
    assert_non_null(t);
    assert_int_equal(sim_stacks_find(t, 0, &frames), 0);
    remember_here(t, 0);
    int n = sim_stacks_find(t, 0, &frames);
    assert_true(n >= 2);
    assert_non_null(frames[0]);
    sim_stacks_forget(t, 0);
    assert_int_equal(sim_stacks_find(t, 0, &frames), 0);
    sim_stacks_forget(t, 0); /* forgetting twice is harmless */
    sim_stacks_destroy(t);
}

static void test_many_blocks_keep_their_stacks(void **state)
{
    (void)state;
    struct sim_stacks *t = sim_stacks_create();
    void *const *frames;
    for (uint64_t i = 0; i < 5000; i++)
        remember_here(t, i * 64);
    for (uint64_t i = 0; i < 5000; i += 2)
        sim_stacks_forget(t, i * 64);
    for (uint64_t i = 0; i < 5000; i++)
        assert_int_equal(sim_stacks_find(t, i * 64, &frames) > 0, i % 2 == 1);
    assert_int_equal(sim_stacks_find(NULL, 64, &frames), 0);
    sim_stacks_destroy(t); /* frees the stacks still held */
    sim_stacks_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remembered_block_has_a_stack_forgotten_has_none),
        cmocka_unit_test(test_many_blocks_keep_their_stacks),
    };
    return cmocka_run_group_tests_name("stacks", tests, NULL, NULL);
}
