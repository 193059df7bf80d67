/*
 * tests/sim/test_vaspace.c - cmocka suite for sim/vaspace (the simulated device
 * address space).
 *
 * Covers base placement and alignment, span round trips across a 1 GiB chunk
 * boundary, zero-fill and discard, reservation, sparseness (RSS of a 144 GiB
 * space after touching 4 KiB), that a host dereference of a device address dies
 * with SIGSEGV (checked in a forked child), and the fallback placements (hint
 * taken; address space too small for one big reservation -> chunked mode).
 * Runs natively and under valgrind (children that fault are expected to).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/vaspace.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND_H 1
#endif
#endif

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define TiB ((uint64_t)1 << 40)
#define HINT UINT64_C(0x124000000000)

/* ---------------------------------------------------------------- helpers */

static void write_dev(struct sim_vaspace *vs, uint64_t dev, const unsigned char *src,
                      uint64_t len)
{
    while (len > 0) {
        uint64_t n = 0;
        unsigned char *p = sim_vaspace_span(vs, dev, len, &n);
        assert_non_null(p);
        assert_true(n > 0 && n <= len);
        memcpy(p, src, (size_t)n);
        dev += n;
        src += n;
        len -= n;
    }
}

static void read_dev(struct sim_vaspace *vs, uint64_t dev, unsigned char *dst, uint64_t len)
{
    while (len > 0) {
        uint64_t n = 0;
        const unsigned char *p = sim_vaspace_span(vs, dev, len, &n);
        assert_non_null(p);
        assert_true(n > 0 && n <= len);
        memcpy(dst, p, (size_t)n);
        dev += n;
        dst += n;
        len -= n;
    }
}

static long resident_pages(void)
{
    char buf[128];
    long size = 0, res = -1;
    int fd = open("/proc/self/statm", O_RDONLY);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (sscanf(buf, "%ld %ld", &size, &res) != 2)
        return -1;
    return res;
}

/* Set in a forked child only: the address its read is expected to fault at. */
static uint64_t fault_expect;

/* Child's SIGSEGV handler: accept only a kernel fault on a mapped-but-inaccessible
 * page (the PROT_NONE device view) at the expected address, then die of SIGSEGV
 * with the default action.  Re-raising (instead of letting the kernel fault kill
 * the child) keeps valgrind from printing a crash report for the expected death. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
#ifdef HAVE_VALGRIND_H
    VALGRIND_ENABLE_ERROR_REPORTING;
#endif
    if (si->si_code != SEGV_ACCERR || (uint64_t)(uintptr_t)si->si_addr != fault_expect)
        _exit(12);
    raise(sig); /* SA_RESETHAND: default action now */
    _exit(13);
}

/* Fork a child that reads the byte at host address dev; 1 if it died of SIGSEGV
 * caused by that read hitting a PROT_NONE mapping.  No cmocka asserts: also used
 * from forked children. */
static int deref_faults(uint64_t dev)
{
    pid_t pid;
    int st = 0;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        volatile const unsigned char *p = (volatile const unsigned char *)(uintptr_t)dev;
        struct rlimit rl = {0, 0};
        struct sigaction sa;

        setrlimit(RLIMIT_CORE, &rl); /* no core file (nor vgcore) for the expected crash */
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_segv;
        sa.sa_flags = (int)(SA_SIGINFO | SA_RESETHAND | SA_NODEFER);
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL); /* also replaces cmocka's handler */
        fault_expect = dev;
#ifdef HAVE_VALGRIND_H
        VALGRIND_DISABLE_ERROR_REPORTING; /* memcheck would flag the invalid read */
#endif
        _exit(*p == 0 ? 10 : 11); /* reached only if the read did not fault */
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 0;
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

/* ------------------------------------------------------------------ tests */

static void test_create_rejects_zero_size(void **state)
{
    (void)state;
    assert_null(sim_vaspace_create(0));
    sim_vaspace_destroy(NULL);
}

static void test_base_is_gib_aligned_device_va(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(GiB + 1);
    uint64_t base;

    (void)state;
    assert_non_null(vs);
    base = sim_vaspace_base(vs);
    assert_true(base != 0 && base % GiB == 0);
    assert_true(sim_vaspace_size(vs) == 2 * GiB);
    print_message("vaspace base %#llx\n", (unsigned long long)base);
    sim_vaspace_destroy(vs);
}

static void test_two_spaces_do_not_overlap(void **state)
{
    struct sim_vaspace *a = sim_vaspace_create(144 * GiB), *b = sim_vaspace_create(144 * GiB);
    uint64_t ab, bb;

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    ab = sim_vaspace_base(a);
    bb = sim_vaspace_base(b);
    assert_true(ab + 144 * GiB <= bb || bb + 144 * GiB <= ab);
    sim_vaspace_destroy(a);
    sim_vaspace_destroy(b);
}

static void test_span_avail_clipped_to_len(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(4 * GiB);
    uint64_t base = sim_vaspace_base(vs), n = 0;
    unsigned char *p;

    (void)state;
    p = sim_vaspace_span(vs, base + 5, 100, &n);
    assert_non_null(p);
    assert_true(n == 100);
    /* the alias is a separate mapping, not the device address itself */
    assert_true((uint64_t)(uintptr_t)p < base || (uint64_t)(uintptr_t)p >= base + 4 * GiB);
    p = sim_vaspace_span(vs, base + 4 * GiB - 10, 10, &n);
    assert_non_null(p);
    assert_true(n == 10);
    sim_vaspace_destroy(vs);
}

static void test_span_outside_space_returns_null(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(GiB);
    uint64_t base = sim_vaspace_base(vs), n = 5;

    (void)state;
    assert_null(sim_vaspace_span(vs, base - 1, 1, &n));
    assert_true(n == 0);
    assert_null(sim_vaspace_span(vs, base + GiB, 1, &n));
    sim_vaspace_destroy(vs);
}

static void test_span_round_trip_across_chunk_boundary(void **state)
{
    enum { LEN = 3 * 4096 + 123 };
    struct sim_vaspace *vs = sim_vaspace_create(4 * GiB);
    uint64_t base = sim_vaspace_base(vs), dev = base + GiB - 5000, n = 0;
    unsigned char *src = malloc(LEN), *dst = malloc(LEN), *p;
    size_t i;

    (void)state;
    assert_non_null(src);
    assert_non_null(dst);
    for (i = 0; i < LEN; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    p = sim_vaspace_span(vs, dev, LEN, &n);
    assert_non_null(p);
    assert_true(n == 5000); /* contiguous only up to the chunk boundary */
    write_dev(vs, dev, src, LEN);
    memset(dst, 0, LEN);
    read_dev(vs, dev, dst, LEN);
    assert_memory_equal(src, dst, LEN);
    /* read back at a different split point */
    memset(dst, 0, LEN);
    read_dev(vs, dev + 4999, dst, 2);
    assert_true(dst[0] == src[4999] && dst[1] == src[5000]);
    /* a second space does not share bytes with the first */
    {
        struct sim_vaspace *other = sim_vaspace_create(4 * GiB);
        uint64_t ob = sim_vaspace_base(other);
        read_dev(other, ob + GiB - 5000, dst, LEN);
        for (i = 0; i < LEN; i++)
            assert_int_equal(dst[i], 0);
        sim_vaspace_destroy(other);
    }
    free(src);
    free(dst);
    sim_vaspace_destroy(vs);
}

static void test_untouched_bytes_read_zero(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(8 * GiB);
    uint64_t base = sim_vaspace_base(vs);
    unsigned char buf[256];
    size_t i;

    (void)state;
    memset(buf, 0xee, sizeof(buf));
    read_dev(vs, base + 7 * GiB + 12345, buf, sizeof(buf));
    for (i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0);
    sim_vaspace_destroy(vs);
}

struct span_job {
    struct sim_vaspace *vs;
    uint64_t dev;
    unsigned char val;
    int ok;
};

static void *span_worker(void *arg)
{
    struct span_job *j = arg;
    uint64_t n = 0;
    unsigned char *p = sim_vaspace_span(j->vs, j->dev, 4096, &n);

    j->ok = p != NULL && n == 4096;
    if (j->ok)
        memset(p, j->val, 4096);
    return NULL;
}

static void test_concurrent_first_span_of_a_chunk(void **state)
{
    enum { T = 4 };
    struct sim_vaspace *vs = sim_vaspace_create(4 * GiB);
    uint64_t base = sim_vaspace_base(vs);
    struct span_job job[T];
    pthread_t tid[T];
    unsigned char buf[4096];
    int i;
    size_t b;

    (void)state;
    for (i = 0; i < T; i++) {
        job[i] = (struct span_job){vs, base + 2 * GiB + (uint64_t)i * 8192,
                                   (unsigned char)(i + 1), 0};
        assert_int_equal(pthread_create(&tid[i], NULL, span_worker, &job[i]), 0);
    }
    for (i = 0; i < T; i++) {
        assert_int_equal(pthread_join(tid[i], NULL), 0);
        assert_true(job[i].ok);
    }
    /* every thread's bytes landed in the one alias that won the race */
    for (i = 0; i < T; i++) {
        read_dev(vs, job[i].dev, buf, sizeof(buf));
        for (b = 0; b < sizeof(buf); b++)
            assert_int_equal(buf[b], i + 1);
    }
    sim_vaspace_destroy(vs);
}

static void test_discard_drops_whole_pages_only(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(GiB);
    uint64_t base = sim_vaspace_base(vs), pg = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t len = 5 * pg, i;
    unsigned char *buf = malloc((size_t)len);

    (void)state;
    assert_non_null(buf);
    memset(buf, 0xab, (size_t)len);
    write_dev(vs, base, buf, len);
    sim_vaspace_discard(vs, base + 100, 3 * pg); /* whole pages inside: [pg, 3pg) */
    memset(buf, 0, (size_t)len);
    read_dev(vs, base, buf, len);
    for (i = 0; i < len; i++) {
        int dropped = i >= pg && i < 3 * pg;
        assert_int_equal(buf[i], dropped ? 0 : 0xab);
    }
    /* out-of-range parts and never-spanned chunks are ignored */
    sim_vaspace_discard(vs, base - 4 * pg, 2 * pg);
    sim_vaspace_discard(vs, base + GiB - pg, 10 * pg);
    sim_vaspace_discard(vs, base, 0);
    free(buf);
    sim_vaspace_destroy(vs);
}

static void test_reserve_ranges(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(8 * GiB);
    uint64_t base = sim_vaspace_base(vs);

    (void)state;
    assert_int_equal(sim_vaspace_reserve(vs, base, 8 * GiB), 0);
    assert_int_equal(sim_vaspace_reserve(vs, base + 3 * GiB - 64, 128), 0);
    assert_int_equal(sim_vaspace_reserve(vs, base + 5 * GiB, 0), 0);
    assert_int_equal(sim_vaspace_reserve(vs, base + 8 * GiB, 64), -1);
    assert_int_equal(sim_vaspace_reserve(vs, base + 7 * GiB, 2 * GiB), -1);
    sim_vaspace_destroy(vs);
}

/* RSS allowance: 1 MiB natively.  Under valgrind, memcheck additionally keeps
 * ~1.3 MiB of its own bookkeeping per 1 GiB device chunk claimed above 128 GiB
 * (two chunks here: the first at create, the touched one); that is the tool's
 * overhead, not simulated memory. */
static long rss_allowance(void)
{
#ifdef HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        return (long)(4 * MiB);
#endif
    return (long)MiB;
}

static void test_sparse_rss_144gib(void **state)
{
    struct sim_vaspace *vs;
    unsigned char buf[4096];
    long before, after, pg = sysconf(_SC_PAGESIZE);
    uint64_t base;
    int ok;

    (void)state;
    memset(buf, 0x5a, sizeof(buf));
    before = resident_pages();
    vs = sim_vaspace_create(144 * GiB);
    assert_non_null(vs);
    base = sim_vaspace_base(vs);
    ok = sim_vaspace_reserve(vs, base + 100 * GiB, 4096) == 0;
    write_dev(vs, base + 100 * GiB + 8192, buf, sizeof(buf));
    memset(buf, 0, sizeof(buf));
    read_dev(vs, base + 100 * GiB + 8192, buf, sizeof(buf));
    after = resident_pages();
    sim_vaspace_destroy(vs);
    assert_true(ok);
    assert_int_equal(buf[4095], 0x5a);
    assert_true(before > 0 && after > 0);
    print_message("rss growth for a 144 GiB space with 4 KiB touched: %ld KiB\n",
                  (after - before) * pg / 1024);
    assert_true((after - before) * pg < rss_allowance());
}

static void test_host_deref_of_device_address_faults(void **state)
{
    struct sim_vaspace *vs = sim_vaspace_create(144 * GiB);
    uint64_t base = sim_vaspace_base(vs), dev = base + 70 * GiB + 4096;
    unsigned char one = 1;

    (void)state;
    /* write through the alias: the device address itself must still fault */
    assert_int_equal(sim_vaspace_reserve(vs, base, 4096), 0);
    write_dev(vs, base + 64, &one, 1);
    assert_true(deref_faults(base + 64));
    assert_int_equal(sim_vaspace_reserve(vs, dev, 64 * MiB), 0);
    write_dev(vs, dev, &one, 1);
    assert_true(deref_faults(dev));
    assert_true(deref_faults(dev + 64 * MiB - 1));
    sim_vaspace_destroy(vs);
}

static void test_fallback_when_hint_is_taken(void **state)
{
    void *block[8];
    struct sim_vaspace *vs;
    uint64_t base;
    unsigned char v = 42;
    int i;

    (void)state;
    for (i = 0; i < 8; i++) {
        void *want = (void *)(uintptr_t)(HINT + (uint64_t)i * TiB);
        block[i] = mmap(want, 4096, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    }
    vs = sim_vaspace_create(4 * GiB);
    assert_non_null(vs);
    base = sim_vaspace_base(vs);
    assert_true(base % GiB == 0);
    for (i = 0; i < 8; i++) {
        uint64_t h = HINT + (uint64_t)i * TiB;
        assert_true(h + 4096 <= base || base + 4 * GiB <= h);
    }
    assert_int_equal(sim_vaspace_reserve(vs, base + 3 * GiB, 64), 0);
    write_dev(vs, base + 3 * GiB, &v, 1);
    v = 0;
    read_dev(vs, base + 3 * GiB, &v, 1);
    assert_int_equal(v, 42);
    assert_true(deref_faults(base + 3 * GiB));
    sim_vaspace_destroy(vs);
    for (i = 0; i < 8; i++) {
        if (block[i] != MAP_FAILED)
            munmap(block[i], 4096);
    }
}

static long vm_size_bytes(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* Keeps the chunked child's space reachable while its grandchildren die. */
static struct sim_vaspace *child_vs;

/* Child body: 0 = pass, 77 = limit not effective (inconclusive), other = failure. */
static int chunked_mode_child(void)
{
    struct rlimit rl;
    struct sim_vaspace *vs;
    uint64_t base, dev, n = 0;
    unsigned char *p;
    void *probe;
    long vm = vm_size_bytes();

    if (vm < 0)
        return 1;
    rl.rlim_cur = rl.rlim_max = (rlim_t)vm + (rlim_t)(7 * GiB);
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 2;
    probe = mmap(NULL, (size_t)(16 * GiB), PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe != MAP_FAILED)
        return 77;
    vs = child_vs = sim_vaspace_create(144 * GiB); /* cannot be reserved in one piece */
    if (vs == NULL)
        return 3;
    base = sim_vaspace_base(vs);
    if (base % GiB != 0)
        return 4;
    dev = base + 100 * GiB;
    if (sim_vaspace_reserve(vs, dev, 4096) != 0) /* a lazily claimed chunk */
        return 5;
    p = sim_vaspace_span(vs, dev, 4096, &n);
    if (p == NULL || n != 4096)
        return 6;
    p[17] = 99;
    p = sim_vaspace_span(vs, dev + 17, 1, &n);
    if (p == NULL || *p != 99)
        return 7;
    if (!deref_faults(dev + 17) || !deref_faults(base + 64))
        return 8;
    p = sim_vaspace_span(vs, base + 2 * GiB, 1, &n); /* a chunk of the up-front prefix */
    if (p == NULL || *p != 0)
        return 9;
    *p = 1;
    if (!deref_faults(base + 2 * GiB))
        return 10;
    sim_vaspace_destroy(vs);
    return 0;
}

static void test_chunked_mode_when_address_space_is_limited(void **state)
{
    pid_t pid;
    int st = 0;

    (void)state;
#ifdef HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND) {
        /* RLIMIT_AS starves valgrind itself; and under valgrind every other test
         * already runs the space in lazily claimed chunks */
        print_message("under valgrind: skipped\n");
        skip();
    }
#endif
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        _exit(chunked_mode_child());
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        print_message("RLIMIT_AS not effective here; chunked mode not exercised\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_zero_size),
        cmocka_unit_test(test_base_is_gib_aligned_device_va),
        cmocka_unit_test(test_two_spaces_do_not_overlap),
        cmocka_unit_test(test_span_avail_clipped_to_len),
        cmocka_unit_test(test_span_outside_space_returns_null),
        cmocka_unit_test(test_span_round_trip_across_chunk_boundary),
        cmocka_unit_test(test_untouched_bytes_read_zero),
        cmocka_unit_test(test_discard_drops_whole_pages_only),
        cmocka_unit_test(test_reserve_ranges),
        cmocka_unit_test(test_sparse_rss_144gib),
        cmocka_unit_test(test_host_deref_of_device_address_faults),
        cmocka_unit_test(test_fallback_when_hint_is_taken),
        cmocka_unit_test(test_chunked_mode_when_address_space_is_limited),
        /* last: under valgrind, children forked after threads ran would report
         * glibc's cached thread stacks as "possibly lost" when they die */
        cmocka_unit_test(test_concurrent_first_span_of_a_chunk),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
