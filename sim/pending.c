/*
 * pending.c - which device bytes pending work still uses, on which stream
 * and until when: the simulated-time facts the allocator sanitizer reads.
 *
 * A record is [start, start+size) used by a stream during [from, until)
 * of simulated time. Records live in one array sorted by start address,
 * under one mutex; a query binary-searches the first record that could
 * reach the range (start >= p - longest size) and scans forward. Records
 * the host clock has passed are dropped before each add and query: every
 * operation starts no earlier than the host enqueued it, so such a record
 * can never conflict again. A record of the same bytes on the same stream
 * as an existing one extends that one (a stream's work is in order), so a
 * pool allocator that hands the same block to every operator of a stream
 * keeps one record per block. Results depend only on the call sequence.
 */
#include <pthread.h>
#include <string.h>
#include "base/mem.h"
#include "clock.h"
#include "sim.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_pending *recs;
static size_t count, cap;
static size_t longest;     /* the largest size of any record kept */
static uint64_t min_until; /* the earliest `until` of any record kept */

static uintptr_t lo_of(const struct sim_pending *r)
{
    return (uintptr_t)r->start;
}

/* Drop the records the host clock has passed. pre: lock held. */
static void prune(void)
{
    sim_ps now = sim_clock_host();
    if (count == 0 || now < min_until)
        return;
    size_t k = 0;
    min_until = UINT64_MAX;
    longest = 0;
    for (size_t i = 0; i < count; i++) {
        if (recs[i].until <= now)
            continue;
        recs[k++] = recs[i];
        if (recs[i].until < min_until)
            min_until = recs[i].until;
        if (recs[i].size > longest)
            longest = recs[i].size;
    }
    count = k;
}

/* Index of the first record whose start is >= lo. pre: lock held. */
static size_t lower_bound(uintptr_t lo)
{
    size_t a = 0, b = count;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (lo_of(&recs[m]) < lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

void sim_pending_add(const void *p, size_t n, const void *stream, uint64_t from,
                     uint64_t until, uint64_t tag)
{
    if (n == 0 || until <= from)
        return;
    pthread_mutex_lock(&lock);
    prune();
    size_t i = lower_bound((uintptr_t)p);
    for (size_t j = i; j < count && lo_of(&recs[j]) == (uintptr_t)p; j++) {
        struct sim_pending *r = &recs[j];
        if (r->size == n && r->stream == stream) {
            if (from < r->from)
                r->from = from;
            if (until > r->until)
                r->until = until;
            r->tag = tag;
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    if (count == cap) {
        size_t c = cap ? cap * 2 : 64;
        struct sim_pending *v = base_realloc(recs, c * sizeof *v);
        if (!v) {
            /* Out of host memory: this use goes unrecorded (the sanitizer
             * may miss a conflict on it, never reports a false one). */
            pthread_mutex_unlock(&lock);
            return;
        }
        recs = v;
        cap = c;
    }
    memmove(&recs[i + 1], &recs[i], (count - i) * sizeof *recs);
    recs[i] = (struct sim_pending){p, n, stream, from, until, tag};
    count++;
    if (n > longest)
        longest = n;
    if (until < min_until || count == 1)
        min_until = until;
    pthread_mutex_unlock(&lock);
}

bool sim_pending_find(const void *p, size_t n, const void *stream, uint64_t from, uint64_t to,
                      struct sim_pending *out)
{
    if (n == 0)
        return false;
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    bool found = false;
    pthread_mutex_lock(&lock);
    prune();
    size_t i = lower_bound(lo > longest ? lo - longest : 0);
    for (; i < count && lo_of(&recs[i]) < hi; i++) {
        const struct sim_pending *r = &recs[i];
        if (lo_of(r) + r->size <= lo || r->stream == stream)
            continue;
        if (r->from < to && r->until > from) {
            *out = *r;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

size_t sim_pending_count(void)
{
    pthread_mutex_lock(&lock);
    prune();
    size_t n = count;
    pthread_mutex_unlock(&lock);
    return n;
}

void sim_pending_clear(void)
{
    pthread_mutex_lock(&lock);
    count = 0;
    longest = 0;
    min_until = UINT64_MAX;
    pthread_mutex_unlock(&lock);
}

/* Unload: the table itself. */
__attribute__((destructor)) static void pending_unload(void)
{
    base_free(recs);
    recs = NULL;
    count = cap = 0;
}
