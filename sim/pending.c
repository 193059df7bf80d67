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
 * keeps one record per block.
 *
 * An operator queued behind a wait has no interval until it runs. Its
 * blocks are recorded when it is queued (sim_pending_hold, from the
 * host's time then), and the record counts the queued uses it waits for:
 * while any is left its `until` is SIM_PS_PENDING, so it is never dropped
 * and overlaps everything after its start; each sim_pending_ran ends one,
 * and with the last the record takes the latest end it was given. The
 * simulator makes these records itself, inside the queue lock, so one is
 * there before the operator can run; the sanitizer's own add for such an
 * operator (its interval SIM_PS_PENDING) only names it. Results depend
 * only on the call sequence.
 */
#include <pthread.h>
#include <string.h>
#include "base/mem.h"
#include "clock.h"
#include "internal.h"

/* A record, and the queued operators whose use of its bytes has not run. */
struct rec {
    struct sim_pending r;
    uint32_t queued;
    uint64_t known; /* while queued: the latest end of the uses that have run */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec *recs;
static size_t count, cap;
static size_t longest;     /* the largest size of any record kept */
static uint64_t min_until; /* the earliest `until` of any record kept */

static uintptr_t lo_of(const struct rec *r)
{
    return (uintptr_t)r->r.start;
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
        if (recs[i].r.until <= now)
            continue;
        recs[k++] = recs[i];
        if (recs[i].r.until < min_until)
            min_until = recs[i].r.until;
        if (recs[i].r.size > longest)
            longest = recs[i].r.size;
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

/* The record of exactly [p, p+n) and stream, or NULL. pre: lock held. */
static struct rec *same(const void *p, size_t n, const void *stream)
{
    for (size_t j = lower_bound((uintptr_t)p); j < count && lo_of(&recs[j]) == (uintptr_t)p; j++)
        if (recs[j].r.size == n && recs[j].r.stream == stream)
            return &recs[j];
    return NULL;
}

/* A new record, in address order; NULL when host memory runs out (then
 * this use goes unrecorded: the sanitizer may miss a conflict on it, never
 * reports a false one). pre: lock held. */
static struct rec *insert(const void *p, size_t n, const void *stream, uint64_t from,
                          uint64_t until, uint64_t tag)
{
    if (count == cap) {
        size_t c = cap ? cap * 2 : 64;
        struct rec *v = base_realloc(recs, c * sizeof *v);
        if (!v)
            return NULL;
        recs = v;
        cap = c;
    }
    size_t i = lower_bound((uintptr_t)p);
    memmove(&recs[i + 1], &recs[i], (count - i) * sizeof *recs);
    recs[i] = (struct rec){{p, n, stream, from, until, tag}, 0, 0};
    count++;
    if (n > longest)
        longest = n;
    if (until < min_until || count == 1)
        min_until = until;
    return &recs[i];
}

/* r's use ends at until (a stream's work is in order: the latest wins). */
static void extend(struct rec *r, uint64_t until)
{
    uint64_t *at = r->queued ? &r->known : &r->r.until;
    if (until > *at)
        *at = until;
}

void sim_pending_add(const void *p, size_t n, const void *stream, uint64_t from,
                     uint64_t until, uint64_t tag)
{
    if (n == 0 || (until <= from && from != SIM_PS_PENDING))
        return;
    pthread_mutex_lock(&lock);
    prune();
    struct rec *r = same(p, n, stream);
    if (from == SIM_PS_PENDING) {
        if (r && r->queued) /* the queued operator's record: its name */
            r->r.tag = tag;
    } else if (r) {
        if (from < r->r.from)
            r->r.from = from;
        extend(r, until);
        r->r.tag = tag;
    } else {
        insert(p, n, stream, from, until, tag);
    }
    pthread_mutex_unlock(&lock);
}

void sim_pending_hold(const void *p, size_t n, const void *stream, uint64_t from)
{
    if (n == 0)
        return;
    pthread_mutex_lock(&lock);
    prune();
    struct rec *r = same(p, n, stream);
    if (!r) {
        r = insert(p, n, stream, from, SIM_PS_PENDING, 0);
        if (r)
            r->known = from; /* no use of it has ended yet */
    } else {
        if (r->queued == 0) {
            r->known = r->r.until;
            r->r.until = SIM_PS_PENDING;
        }
        if (from < r->r.from)
            r->r.from = from;
    }
    if (r)
        r->queued++;
    pthread_mutex_unlock(&lock);
}

void sim_pending_ran(const void *p, size_t n, const void *stream, uint64_t start, uint64_t end)
{
    (void)start; /* the record keeps its earliest start, the time it was queued */
    if (n == 0)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = same(p, n, stream);
    if (r && r->queued) {
        if (end > r->known)
            r->known = end;
        if (--r->queued == 0) {
            r->r.until = r->known;
            if (r->r.until < min_until)
                min_until = r->r.until;
        }
    }
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
        const struct sim_pending *r = &recs[i].r;
        if (lo_of(&recs[i]) + r->size <= lo || r->stream == stream)
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
