/*
 * sim/vaspace.c - simulated device address space: a PROT_NONE device view plus a
 * lazily mapped read/write host alias, both MAP_NORESERVE and chunked by 1 GiB.
 * See sim/vaspace.h for the reservation strategy.
 */
#include "base/mem.h"
#include "vaspace.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under valgrind (memcheck), a huge PROT_NONE mapping above 128 GiB costs one
 * shadow entry per 64 KiB (184 MiB and 0.6 s for 144 GiB), so there the device
 * view is claimed lazily, chunk by chunk (track.h tells, through valgrind's
 * header-only client requests: a few no-op instructions natively). */
#include "track.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define CHUNK_SHIFT 30u
#define CHUNK ((uint64_t)1 << CHUNK_SHIFT)
_Static_assert(CHUNK == SIM_VASPACE_CHUNK, "vaspace.h promises 1 GiB pieces");
#define HINT UINT64_C(0x124000000000)
#define HINT_TRIES 16u
#define HINT_STEP (UINT64_C(1) << 40)   /* hints: 1 TiB apart (or size rounded up) */
#define MAX_PREFIX (UINT64_C(16) << 30) /* chunked mode: up-front reservation */
#define MAP_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

#define BASE_HIDE (UINT64_C(1) << 63)
#define BASE(vs) ((vs)->base_hidden ^ BASE_HIDE)

struct sim_vaspace {
    /* device address of byte 0, multiple of CHUNK, kept with its top bit
     * flipped (BASE(vs)): a plain copy would point at the block starting
     * there, which memcheck then could never call lost (track.h) */
    uint64_t base_hidden;
    uint64_t size;          /* multiple of CHUNK */
    uint64_t nchunks;
    uint64_t page;          /* host page size */
    unsigned char *claimed; /* per chunk: the PROT_NONE device view is ours */
    int whole;              /* every chunk claimed at creation */
    _Atomic(unsigned char *) *alias; /* per chunk: RW alias mapping or NULL */
};

/* PROT_NONE reservation of exactly [addr, addr+len); 0 on success. */
static int reserve_at(uint64_t addr, uint64_t len)
{
    void *want = (void *)(uintptr_t)addr;
    void *p = mmap(want, (size_t)len, PROT_NONE, MAP_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p == MAP_FAILED)
        return -1;
    if (p != want) { /* kernel without MAP_FIXED_NOREPLACE took it as a hint */
        munmap(p, (size_t)len);
        return -1;
    }
    return 0;
}

/* PROT_NONE reservation of len bytes anywhere, CHUNK-aligned; 0 and *addr. */
static int reserve_anywhere(uint64_t len, uint64_t *addr)
{
    void *p;
    uint64_t lo, al, hi;

    if (len + CHUNK < len)
        return -1;
    p = mmap(NULL, (size_t)(len + CHUNK), PROT_NONE, MAP_FLAGS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    lo = (uint64_t)(uintptr_t)p;
    al = (lo + CHUNK - 1) & ~(CHUNK - 1);
    hi = lo + len + CHUNK;
    if (al > lo)
        munmap(p, (size_t)(al - lo));
    if (hi > al + len)
        munmap((void *)(uintptr_t)(al + len), (size_t)(hi - al - len));
    *addr = al;
    return 0;
}

static void claim_range(struct sim_vaspace *vs, uint64_t first, uint64_t n)
{
    uint64_t k;

    for (k = first; k < first + n; k++)
        vs->claimed[k] = 1;
}

/* Reserve len bytes at one of the fixed hints: 0 and BASE(vs) set, else -1. */
static int reserve_hinted(struct sim_vaspace *vs, uint64_t len)
{
    uint64_t i, step = (vs->size + HINT_STEP - 1) & ~(HINT_STEP - 1);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer keeps its shadow where the hints point and aborts on
     * a fixed mapping there: let the kernel place the range instead. */
    (void)i, (void)step, (void)vs, (void)len;
    return -1;
#endif

    for (i = 0; i < HINT_TRIES; i++) {
        if (reserve_at(HINT + i * step, len) == 0) {
            vs->base_hidden = (HINT + i * step) ^ BASE_HIDE;
            return 0;
        }
    }
    return -1;
}

static int on_valgrind(void)
{
    return sim_track_active(); /* track.h: 0 without valgrind's headers */
}

/* reserve_anywhere into vs's hidden base. */
static int reserve_anywhere_vs(struct sim_vaspace *vs, uint64_t len)
{
    uint64_t at = 0;
    if (reserve_anywhere(len, &at) != 0)
        return -1;
    vs->base_hidden = at ^ BASE_HIDE;
    return 0;
}

static int place(struct sim_vaspace *vs)
{
    int lazy = on_valgrind();
    uint64_t len;

    /* 1. the whole range at a fixed, device-looking hint, else anywhere */
    if (!lazy && (reserve_hinted(vs, vs->size) == 0 ||
                  reserve_anywhere_vs(vs, vs->size) == 0)) {
        claim_range(vs, 0, vs->nchunks);
        vs->whole = 1;
        return 0;
    }
    /* 2. chunked: a prefix now (preferably at a hint: the addresses above it are
     *    likely free for the lazily claimed chunks), the other chunks on first use */
    len = vs->size / 2 < MAX_PREFIX ? vs->size / 2 : MAX_PREFIX;
    if (lazy)
        len = CHUNK;
    for (len &= ~(CHUNK - 1); len >= CHUNK; len = (len / 2) & ~(CHUNK - 1)) {
        if (reserve_hinted(vs, len) == 0 || reserve_anywhere_vs(vs, len) == 0) {
            claim_range(vs, 0, len >> CHUNK_SHIFT);
            return 0;
        }
    }
    return -1;
}

struct sim_vaspace *sim_vaspace_create(uint64_t size)
{
    struct sim_vaspace *vs;
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t k;

    if (size == 0 || size > (UINT64_C(1) << 47))
        return NULL;
    vs = base_calloc(1, sizeof(*vs));
    if (vs == NULL)
        return NULL;
    vs->size = (size + CHUNK - 1) & ~(CHUNK - 1);
    vs->nchunks = vs->size >> CHUNK_SHIFT;
    vs->page = pg > 0 ? (uint64_t)pg : 4096;
    vs->claimed = base_calloc((size_t)vs->nchunks, sizeof(*vs->claimed));
    vs->alias = base_malloc((size_t)vs->nchunks * sizeof(*vs->alias));
    if (vs->claimed == NULL || vs->alias == NULL || place(vs) != 0) {
        base_free(vs->claimed);
        base_free(vs->alias);
        base_free(vs);
        return NULL;
    }
    for (k = 0; k < vs->nchunks; k++)
        atomic_init(&vs->alias[k], NULL);
    return vs;
}

uint64_t sim_vaspace_base(const struct sim_vaspace *vs)
{
    return BASE(vs);
}

uint64_t sim_vaspace_size(const struct sim_vaspace *vs)
{
    return vs->size;
}

int sim_vaspace_whole(const struct sim_vaspace *vs)
{
    return vs->whole;
}

static int claim_chunk(struct sim_vaspace *vs, uint64_t k)
{
    if (!vs->claimed[k]) {
        if (reserve_at(BASE(vs) + (k << CHUNK_SHIFT), CHUNK) != 0)
            return -1;
        vs->claimed[k] = 1;
    }
    return 0;
}

void *sim_vaspace_span(struct sim_vaspace *vs, uint64_t dev, uint64_t len, uint64_t *avail)
{
    uint64_t off, k, in, n;
    unsigned char *a;

    *avail = 0;
    if (dev < BASE(vs) || dev - BASE(vs) >= vs->size)
        return NULL;
    off = dev - BASE(vs);
    k = off >> CHUNK_SHIFT;
    a = atomic_load_explicit(&vs->alias[k], memory_order_acquire);
    if (a == NULL) {
        /* first touch of the chunk: map it; a concurrent span may win the race */
        unsigned char *none = NULL;
        void *p = mmap(NULL, (size_t)CHUNK, PROT_READ | PROT_WRITE, MAP_FLAGS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        if (atomic_compare_exchange_strong_explicit(&vs->alias[k], &none, (unsigned char *)p,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire)) {
            a = p;
        } else {
            munmap(p, (size_t)CHUNK);
            a = none;
        }
    }
    in = off & (CHUNK - 1);
    n = CHUNK - in;
    *avail = len < n ? len : n;
    return a + in;
}

void sim_vaspace_discard(struct sim_vaspace *vs, uint64_t dev, uint64_t len)
{
    uint64_t end, off, k, in, n, lo, hi;
    unsigned char *a;

    if (dev < BASE(vs)) {
        len = len > BASE(vs) - dev ? len - (BASE(vs) - dev) : 0;
        dev = BASE(vs);
    }
    if (len == 0 || dev - BASE(vs) >= vs->size)
        return;
    off = dev - BASE(vs);
    end = len > vs->size - off ? vs->size : off + len;
    while (off < end) {
        k = off >> CHUNK_SHIFT;
        in = off & (CHUNK - 1);
        n = end - off < CHUNK - in ? end - off : CHUNK - in;
        lo = (in + vs->page - 1) & ~(vs->page - 1);
        hi = (in + n) & ~(vs->page - 1);
        a = atomic_load_explicit(&vs->alias[k], memory_order_acquire);
        if (a != NULL && hi > lo)
            madvise(a + lo, (size_t)(hi - lo), MADV_DONTNEED);
        off += n;
    }
}

int sim_vaspace_reserve(struct sim_vaspace *vs, uint64_t dev, uint64_t len)
{
    uint64_t k, last;
    int rc = 0;

    if (len == 0)
        return 0;
    if (dev < BASE(vs) || dev - BASE(vs) >= vs->size || len > vs->size - (dev - BASE(vs)))
        return -1;
    last = (dev - BASE(vs) + len - 1) >> CHUNK_SHIFT;
    for (k = (dev - BASE(vs)) >> CHUNK_SHIFT; k <= last; k++) {
        if (claim_chunk(vs, k) != 0)
            rc = -1;
    }
    return rc;
}

int sim_vaspace_share(struct sim_vaspace *vs, uint64_t dev, uint64_t len, int fd, uint64_t foff)
{
    uint64_t done = 0;
    while (done < len) {
        uint64_t n = 0;
        void *h = sim_vaspace_span(vs, dev + done, len - done, &n);
        if (!h || !n ||
            mmap(h, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                 (off_t)(foff + done)) == MAP_FAILED) {
            sim_vaspace_unshare(vs, dev, done, 0);
            return -1;
        }
        done += n;
    }
    return 0;
}

int sim_vaspace_unshare(struct sim_vaspace *vs, uint64_t dev, uint64_t len, int keep)
{
    uint64_t done = 0;
    int rc = 0;
    while (done < len) {
        uint64_t n = 0;
        void *h = sim_vaspace_span(vs, dev + done, len - done, &n);
        if (!h || !n)
            return -1;
        if (keep == SIM_VASPACE_HOLE) {
            munmap(h, (size_t)n);
            done += n;
            continue;
        }
        void *fresh = keep ? mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_FLAGS, -1, 0)
                           : MAP_FAILED;
        if (fresh != MAP_FAILED) {
            memcpy(fresh, h, (size_t)n);
            if (mremap(fresh, (size_t)n, (size_t)n, MREMAP_MAYMOVE | MREMAP_FIXED, h) == MAP_FAILED) {
                munmap(fresh, (size_t)n);
                fresh = MAP_FAILED;
            }
        }
        if (fresh == MAP_FAILED) {
            rc = keep ? -1 : 0;
            mmap(h, (size_t)n, PROT_READ | PROT_WRITE, MAP_FLAGS | MAP_FIXED, -1, 0);
        }
        done += n;
    }
    return rc;
}

void sim_vaspace_destroy(struct sim_vaspace *vs)
{
    uint64_t k;

    if (vs == NULL)
        return;
    for (k = 0; k < vs->nchunks; k++) {
        unsigned char *a = atomic_load_explicit(&vs->alias[k], memory_order_acquire);
        if (a != NULL)
            munmap(a, (size_t)CHUNK);
        if (vs->claimed[k])
            munmap((void *)(uintptr_t)(BASE(vs) + (k << CHUNK_SHIFT)), (size_t)CHUNK);
    }
    base_free(vs->claimed);
    base_free(vs->alias);
    base_free(vs);
}
