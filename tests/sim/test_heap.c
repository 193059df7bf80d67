/*
 * tests/sim/test_heap.c - cmocka suite for sim/heap (the TLSF-shaped device heap).
 *
 * Covers basic alloc/free, the three alignments (64 B, 2 MiB, 1 GiB), exhaustion,
 * rejection of bad frees, coalescing, lookup of interior addresses, stats, a
 * 144 GiB sparse heap, the quick lists (deferred coalescing of blocks <= 64 KiB + 64:
 * exact reuse, rejection of double free / lookup, bounds, flush on out-of-memory,
 * sim_heap_trim) and two seeded randomized stress runs checked against a shadow
 * list (an 8 GiB heap with mixed alignments, and a 16 MiB heap kept near full so
 * that allocations often fail and flush the quick lists).  Most tests free small
 * blocks, which park on the quick lists; they call sim_heap_trim before expecting
 * a single coalesced free block.  The stress length defaults to 200000 operations
 * per run; the environment variable SIM_HEAP_STRESS_OPS overrides it (e.g. for
 * slow runs under valgrind).  Last, the checker itself: heaps corrupted on purpose
 * (the suite compiles sim/heap.c into itself to reach its structures) must make
 * sim_heap_check name the broken invariant and the offending block.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The heap's own source, so that the corruption tests can reach its internals
 * (the suite does not link heap.c separately). */
#include "sim/heap.c"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define DEV_BASE UINT64_C(0x124000000000)

/* ---------------------------------------------------------------- helpers */

/* Every invariant holds; otherwise fail naming the broken one. */
#define assert_sound(h)                                                                  \
    do {                                                                                 \
        struct sim_heap_fault f_;                                                        \
        char text_[160];                                                                 \
        if (sim_heap_check((h), &f_) != SIM_HEAP_SOUND)                                  \
            fail_msg("heap check: %s", sim_heap_fault_text(&f_, text_, sizeof text_));   \
    } while (0)

struct wblk {
    uint64_t start, size;
    int used;
    uint32_t tag;
};

struct walk_rec {
    struct wblk b[64];
    size_t n;
};

static void record(uint64_t start, uint64_t size, int used, uint32_t tag, void *user)
{
    struct walk_rec *w = user;

    if (w->n < 64)
        w->b[w->n] = (struct wblk){start, size, used, tag};
    w->n++;
}

static struct walk_rec walk(const struct sim_heap *h)
{
    struct walk_rec w;

    memset(&w, 0, sizeof(w));
    sim_heap_walk(h, record, &w);
    return w;
}

static void assert_single_free_block(const struct sim_heap *h, uint64_t base, uint64_t size)
{
    struct walk_rec w = walk(h);

    assert_int_equal(w.n, 1);
    assert_true(w.b[0].start == base);
    assert_true(w.b[0].size == size);
    assert_int_equal(w.b[0].used, 0);
}

/* Flush the quick lists and expect the whole heap to be one free block again. */
static void trim_to_single_free_block(struct sim_heap *h, uint64_t base, uint64_t size)
{
    struct sim_heap_stats st;

    assert_sound(h);
    sim_heap_trim(h);
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.quick_blocks == 0 && st.quick_bytes == 0);
    assert_true(st.used_bytes == 0 && st.live_blocks == 0);
    assert_true(st.free_bytes == size && st.largest_free == size);
    assert_single_free_block(h, base, size);
}

static uint64_t quick_blocks(const struct sim_heap *h)
{
    struct sim_heap_stats st;

    sim_heap_stats(h, &st);
    return st.quick_blocks;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static uint64_t must_alloc(struct sim_heap *h, uint64_t size, uint64_t align, uint32_t tag)
{
    uint64_t a = 0;

    assert_int_equal(sim_heap_alloc(h, size, align, tag, &a), SIM_HEAP_OK);
    assert_true(a % align == 0);
    return a;
}

/* ------------------------------------------------------------------ tests */

static void test_create_rejects_bad_geometry(void **state)
{
    (void)state;
    assert_null(sim_heap_create(DEV_BASE, 0));
    assert_null(sim_heap_create(DEV_BASE, 32));
    assert_null(sim_heap_create(DEV_BASE + 32, MiB));
    assert_null(sim_heap_create(DEV_BASE, MiB + 8));
    assert_null(sim_heap_create(UINT64_MAX - 63, 128));
    sim_heap_destroy(NULL);
}

/* A heap in 4 KiB granules (the driver's normal page): starts and sizes are
 * whole granules, exact-size reuse goes through the quick lists as with 64,
 * and a granule that is not a power of two from 64 to 4096 is refused. */
static void test_granule_of_4kib_rounds_and_aligns(void **state)
{
    (void)state;
    assert_null(sim_heap_create_paged(DEV_BASE, 64 * MiB, 64 * MiB, 32));
    assert_null(sim_heap_create_paged(DEV_BASE, 64 * MiB, 64 * MiB, 96));
    assert_null(sim_heap_create_paged(DEV_BASE, 64 * MiB, 64 * MiB, 8192));
    assert_null(sim_heap_create_paged(DEV_BASE + 64, 64 * MiB, 64 * MiB, 4096));
    struct sim_heap *h = sim_heap_create_paged(DEV_BASE, 64 * MiB, 64 * MiB, 4096);
    assert_non_null(h);
    uint64_t a, b, c, size = 0;
    assert_int_equal(sim_heap_alloc(h, 100, 4096, 1, &a), SIM_HEAP_OK);
    assert_int_equal(sim_heap_alloc(h, 4097, 4096, 2, &b), SIM_HEAP_OK);
    assert_int_equal(a % 4096, 0);
    assert_int_equal(b % 4096, 0);
    assert_int_equal(sim_heap_lookup(h, b + 5000, NULL, &size, NULL), SIM_HEAP_OK);
    assert_int_equal(size, 8192);
    /* a granule-aligned request must ask for the granule at least */
    assert_int_equal(sim_heap_alloc(h, 100, 64, 1, &c), SIM_HEAP_EINVAL);
    struct sim_heap_stats st;
    sim_heap_stats(h, &st);
    assert_int_equal(st.used_bytes, 4096 + 8192);
    assert_int_equal(sim_heap_free(h, a, &size), SIM_HEAP_OK);
    assert_int_equal(size, 4096);
    assert_int_equal(quick_blocks(h), 1);
    assert_int_equal(sim_heap_alloc(h, 4000, 4096, 3, &c), SIM_HEAP_OK);
    assert_int_equal(c, a); /* the parked block, no search */
    /* 64 KiB + 32 of padding rounds to 17 granules: still a quick block */
    assert_int_equal(sim_heap_alloc(h, (64 * KiB) + 32, 4096, 4, &a), SIM_HEAP_OK);
    assert_int_equal(sim_heap_free(h, a, NULL), SIM_HEAP_OK);
    assert_int_equal(quick_blocks(h), 1);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, b, NULL), SIM_HEAP_OK);
    assert_int_equal(sim_heap_free(h, c, NULL), SIM_HEAP_OK);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    sim_heap_destroy(h);
}

/* A heap whose range is four times its limit (the driver's virtual heap
 * over the device's pages): what fails is a request beyond the pages left,
 * never one the range could place. Fill the pages with 1 MiB blocks, free
 * every other one: no free run of the first quarter is longer than 1 MiB,
 * yet 8 MiB fit while 8 MiB of pages are free, and 8 MiB + 1 does not. */
static void test_limit_refuses_only_when_the_pages_run_out(void **state)
{
    (void)state;
    const uint64_t pages = 16 * MiB;
    struct sim_heap *h = sim_heap_create_paged(DEV_BASE, 4 * pages, pages, 4096);
    assert_non_null(h);
    uint64_t blk[16], big, x;
    for (int i = 0; i < 16; i++)
        blk[i] = must_alloc(h, MiB, 4096, 1);
    assert_int_equal(sim_heap_alloc(h, 4096, 4096, 1, &x), SIM_HEAP_NOSPACE);
    for (int i = 0; i < 16; i += 2)
        assert_int_equal(sim_heap_free(h, blk[i], NULL), SIM_HEAP_OK);
    struct sim_heap_stats st;
    sim_heap_stats(h, &st);
    assert_int_equal(st.limit, pages);
    assert_int_equal(st.free_bytes, 8 * MiB);
    assert_int_equal(sim_heap_alloc(h, 8 * MiB + 1, 4096, 2, &x), SIM_HEAP_NOSPACE);
    assert_int_equal(sim_heap_alloc(h, 8 * MiB, 4096, 2, &big), SIM_HEAP_OK);
    assert_int_equal(sim_heap_alloc(h, 4096, 4096, 1, &x), SIM_HEAP_NOSPACE);
    assert_sound(h);
    /* a lower limit (another range took pages) refuses sooner */
    assert_int_equal(sim_heap_free(h, big, NULL), SIM_HEAP_OK);
    sim_heap_set_limit(h, pages - 4 * MiB);
    assert_int_equal(sim_heap_alloc(h, 4 * MiB + 4096, 4096, 2, &x), SIM_HEAP_NOSPACE);
    assert_int_equal(sim_heap_alloc(h, 4 * MiB, 4096, 2, &big), SIM_HEAP_OK);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, big, NULL), SIM_HEAP_OK);
    for (int i = 1; i < 16; i += 2)
        assert_int_equal(sim_heap_free(h, blk[i], NULL), SIM_HEAP_OK);
    sim_heap_set_limit(h, 4 * pages); /* free then counts the whole range */
    trim_to_single_free_block(h, DEV_BASE, 4 * pages);
    sim_heap_destroy(h);
}

/* A parked block keeps its pages against the limit (so the quick pop needs
 * no check), and an allocation that needs them flushes the quick lists
 * first: parked memory never makes the pages run out. */
static void test_parked_blocks_hold_pages_until_needed(void **state)
{
    (void)state;
    struct sim_heap *h = sim_heap_create_paged(DEV_BASE, 64 * MiB, 16 * MiB, 64);
    assert_non_null(h);
    uint64_t a, fill, x;
    a = must_alloc(h, 1024, 64, 1);
    assert_int_equal(sim_heap_free(h, a, NULL), SIM_HEAP_OK);
    assert_int_equal(quick_blocks(h), 1);
    struct sim_heap_stats st;
    sim_heap_stats(h, &st);
    assert_int_equal(st.free_bytes, 16 * MiB); /* free to every caller */
    fill = must_alloc(h, 16 * MiB, 64, 2); /* every page: the parked block gives its back */
    assert_int_equal(quick_blocks(h), 0);
    assert_false(sim_heap_pop(h, 1024, 3, &x));
    assert_int_equal(sim_heap_alloc(h, 1024, 64, 3, &x), SIM_HEAP_NOSPACE);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, fill, NULL), SIM_HEAP_OK);
    assert_sound(h);
    sim_heap_destroy(h);
}

static void test_create_starts_as_one_free_block(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);

    (void)state;
    assert_non_null(h);
    assert_sound(h);
    assert_single_free_block(h, DEV_BASE, 64 * MiB);
    sim_heap_destroy(h);
}

static void test_alloc_free_basic(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    uint64_t a, b, c, sz = 0;

    (void)state;
    a = must_alloc(h, 4096, 64, 1);
    b = must_alloc(h, 128, 64, 2);
    c = must_alloc(h, 1 * MiB, 64, 3);
    assert_true(a != b && b != c && a != c);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, b, &sz), 0);
    assert_true(sz == 128);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, a, &sz), 0);
    assert_true(sz == 4096);
    assert_int_equal(sim_heap_free(h, c, NULL), 0);
    assert_sound(h);
    assert_true(quick_blocks(h) == 2); /* a and b parked, c (1 MiB) coalesced */
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    sim_heap_destroy(h);
}

static void test_alloc_rounds_size_up_to_64(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a, b, sz = 0, start = 0;

    (void)state;
    a = must_alloc(h, 1, 64, 0);
    b = must_alloc(h, 65, 64, 0);
    assert_int_equal(sim_heap_lookup(h, a, &start, &sz, NULL), 0);
    assert_true(sz == 64);
    assert_int_equal(sim_heap_lookup(h, b, &start, &sz, NULL), 0);
    assert_true(sz == 128);
    assert_int_equal(sim_heap_free(h, b, &sz), 0);
    assert_true(sz == 128);
    assert_sound(h);
    sim_heap_destroy(h);
}

static void test_alloc_rejects_bad_arguments(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = 0;

    (void)state;
    assert_int_equal(sim_heap_alloc(h, 0, 64, 0, &a), SIM_HEAP_EINVAL);
    assert_int_equal(sim_heap_alloc(h, 64, 0, 0, &a), SIM_HEAP_EINVAL);
    assert_int_equal(sim_heap_alloc(h, 64, 32, 0, &a), SIM_HEAP_EINVAL);
    assert_int_equal(sim_heap_alloc(h, 64, 96, 0, &a), SIM_HEAP_EINVAL);
    assert_int_equal(sim_heap_alloc(h, 2 * MiB, 64, 0, &a), SIM_HEAP_NOSPACE);
    assert_int_equal(sim_heap_alloc(h, UINT64_MAX, 64, 0, &a), SIM_HEAP_NOSPACE);
    assert_int_equal(sim_heap_alloc(h, 64, 64, 0, NULL), SIM_HEAP_EINVAL);
    assert_sound(h);
    assert_single_free_block(h, DEV_BASE, MiB);
    sim_heap_destroy(h);
}

static void test_alignment_64(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE + 64 * 7, 16 * MiB);
    uint64_t a[32];
    int i;

    (void)state;
    for (i = 0; i < 32; i++) {
        a[i] = must_alloc(h, (uint64_t)(i * 37 + 1), 64, (uint32_t)i);
        assert_sound(h);
    }
    /* 64-byte requests are packed back to back, no leading remainders */
    assert_true(a[0] == DEV_BASE + 64 * 7);
    for (i = 0; i < 32; i++)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    trim_to_single_free_block(h, DEV_BASE + 64 * 7, 16 * MiB);
    sim_heap_destroy(h);
}

static void test_alignment_2mib_splits_leading_remainder(void **state)
{
    uint64_t base = DEV_BASE + 0x12340;
    struct sim_heap *h = sim_heap_create(base, 64 * MiB);
    uint64_t a, b;
    struct walk_rec w;

    (void)state;
    a = must_alloc(h, 100, 2 * MiB, 7);
    assert_true(a > base && a - base < 2 * MiB);
    assert_sound(h);
    w = walk(h);
    assert_int_equal(w.n, 3); /* [lead free][block][tail free] */
    assert_true(w.b[0].start == base && w.b[0].size == a - base && !w.b[0].used);
    assert_true(w.b[1].start == a && w.b[1].size == 128 && w.b[1].used && w.b[1].tag == 7);
    assert_int_equal(w.b[2].used, 0);

    b = must_alloc(h, 3 * MiB, 2 * MiB, 8);
    assert_true(b % (2 * MiB) == 0);
    assert_sound(h);
    /* the leading remainder is still usable for small blocks */
    assert_true(must_alloc(h, 64, 64, 9) == base);
    assert_int_equal(sim_heap_free(h, base, NULL), 0);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    trim_to_single_free_block(h, base, 64 * MiB);
    sim_heap_destroy(h);
}

static void test_alignment_1gib(void **state)
{
    uint64_t base = DEV_BASE + 64; /* deliberately not 1 GiB aligned */
    struct sim_heap *h = sim_heap_create(base, 3 * GiB);
    uint64_t a, b, c = 0;

    (void)state;
    a = must_alloc(h, GiB, GiB, 1);
    b = must_alloc(h, GiB, GiB, 2); /* only fits exactly: found by the fallback probe */
    assert_true(a == DEV_BASE + GiB && b == DEV_BASE + 2 * GiB);
    assert_sound(h);
    assert_int_equal(sim_heap_alloc(h, 128, GiB, 3, &c), SIM_HEAP_NOSPACE); /* only 64 B left past 3 GiB */
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    assert_single_free_block(h, base, 3 * GiB);
    sim_heap_destroy(h);
}

static void test_alignment_mixed_keeps_invariants(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE + 640, 4 * GiB); /* 3 GiB boundaries */
    const uint64_t aligns[3] = {64, 2 * MiB, GiB};
    uint64_t a[30];
    int i;

    (void)state;
    for (i = 0; i < 30; i++) {
        a[i] = must_alloc(h, (uint64_t)(i + 1) * 4 * KiB, aligns[i % 10 == 2 ? 2 : i % 2], 0);
        assert_sound(h);
    }
    for (i = 29; i >= 0; i -= 2)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    for (i = 28; i >= 0; i -= 2)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    trim_to_single_free_block(h, DEV_BASE + 640, 4 * GiB);
    sim_heap_destroy(h);
}

static void test_exhaustion_returns_nospace_and_heap_recovers(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a[32], x = 0;
    int n = 0, i;

    (void)state;
    while (n < 32 && sim_heap_alloc(h, 64 * KiB, 64, 0, &a[n]) == 0)
        n++;
    assert_int_equal(n, 16);
    assert_int_equal(sim_heap_alloc(h, 64, 64, 0, &x), SIM_HEAP_NOSPACE);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, a[5], NULL), 0);
    assert_int_equal(sim_heap_alloc(h, 64 * KiB + 64, 64, 0, &x), SIM_HEAP_NOSPACE);
    assert_int_equal(sim_heap_alloc(h, 64 * KiB, 64, 0, &x), 0);
    assert_true(x == a[5]);
    assert_sound(h);
    for (i = 0; i < n; i++)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    assert_single_free_block(h, DEV_BASE, MiB);
    sim_heap_destroy(h);
}

static void test_alloc_whole_heap_exact_fit(void **state)
{
    uint64_t size = 3 * MiB + 5 * 64; /* not a size-class boundary */
    struct sim_heap *h = sim_heap_create(DEV_BASE, size);
    uint64_t a = 0, x = 0;

    (void)state;
    assert_int_equal(sim_heap_alloc(h, size, 64, 0, &a), 0);
    assert_true(a == DEV_BASE);
    assert_int_equal(sim_heap_alloc(h, 64, 64, 0, &x), SIM_HEAP_NOSPACE);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_single_free_block(h, DEV_BASE, size);
    sim_heap_destroy(h);
}

static void test_free_unknown_address_rejected(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = must_alloc(h, 4096, 64, 0), sz = 77;

    (void)state;
    assert_int_equal(sim_heap_free(h, a + 8192, &sz), SIM_HEAP_NOBLOCK); /* free space */
    assert_int_equal(sim_heap_free(h, DEV_BASE - 64, &sz), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, DEV_BASE + MiB, &sz), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, 0, &sz), SIM_HEAP_NOBLOCK);
    assert_true(sz == 77);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    sim_heap_destroy(h);
}

static void test_free_interior_pointer_rejected(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = must_alloc(h, 4096, 64, 0), start = 0;

    (void)state;
    assert_int_equal(sim_heap_free(h, a + 64, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, a + 1, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, a + 4095, NULL), SIM_HEAP_NOBLOCK);
    assert_sound(h);
    assert_int_equal(sim_heap_lookup(h, a, &start, NULL, NULL), 0);
    assert_true(start == a);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    sim_heap_destroy(h);
}

/* The recent blocks answer a free only for a block still live at that
 * start: after the block was parked, coalesced (its node recycled) and the
 * start handed out again by a TLSF search, free and push see the new block,
 * and a second free of it is still refused. */
static void test_recent_blocks_follow_reuse_of_a_start(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = must_alloc(h, 256, 64, 1), sz = 0, b;

    (void)state;
    assert_true(sim_heap_push(h, a, &sz)); /* made live lately: parked at once */
    assert_true(sz == 256);
    assert_false(sim_heap_push(h, a, &sz)); /* parked: no longer live */
    assert_int_equal(sim_heap_free(h, a, NULL), SIM_HEAP_NOBLOCK);
    sim_heap_trim(h); /* coalesced: a's node goes back to the spares */
    assert_sound(h);
    b = must_alloc(h, 512, 64, 2); /* a TLSF search hands out a's start again */
    assert_true(b == a);
    assert_int_equal(sim_heap_free(h, b, &sz), 0);
    assert_true(sz == 512);
    assert_int_equal(sim_heap_free(h, b, NULL), SIM_HEAP_NOBLOCK);
    assert_false(sim_heap_push(h, b, NULL));
    assert_sound(h);
    trim_to_single_free_block(h, DEV_BASE, MiB);
    sim_heap_destroy(h);
}

/* Push refuses what it cannot park and changes nothing: a block too big
 * for the quick lists, an interior address, a block no longer among the
 * recent ones; sim_heap_free then frees them as ever. Pop refuses sizes
 * it has no parked block of, and sizes beyond the quick bound. */
static void test_push_and_pop_refuse_without_changing_anything(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    uint64_t big = must_alloc(h, 128 * KiB, 64, 0), small = must_alloc(h, 64, 64, 0), x;
    uint64_t old = must_alloc(h, 128, 64, 0), sz = 0;
    struct sim_heap_stats st0, st1;

    (void)state;
    for (int i = 0; i < 64; i++) /* push `old` out of the recent blocks */
        must_alloc(h, 64, 64, 0);
    sim_heap_stats(h, &st0);
    assert_false(sim_heap_push(h, big, &sz));
    assert_false(sim_heap_push(h, small + 1, &sz));
    assert_false(sim_heap_push(h, old, &sz));
    assert_false(sim_heap_pop(h, 128, 0, &x));           /* nothing parked */
    assert_false(sim_heap_pop(h, 128 * KiB, 0, &x));     /* beyond the quick bound */
    sim_heap_stats(h, &st1);
    assert_memory_equal(&st0, &st1, sizeof st0);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, big, &sz), 0);
    assert_true(sz == 128 * KiB);
    assert_int_equal(sim_heap_free(h, old, &sz), 0);
    assert_true(sz == 128);
    assert_true(sim_heap_pop(h, 100, 7, &x)); /* old's size, parked by the free */
    assert_true(x == old);
    assert_sound(h);
    sim_heap_destroy(h);
}

static void test_double_free_rejected(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = must_alloc(h, 4096, 64, 0), b = must_alloc(h, 64, 64, 0);

    (void)state;
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_int_equal(sim_heap_free(h, a, NULL), SIM_HEAP_NOBLOCK);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    assert_int_equal(sim_heap_free(h, b, NULL), SIM_HEAP_NOBLOCK);
    assert_sound(h);
    trim_to_single_free_block(h, DEV_BASE, MiB);
    sim_heap_destroy(h);
}

/* unit > 64 KiB: every free coalesces at once, in the given order; unit small:
 * every block parks on a quick list and sim_heap_trim does the coalescing. */
static void coalesce_in_order(const int *order, int n, uint64_t unit)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 4 * MiB);
    uint64_t a[16];
    int i;

    for (i = 0; i < n; i++)
        a[i] = must_alloc(h, (uint64_t)(i + 1) * unit, 64, 0);
    for (i = 0; i < n; i++) {
        assert_int_equal(sim_heap_free(h, a[order[i]], NULL), 0);
        assert_sound(h);
    }
    assert_true(quick_blocks(h) == (unit > 64 * KiB ? 0 : (uint64_t)n));
    if (unit > 64 * KiB)
        assert_single_free_block(h, DEV_BASE, 4 * MiB);
    trim_to_single_free_block(h, DEV_BASE, 4 * MiB);
    sim_heap_destroy(h);
}

static void test_coalesce_back_to_one_free_block(void **state)
{
    const int fwd[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int rev[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    const int alt[8] = {1, 3, 5, 7, 0, 2, 4, 6};
    const int mid[8] = {3, 4, 2, 5, 1, 6, 0, 7};

    (void)state;
    coalesce_in_order(fwd, 8, 100 * KiB);
    coalesce_in_order(rev, 8, 100 * KiB);
    coalesce_in_order(alt, 8, 100 * KiB);
    coalesce_in_order(mid, 8, 100 * KiB);
    coalesce_in_order(fwd, 8, 1000);
    coalesce_in_order(mid, 8, 1000);
}

static void test_lookup_interior_of_live_block(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    uint64_t a = must_alloc(h, 1000, 64, 11), b = must_alloc(h, 5 * MiB, 2 * MiB, 22);
    uint64_t start = 0, size = 0, off;
    uint32_t tag = 0;

    (void)state;
    for (off = 0; off < 1024; off += 61) {
        assert_int_equal(sim_heap_lookup(h, a + off, &start, &size, &tag), 0);
        assert_true(start == a && size == 1024 && tag == 11);
    }
    assert_int_equal(sim_heap_lookup(h, a + 1023, &start, &size, &tag), 0);
    assert_true(start == a);
    for (off = 0; off < 5 * MiB; off += 333 * KiB + 7) {
        assert_int_equal(sim_heap_lookup(h, b + off, &start, &size, &tag), 0);
        assert_true(start == b && size == 5 * MiB && tag == 22);
    }
    assert_int_equal(sim_heap_lookup(h, b + 5 * MiB - 1, NULL, NULL, NULL), 0);
    sim_heap_destroy(h);
}

static void test_lookup_free_space_fails(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    uint64_t a = must_alloc(h, 1000, 64, 1), b = must_alloc(h, 5 * MiB, 2 * MiB, 2);
    uint64_t start = 0;

    (void)state;
    assert_int_equal(sim_heap_lookup(h, a + 1024, &start, NULL, NULL), SIM_HEAP_NOBLOCK); /* lead gap */
    assert_int_equal(sim_heap_lookup(h, b - 1, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b + 5 * MiB, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, DEV_BASE + 64 * MiB - 1, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, DEV_BASE - 1, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, DEV_BASE + 64 * MiB, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_int_equal(sim_heap_lookup(h, a, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, a + 500, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, a + 1024, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b - 1, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    sim_heap_trim(h);
    assert_int_equal(sim_heap_lookup(h, a, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b - 1, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b, &start, NULL, NULL), 0);
    sim_heap_destroy(h);
}

static void test_lookup_in_sparse_144gib_heap(void **state)
{
    uint64_t size = 144 * GiB, start = 0, bsz = 0, off;
    struct sim_heap *h = sim_heap_create(DEV_BASE, size);
    uint64_t big, s1, mid, s2, last;

    (void)state;
    assert_non_null(h);
    big = must_alloc(h, 100 * GiB, 64, 1);
    s1 = must_alloc(h, 64, 64, 2);
    mid = must_alloc(h, 40 * GiB, GiB, 3);
    s2 = must_alloc(h, 64, 64, 4);
    last = must_alloc(h, 64, 64, 5);
    assert_sound(h);
    /* interior addresses far from any block start walk up and down the summary levels */
    for (off = 0; off < 100 * GiB; off += 7 * GiB + 12345) {
        assert_int_equal(sim_heap_lookup(h, big + off, &start, &bsz, NULL), 0);
        assert_true(start == big && bsz == 100 * GiB);
    }
    assert_int_equal(sim_heap_lookup(h, mid + 40 * GiB - 1, &start, NULL, NULL), 0);
    assert_true(start == mid);
    assert_int_equal(sim_heap_lookup(h, s1 + 63, &start, NULL, NULL), 0);
    assert_true(start == s1);
    assert_int_equal(sim_heap_lookup(h, s2, &start, NULL, NULL), 0);
    assert_true(start == s2);
    assert_int_equal(sim_heap_lookup(h, last, &start, NULL, NULL), 0);
    assert_int_equal(sim_heap_lookup(h, DEV_BASE + size - 1, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, big, NULL), 0);
    assert_int_equal(sim_heap_lookup(h, big + 99 * GiB, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_sound(h);
    sim_heap_destroy(h);
}

static void test_stats_counters(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 16 * MiB);
    struct sim_heap_stats st;
    uint64_t a, b, c;

    (void)state;
    sim_heap_stats(h, &st);
    assert_true(st.size == 16 * MiB && st.used_bytes == 0 && st.free_bytes == 16 * MiB);
    assert_true(st.live_blocks == 0 && st.largest_free == 16 * MiB && st.peak_used_bytes == 0);

    a = must_alloc(h, 1 * MiB, 64, 0);
    b = must_alloc(h, 100, 64, 0);
    c = must_alloc(h, 4 * MiB, 64, 0);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 5 * MiB + 128);
    assert_true(st.free_bytes == 11 * MiB - 128);
    assert_true(st.live_blocks == 3);
    assert_true(st.largest_free == 11 * MiB - 128);
    assert_true(st.peak_used_bytes == 5 * MiB + 128);

    assert_int_equal(sim_heap_free(h, c, NULL), 0);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 128 && st.live_blocks == 1);
    assert_true(st.largest_free == 15 * MiB - 128);
    assert_true(st.peak_used_bytes == 5 * MiB + 128);
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    sim_heap_stats(h, &st);
    /* b is parked: free, but not coalesced, so not part of largest_free */
    assert_true(st.used_bytes == 0 && st.live_blocks == 0 && st.free_bytes == 16 * MiB);
    assert_true(st.quick_bytes == 128 && st.quick_blocks == 1);
    assert_true(st.largest_free == 15 * MiB - 128);
    assert_true(st.peak_used_bytes == 5 * MiB + 128);
    sim_heap_trim(h);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 0 && st.live_blocks == 0 && st.largest_free == 16 * MiB);
    assert_true(st.quick_bytes == 0 && st.quick_blocks == 0);
    assert_true(st.peak_used_bytes == 5 * MiB + 128);
    sim_heap_destroy(h);
}

static void test_walk_address_order_and_tags(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB);
    uint64_t a = must_alloc(h, 64, 64, 0xA), b = must_alloc(h, 128, 64, 0xB);
    uint64_t c = must_alloc(h, 192, 64, 0xC);
    struct walk_rec w;
    size_t i;

    (void)state;
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    w = walk(h);
    assert_int_equal(w.n, 4);
    assert_true(w.b[0].start == a && w.b[0].used && w.b[0].tag == 0xA);
    assert_true(w.b[1].start == b && !w.b[1].used && w.b[1].size == 128 && w.b[1].tag == 0);
    assert_true(w.b[2].start == c && w.b[2].used && w.b[2].tag == 0xC);
    assert_true(w.b[3].start == c + 192 && !w.b[3].used);
    for (i = 1; i < w.n; i++)
        assert_true(w.b[i].start == w.b[i - 1].start + w.b[i - 1].size);
    sim_heap_destroy(h);
}

static void test_many_blocks_grow_metadata(void **state)
{
    enum { N = 50000 };
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    uint64_t *a = malloc(N * sizeof(*a)), start = 0;
    int i;

    (void)state;
    assert_non_null(a);
    for (i = 0; i < N; i++)
        a[i] = must_alloc(h, 64 + (uint64_t)(i % 3) * 64, 64, (uint32_t)i);
    assert_sound(h);
    for (i = 0; i < N; i += 1000) {
        assert_int_equal(sim_heap_lookup(h, a[i] + 63, &start, NULL, NULL), 0);
        assert_true(start == a[i]);
    }
    for (i = 1; i < N; i += 2)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    assert_sound(h);
    for (i = 0; i < N; i += 2)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    free(a);
    sim_heap_destroy(h);
}

/* ------------------------------------------------------------ quick lists */

static void test_quick_reuse_same_address_new_tag(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    struct sim_heap_stats st;
    struct walk_rec w;
    uint64_t a, b, x, y, z, start = 0, size = 0;
    uint32_t tag = 0;

    (void)state;
    a = must_alloc(h, 1000, 64, 1);
    assert_true(a == DEV_BASE);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 0 && st.live_blocks == 0 && st.free_bytes == 64 * MiB);
    assert_true(st.quick_bytes == 1024 && st.quick_blocks == 1);
    /* parked, not coalesced: two adjacent free blocks in the walk */
    w = walk(h);
    assert_int_equal(w.n, 2);
    assert_true(w.b[0].start == a && w.b[0].size == 1024 && !w.b[0].used && w.b[0].tag == 0);
    assert_true(w.b[1].start == a + 1024 && !w.b[1].used);

    /* same rounded size: the same block, with the new tag */
    b = must_alloc(h, 1000 - 7, 64, 2);
    assert_true(b == a);
    assert_sound(h);
    assert_int_equal(sim_heap_lookup(h, a + 5, &start, &size, &tag), 0);
    assert_true(start == a && size == 1024 && tag == 2);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 1024 && st.live_blocks == 1 && st.quick_blocks == 0);
    sim_heap_destroy(h);

    /* LIFO per exact size; other sizes do not take it */
    h = sim_heap_create(DEV_BASE, 64 * MiB);
    x = must_alloc(h, 200, 64, 3);
    y = must_alloc(h, 200, 64, 4);
    z = must_alloc(h, 200, 64, 5);
    assert_int_equal(sim_heap_free(h, x, NULL), 0);
    assert_int_equal(sim_heap_free(h, y, NULL), 0);
    assert_true(must_alloc(h, 300, 64, 6) == z + 256); /* 5 granules: from TLSF */
    assert_true(must_alloc(h, 250, 64, 7) == y);       /* most recent first */
    assert_true(must_alloc(h, 256, 64, 8) == x);
    assert_true(quick_blocks(h) == 0);
    assert_sound(h);
    sim_heap_destroy(h);
}

static void test_quick_not_used_for_aligned_requests(void **state)
{
    uint64_t base = DEV_BASE; /* 2 MiB aligned */
    struct sim_heap *h = sim_heap_create(base, 64 * MiB);
    uint64_t a, b;

    (void)state;
    a = must_alloc(h, 64, 64, 1);
    assert_true(a == base);
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    b = must_alloc(h, 64, 2 * MiB, 2); /* the parked block would fit, but is not used */
    assert_true(b != a && b == base + 2 * MiB);
    assert_true(quick_blocks(h) == 1);
    assert_sound(h);
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    trim_to_single_free_block(h, base, 64 * MiB);
    sim_heap_destroy(h);
}

static void test_quick_double_free_and_lookup_rejected(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB);
    struct sim_heap_stats st0, st1;
    uint64_t a = must_alloc(h, 512, 64, 1), b = must_alloc(h, 512, 64, 2), sz = 77, start = 9;

    (void)state;
    assert_int_equal(sim_heap_free(h, a, NULL), 0);
    assert_true(quick_blocks(h) == 1);
    sim_heap_stats(h, &st0);
    assert_int_equal(sim_heap_free(h, a, &sz), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, a + 64, &sz), SIM_HEAP_NOBLOCK);
    assert_true(sz == 77);
    assert_int_equal(sim_heap_lookup(h, a, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, a + 100, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, a + 511, &start, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_true(start == 9);
    assert_int_equal(sim_heap_lookup(h, a + 512, &start, NULL, NULL), 0);
    assert_true(start == b);
    sim_heap_stats(h, &st1);
    assert_memory_equal(&st0, &st1, sizeof(st0));
    assert_sound(h);

    /* b parks too; free space behind it is still free space */
    assert_int_equal(sim_heap_free(h, b, NULL), 0);
    assert_int_equal(sim_heap_free(h, b, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b + 512, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b + 5 * MiB, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    assert_sound(h);
    /* and after the flush */
    sim_heap_trim(h);
    assert_int_equal(sim_heap_free(h, a, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_free(h, b, NULL), SIM_HEAP_NOBLOCK);
    assert_int_equal(sim_heap_lookup(h, b, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    sim_heap_destroy(h);
}

static void test_quick_bounds(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, 64 * MiB); /* 1 MiB of quick blocks */
    struct sim_heap_stats st;
    uint64_t a[40];
    int i;

    (void)state;
    /* at most 32 per exact size */
    for (i = 0; i < 40; i++)
        a[i] = must_alloc(h, 128, 64, 0);
    for (i = 0; i < 40; i++)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.quick_blocks == 32 && st.quick_bytes == 32 * 128);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    /* at most size/64 bytes in all: 16 x 64 KiB, the rest coalesces */
    for (i = 0; i < 20; i++)
        a[i] = must_alloc(h, 64 * KiB, 64, 0);
    for (i = 0; i < 20; i++)
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.quick_blocks == 16 && st.quick_bytes == MiB);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    /* 64 KiB + 64, a padded 64 KiB aclrtMalloc, parks; 64 KiB + 128 never does */
    a[0] = must_alloc(h, 64 * KiB + 64, 64, 0);
    assert_int_equal(sim_heap_free(h, a[0], NULL), 0);
    assert_true(quick_blocks(h) == 1);
    trim_to_single_free_block(h, DEV_BASE, 64 * MiB);
    a[0] = must_alloc(h, 64 * KiB + 65, 64, 0);
    sim_heap_trim(h);
    assert_int_equal(sim_heap_free(h, a[0], NULL), 0);
    assert_true(quick_blocks(h) == 0);
    assert_single_free_block(h, DEV_BASE, 64 * MiB);
    sim_heap_destroy(h);
}

/* Fill the heap exactly with small blocks, free them all (1/64 of the heap parks
 * on the quick lists, scattered over the whole range), then ask for the whole
 * heap: only the flush-and-retry inside alloc can satisfy it. */
static void oom_after_flush(uint64_t align)
{
    const uint64_t base = DEV_BASE, size = 4 * MiB;
    struct sim_heap *h = sim_heap_create(base, size);
    size_t cap = size / 64, n = 0, i;
    uint64_t *a = malloc(cap * sizeof(*a)), x = 0;
    struct sim_heap_stats st;

    assert_non_null(a);
    while (n < cap && sim_heap_alloc(h, 64 * (1 + n % 23), 64, 0, &a[n]) == 0)
        n++;
    while (n < cap && sim_heap_alloc(h, 64, 64, 0, &a[n]) == 0)
        n++;
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == size && n % 7919 != 0);
    for (i = 0; i < n; i++)
        assert_int_equal(sim_heap_free(h, a[(i * 7919) % n], NULL), 0); /* scattered order */
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.used_bytes == 0 && st.free_bytes == size);
    assert_true(st.quick_blocks > 16 && st.quick_bytes <= size / 64);
    assert_true(st.largest_free < size / 2);

    assert_int_equal(sim_heap_alloc(h, size, align, 5, &x), 0);
    assert_true(x == base);
    assert_sound(h);
    sim_heap_stats(h, &st);
    assert_true(st.quick_blocks == 0 && st.used_bytes == size && st.live_blocks == 1);
    assert_int_equal(sim_heap_free(h, x, NULL), 0);
    assert_single_free_block(h, base, size); /* > 64 KiB: coalesced at once */
    free(a);
    sim_heap_destroy(h);
}

static void test_quick_oom_after_flush(void **state)
{
    (void)state;
    oom_after_flush(64);
    oom_after_flush(2 * MiB); /* aligned requests never use the lists, but do flush */
}

static void test_quick_failed_alloc_keeps_live_blocks(void **state)
{
    enum { N = 512 };
    struct sim_heap *h = sim_heap_create(DEV_BASE, MiB); /* N x 2 KiB: full */
    struct sim_heap_stats st0, st1;
    uint64_t a[N], x = 0;
    int i;

    (void)state;
    for (i = 0; i < N; i++)
        a[i] = must_alloc(h, 2 * KiB, 64, (uint32_t)i);
    for (i = 0; i < N; i += 2) /* isolated holes: 8 park (16 KiB), the rest go to TLSF */
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    sim_heap_stats(h, &st0);
    assert_true(st0.quick_blocks == 8 && st0.live_blocks == N / 2);
    assert_int_equal(sim_heap_alloc(h, 4 * KiB, 64, 0, &x), SIM_HEAP_NOSPACE); /* flushes, still fails */
    assert_sound(h);
    sim_heap_stats(h, &st1);
    assert_true(st1.used_bytes == st0.used_bytes && st1.live_blocks == st0.live_blocks);
    assert_true(st1.quick_blocks == 0 && st1.free_bytes == st0.free_bytes);
    assert_true(st1.peak_used_bytes == st0.peak_used_bytes);
    for (i = 1; i < N; i += 2) {
        uint64_t start = 0;
        uint32_t tag = 99;
        assert_int_equal(sim_heap_lookup(h, a[i] + 77, &start, NULL, &tag), 0);
        assert_true(start == a[i] && tag == (uint32_t)i);
        assert_int_equal(sim_heap_free(h, a[i], NULL), 0);
    }
    trim_to_single_free_block(h, DEV_BASE, MiB);
    sim_heap_destroy(h);
}

static void test_trim_walk_single_free_block(void **state)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE + 64 * 3, 256 * MiB);
    uint64_t a[300], rng = 12345;
    struct walk_rec w;
    int i;

    (void)state;
    sim_heap_trim(NULL);
    sim_heap_trim(h); /* nothing parked: no-op */
    assert_single_free_block(h, DEV_BASE + 64 * 3, 256 * MiB);
    for (i = 0; i < 300; i++)
        a[i] = must_alloc(h, 1 + xorshift(&rng) % (80 * KiB), 64, (uint32_t)i);
    for (i = 0; i < 300; i++)
        assert_int_equal(sim_heap_free(h, a[(i * 7) % 300], NULL), 0);
    assert_sound(h);
    w = walk(h);
    assert_true(w.n > 1);
    for (i = 0; i < (int)w.n && i < 64; i++)
        assert_true(!w.b[i].used && w.b[i].tag == 0);
    trim_to_single_free_block(h, DEV_BASE + 64 * 3, 256 * MiB);
    sim_heap_trim(h);
    assert_single_free_block(h, DEV_BASE + 64 * 3, 256 * MiB);
    sim_heap_destroy(h);
}

/* ----------------------------------------------------------------- stress */

struct shadow {
    uint64_t start, size;
    uint32_t tag;
};

static void verify_block(const struct sim_heap *h, const struct shadow *s, uint64_t *rng)
{
    uint64_t start = 0, size = 0;
    uint64_t probes[3];
    uint32_t tag = 0;
    int k;

    probes[0] = s->start;
    probes[1] = s->start + s->size - 1;
    probes[2] = s->start + xorshift(rng) % s->size;
    for (k = 0; k < 3; k++) {
        assert_int_equal(sim_heap_lookup(h, probes[k], &start, &size, &tag), 0);
        assert_true(start == s->start && size == s->size && tag == s->tag);
    }
}

struct fit_probe {
    uint64_t need, align;
    int fits;
};

/* walker: does some free block hold an aligned run of need bytes? */
static void probe_fit(uint64_t start, uint64_t size, int used, uint32_t tag, void *user)
{
    struct fit_probe *p = user;
    uint64_t a = (start + p->align - 1) & ~(p->align - 1);

    (void)tag;
    if (!used && a - start <= size && size - (a - start) >= p->need)
        p->fits = 1;
}

static long stress_ops(void)
{
    const char *e = getenv("SIM_HEAP_STRESS_OPS");
    long n = e != NULL ? strtol(e, NULL, 10) : 0;

    return n > 0 ? n : 200000;
}

struct stress_cfg {
    uint64_t base, hsize;
    unsigned max_e;      /* sizes 1 .. 2^e bytes, e uniform in [0, max_e] */
    unsigned pct_1g;     /* percent of allocations aligned to 1 GiB */
    unsigned pct_2m;     /* ... and to 2 MiB (the rest: 64) */
    size_t low_water;    /* below this many live blocks, allocate 60% of the time, else 40% */
    int expect_flushes;  /* the heap runs full: failing allocations flush quick blocks */
};

static void stress(const struct stress_cfg *c)
{
    const uint64_t base = c->base, hsize = c->hsize;
    struct sim_heap *h = sim_heap_create(base, hsize);
    size_t cap = 1 << 16, n = 0, i;
    struct shadow *sh = malloc(cap * sizeof(*sh));
    uint64_t rng = UINT64_C(0x9E3779B97F4A7C15), used = 0, fails = 0, allocs = 0, missed = 0;
    uint64_t flushes = 0, trims = 0, max_quick = 0;
    long op, nops = stress_ops();
    struct sim_heap_stats st;

    assert_non_null(h);
    assert_non_null(sh);
    for (op = 0; op < nops; op++) {
        uint64_t r = xorshift(&rng);
        int do_alloc = n == 0 || (int)(r % 100) < (n < c->low_water ? 60 : 40);

        if (do_alloc && n < cap) {
            unsigned e = (unsigned)(xorshift(&rng) % (c->max_e + 1));
            uint64_t size = 1 + xorshift(&rng) % ((uint64_t)1 << e);
            unsigned ar = (unsigned)(xorshift(&rng) % 100);
            uint64_t align = ar < c->pct_1g ? GiB : ar < c->pct_1g + c->pct_2m ? 2 * MiB : 64;
            uint64_t a = 0, rs = (size + 63) & ~(uint64_t)63, q0 = quick_blocks(h);
            uint32_t tag = (uint32_t)xorshift(&rng);

            /* Now and then the quick pop alone, as a fast path would try it. */
            enum sim_heap_rc rc = align == 64 && (r >> 24) % 4 == 0 &&
                                          sim_heap_pop(h, size, tag, &a)
                                      ? SIM_HEAP_OK
                                      : sim_heap_alloc(h, size, align, tag, &a);
            if (rc == SIM_HEAP_OK) {
                allocs++;
                assert_true(a % align == 0 && a >= base && a + rs <= base + hsize);
                sh[n++] = (struct shadow){a, rs, tag};
                used += rs;
                verify_block(h, &sh[n - 1], &rng);
            } else {
                struct fit_probe p = {rs, align, 0};
                assert_int_equal(rc, SIM_HEAP_NOSPACE);
                fails++;
                assert_true(quick_blocks(h) == 0); /* a failure flushes first */
                flushes += q0 != 0;
                sim_heap_walk(h, probe_fit, &p); /* a miss is legal (bounded search) but rare */
                missed += (uint64_t)p.fits;
            }
        } else if (n > 0) {
            size_t k = (size_t)(xorshift(&rng) % n);
            struct shadow s = sh[k];
            uint64_t sz = 0;

            if (s.size > 64 && (r >> 32) % 16 == 0) {
                uint64_t inner = s.start + 64 * (1 + (xorshift(&rng) % (s.size / 64 - 1)));
                assert_int_equal(sim_heap_free(h, inner, NULL), SIM_HEAP_NOBLOCK);
            }
            /* Now and then the quick push first: it parks the block, or
             * changes nothing and leaves the free to sim_heap_free. */
            if ((r >> 28) % 4 != 0 || !sim_heap_push(h, s.start, &sz))
                assert_int_equal(sim_heap_free(h, s.start, &sz), 0);
            assert_true(sz == s.size);
            if ((r >> 40) % 16 == 0)
                assert_int_equal(sim_heap_free(h, s.start, NULL), SIM_HEAP_NOBLOCK);
            assert_int_equal(sim_heap_lookup(h, s.start, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
            assert_int_equal(sim_heap_lookup(h, s.start + s.size - 1, NULL, NULL, NULL), SIM_HEAP_NOBLOCK);
            sh[k] = sh[--n];
            used -= s.size;
        }
        if ((r >> 48) % 512 == 0 || op == nops / 2) {
            sim_heap_trim(h);
            trims++;
            assert_true(quick_blocks(h) == 0);
        }
        if (op < 20000 || op % 1000 == 0)
            assert_sound(h);
        if (op % 64 == 0) {
            uint64_t q = quick_blocks(h);
            max_quick = q > max_quick ? q : max_quick;
        }
        if (op % 1000 == 0) {
            for (i = 0; i < n; i++)
                verify_block(h, &sh[i], &rng);
            sim_heap_stats(h, &st);
            assert_true(st.live_blocks == n && st.used_bytes == used);
            assert_true(st.free_bytes == hsize - used && st.quick_bytes <= st.free_bytes);
        }
    }
    assert_true(allocs > (uint64_t)nops / 4);
    assert_true(max_quick > 0 && trims > 0);
    if (c->expect_flushes)
        assert_true(flushes > 0);
    print_message("stress %llu MiB: %ld ops, %llu allocs, %llu failed (%llu despite a fitting "
                  "free block, %llu flushed quick blocks first), %llu trims, max %llu quick, "
                  "%zu live at end\n",
                  (unsigned long long)(hsize >> 20), nops, (unsigned long long)allocs,
                  (unsigned long long)fails, (unsigned long long)missed,
                  (unsigned long long)flushes, (unsigned long long)trims,
                  (unsigned long long)max_quick, n);
    while (n > 0) {
        n--;
        assert_int_equal(sim_heap_free(h, sh[n].start, NULL), 0);
    }
    trim_to_single_free_block(h, base, hsize);
    free(sh);
    sim_heap_destroy(h);
}

static void test_random_stress_against_shadow(void **state)
{
    const struct stress_cfg c = {DEV_BASE + 0x40c0, 8 * GiB, 23, 2, 10, 1500, 0};

    (void)state;
    stress(&c);
}

/* small heap kept full: many failures, each flushing the quick lists first */
static void test_random_stress_full_heap(void **state)
{
    const struct stress_cfg c = {DEV_BASE + 0x1c0, 4 * MiB, 16, 0, 1, 1500, 1};

    (void)state;
    stress(&c);
}

/* ------------------------------------------------------- corrupted heaps */

/* A 64 MiB heap with three adjacent 128 KiB live blocks (too big to park on
 * a quick list) at DEV_BASE, +128 KiB, +256 KiB, then one free block. */
struct three {
    struct sim_heap *h;
    uint64_t x, y, z;
};

static struct three three_blocks(void)
{
    struct three t = {sim_heap_create(DEV_BASE, 64 * MiB), 0, 0, 0};

    assert_non_null(t.h);
    t.x = must_alloc(t.h, 128 * KiB, 64, 1);
    t.y = must_alloc(t.h, 128 * KiB, 64, 2);
    t.z = must_alloc(t.h, 128 * KiB, 64, 3);
    assert_true(t.y == t.x + 128 * KiB && t.z == t.y + 128 * KiB);
    assert_sound(t.h);
    return t;
}

static struct blk *node(struct sim_heap *h, uint64_t addr)
{
    uint32_t bi = tab_find(h, addr, NULL);

    assert_true(bi != NIL);
    return &h->nodes[bi];
}

/* The check must name `what` at `addr`, in a text holding `words`. */
static void expect_broken(struct sim_heap *h, enum sim_heap_invariant what, uint64_t addr,
                          const char *words)
{
    struct sim_heap_fault f = {SIM_HEAP_SOUND, 1};
    char text[160], hex[32];

    assert_int_equal(sim_heap_check(h, &f), what);
    assert_int_equal(f.what, what);
    assert_true(f.addr == addr);
    sim_heap_fault_text(&f, text, sizeof text);
    if (strstr(text, words) == NULL)
        fail_msg("\"%s\" does not say \"%s\"", text, words);
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)addr);
    if (addr != 0 && strstr(text, hex) == NULL)
        fail_msg("\"%s\" does not name %s", text, hex);
    sim_heap_destroy(h);
}

static void test_check_names_a_block_overlapping_its_successor(void **state)
{
    struct three t = three_blocks();

    (void)state;
    node(t.h, t.x)->size += 64;
    expect_broken(t.h, SIM_HEAP_BLOCK_OVERLAP, t.x, "overlaps its successor");
}

static void test_check_names_a_gap_between_blocks(void **state)
{
    struct three t = three_blocks();

    (void)state;
    node(t.h, t.x)->size -= 64;
    expect_broken(t.h, SIM_HEAP_BLOCK_GAP, t.y, "starts after its predecessor ends");
}

static void test_check_names_uncoalesced_free_neighbours(void **state)
{
    struct three t = three_blocks();
    struct blk *y;

    (void)state;
    assert_int_equal(sim_heap_free(t.h, t.x, NULL), SIM_HEAP_OK);
    assert_sound(t.h);
    /* y becomes free without merging into the free block before it */
    y = node(t.h, t.y);
    y->state = BLK_FREE;
    expect_broken(t.h, SIM_HEAP_ADJACENT_FREE, t.y, "follows another free block");
}

static void test_check_names_a_live_block_missing_from_the_hash(void **state)
{
    struct three t = three_blocks();
    uint64_t slot = 0;

    (void)state;
    assert_true(tab_find(t.h, t.y, &slot) != NIL);
    tab_delete(t.h, slot);
    expect_broken(t.h, SIM_HEAP_UNHASHED, t.y, "not in the start hash");
}

static void test_check_names_a_cleared_start_bit(void **state)
{
    struct three t = three_blocks();

    (void)state;
    bm_clear(t.h, (t.z - DEV_BASE) >> t.h->shift);
    expect_broken(t.h, SIM_HEAP_START_BIT, t.z, "start bit");
}

static void test_check_names_blocks_that_stop_short_of_the_end(void **state)
{
    struct three t = three_blocks();
    uint32_t last = node(t.h, t.z)->next_phys;

    (void)state;
    t.h->nodes[last].size -= 64;
    expect_broken(t.h, SIM_HEAP_TILING, DEV_BASE + 64 * MiB - 64, "not at the heap's end");
}

static void test_check_names_wrong_counters(void **state)
{
    struct three t = three_blocks();

    (void)state;
    t.h->used_bytes += 64;
    expect_broken(t.h, SIM_HEAP_COUNTERS, 0, "used-bytes");
}

static void test_check_names_a_bitmap_bit_without_a_list(void **state)
{
    struct three t = three_blocks();

    (void)state;
    assert_true(t.h->sl_map[0] == 0); /* no free block of 1..31 granules */
    t.h->sl_map[0] = 1u << 5;
    t.h->fl_map |= 1;
    expect_broken(t.h, SIM_HEAP_FREE_BITMAP, 0, "bitmap bit disagrees");
}

static void test_check_names_a_wrong_quick_count(void **state)
{
    struct three t = three_blocks();
    uint64_t a = must_alloc(t.h, 512, 64, 4);

    (void)state;
    assert_int_equal(sim_heap_free(t.h, a, NULL), SIM_HEAP_OK); /* parked */
    assert_sound(t.h);
    t.h->quick[512 / 64].count++;
    expect_broken(t.h, SIM_HEAP_QUICK_COUNT, a, "quick list's count");
}

static void test_check_names_a_hash_entry_off_its_probe_chain(void **state)
{
    struct three t = three_blocks();
    uint64_t slot = 0, hole, stray;

    (void)state;
    assert_true(tab_find(t.h, t.y, &slot) != NIL);
    /* a stale copy of y's entry beyond the first empty slot after y's own:
     * lookups find the real one, but no probe from y's home reaches the copy */
    hole = (slot + 1) & t.h->tab_mask;
    while (t.h->tab[hole].node != NIL)
        hole = (hole + 1) & t.h->tab_mask;
    stray = (hole + 1) & t.h->tab_mask;
    while (t.h->tab[stray].node != NIL)
        stray = (stray + 1) & t.h->tab_mask;
    t.h->tab[stray] = t.h->tab[slot];
    expect_broken(t.h, SIM_HEAP_HASH_PROBE, t.y, "cannot be reached from its home slot");
}

static void test_check_and_lookups_of_no_heap(void **state)
{
    struct sim_heap_fault f;
    char text[64];

    (void)state;
    assert_int_equal(sim_heap_check(NULL, &f), SIM_HEAP_NO_HEAP);
    assert_string_equal(sim_heap_fault_text(&f, text, sizeof text), "no heap (NULL)");
    assert_int_equal(sim_heap_free(NULL, DEV_BASE, NULL), SIM_HEAP_EINVAL);
    assert_int_equal(sim_heap_lookup(NULL, DEV_BASE, NULL, NULL, NULL), SIM_HEAP_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_geometry),
        cmocka_unit_test(test_create_starts_as_one_free_block),
        cmocka_unit_test(test_granule_of_4kib_rounds_and_aligns),
        cmocka_unit_test(test_limit_refuses_only_when_the_pages_run_out),
        cmocka_unit_test(test_parked_blocks_hold_pages_until_needed),
        cmocka_unit_test(test_alloc_free_basic),
        cmocka_unit_test(test_alloc_rounds_size_up_to_64),
        cmocka_unit_test(test_alloc_rejects_bad_arguments),
        cmocka_unit_test(test_alignment_64),
        cmocka_unit_test(test_alignment_2mib_splits_leading_remainder),
        cmocka_unit_test(test_alignment_1gib),
        cmocka_unit_test(test_alignment_mixed_keeps_invariants),
        cmocka_unit_test(test_exhaustion_returns_nospace_and_heap_recovers),
        cmocka_unit_test(test_alloc_whole_heap_exact_fit),
        cmocka_unit_test(test_free_unknown_address_rejected),
        cmocka_unit_test(test_free_interior_pointer_rejected),
        cmocka_unit_test(test_recent_blocks_follow_reuse_of_a_start),
        cmocka_unit_test(test_push_and_pop_refuse_without_changing_anything),
        cmocka_unit_test(test_double_free_rejected),
        cmocka_unit_test(test_coalesce_back_to_one_free_block),
        cmocka_unit_test(test_lookup_interior_of_live_block),
        cmocka_unit_test(test_lookup_free_space_fails),
        cmocka_unit_test(test_lookup_in_sparse_144gib_heap),
        cmocka_unit_test(test_stats_counters),
        cmocka_unit_test(test_walk_address_order_and_tags),
        cmocka_unit_test(test_many_blocks_grow_metadata),
        cmocka_unit_test(test_quick_reuse_same_address_new_tag),
        cmocka_unit_test(test_quick_not_used_for_aligned_requests),
        cmocka_unit_test(test_quick_double_free_and_lookup_rejected),
        cmocka_unit_test(test_quick_bounds),
        cmocka_unit_test(test_quick_oom_after_flush),
        cmocka_unit_test(test_quick_failed_alloc_keeps_live_blocks),
        cmocka_unit_test(test_trim_walk_single_free_block),
        cmocka_unit_test(test_random_stress_against_shadow),
        cmocka_unit_test(test_random_stress_full_heap),
        cmocka_unit_test(test_check_names_a_block_overlapping_its_successor),
        cmocka_unit_test(test_check_names_a_gap_between_blocks),
        cmocka_unit_test(test_check_names_uncoalesced_free_neighbours),
        cmocka_unit_test(test_check_names_a_live_block_missing_from_the_hash),
        cmocka_unit_test(test_check_names_a_cleared_start_bit),
        cmocka_unit_test(test_check_names_blocks_that_stop_short_of_the_end),
        cmocka_unit_test(test_check_names_wrong_counters),
        cmocka_unit_test(test_check_names_a_bitmap_bit_without_a_list),
        cmocka_unit_test(test_check_names_a_wrong_quick_count),
        cmocka_unit_test(test_check_names_a_hash_entry_off_its_probe_chain),
        cmocka_unit_test(test_check_and_lookups_of_no_heap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
