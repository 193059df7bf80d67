/*
 * sanitizer.c - the allocator sanitizer (ACLSIM_ALLOC_CHECK=off|warn|error,
 * default warn): the mistakes a custom allocator makes with the
 * single-op executor, found in simulated time, deterministically.
 *
 * What it checks (each report names its kind in parentheses):
 *  host-memory       a block's address is host memory (pageable, or from
 *                    aclrtMallocHost), not device memory
 *  freed-memory      a block's address is in the device address space but in
 *                    no live allocation (freed, or never allocated)
 *  out-of-bounds     the bytes the executor asked for run past the end of the
 *                    allocation the address is in
 *  cross-stream-reuse bytes of a block that an operator of stream A still
 *                    uses (the executor frees blocks right after the launch:
 *                    they stay in use until the operator completes in
 *                    simulated time) are used by work of another stream -
 *                    an operator's blocks or tensors, an async copy or fill -
 *                    before that point; an event or a synchronisation that
 *                    orders the two pushes the second past it, so only
 *                    unordered reuse is reported
 *  host-reuse        the host touches such bytes (a synchronous aclrtMemcpy
 *                    or aclrtMemset) before the operator completes
 *  free-while-pending aclrtFree of such bytes before the operator completes;
 *                    an aclrtFree made by the allocator's own free callback,
 *                    for the stream the executor frees the block for, is the
 *                    allocator returning it in that stream's order and is
 *                    not reported (the bytes stay pending: any later reuse
 *                    by another stream or the host is)
 *  shared-allocator  one allocator (its obj) serves operators of two streams
 *                    whose work overlaps in simulated time (CANN: streams
 *                    sharing an allocator must not run concurrently)
 *  unregister-while-pending, destroy-desc-while-pending
 *                    aclrtAllocatorUnregister / aclrtAllocatorDestroyDesc
 *                    while operators that used the allocator have not
 *                    completed (CANN: synchronise first)
 *  overlapping-blocks two blocks the allocator gave one operator (its
 *                    workspace and its tiling record) share bytes: the kernel
 *                    would write one over the other
 *  block-freed-before-launch a block the allocator gave an operator is no
 *                    longer live device memory when the operator is launched
 *                    (a later allocFunc of the same execute freed it)
 *  graph-memory-freed, graph-block-reuse (graphcheck.c)
 *                    bytes a live captured graph uses are freed, or handed
 *                    by an allocator to other work, before aclmdlRIDestroy
 * Each report goes to stderr ("aclsim: allocator check (<kind>): ..."),
 * naming the operator, stream, block, address and byte range, and with
 * ACLSIM_TRACK=1 the stacks that issued the operators involved. Reports
 * depend only on the program's calls (simulated time), never on wall time.
 * ACLSIM_ALLOC_CHECK=error makes the process exit with status 25 at exit
 * when anything was reported, as the leak check does with 23. The facts
 * about pending work come from the simulator (be_tools.pending_*,
 * sim/pending.c); without them only the address checks run.
 */
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mem.h"
#include "base/options.h"
#include "alloc.h"
#include "internal.h"
#include "backends/be.h"

#define CHECK_EXIT 25
#define RING 4096u
#define FRAMES 16

/* The sanitizer's kinds of report: the first of diag's (diag/diag.h). */
enum kind {
    K_HOST = API_REP_HOST_MEMORY, K_FREED = API_REP_FREED_MEMORY, K_BOUNDS = API_REP_OUT_OF_BOUNDS,
    K_CROSS = API_REP_CROSS_STREAM, K_HOST_REUSE = API_REP_HOST_REUSE,
    K_FREE_PENDING = API_REP_FREE_PENDING, K_SHARED = API_REP_SHARED,
    K_UNREGISTER = API_REP_UNREGISTER, K_DESTROY = API_REP_DESTROY_DESC,
    K_OVERLAP = API_REP_OVERLAP, K_FREED_LAUNCH = API_REP_FREED_BEFORE_LAUNCH,
    K_COUNT = API_REP_LEAK
};
#define kind_name(k) api_rep_kind_name((enum api_rep_kind)(k))

static _Atomic unsigned long counts[K_COUNT];
static _Atomic uint64_t next_seq;

/* Serialises the tables below and the report lines. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The last RING operators: what a report says about an earlier one. */
struct op_info {
    uint64_t seq;
    const char *type;
    const void *stream;
    const void *obj; /* the allocator it took its blocks from, and its callbacks */
    uintptr_t alloc_fn, free_fn;
    uint64_t start, end;
    int nframes;
    void *frames[FRAMES];
};
static struct op_info ring[RING];

/* Streams an allocator (obj) served, with the interval of the last
 * operator of each, and the pairs already reported. */
struct served {
    const void *stream;
    uint64_t from, until, seq;
    bool reported;
};
struct alloc_use {
    const void *obj;
    struct served *s;
    size_t n, cap;
};
static struct alloc_use *allocs;
static size_t n_allocs, cap_allocs;

/* The latest end of an operator that used the allocator registered on a
 * stream / through a desc. */
struct last_use {
    const void *key;
    uint64_t until, seq;
};
static struct last_use *by_stream, *by_desc;
static size_t n_by_stream, cap_by_stream, n_by_desc, cap_by_desc;

static _Thread_local const void *tls_free_stream; /* inside a free callback for it */
static _Thread_local bool tls_in_free;

enum api_check_mode api_check_mode(void)
{
    /* ACLSIM_ALLOC_CHECK's words are warn|off|error, in this order. */
    static const enum api_check_mode modes[] = {API_CHECK_WARN, API_CHECK_OFF, API_CHECK_ERROR};
    unsigned i = opt_enum(OPT_ALLOC_CHECK);
    return i < 3 ? modes[i] : API_CHECK_WARN;
}

/* Whether an operator ever left pending work behind: until one has, no
 * host access can collide with one, and the host-side hooks return at once
 * (aclrtMalloc/aclrtFree keep their speed in programs without operators). */
static _Atomic bool ops_pending_ever;

static bool pending_tools(void)
{
    return API_TOOL(pending_add) && API_TOOL(pending_find) && API_TOOL(clock);
}

/* The host-side hooks' first question: could anything be pending? */
static bool may_collide(void)
{
    return atomic_load_explicit(&ops_pending_ever, memory_order_relaxed) &&
           api_check_mode() != API_CHECK_OFF && pending_tools();
}

static uint64_t host_now(void)
{
    uint64_t t = 0;
    if (API_TOOL(clock))
        API_TOOL(clock)(BE_CLOCK_HOST, -1, NULL, &t);
    return t;
}

static double us(uint64_t ps)
{
    return (double)ps / 1e6;
}

/* "<t> us", or, for an operator queued behind a wait (BE_PS_PENDING), when
 * it will have run. */
static const char *until_us(uint64_t ps, char buf[48])
{
    if (ps == BE_PS_PENDING)
        return "it has run (it is queued behind a wait that holds its stream)";
    snprintf(buf, 48, "%.3f us", us(ps));
    return buf;
}

/* ---- Reports ---- */

static void print_stack(const char *what, void *const *frames, int n)
{
    if (n > 0)
        api_rep_stack(what, frames, n);
}

/* The ring's record of operator seq, or NULL when it has been overwritten. */
static const struct op_info *op_of(uint64_t seq)
{
    const struct op_info *o = &ring[seq % RING];
    return o->seq == seq && seq ? o : NULL;
}

/* A line of the report being made (diag/report.c): the first line or
 * one more (one sentence per call). pre: lock held, api_rep_begin made. */
#define line api_rep_line

/* The report is complete: count it unless a suppression named it.
 * pre: lock held. */
static void count(enum kind k)
{
    if (api_rep_end())
        atomic_fetch_add_explicit(&counts[k], 1, memory_order_relaxed);
}

void san_count(enum api_rep_kind k)
{
    count((enum kind)k);
}

void san_op_stack(const char *what, uint64_t seq)
{
    const struct op_info *o = op_of(seq);
    if (o && opt_bool(OPT_TRACK))
        print_stack(what, o->frames, o->nframes);
}

/* An operator of the report: its facts and its allocator. */
static void about(const char *role, const struct op_info *o, uint64_t seq, const void *stream)
{
    api_rep_op(role, o ? o->type : "?", seq, o ? o->stream : stream);
    if (o && o->obj)
        api_rep_allocator(o->seq, o->obj, o->alloc_fn, o->free_fn);
}

static void stacks(const struct api_check_op *now, uint64_t earlier)
{
    const struct op_info *o = now ? op_of(now->seq) : NULL;
    const struct op_info *e = earlier ? op_of(earlier) : NULL;
    if (now)
        about("operator", o, now->seq, now->stream);
    if (earlier)
        about("earlier_operator", e, earlier, NULL);
    if (!opt_bool(OPT_TRACK)) {
        line(false, "set ACLSIM_TRACK=1 for the stacks that issued the operators");
        return;
    }
    if (o)
        print_stack("this operator was issued at (its allocFunc and freeFunc ran in this call)",
                    o->frames, o->nframes);
    if (e)
        print_stack("the earlier operator was issued at", e->frames, e->nframes);
    else if (earlier)
        line(false, "(the earlier operator's stack is no longer kept)");
}

/* The time the pending use r lasts until, when it is known. */
static void pending_until(const struct be_pending *r)
{
    if (r->until != BE_PS_PENDING)
        api_rep_time("until", us(r->until));
}

static int caller_frames(void **frames)
{
    return backtrace(frames, FRAMES);
}

/* A stack for a report that is not about an operator (aclrtFree, a copy). */
void san_here(const char *what)
{
    if (!opt_bool(OPT_TRACK))
        return;
    void *frames[FRAMES];
    print_stack(what, frames, caller_frames(frames));
}

/* ---- Operators ---- */

void api_check_op_begin(struct api_check_op *op, const char *type, const void *stream,
                        const void *obj, const void *desc)
{
    *op = (struct api_check_op){atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed) + 1,
                                type, stream, obj, desc, 0, 0};
    if (api_check_mode() == API_CHECK_OFF)
        return;
    struct op_info info = {op->seq, type, stream, obj, 0, 0, 0, 0, 0, {NULL}};
    if (opt_bool(OPT_TRACK))
        info.nframes = caller_frames(info.frames);
    pthread_mutex_lock(&lock);
    ring[op->seq % RING] = info;
    pthread_mutex_unlock(&lock);
}

void api_check_op_allocator(const struct api_check_op *op, uintptr_t alloc_fn,
                            uintptr_t free_fn)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    pthread_mutex_lock(&lock);
    struct op_info *o = &ring[op->seq % RING];
    if (o->seq == op->seq) {
        o->alloc_fn = alloc_fn;
        o->free_fn = free_fn;
    }
    pthread_mutex_unlock(&lock);
}

static const char *role(bool workspace)
{
    return workspace ? "workspace" : "intermediate (tiling record)";
}

bool api_check_block(const struct api_check_op *op, const void *block, const void *addr,
                     size_t bytes, bool workspace)
{
    struct be_ptr_info in;
    be_get()->lookup(addr, &in);
    size_t off = in.kind == BE_PTR_DEVICE ? (size_t)((const char *)addr - (const char *)in.start)
                                          : 0;
    bool inside = in.kind == BE_PTR_DEVICE && (in.size == 0 || bytes <= in.size - off);
    if (inside || api_check_mode() == API_CHECK_OFF)
        return inside;
    pthread_mutex_lock(&lock);
    enum kind k = in.kind == BE_PTR_DEVICE        ? K_BOUNDS
                  : in.kind == BE_PTR_DEVICE_FREE ? K_FREED
                                                  : K_HOST;
    api_rep_begin((enum api_rep_kind)k);
    line(true, "allocator check (%s): operator %s (#%llu) on stream %p: the allocator (obj %p) "
         "gave block %p at address %p for %zu bytes of %s, [%p, %p):", kind_name(k), op->type,
         (unsigned long long)op->seq, op->stream, op->obj, block, addr, bytes, role(workspace),
         addr, (const void *)((const char *)addr + bytes));
    if (k == K_HOST)
        line(false, "that is host memory%s, not device memory: an operator runs on the device and "
             "can only use memory from aclrtMalloc (the block is left unused)",
             in.kind == BE_PTR_HOST_PINNED ? " (aclrtMallocHost)" : "");
    else if (k == K_FREED)
        line(false, "that address is in device memory but in no live allocation: it was freed, "
             "or never allocated (the block is left unused)");
    else
        line(false, "it lies %zu bytes into an allocation of %zu bytes at %p: the %zu bytes run "
             "%zu bytes past its end (the block is left unused)", off, in.size, in.start, bytes,
             bytes - (in.size - off));
    line(false, "fix: allocFunc must return a block whose getAddrFromBlockFunc address starts at "
         "least the asked size of live device memory");
    api_rep_range(addr, bytes);
    stacks(op, 0);
    count(k);
    pthread_mutex_unlock(&lock);
    return false;
}

void api_check_disjoint(const struct api_check_op *op, const void *const *addr,
                        const size_t *bytes, const bool *workspace, int n)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *a = addr[i], *b = addr[j];
            if (!a || !b || !(a < b + bytes[j] && b < a + bytes[i]))
                continue;
            const char *lo = a > b ? a : b;
            const char *hi = a + bytes[i] < b + bytes[j] ? a + bytes[i] : b + bytes[j];
            pthread_mutex_lock(&lock);
            api_rep_begin(API_REP_OVERLAP);
            line(true, "allocator check (overlapping-blocks): operator %s (#%llu) on stream %p: "
                 "the allocator (obj %p) gave [%p, %p) for %zu bytes of %s and [%p, %p) for %zu "
                 "bytes of %s; they share the %zu bytes [%p, %p)", op->type,
                 (unsigned long long)op->seq, op->stream, op->obj, (const void *)a,
                 (const void *)(a + bytes[i]), bytes[i], role(workspace[i]), (const void *)b,
                 (const void *)(b + bytes[j]), bytes[j], role(workspace[j]),
                 (size_t)(hi - lo), (const void *)lo, (const void *)hi);
            line(false, "the kernel writes each of an operator's blocks: blocks of one execute "
                 "must not share bytes; fix: allocFunc must hand out disjoint blocks of at least "
                 "the asked size (CANN frees them only after the launch)");
            api_rep_range(lo, (size_t)(hi - lo));
            stacks(op, 0);
            count(K_OVERLAP);
            pthread_mutex_unlock(&lock);
        }
}

void api_check_live_at_launch(const struct api_check_op *op, void *const *block, void **addr,
                              const size_t *bytes, const bool *workspace, int n)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    for (int i = 0; i < n; i++) {
        if (!addr[i])
            continue;
        struct be_ptr_info in;
        be_get()->lookup(addr[i], &in);
        size_t off = in.kind == BE_PTR_DEVICE
                         ? (size_t)((const char *)addr[i] - (const char *)in.start) : 0;
        if (in.kind == BE_PTR_DEVICE && (in.size == 0 || bytes[i] <= in.size - off))
            continue;
        pthread_mutex_lock(&lock);
        api_rep_begin(API_REP_FREED_BEFORE_LAUNCH);
        line(true, "allocator check (block-freed-before-launch): operator %s (#%llu) on stream "
             "%p: the allocator (obj %p) gave block %p at address %p for %zu bytes of %s, and "
             "[%p, %p) was no longer live device memory when the operator was launched",
             op->type, (unsigned long long)op->seq, op->stream, op->obj, block[i], addr[i],
             bytes[i], role(workspace[i]), addr[i], (const void *)((const char *)addr[i] + bytes[i]));
        line(false, "an allocFunc called later in the same execute freed it (aclrtFree, or a "
             "reservation unmapped): the kernel would write memory someone else may own now "
             "(the block is left unused); fix: keep every block alive until freeFunc returns it");
        api_rep_range(addr[i], bytes[i]);
        stacks(op, 0);
        count(K_FREED_LAUNCH);
        pthread_mutex_unlock(&lock);
        addr[i] = NULL;
    }
}

/* Grow *v (n of cap, elements of size sz) by one; NULL on failure. */
static void *grow(void **v, size_t *n, size_t *cap, size_t sz)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        void *p = base_realloc(*v, c * sz);
        if (!p)
            return NULL;
        *v = p;
        *cap = c;
    }
    return (char *)*v + (*n)++ * sz;
}

/* Record the latest end of an operator under key. pre: lock held. */
static void note_last(struct last_use **v, size_t *n, size_t *cap, const void *key,
                      uint64_t until, uint64_t seq)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].key == key) {
            if (until >= (*v)[i].until)
                (*v)[i] = (struct last_use){key, until, seq};
            return;
        }
    struct last_use *u = grow((void **)v, n, cap, sizeof **v);
    if (u)
        *u = (struct last_use){key, until, seq};
}

/* Is op's allocator also serving another stream whose last operator
 * overlaps op in time? pre: lock held. */
static void shared_allocator(const struct api_check_op *op)
{
    struct alloc_use *a = NULL;
    for (size_t i = 0; i < n_allocs; i++)
        if (allocs[i].obj == op->obj)
            a = &allocs[i];
    if (!a && (a = grow((void **)&allocs, &n_allocs, &cap_allocs, sizeof *allocs)))
        *a = (struct alloc_use){op->obj, NULL, 0, 0};
    if (!a)
        return;
    struct served *mine = NULL;
    for (size_t i = 0; i < a->n; i++) {
        struct served *s = &a->s[i];
        if (s->stream == op->stream) {
            mine = s;
            continue;
        }
        if (s->reported || s->until <= op->start || s->from >= op->end)
            continue;
        s->reported = true; /* once per pair of streams */
        api_rep_begin(API_REP_SHARED);
        const struct op_info *e = op_of(s->seq);
        line(true, "allocator check (shared-allocator): allocator obj %p serves stream %p and "
             "stream %p, whose work overlaps: operator %s (#%llu) on stream %p runs %.3f-%.3f us "
             "while operator %s (#%llu) on stream %p runs %.3f-%.3f us", op->obj, s->stream,
             op->stream, op->type, (unsigned long long)op->seq, op->stream, us(op->start),
             us(op->end), e ? e->type : "?", (unsigned long long)s->seq, s->stream, us(s->from),
             us(s->until));
        line(false, "CANN requires that streams sharing one allocator do not run concurrently: "
             "synchronise the first stream (or wait on an event it recorded) before the second "
             "runs operators, or give each stream its own allocator");
        api_rep_fact("allocator_obj", "%p", op->obj);
        api_rep_time("from", us(op->start));
        api_rep_time("to", us(op->end));
        api_rep_time("earlier_from", us(s->from));
        api_rep_time("earlier_until", us(s->until));
        stacks(op, s->seq);
        count(K_SHARED);
    }
    if (!mine && (mine = grow((void **)&a->s, &a->n, &a->cap, sizeof *a->s)))
        *mine = (struct served){op->stream, 0, 0, 0, false};
    if (mine) {
        mine->from = op->start;
        mine->until = op->end;
        mine->seq = op->seq;
    }
}

/* Bytes [p, p+n) used by op against pending work of other streams. */
static void cross_stream(const struct api_check_op *op, const void *p, size_t n,
                         const char *what)
{
    struct be_pending r;
    char t[48];
    if (!API_TOOL(pending_find)(p, n, op->stream, op->start, op->end, &r))
        return;
    pthread_mutex_lock(&lock);
    api_rep_begin(API_REP_CROSS_STREAM);
    const struct op_info *e = op_of(r.tag);
    line(true, "allocator check (cross-stream-reuse): operator %s (#%llu) on stream %p uses %s "
         "[%p, %p) during %.3f-%.3f us, but operator %s (#%llu) on stream %p still uses the "
         "block [%p, %p) until %s", op->type, (unsigned long long)op->seq, op->stream, what,
         p, (const void *)((const char *)p + n), us(op->start), us(op->end), e ? e->type : "?",
         (unsigned long long)r.tag, r.stream, r.start,
         (const void *)((const char *)r.start + r.size), until_us(r.until, t));
    line(false, "the executor frees a block right after the launch; its bytes stay in use by that "
         "stream until the operator completes. Reuse them on another stream only after an event "
         "recorded on the first stream (aclrtRecordEvent + aclrtStreamWaitEvent) or a "
         "synchronisation: a caching allocator keeps freed blocks per stream and records events "
         "for cross-stream use");
    api_rep_range(p, n);
    api_rep_fact("earlier_block", "[%p, %p)", r.start, (const void *)((const char *)r.start + r.size));
    api_rep_time("from", us(op->start));
    api_rep_time("to", us(op->end));
    pending_until(&r);
    stacks(op, r.tag);
    count(K_CROSS);
    pthread_mutex_unlock(&lock);
}

void api_check_launched(struct api_check_op *op, const void *const *addr, const size_t *bytes,
                        int n_blocks, const void *const *bufs, const size_t *buf_bytes,
                        int n_bufs)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    pthread_mutex_lock(&lock);
    struct op_info *o = &ring[op->seq % RING];
    if (o->seq == op->seq) {
        o->start = op->start;
        o->end = op->end;
    }
    /* An operator queued behind a wait has no interval until it runs
     * (BE_PS_PENDING): the simulator keeps its blocks pending until it has
     * run, and the checks of its own interval pass it by. */
    if (op->obj && op->end != BE_PS_PENDING) {
        shared_allocator(op);
        note_last(&by_stream, &n_by_stream, &cap_by_stream, op->stream, op->end, op->seq);
        note_last(&by_desc, &n_by_desc, &cap_by_desc, op->desc, op->end, op->seq);
    }
    pthread_mutex_unlock(&lock);
    if (!pending_tools())
        return;
    for (int i = 0; i < n_blocks; i++)
        cross_stream(op, addr[i], bytes[i], "its block");
    for (int i = 0; i < n_bufs; i++)
        cross_stream(op, bufs[i], buf_bytes[i], i == n_bufs - 1 ? "its output" : "an input");
    if (n_blocks > 0)
        atomic_store_explicit(&ops_pending_ever, true, memory_order_relaxed);
    for (int i = 0; i < n_blocks; i++)
        API_TOOL(pending_add)(addr[i], bytes[i], op->stream, op->start, op->end, op->seq);
}

void api_check_free_begin(const void *stream)
{
    tls_free_stream = stream;
    tls_in_free = true;
}

void api_check_free_end(void)
{
    tls_in_free = false;
    tls_free_stream = NULL;
}

/* ---- Host-side hooks (mem/memory.c, allocator.c) ---- */

uint64_t api_check_mark(const void *stream)
{
    if (!may_collide())
        return 0;
    uint64_t t = host_now(), tail = 0;
    if (stream) {
        API_TOOL(clock)(BE_CLOCK_STREAM, -1, (void *)(uintptr_t)stream, &tail);
        if (tail > t)
            t = tail;
    }
    return t;
}

void api_check_access(const char *call, const void *p, size_t n, const void *stream,
                      uint64_t from)
{
    if (!may_collide() || n == 0)
        return;
    uint64_t to = host_now();
    if (stream)
        API_TOOL(clock)(BE_CLOCK_STREAM, -1, (void *)(uintptr_t)stream, &to);
    if (to <= from)
        to = from + 1;
    struct be_pending r;
    char t[48];
    if (!API_TOOL(pending_find)(p, n, stream, from, to, &r))
        return;
    pthread_mutex_lock(&lock);
    enum kind k = stream ? K_CROSS : K_HOST_REUSE;
    api_rep_begin((enum api_rep_kind)k);
    const struct op_info *e = op_of(r.tag);
    char who[48];
    if (stream)
        snprintf(who, sizeof who, "on stream %p", stream);
    else
        snprintf(who, sizeof who, "from the host");
    line(true, "allocator check (%s): %s %s touches [%p, %p) at %.3f us, but operator %s (#%llu) "
         "on stream %p still uses the block [%p, %p) until %s", kind_name(k), call, who, p,
         (const void *)((const char *)p + n), us(from), e ? e->type : "?",
         (unsigned long long)r.tag, r.stream, r.start,
         (const void *)((const char *)r.start + r.size), until_us(r.until, t));
    if (stream)
        line(false, "order the copy after the operator with an event recorded on the "
             "operator's stream (aclrtStreamWaitEvent), or synchronise first");
    else
        line(false, "the executor freed the block right after the launch, but the operator has "
             "not completed: synchronise the operator's stream (or its event) before the host "
             "touches memory the allocator handed out again");
    api_rep_fact("call", "%s", call);
    api_rep_stream(stream);
    api_rep_range(p, n);
    api_rep_time("at", us(from));
    pending_until(&r);
    stacks(NULL, r.tag);
    san_here("the access was made at");
    count(k);
    pthread_mutex_unlock(&lock);
}

/* api_check_free once an operator has left work pending. */
static __attribute__((noinline)) void check_free(const void *p)
{
    if (!may_collide())
        return;
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    if (in.kind != BE_PTR_DEVICE || in.start != p || in.size == 0)
        return;
    uint64_t now = host_now();
    /* Inside the free callback for stream S, S's own pending use is the
     * allocator returning the block in S's order. */
    const void *exempt = tls_in_free ? tls_free_stream : NULL;
    struct be_pending r;
    char t[48];
    if (!API_TOOL(pending_find)(p, in.size, exempt, now, now + 1, &r))
        return;
    pthread_mutex_lock(&lock);
    api_rep_begin(API_REP_FREE_PENDING);
    const struct op_info *e = op_of(r.tag);
    line(true, "allocator check (free-while-pending): aclrtFree(%p) frees [%p, %p) at %.3f us, "
         "but operator %s (#%llu) on stream %p still uses [%p, %p) until %s", p, p,
         (const void *)((const char *)p + in.size), us(now), e ? e->type : "?",
         (unsigned long long)r.tag, r.stream, r.start,
         (const void *)((const char *)r.start + r.size), until_us(r.until, t));
    line(false, "aclrtFree does not wait for the device: synchronise the stream (CANN: "
         "\"synchronise before returning allocator memory to the OS\") or use "
         "aclrtFreeWithDevSync");
    api_rep_fact("call", "aclrtFree");
    api_rep_range(p, in.size);
    api_rep_time("at", us(now));
    pending_until(&r);
    stacks(NULL, r.tag);
    san_here("aclrtFree was called at");
    count(K_FREE_PENDING);
    pthread_mutex_unlock(&lock);
}

/* Inlined into aclrtFree (link-time optimisation): in a program that has
 * left no operator work pending, a free pays one load for the sanitizer. */
__attribute__((always_inline)) inline void api_check_free(const void *p)
{
    if (__builtin_expect(atomic_load_explicit(&ops_pending_ever, memory_order_relaxed), 0))
        check_free(p);
}

/* An allocator going away (Unregister on stream, DestroyDesc of desc)
 * while an operator that used it has not completed. */
static void going(enum kind k, const char *call, struct last_use *v, size_t n, const void *key)
{
    if (api_check_mode() == API_CHECK_OFF || !API_TOOL(clock))
        return;
    uint64_t now = host_now();
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n; i++) {
        if (v[i].key != key || v[i].until <= now)
            continue;
        api_rep_begin((enum api_rep_kind)k);
        const struct op_info *e = op_of(v[i].seq);
        line(true, "allocator check (%s): %s(%p) at %.3f us, but operator %s (#%llu) on stream "
             "%p that used its allocator runs until %.3f us", kind_name(k), call, key, us(now),
             e ? e->type : "?", (unsigned long long)v[i].seq, e ? e->stream : NULL,
             us(v[i].until));
        line(false, "CANN: do not unregister or destroy an allocator before its streams have "
             "synchronised (aclrtSynchronizeStream first)");
        api_rep_fact("call", "%s", call);
        api_rep_time("at", us(now));
        api_rep_time("until", us(v[i].until));
        stacks(NULL, v[i].seq);
        san_here("the call was made at");
        count(k);
        break;
    }
    pthread_mutex_unlock(&lock);
}

void api_check_unregister(const void *stream)
{
    going(K_UNREGISTER, "aclrtAllocatorUnregister", by_stream, n_by_stream, stream);
}

void api_check_destroy_desc(const void *desc)
{
    going(K_DESTROY, "aclrtAllocatorDestroyDesc", by_desc, n_by_desc, desc);
}

void api_check_clock_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_allocs; i++)
        base_free(allocs[i].s);
    n_allocs = n_by_stream = n_by_desc = 0;
    pthread_mutex_unlock(&lock);
}

/* ---- Counts and exit ---- */

unsigned long api_check_reports(const char *kind)
{
    unsigned long n = 0;
    for (int k = 0; k < K_COUNT; k++)
        if (!kind || strcmp(kind, kind_name(k)) == 0)
            n += atomic_load_explicit(&counts[k], memory_order_relaxed);
    return n;
}

static void exit_on_reports(void)
{
    unsigned long n = api_check_reports(NULL);
    if (n && api_check_mode() == API_CHECK_ERROR) {
        fprintf(stderr, "aclsim: allocator check: %lu report(s); exiting with status %d "
                "(ACLSIM_ALLOC_CHECK=error)\n", n, CHECK_EXIT);
        fflush(NULL);
        _exit(CHECK_EXIT);
    }
}

__attribute__((constructor)) static void alloccheck_load(void)
{
    atexit(exit_on_reports);
}

__attribute__((destructor)) static void alloccheck_unload(void)
{
    for (size_t i = 0; i < n_allocs; i++)
        base_free(allocs[i].s);
    base_free(allocs);
    base_free(by_stream);
    base_free(by_desc);
}
