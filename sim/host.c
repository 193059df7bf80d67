/*
 * host.c - page-locked ("pinned") host memory, as aclrtMallocHost hands out,
 * host memory the program registered (aclrtHostRegister(V2)) and managed
 * (UVM) memory (aclrtMemAllocManaged).
 *
 * The simulator cannot pin pages, but it must know which host ranges came
 * from aclrtMallocHost: aclrtFreeHost rejects anything else, and copies
 * from pinned memory are the ones that run asynchronously; registered
 * ranges count as pinned too. Managed memory is host memory both sides
 * reach, kept with the advice given for each of its 2 MiB pages. Blocks
 * of every kind are kept in one array sorted by address, never
 * overlapping (binary search for containment); such buffers are few and
 * long-lived, so inserts moving the tail are fine.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mem.h"
#include "fault/fault.h"
#include "sim.h"

/* One UVM page's advice (managed memory). */
struct uvm_page {
    uint64_t accessed_by; /* bit d: device d; bit 63: the host */
    int32_t pref_id, last_id;
    int8_t pref_type, last_type; /* ACL_MEM_LOCATIONTYPE_* values, 0: none */
    bool read_mostly;
};

/* A block's start is kept with its top bits flipped, so that Valgrind's leak
 * check does not take the table for a pointer to the block: pinned memory
 * outlives the runtime (the program may free it after aclFinalize), and
 * a block the program lost must still show as definitely lost. Addresses
 * have those bits clear, so the order of the table is the order of the
 * starts. */
#define HIDE_BITS ((uintptr_t)((uint64_t)0xa5a5 << 48))
#define START(b) ((b).start_hidden ^ HIDE_BITS)

struct hblock {
    uintptr_t start_hidden;
    size_t size;
    bool abandoned; /* the program's free failed: freed at forget_all */
    uint8_t kind;   /* SIM_HOST_PINNED, _REGISTERED or _MANAGED */
    bool mapped;    /* registered: devices reach it (aclrtHostGetDevicePointer) */
    struct uvm_page *pages; /* managed: one per 2 MiB */
    uint64_t gen;           /* which block this is: none before had the number */
};

static struct {
    pthread_mutex_t lock;
    struct hblock *v;
    size_t n, cap;
    uint64_t bytes, peak;
    uint64_t gens; /* blocks made so far */
} host = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Index of the first block starting above addr. pre: lock held. */
static size_t upper(uintptr_t addr)
{
    size_t lo = 0, hi = host.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (START(host.v[mid]) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether size is more than the machine has: such a request cannot be
 * pinned, and is refused before the C library is asked (under
 * AddressSanitizer, asking would abort the program). */
static bool beyond_ram(size_t size)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 && size / (size_t)page >= (size_t)pages;
}

enum sim_rc sim_host_alloc(size_t size, void **ptr)
{
    if (FLT_HIT(SIM_HOST_ALLOC) || beyond_ram(size))
        return SIM_ENOMEM;
    /* Host memory that cannot be had is memory that cannot be pinned. */
    void *p = base_aligned(64, size);
    if (!p)
        return SIM_ENOMEM;
    pthread_mutex_lock(&host.lock);
    if (host.n == host.cap) {
        size_t cap = host.cap ? host.cap * 2 : 16;
        struct hblock *v = base_realloc(host.v, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&host.lock);
            base_free(p);
            return SIM_EHOSTMEM;
        }
        host.v = v;
        host.cap = cap;
    }
    size_t at = upper((uintptr_t)p);
    memmove(&host.v[at + 1], &host.v[at], (host.n - at) * sizeof *host.v);
    host.v[at] = (struct hblock){(uintptr_t)p ^ HIDE_BITS, size, false, SIM_HOST_PINNED, false, NULL,
                                 ++host.gens};
    host.n++;
    host.bytes += size;
    if (host.bytes > host.peak)
        host.peak = host.bytes;
    pthread_mutex_unlock(&host.lock);
    *ptr = p;
    return SIM_OK;
}

/* Frees and unregistrations of known host ranges so far (sim_mem_frees:
 * a replay's view of host memory found live stays so while it stays). */
static _Atomic uint64_t host_frees;

uint64_t sim_host_frees(void)
{
    return atomic_load_explicit(&host_frees, memory_order_relaxed);
}

enum sim_rc sim_host_free(void *ptr)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    if (at == 0 || START(host.v[at - 1]) != (uintptr_t)ptr ||
        host.v[at - 1].kind != SIM_HOST_PINNED) {
        pthread_mutex_unlock(&host.lock);
        return SIM_EINVAL;
    }
    at--;
    host.bytes -= host.v[at].size;
    memmove(&host.v[at], &host.v[at + 1], (host.n - at - 1) * sizeof *host.v);
    host.n--;
    atomic_fetch_add_explicit(&host_frees, 1, memory_order_relaxed);
    pthread_mutex_unlock(&host.lock);
    base_free(ptr);
    return SIM_OK;
}

bool sim_host_lookup(const void *ptr, void **start, size_t *size)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    bool hit = at > 0 && (uintptr_t)ptr - START(host.v[at - 1]) < host.v[at - 1].size &&
               host.v[at - 1].kind == SIM_HOST_PINNED;
    if (hit) {
        *start = (void *)START(host.v[at - 1]);
        *size = host.v[at - 1].size;
    }
    pthread_mutex_unlock(&host.lock);
    return hit;
}

void sim_host_abandon(void *ptr, bool managed)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    if (at > 0 && START(host.v[at - 1]) == (uintptr_t)ptr &&
        host.v[at - 1].kind == (managed ? SIM_HOST_MANAGED : SIM_HOST_PINNED))
        host.v[at - 1].abandoned = true;
    pthread_mutex_unlock(&host.lock);
}

void sim_host_forget_all(void)
{
    pthread_mutex_lock(&host.lock);
    size_t kept = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < host.n; i++) {
        struct hblock *b = &host.v[i];
        if (b->kind == SIM_HOST_PINNED && !b->abandoned) {
            /* Pinned memory belongs to no device and outlives the runtime:
             * aclrtFreeHost takes it back later (hicann/runtime
             * src/runtime/api/impl/api_impl.cc:2512-2536 asks for neither
             * a context nor a device; npu_driver_mem.cc:838-862 allocates
             * it as host memory). Kept in order: the table stays sorted. */
            host.v[kept++] = *b;
            bytes += b->size;
            continue;
        }
        if (b->abandoned)
            base_free((void *)START(*b));
        base_free(b->pages); /* the library's own; the memory stays the program's */
    }
    host.n = kept;
    host.bytes = bytes;
    if (kept == 0) {
        base_free(host.v);
        host.v = NULL;
        host.cap = 0;
    }
    pthread_mutex_unlock(&host.lock);
}

void sim_host_usage(uint64_t *cur, uint64_t *peak)
{
    pthread_mutex_lock(&host.lock);
    *cur = host.bytes;
    *peak = host.peak;
    pthread_mutex_unlock(&host.lock);
}

/* ---- registered and managed memory ---- */

#define UVM_PAGE (2ull << 20)

/* Whether [start, start + size) overlaps a block. pre: lock held. */
static bool overlaps(uintptr_t start, size_t size)
{
    size_t at = upper(start);
    if (at > 0 && start - START(host.v[at - 1]) < host.v[at - 1].size)
        return true;
    return at < host.n && START(host.v[at]) - start < size;
}

/* Insert a block (lock held). SIM_EHOSTMEM when the table cannot grow. */
static enum sim_rc insert(const struct hblock *b)
{
    if (host.n == host.cap) {
        size_t cap = host.cap ? host.cap * 2 : 16;
        struct hblock *v = base_realloc(host.v, cap * sizeof *v);
        if (!v)
            return SIM_EHOSTMEM;
        host.v = v;
        host.cap = cap;
    }
    size_t at = upper(START(*b));
    memmove(&host.v[at + 1], &host.v[at], (host.n - at) * sizeof *host.v);
    host.v[at] = *b;
    host.v[at].gen = ++host.gens;
    host.n++;
    return SIM_OK;
}

/* Remove the block at index at (lock held). */
static void erase(size_t at)
{
    atomic_fetch_add_explicit(&host_frees, 1, memory_order_relaxed);
    memmove(&host.v[at], &host.v[at + 1], (host.n - at - 1) * sizeof *host.v);
    host.n--;
}

/* Index of the block of `kind` starting at ptr, or host.n. pre: lock held. */
static size_t base_of(const void *ptr, uint8_t kind)
{
    size_t at = upper((uintptr_t)ptr);
    return at > 0 && START(host.v[at - 1]) == (uintptr_t)ptr && host.v[at - 1].kind == kind
               ? at - 1
               : host.n;
}

enum sim_rc sim_host_register(void *ptr, size_t size, bool mapped)
{
    if (size == 0 || (uintptr_t)ptr > UINTPTR_MAX - size)
        return SIM_EINVAL;
    pthread_mutex_lock(&host.lock);
    enum sim_rc rc = SIM_EINVAL;
    if (!overlaps((uintptr_t)ptr, size))
        rc = insert(&(struct hblock){(uintptr_t)ptr ^ HIDE_BITS, size, false, SIM_HOST_REGISTERED, mapped,
                                     NULL, 0});
    pthread_mutex_unlock(&host.lock);
    return rc;
}

enum sim_rc sim_host_unregister(void *ptr)
{
    pthread_mutex_lock(&host.lock);
    size_t at = base_of(ptr, SIM_HOST_REGISTERED);
    bool found = at < host.n;
    if (found)
        erase(at);
    pthread_mutex_unlock(&host.lock);
    return found ? SIM_OK : SIM_EINVAL;
}

bool sim_host_find(const void *ptr, struct sim_host_block *out)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    bool hit = at > 0 && (uintptr_t)ptr - START(host.v[at - 1]) < host.v[at - 1].size;
    if (hit)
        *out = (struct sim_host_block){(void *)START(host.v[at - 1]), host.v[at - 1].size,
                                       host.v[at - 1].kind, host.v[at - 1].mapped,
                                       host.v[at - 1].gen};
    pthread_mutex_unlock(&host.lock);
    return hit;
}

enum sim_rc sim_managed_alloc(uint64_t size, void **ptr)
{
    if (size > UINT64_MAX - (UVM_PAGE - 1))
        return SIM_ENOMEM;
    uint64_t rounded = (size + UVM_PAGE - 1) & ~(UVM_PAGE - 1);
    if (FLT_HIT(SIM_HOST_ALLOC) || rounded > SIZE_MAX || beyond_ram((size_t)rounded))
        return SIM_ENOMEM;
    struct uvm_page *pages = base_calloc((size_t)(rounded / UVM_PAGE), sizeof *pages);
    if (!pages)
        return SIM_EHOSTMEM;
    void *p = base_aligned(4096, (size_t)rounded);
    if (!p) {
        base_free(pages);
        return SIM_ENOMEM;
    }
    pthread_mutex_lock(&host.lock);
    enum sim_rc rc = insert(&(struct hblock){(uintptr_t)p ^ HIDE_BITS, (size_t)rounded, false,
                                             SIM_HOST_MANAGED, false, pages, 0});
    pthread_mutex_unlock(&host.lock);
    if (rc != SIM_OK) {
        base_free(p);
        base_free(pages);
        return rc;
    }
    *ptr = p;
    return SIM_OK;
}

enum sim_rc sim_managed_free(void *ptr)
{
    pthread_mutex_lock(&host.lock);
    size_t at = base_of(ptr, SIM_HOST_MANAGED);
    struct uvm_page *pages = NULL;
    bool found = at < host.n;
    if (found) {
        pages = host.v[at].pages;
        erase(at);
    }
    pthread_mutex_unlock(&host.lock);
    if (!found)
        return SIM_EINVAL;
    base_free(pages);
    base_free(ptr);
    return SIM_OK;
}

/* The managed block holding all of [ptr, ptr+size) and the range of its
 * pages [*first, *last] (lock held), or NULL. */
static struct hblock *managed_range(const void *ptr, uint64_t size, size_t *first, size_t *last)
{
    size_t at = upper((uintptr_t)ptr);
    if (at == 0 || size == 0)
        return NULL;
    struct hblock *b = &host.v[at - 1];
    uint64_t off = (uintptr_t)ptr - START(*b);
    if (b->kind != SIM_HOST_MANAGED || off >= b->size || size > b->size - off)
        return NULL;
    *first = (size_t)(off / UVM_PAGE);
    *last = (size_t)((off + size - 1) / UVM_PAGE);
    return b;
}

enum sim_rc sim_managed_advise(const void *ptr, uint64_t size, int advise, int loc_type,
                               int32_t loc_id)
{
    pthread_mutex_lock(&host.lock);
    size_t first, last;
    struct hblock *b = managed_range(ptr, size, &first, &last);
    if (b) {
        /* the host is bit 63; a device its id */
        uint64_t who = loc_type == SIM_UVM_DEVICE ? UINT64_C(1) << (loc_id & 63)
                                                  : UINT64_C(1) << 63;
        for (size_t i = first; i <= last; i++) {
            struct uvm_page *pg = &b->pages[i];
            switch (advise) {
            case SIM_UVM_SET_READ_MOSTLY:
            case SIM_UVM_UNSET_READ_MOSTLY:
                pg->read_mostly = advise == SIM_UVM_SET_READ_MOSTLY;
                break;
            case SIM_UVM_SET_PREFERRED:
                pg->pref_type = (int8_t)loc_type;
                pg->pref_id = loc_id;
                break;
            case SIM_UVM_UNSET_PREFERRED:
                pg->pref_type = 0;
                pg->pref_id = 0;
                break;
            case SIM_UVM_SET_ACCESSED_BY:
                pg->accessed_by |= who;
                break;
            default:
                pg->accessed_by &= ~who;
                break;
            }
        }
    }
    pthread_mutex_unlock(&host.lock);
    return b ? SIM_OK : SIM_EINVAL;
}

enum sim_rc sim_managed_prefetched(const void *ptr, uint64_t size, int loc_type, int32_t loc_id)
{
    pthread_mutex_lock(&host.lock);
    size_t first, last;
    struct hblock *b = managed_range(ptr, size, &first, &last);
    for (size_t i = first; b && i <= last; i++) {
        b->pages[i].last_type = (int8_t)loc_type;
        b->pages[i].last_id = loc_id;
    }
    pthread_mutex_unlock(&host.lock);
    return b ? SIM_OK : SIM_EINVAL;
}

enum sim_rc sim_managed_query(const void *ptr, uint64_t size, struct sim_uvm_advice *out)
{
    pthread_mutex_lock(&host.lock);
    size_t first, last;
    struct hblock *b = managed_range(ptr, size, &first, &last);
    if (b) {
        const struct uvm_page *p0 = &b->pages[first];
        *out = (struct sim_uvm_advice){.read_mostly = true, .pref_type = p0->pref_type,
                                       .pref_id = p0->pref_id, .last_type = p0->last_type,
                                       .last_id = p0->last_id, .accessed_by = ~UINT64_C(0)};
        for (size_t i = first; i <= last; i++) {
            const struct uvm_page *pg = &b->pages[i];
            out->read_mostly = out->read_mostly && pg->read_mostly;
            out->accessed_by &= pg->accessed_by;
            if (pg->pref_type != out->pref_type || pg->pref_id != out->pref_id)
                out->pref_type = SIM_UVM_MIXED;
            if (pg->last_type != out->last_type || pg->last_id != out->last_id)
                out->last_type = SIM_UVM_MIXED;
        }
    }
    pthread_mutex_unlock(&host.lock);
    return b ? SIM_OK : SIM_EINVAL;
}
