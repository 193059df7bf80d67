/*
 * test_hash.c - base/hash.h's map against a plain shadow array: random
 * inserts, replacements and removals (backward-shift deletion must keep
 * every other key reachable), the walk, and an insert whose table cannot
 * grow (the map must stay as it was).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/hash.h"
#include "base/mem.h"

#define KEYS 4096u

static void *val_of(uint64_t key)
{
    return (void *)(uintptr_t)(key * 3 + 1);
}

static void test_empty_map_finds_nothing(void **state)
{
    (void)state;
    struct base_map m = {0};
    size_t pos = 0;
    assert_null(base_map_find(&m, 42));
    assert_false(base_map_remove(&m, 42, NULL));
    assert_false(base_map_next(&m, &pos, NULL, NULL));
    base_map_clear(&m);
}

static void test_put_replace_remove(void **state)
{
    (void)state;
    struct base_map m = {0};
    void *v = NULL;
    assert_int_equal(base_map_put(&m, 7, val_of(7)), 0);
    assert_int_equal(base_map_put(&m, 7, val_of(8)), 0);
    assert_int_equal(m.count, 1);
    assert_ptr_equal(*base_map_find(&m, 7), val_of(8));
    assert_true(base_map_remove(&m, 7, &v));
    assert_ptr_equal(v, val_of(8));
    assert_null(base_map_find(&m, 7));
    assert_int_equal(m.count, 0);
    base_map_clear(&m);
}

/* Keys that collide a lot (multiples of a large power of two) and random
 * removals: after each step every key of the shadow is found with its value
 * and no other key is. */
static void test_random_against_shadow(void **state)
{
    (void)state;
    struct base_map m = {0};
    static bool in[KEYS];
    uint64_t rng = 12345;
    for (unsigned step = 0; step < 200000; step++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        uint64_t k = rng % KEYS, key = (k + 1) << 32;
        if (rng >> 63) {
            assert_int_equal(base_map_put(&m, key, val_of(key)), 0);
            in[k] = true;
        } else {
            void *v = NULL;
            assert_int_equal(base_map_remove(&m, key, &v), in[k]);
            if (in[k])
                assert_ptr_equal(v, val_of(key));
            in[k] = false;
        }
        if (step % 4096 == 0) {
            size_t n = 0, pos = 0;
            uint64_t got;
            void *v;
            for (uint64_t j = 0; j < KEYS; j++) {
                void **slot = base_map_find(&m, (j + 1) << 32);
                assert_int_equal(slot != NULL, in[j]);
                if (slot)
                    assert_ptr_equal(*slot, val_of((j + 1) << 32));
                n += in[j];
            }
            assert_int_equal(m.count, n);
            while (base_map_next(&m, &pos, &got, &v)) {
                assert_true(in[(got >> 32) - 1]);
                assert_ptr_equal(v, val_of(got));
                n--;
            }
            assert_int_equal(n, 0);
        }
    }
    base_map_clear(&m);
    assert_null(m.slot);
}

static int refuse(void)
{
    return 1;
}

static void test_put_that_cannot_grow_leaves_map_unchanged(void **state)
{
    (void)state;
    struct base_map m = {0};
    uint64_t key = 1;
    /* Fill up to the point where the next insert must grow the table. */
    while (base_map_put(&m, key, val_of(key)) == 0 && 2 * (m.count + 1) <= (1u << m.bits))
        key++;
    size_t count = m.count;
    base_mem_set_fail_hook(refuse);
    int rc = base_map_put(&m, key + 1, val_of(key + 1));
    base_mem_set_fail_hook(NULL);
    assert_int_equal(rc, -1);
    assert_int_equal(m.count, count);
    assert_null(base_map_find(&m, key + 1));
    for (uint64_t k = 1; k <= key; k++)
        assert_ptr_equal(*base_map_find(&m, k), val_of(k));
    base_map_clear(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_map_finds_nothing),
        cmocka_unit_test(test_put_replace_remove),
        cmocka_unit_test(test_random_against_shadow),
        cmocka_unit_test(test_put_that_cannot_grow_leaves_map_unchanged),
    };
    return cmocka_run_group_tests_name("hash", tests, NULL, NULL);
}
