/*
 * host.c - page-locked ("pinned") host memory, as aclrtMallocHost hands out.
 *
 * The simulator cannot pin pages, but it must know which host ranges came
 * from aclrtMallocHost: aclrtFreeHost rejects anything else, and copies
 * from pinned memory are the ones that run asynchronously. Blocks are kept
 * in an array sorted by address (binary search for containment); pinned
 * buffers are few and long-lived, so inserts moving the tail are fine.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mem.h"
#include "fault/fault.h"
#include "sim.h"

struct hblock {
    uintptr_t start;
    size_t size;
    bool abandoned; /* the program's free failed: freed at forget_all */
};

static struct {
    pthread_mutex_t lock;
    struct hblock *v;
    size_t n, cap;
    uint64_t bytes, peak;
} host = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Index of the first block starting above addr. pre: lock held. */
static size_t upper(uintptr_t addr)
{
    size_t lo = 0, hi = host.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (host.v[mid].start <= addr)
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
    host.v[at] = (struct hblock){(uintptr_t)p, size, false};
    host.n++;
    host.bytes += size;
    if (host.bytes > host.peak)
        host.peak = host.bytes;
    pthread_mutex_unlock(&host.lock);
    *ptr = p;
    return SIM_OK;
}

enum sim_rc sim_host_free(void *ptr)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    if (at == 0 || host.v[at - 1].start != (uintptr_t)ptr) {
        pthread_mutex_unlock(&host.lock);
        return SIM_EINVAL;
    }
    at--;
    host.bytes -= host.v[at].size;
    memmove(&host.v[at], &host.v[at + 1], (host.n - at - 1) * sizeof *host.v);
    host.n--;
    pthread_mutex_unlock(&host.lock);
    base_free(ptr);
    return SIM_OK;
}

bool sim_host_lookup(const void *ptr, void **start, size_t *size)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    bool hit = at > 0 && (uintptr_t)ptr - host.v[at - 1].start < host.v[at - 1].size;
    if (hit) {
        *start = (void *)host.v[at - 1].start;
        *size = host.v[at - 1].size;
    }
    pthread_mutex_unlock(&host.lock);
    return hit;
}

void sim_host_abandon(void *ptr)
{
    pthread_mutex_lock(&host.lock);
    size_t at = upper((uintptr_t)ptr);
    if (at > 0 && host.v[at - 1].start == (uintptr_t)ptr)
        host.v[at - 1].abandoned = true;
    pthread_mutex_unlock(&host.lock);
}

void sim_host_forget_all(void)
{
    pthread_mutex_lock(&host.lock);
    for (size_t i = 0; i < host.n; i++)
        if (host.v[i].abandoned)
            base_free((void *)host.v[i].start);
    base_free(host.v);
    host.v = NULL;
    host.n = host.cap = 0;
    host.bytes = 0;
    pthread_mutex_unlock(&host.lock);
}

void sim_host_usage(uint64_t *cur, uint64_t *peak)
{
    pthread_mutex_lock(&host.lock);
    *cur = host.bytes;
    *peak = host.peak;
    pthread_mutex_unlock(&host.lock);
}
