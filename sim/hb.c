/*
 * hb.c - happens-before: the ordering facts the allocator sanitizer
 * decides by, and the one checker of every use of device bytes.
 *
 * Every stream has a vector clock (hb.h), and so has the host. A task
 * ticks its stream's own count when the simulator runs it (sim_hb_task):
 * that is at enqueue on a stream nothing holds, or when a held stream's
 * queue is replayed, so the order is the program's and never the timing
 * model's. The edges: program order on a stream; host -> task at enqueue
 * (a queued task keeps the host's clock of its enqueue); a record (event,
 * notify, counting notify, value write) -> the wait it satisfies; a
 * synchronisation or a query that found work complete -> the host; the
 * work before a host task -> the callback, and a blocking callback -> the
 * stream's later work; a graph launch -> its lanes -> the launch stream's
 * later work. The same program therefore gets the same verdict on every
 * SoC profile, whatever unrelated work ran first.
 *
 * Uses (sim_use) are kept per byte range FastTrack-style: the range's last
 * write (an epoch: clock id and count) and its reads (one epoch per
 * clock, a few), in a table sorted by start address. A use checks the
 * records overlapping its range: a write of another clock not ordered
 * before it, or, for a write, a read not ordered before it, is a race,
 * told to the reporter (sim_hb_reporter) after the lock is let go. Checks
 * cost the records touched; state is per stream, never per task pair.
 * Records whose every epoch the host's clock has passed can never race
 * again (every later use is ordered after the host's now) and are dropped
 * at the next synchronisation. Besides device bytes, three spaces of keys
 * take uses the same way: an allocator object (each operator drawing from
 * it writes it: one allocator serving unordered streams races), a stream's
 * registration and a desc (operators read them; unregistering and
 * destroying write them). Operators queued behind a wait have not run:
 * their uses are held (sim_hb_hold) and everything the host or another
 * stream does to those bytes meanwhile races with them.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "base/mem.h"
#include "base/options.h"
#include "hb.h"
#include "internal.h"
#include "queue.h"

#define HOST_ID 0u
/* Device addresses are kept with their top bit flipped (user addresses
 * have it clear, so the order stays): a block the program lost must not
 * look pointed to from here to memcheck's leak search (track.h). */
#define HIDE ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))
static const void *hide(const void *p)
{
    return (const void *)((uintptr_t)p ^ HIDE);
}
#define READS 4
#define MAX_RACES 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(sim_race_fn) reporter;
static uint32_t next_id = 1;
static struct sim_hb_vc host;       /* the host's clock; host.e[id 0] its own count */
static uint64_t host_ver = 1;       /* bumped whenever the host's clock changes */
static struct sim_hb_clock *clocks; /* every live stream's */
static bool prune_due;
static unsigned callbacks_running; /* host tasks running now, on any thread */
static atomic_bool quiet = true;   /* see settle() */
static void settle(void);

/* The host task (callback) the calling thread runs, if any: a clock of its
 * own, ordered after its stream's work before it. */
static _Thread_local struct {
    bool on;
    uint32_t id, own;
    struct sim_hb_vc vc;
} cb;

bool sim_hb_on(void)
{
    /* ACLSIM_ALLOC_CHECK's words are warn|off|error: 1 is off. */
    return atomic_load_explicit(&reporter, memory_order_relaxed) != NULL &&
           opt_enum(OPT_ALLOC_CHECK) != 1;
}

void sim_hb_reporter(sim_race_fn fn)
{
    atomic_store(&reporter, fn);
}

/* ---- Vector clocks (lock held) ---- */

void sim_hb_vc_free(struct sim_hb_vc *v)
{
    base_free(v->e);
    *v = (struct sim_hb_vc){0, 0, NULL};
}

static uint32_t vc_get(const struct sim_hb_vc *v, uint32_t id)
{
    uint32_t a = 0, b = v->n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (v->e[m].id < id)
            a = m + 1;
        else
            b = m;
    }
    return a < v->n && v->e[a].id == id ? v->e[a].c : 0;
}

/* v[id] = max(v[id], c). Host memory running out loses the fact: a missed
 * order can only add a report, so the clock keeps what it can. */
static void vc_raise(struct sim_hb_vc *v, uint32_t id, uint32_t c)
{
    uint32_t a = 0, b = v->n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (v->e[m].id < id)
            a = m + 1;
        else
            b = m;
    }
    if (a < v->n && v->e[a].id == id) {
        if (c > v->e[a].c)
            v->e[a].c = c;
        return;
    }
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        struct sim_hb_ent *e = base_realloc_plain(v->e, cap * sizeof *e);
        if (!e)
            return;
        v->e = e;
        v->cap = cap;
    }
    memmove(&v->e[a + 1], &v->e[a], (v->n - a) * sizeof *v->e);
    v->e[a] = (struct sim_hb_ent){id, c};
    v->n++;
}

/* dst |= src. */
static void vc_join(struct sim_hb_vc *dst, const struct sim_hb_vc *src)
{
    for (uint32_t i = 0; i < src->n; i++)
        if (src->e[i].c > vc_get(dst, src->e[i].id))
            vc_raise(dst, src->e[i].id, src->e[i].c);
}

/* dst = src. */
static void vc_copy(struct sim_hb_vc *dst, const struct sim_hb_vc *src)
{
    dst->n = 0;
    vc_join(dst, src);
}

/* The whole clock of stream clock c (what it heard of, and itself). */
static void clock_into(struct sim_hb_vc *dst, const struct sim_hb_clock *c)
{
    vc_join(dst, &c->vc);
    vc_raise(dst, c->id, c->own);
}

static void host_changed(void)
{
    host_ver++;
    prune_due = true;
}

/* ---- Streams ---- */

void sim_hb_stream_init(struct sim_hb_clock *c, int32_t dev)
{
    pthread_mutex_lock(&lock);
    *c = (struct sim_hb_clock){next_id++, 0, dev, {0, 0, NULL}, 0, clocks};
    clocks = c;
    pthread_mutex_unlock(&lock);
}

void sim_hb_stream_fini(struct sim_hb_clock *c)
{
    pthread_mutex_lock(&lock);
    for (struct sim_hb_clock **p = &clocks; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    /* Its work is done (destroy waits for it): the host has seen it. */
    vc_raise(&host, c->id, c->own);
    vc_join(&host, &c->vc);
    host_changed();
    sim_hb_vc_free(&c->vc);
    pthread_mutex_unlock(&lock);
}

/* ---- Edges ---- */

/* The clock the calling thread acts with: its callback's, or the host's. */
static const struct sim_hb_vc *acting(void)
{
    return cb.on ? &cb.vc : &host;
}

void sim_hb_enqueued(struct sim_hb_vc *out)
{
    *out = (struct sim_hb_vc){0, 0, NULL};
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    vc_copy(out, acting());
    if (cb.on)
        vc_raise(out, cb.id, cb.own);
    pthread_mutex_unlock(&lock);
}

/* sim_hb_task. pre: lock held. */
static void task_locked(struct sim_hb_clock *c, const struct sim_hb_vc *enq)
{
    if (enq) {
        vc_join(&c->vc, enq);
    } else if (cb.on) {
        vc_join(&c->vc, &cb.vc);
        vc_raise(&c->vc, cb.id, cb.own);
    } else if (c->host_seen != host_ver) {
        vc_join(&c->vc, &host);
        c->host_seen = host_ver;
    }
    c->own++;
}

void sim_hb_task(struct sim_stream *s, const struct sim_hb_vc *enq)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, enq);
    pthread_mutex_unlock(&lock);
}

void sim_hb_mark(struct sim_hb_vc *mark, struct sim_stream *s, bool join)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, NULL); /* the record is a task of s */
    if (!join)
        mark->n = 0;
    clock_into(mark, &s->hb);
    pthread_mutex_unlock(&lock);
}

void sim_hb_wait(struct sim_stream *s, const struct sim_hb_vc *mark)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, NULL);
    vc_join(&s->hb.vc, mark);
    pthread_mutex_unlock(&lock);
}

void sim_hb_release(struct sim_stream *to, struct sim_stream *from)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    if (from)
        clock_into(&to->hb.vc, &from->hb);
    else
        vc_join(&to->hb.vc, acting());
    pthread_mutex_unlock(&lock);
}

void sim_hb_wait_foreign(struct sim_stream *s)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, NULL);
    vc_join(&s->hb.vc, &host);
    for (struct sim_hb_clock *c = clocks; c; c = c->next)
        if (c != &s->hb)
            clock_into(&s->hb.vc, c);
    pthread_mutex_unlock(&lock);
}

/* The host (or the callback the thread runs) learns v. pre: lock held. */
static void learn(const struct sim_hb_vc *v)
{
    if (cb.on) {
        vc_join(&cb.vc, v);
        return;
    }
    vc_join(&host, v);
    host_changed();
}

void sim_hb_host_learns_stream(struct sim_stream *s)
{
    if (!sim_hb_on())
        return;
    struct sim_hb_vc v = {0, 0, NULL};
    pthread_mutex_lock(&lock);
    clock_into(&v, &s->hb);
    learn(&v);
    pthread_mutex_unlock(&lock);
    sim_hb_vc_free(&v);
}

void sim_hb_host_learns(const struct sim_hb_vc *mark)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    learn(mark);
    pthread_mutex_unlock(&lock);
}

void sim_hb_host_learns_all(void)
{
    if (!sim_hb_on())
        return;
    struct sim_hb_vc v = {0, 0, NULL};
    pthread_mutex_lock(&lock);
    for (struct sim_hb_clock *c = clocks; c; c = c->next)
        clock_into(&v, c);
    learn(&v);
    pthread_mutex_unlock(&lock);
    sim_hb_vc_free(&v);
}

void sim_hb_fork(struct sim_stream *lane, struct sim_stream *s)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, NULL); /* the launch is a task of s */
    clock_into(&lane->hb.vc, &s->hb);
    pthread_mutex_unlock(&lock);
}

void sim_hb_join(struct sim_stream *s, struct sim_stream *lane)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    clock_into(&s->hb.vc, &lane->hb);
    pthread_mutex_unlock(&lock);
}

/* ---- Host tasks ---- */

void sim_hb_callback_enter(struct sim_stream *s)
{
    if (!sim_hb_on() || cb.on)
        return;
    pthread_mutex_lock(&lock);
    callbacks_running++;
    settle();
    cb.on = true;
    cb.id = next_id++;
    cb.own = 1;
    vc_copy(&cb.vc, &host);
    clock_into(&cb.vc, &s->hb);
    pthread_mutex_unlock(&lock);
}

void sim_hb_callback_exit(struct sim_stream *s, bool blocking)
{
    if (!cb.on)
        return;
    pthread_mutex_lock(&lock);
    callbacks_running--;
    settle();
    if (blocking) { /* the stream's later work waited for the callback */
        vc_join(&s->hb.vc, &cb.vc);
        vc_raise(&s->hb.vc, cb.id, cb.own);
    }
    pthread_mutex_unlock(&lock);
    cb.on = false;
    sim_hb_vc_free(&cb.vc);
}

/* ---- Value writes: the clock of the last write at each address ---- */

struct value_mark {
    const void *addr;
    struct sim_hb_vc vc;
};
static struct value_mark *values;
static size_t n_values, cap_values;

void sim_hb_value_write(struct sim_stream *s, const void *addr)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    struct value_mark *m = NULL;
    addr = hide(addr);
    for (size_t i = 0; i < n_values && !m; i++)
        if (values[i].addr == addr)
            m = &values[i];
    if (!m && n_values == cap_values) {
        size_t cap = cap_values ? cap_values * 2 : 8;
        struct value_mark *v = base_realloc_plain(values, cap * sizeof *v);
        if (v) {
            values = v;
            cap_values = cap;
        }
    }
    if (!m && n_values < cap_values) {
        m = &values[n_values++];
        *m = (struct value_mark){addr, {0, 0, NULL}};
    }
    task_locked(&s->hb, NULL);
    if (m)
        clock_into(&m->vc, &s->hb); /* joined: any write so far may be the one */
    pthread_mutex_unlock(&lock);
}

void sim_hb_value_wait(struct sim_stream *s, const void *addr)
{
    if (!sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    task_locked(&s->hb, NULL);
    addr = hide(addr);
    for (size_t i = 0; i < n_values; i++)
        if (values[i].addr == addr)
            vc_join(&s->hb.vc, &values[i].vc);
    pthread_mutex_unlock(&lock);
}

/* ---- Uses of bytes ---- */

/* One use as a record keeps it: its epoch and what the report says. */
struct use {
    uint32_t id, c;
    struct sim_use u;
};
struct rec {
    uintptr_t lo;
    size_t n;
    bool has_w;
    uint8_t nr;
    uint32_t reported; /* the last clock id a race on this record was told for */
    struct use w, r[READS];
};
/* A space's records, sorted by lo, in chunks of at most CHUNK (a B+ tree
 * of two levels): making a record moves at most a chunk's pointers and
 * the chunk list, not every later record, so a graph of 70,000 small
 * operators between two synchronisations (ggml's batched GET_ROWS) stays
 * O(n log n). */
#define CHUNK 256
struct chunk {
    size_t n;
    struct rec *r[CHUNK];
};
struct table {
    struct chunk **c; /* every record of c[i] before any of c[i + 1] */
    size_t nc, capc;
    size_t n, longest; /* records, the longest range */
};
/* A place in a table: chunk c, its record i; {nc, 0} is the end. */
struct at {
    size_t c, i;
};
static struct table tables[SIM_SPACES];

/* Queued operators' uses, until they run. */
struct held {
    const void *key;
    uint32_t id; /* the stream's clock id */
    struct sim_use u[SIM_OP_USES];
    int n;
};
static struct held *helds;
static size_t n_helds, cap_helds;

/* The first record with lo >= lo (the end when none). */
static struct at lower_bound(const struct table *t, uintptr_t lo)
{
    size_t a = 0, b = t->nc; /* the first chunk whose last record is >= lo */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const struct chunk *ch = t->c[m];
        if (ch->r[ch->n - 1]->lo < lo)
            a = m + 1;
        else
            b = m;
    }
    if (a == t->nc)
        return (struct at){a, 0};
    const struct chunk *ch = t->c[a];
    size_t x = 0, y = ch->n;
    while (x < y) {
        size_t m = x + (y - x) / 2;
        if (ch->r[m]->lo < lo)
            x = m + 1;
        else
            y = m;
    }
    return (struct at){a, x};
}

static struct rec *rec_at(const struct table *t, struct at p)
{
    return p.c < t->nc ? t->c[p.c]->r[p.i] : NULL;
}

static struct at next_at(const struct table *t, struct at p)
{
    if (++p.i == t->c[p.c]->n)
        p = (struct at){p.c + 1, 0};
    return p;
}

/* Whether epoch (id, c) happens before a use made with clock v (own: the
 * user's id, whose own count orders everything of its own). */
static bool before(uint32_t id, uint32_t c, const struct sim_hb_vc *v, uint32_t own)
{
    return id == own || vc_get(v, id) >= c;
}

/* Records kept, and how many make a prune due even when the host learned
 * nothing: the host's own uses (an aclrtFree, a synchronous copy) are seen
 * by the host as they are made, and a program that never synchronises
 * (a loop of aclrtMalloc and aclrtFree) would otherwise pile them up, each
 * insertion moving all the others. Twice what the last prune kept:
 * amortised O(1) per use. */
static size_t records(void)
{
    size_t n = 0;
    for (int s = 0; s < SIM_SPACES; s++)
        n += tables[s].n;
    return n;
}
/* Whether nothing is kept that a use of the host's own could race with
 * now or later: no record, no held operator, no host task running (and,
 * read with it, no stream queue). Stored under the lock at every change
 * (settle), read without it. */
static void settle(void)
{
    atomic_store_explicit(&quiet, records() == 0 && n_helds == 0 && callbacks_running == 0,
                          memory_order_release);
}

bool sim_hb_quiet(void)
{
    return atomic_load_explicit(&quiet, memory_order_acquire) && !sim_queue_any();
}

#define PRUNE_FLOOR 4096u
static size_t prune_at = PRUNE_FLOOR;

/* Drop the records the host has seen entirely. pre: lock held. */
static void prune(void)
{
    prune_due = false;
    for (int s = 0; s < SIM_SPACES; s++) {
        struct table *t = &tables[s];
        size_t kc = 0;
        t->longest = 0;
        t->n = 0;
        for (size_t c = 0; c < t->nc; c++) {
            struct chunk *ch = t->c[c];
            size_t k = 0;
            for (size_t i = 0; i < ch->n; i++) {
                struct rec *r = ch->r[i];
                bool seen = !r->has_w || before(r->w.id, r->w.c, &host, HOST_ID);
                for (int j = 0; j < r->nr && seen; j++)
                    seen = before(r->r[j].id, r->r[j].c, &host, HOST_ID);
                if (seen) {
                    base_free(r);
                    continue;
                }
                ch->r[k++] = r;
                if (r->n > t->longest)
                    t->longest = r->n;
            }
            ch->n = k;
            t->n += k;
            if (k)
                t->c[kc++] = ch;
            else
                base_free(ch);
        }
        t->nc = kc;
    }
    size_t kept = records();
    prune_at = kept > PRUNE_FLOOR / 2 ? 2 * kept : PRUNE_FLOOR;
    settle();
}

/* A new empty chunk at c[k] (the later ones move up): NULL when host
 * memory runs out. */
static struct chunk *new_chunk(struct table *t, size_t k)
{
    if (t->nc == t->capc) {
        size_t cap = t->capc ? t->capc * 2 : 8;
        struct chunk **c = base_realloc_plain(t->c, cap * sizeof *c);
        if (!c)
            return NULL;
        t->c = c;
        t->capc = cap;
    }
    struct chunk *ch = base_malloc_plain(sizeof *ch);
    if (!ch)
        return NULL;
    ch->n = 0;
    memmove(&t->c[k + 1], &t->c[k], (t->nc - k) * sizeof *t->c);
    t->c[k] = ch;
    t->nc++;
    return ch;
}

/* Room for one more record at p (a full chunk is split in two, the end
 * of a full last chunk starts a new one; p is moved to where it lands):
 * false when host memory runs out. */
static bool make_room(struct table *t, struct at *p)
{
    if (t->nc == 0 || (p->c == t->nc && t->c[t->nc - 1]->n == CHUNK)) {
        *p = (struct at){t->nc, 0};
        return new_chunk(t, t->nc) != NULL;
    }
    if (p->c == t->nc) /* the end: after the last chunk's last record */
        *p = (struct at){t->nc - 1, t->c[t->nc - 1]->n};
    struct chunk *ch = t->c[p->c];
    if (ch->n < CHUNK)
        return true;
    struct chunk *half = new_chunk(t, p->c + 1);
    if (!half)
        return false;
    half->n = CHUNK / 2;
    memcpy(half->r, &ch->r[CHUNK / 2], (CHUNK / 2) * sizeof *half->r);
    ch->n = CHUNK / 2;
    if (p->i > CHUNK / 2)
        *p = (struct at){p->c + 1, p->i - CHUNK / 2};
    return true;
}

/* The record of exactly [lo, lo+n), made when missing (NULL: no host
 * memory: the use goes unrecorded). pre: lock held. */
static struct rec *exact(struct table *t, uintptr_t lo, size_t n)
{
    struct at p = lower_bound(t, lo);
    for (struct at q = p; rec_at(t, q) && rec_at(t, q)->lo == lo; q = next_at(t, q))
        if (rec_at(t, q)->n == n)
            return rec_at(t, q);
    struct rec *r = base_malloc_plain(sizeof *r);
    if (!r || !make_room(t, &p)) {
        base_free(r);
        return NULL;
    }
    *r = (struct rec){.lo = lo, .n = n};
    struct chunk *ch = t->c[p.c];
    memmove(&ch->r[p.i + 1], &ch->r[p.i], (ch->n - p.i) * sizeof *ch->r);
    ch->r[p.i] = r;
    ch->n++;
    t->n++;
    if (n > t->longest)
        t->longest = n;
    return r;
}

struct races {
    int n;
    struct sim_use now[MAX_RACES], before[MAX_RACES];
    uint32_t id[MAX_RACES], c[MAX_RACES]; /* the earlier task's epoch: who it was */
};

/* A race of now with a kept use (its address hidden) of the task whose
 * epoch is (id, c). */
static void race(struct races *out, const struct sim_use *now, const struct sim_use *earlier,
                 uint32_t id, uint32_t c)
{
    if (out->n < MAX_RACES) {
        out->now[out->n] = *now;
        out->before[out->n] = *earlier;
        out->before[out->n].p = hide(earlier->p);
        out->id[out->n] = id;
        out->c[out->n++] = c;
    }
}

/* Check use u (epoch id, c; clock v) against the table and record it.
 * pre: lock held. */
static void check_use(const struct sim_use *u, uint32_t id, uint32_t c,
                      const struct sim_hb_vc *v, uint32_t told, bool keep, struct races *out)
{
    struct table *t = &tables[u->space];
    uintptr_t lo = (uintptr_t)u->p ^ HIDE, hi = lo + u->n;
    struct rec *r;
    for (struct at p = lower_bound(t, lo > t->longest ? lo - t->longest : 0);
         (r = rec_at(t, p)) != NULL && r->lo < hi; p = next_at(t, p)) {
        if (r->lo + r->n <= lo || r->reported == id + 1)
            continue;
        bool hit = false;
        if (r->has_w && !before(r->w.id, r->w.c, v, id)) {
            race(out, u, &r->w.u, r->w.id, r->w.c);
            hit = true;
        }
        for (int j = 0; u->write && !hit && j < r->nr; j++)
            if (!before(r->r[j].id, r->r[j].c, v, id)) {
                race(out, u, &r->r[j].u, r->r[j].id, r->r[j].c);
                hit = true;
            }
        if (hit)
            r->reported = id + 1; /* once per record and clock */
    }
    if (!keep || (r = exact(t, lo, u->n)) == NULL)
        return;
    struct use me = {id, c, *u};
    me.u.p = hide(u->p);
    if (u->write) {
        r->w = me;
        r->has_w = true;
        r->nr = 0;
        r->reported = told; /* the held operator already told of it */
        return;
    }
    if (told)
        r->reported = told;
    for (int j = 0; j < r->nr; j++)
        if (r->r[j].id == id) {
            r->r[j] = me;
            return;
        }
    if (r->nr == READS) /* the oldest read makes room */
        memmove(&r->r[0], &r->r[1], (READS - 1) * sizeof r->r[0]);
    else
        r->nr++;
    r->r[r->nr - 1] = me;
}

/* u against the uses held for queued operators of other clocks; returns
 * the clock id + 1 of the one a race was told with (0: none), so that the
 * operator does not tell it again when it runs. pre: lock held. */
static uint32_t check_held(const struct sim_use *u, uint32_t id, struct races *out)
{
    uint32_t told = 0;
    for (size_t i = 0; i < n_helds; i++) {
        if (helds[i].id == id)
            continue;
        for (int k = 0; k < helds[i].n; k++) {
            const struct sim_use *h = &helds[i].u[k];
            uintptr_t hp = (uintptr_t)hide(h->p);
            if (h->space == u->space && (h->write || u->write) &&
                hp < (uintptr_t)u->p + u->n && (uintptr_t)u->p < hp + h->n) {
                race(out, u, h, helds[i].id, UINT32_MAX - (uint32_t)i); /* queued: one per operator */
                told = helds[i].id + 1;
                break;
            }
        }
    }
    return told;
}

/* Told once per earlier task and space: its pairs together, in the
 * order found. */
static void tell(const struct races *r)
{
    sim_race_fn fn = atomic_load(&reporter);
    bool done[MAX_RACES] = {false};
    for (int i = 0; fn && i < r->n; i++) {
        if (done[i])
            continue;
        struct sim_use now[MAX_RACES], before[MAX_RACES];
        int k = 0;
        for (int j = i; j < r->n; j++)
            if (!done[j] && r->id[j] == r->id[i] && r->c[j] == r->c[i] &&
                r->now[j].space == r->now[i].space) {
                done[j] = true;
                now[k] = r->now[j];
                before[k++] = r->before[j];
            }
        fn(now, before, k);
    }
}

/* The uses of one task: checked, recorded, then told. */
void sim_uses(const struct sim_use *u, int n)
{
    if (n <= 0 || !sim_hb_on())
        return;
    /* A use of the host's own with nothing kept to race with, now or later:
     * nothing to do (a program that never ran stream work pays this). */
    if (!u[0].stream && !cb.on && sim_hb_quiet())
        return;
    struct races out;
    out.n = 0; /* (the arrays are filled as races are found) */
    pthread_mutex_lock(&lock);
    if (prune_due || records() >= prune_at)
        prune();
    uint32_t id, c;
    const struct sim_hb_vc *v;
    if (u[0].stream) {
        struct sim_hb_clock *k = &u[0].stream->hb;
        id = k->id;
        c = k->own;
        v = &k->vc;
    } else if (cb.on) {
        id = cb.id;
        c = cb.own;
        v = &cb.vc;
    } else {
        /* A host use is an event of the host's own: tasks enqueued after it
         * are ordered after it. */
        vc_raise(&host, HOST_ID, vc_get(&host, HOST_ID) + 1);
        host_ver++;
        id = HOST_ID;
        c = vc_get(&host, HOST_ID);
        v = &host;
    }
    /* A use of the host's own is checked, but kept only while something
     * could still run unordered after it: a task queued before it (a
     * stream's queue) or a host task running meanwhile. Any other task
     * enqueued later is ordered after it (host -> task), and pruning would
     * drop it at once: an aclrtMalloc/aclrtFree loop stays cheap. */
    bool keep = id != HOST_ID || callbacks_running || n_helds || sim_queue_any();
    for (int i = 0; i < n; i++) {
        if (!u[i].n)
            continue;
        uint32_t told = n_helds ? check_held(&u[i], id, &out) : 0;
        check_use(&u[i], id, c, v, told, keep, &out);
    }
    settle();
    pthread_mutex_unlock(&lock);
    tell(&out);
}

void sim_use(const struct sim_use *u)
{
    sim_uses(u, 1);
}

void sim_hb_hold(const void *key, struct sim_stream *s, const struct sim_use *u, int n)
{
    if (n <= 0 || !sim_hb_on())
        return;
    pthread_mutex_lock(&lock);
    if (n_helds == cap_helds) {
        size_t cap = cap_helds ? cap_helds * 2 : 8;
        struct held *h = base_realloc_plain(helds, cap * sizeof *h);
        if (h) {
            helds = h;
            cap_helds = cap;
        }
    }
    if (n_helds < cap_helds) {
        struct held *h = &helds[n_helds++];
        h->key = key;
        h->id = s->hb.id;
        h->n = n < SIM_OP_USES ? n : SIM_OP_USES;
        memcpy(h->u, u, (size_t)h->n * sizeof *u);
        for (int i = 0; i < h->n; i++)
            h->u[i].p = hide(h->u[i].p);
    }
    settle();
    pthread_mutex_unlock(&lock);
}

void sim_hb_unhold(const void *key)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_helds; i++)
        if (helds[i].key == key) {
            helds[i] = helds[--n_helds];
            break;
        }
    settle();
    pthread_mutex_unlock(&lock);
}

size_t sim_use_count(void)
{
    pthread_mutex_lock(&lock);
    if (prune_due)
        prune();
    size_t n = 0;
    for (int s = 0; s < SIM_SPACES; s++)
        n += tables[s].n;
    pthread_mutex_unlock(&lock);
    return n;
}

/* Unload: the tables and the clocks the module itself owns. */
__attribute__((destructor)) static void hb_unload(void)
{
    for (int s = 0; s < SIM_SPACES; s++) {
        for (size_t c = 0; c < tables[s].nc; c++) {
            for (size_t i = 0; i < tables[s].c[c]->n; i++)
                base_free(tables[s].c[c]->r[i]);
            base_free(tables[s].c[c]);
        }
        base_free(tables[s].c);
    }
    base_free(helds);
    for (size_t i = 0; i < n_values; i++)
        sim_hb_vc_free(&values[i].vc);
    base_free(values);
    sim_hb_vc_free(&host);
}

/* ---- The uses of the tasks the simulator runs ---- */

static _Thread_local const struct sim_hb_vc *enq_now; /* the queued task being replayed */
static _Thread_local const void *graph_now;           /* the graph being launched */

void sim_hb_enq_begin(const struct sim_hb_vc *enq)
{
    enq_now = enq;
}

void sim_hb_graph(const void *g)
{
    graph_now = g;
}

void sim_task_uses(struct sim_stream *s, struct sim_use *u, int n)
{
    if (n <= 0 || !sim_hb_on())
        return;
    if (s)
        sim_hb_task(s, enq_now);
    uint64_t at = s ? sim_clock_next_start(&s->clk) : sim_clock_host();
    for (int i = 0; i < n; i++) {
        u[i].stream = s;
        u[i].graph = graph_now;
        u[i].at = at;
    }
    sim_uses(u, n);
}

static int add(struct sim_use *u, int n, uint32_t space, uint32_t role, bool write,
               const void *p, size_t bytes, uint64_t tag)
{
    if (!p || !bytes)
        return n;
    u[n] = (struct sim_use){.space = space, .role = role, .write = write, .tag = tag, .p = p,
                            .n = bytes};
    return n + 1;
}

int sim_op_uses(struct sim_stream *s, const struct sim_op *op, struct sim_use *u)
{
    int n = 0;
    uint64_t tag = op->tag;
    const void *lo;
    size_t bytes;
    for (int i = 0; i < op->n_in && i < SIM_OP_MAX_IN; i++)
        if (op->in[i].dev) {
            sim_view_span(&op->in[i], &lo, &bytes);
            n = add(u, n, SIM_SPACE_DEVICE, SIM_USE_INPUT, false, lo, bytes, tag);
        }
    for (int i = 0; i < op->n_out && i < SIM_OP_MAX_OUT; i++) {
        sim_view_span(&op->out[i], &lo, &bytes);
        n = add(u, n, SIM_SPACE_DEVICE, SIM_USE_OUTPUT, true, lo, bytes, tag);
    }
    n = add(u, n, SIM_SPACE_DEVICE, SIM_USE_WORKSPACE, true, op->ws, op->ws_bytes, tag);
    n = add(u, n, SIM_SPACE_DEVICE, SIM_USE_TILING, true, op->tiling, op->tiling_bytes, tag);
    n = add(u, n, SIM_SPACE_ALLOCATOR, SIM_USE_ALLOCATOR, true, op->alloc_obj, 1, tag);
    n = add(u, n, SIM_SPACE_REGISTRATION, SIM_USE_REGISTRATION, false, op->alloc_stream, 1, tag);
    n = add(u, n, SIM_SPACE_DESC, SIM_USE_DESC, false, op->alloc_desc, 1, tag);
    for (int i = 0; i < n; i++)
        u[i].stream = s;
    return n;
}
