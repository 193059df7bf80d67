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
    const char *ws_call; /* its workspace is the caller's, passed to this call */
    int nframes;
    void *frames[FRAMES];
};
static struct op_info ring[RING];

static _Thread_local const void *tls_free_stream; /* inside a free callback for it */
static _Thread_local bool tls_in_free;

enum api_check_mode api_check_mode(void)
{
    /* ACLSIM_ALLOC_CHECK's words are warn|off|error, in this order. */
    static const enum api_check_mode modes[] = {API_CHECK_WARN, API_CHECK_OFF, API_CHECK_ERROR};
    unsigned i = opt_enum(OPT_ALLOC_CHECK);
    return i < 3 ? modes[i] : API_CHECK_WARN;
}

static double us(uint64_t ps)
{
    return (double)ps / 1e6;
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

const char *san_op_type(uint64_t seq)
{
    pthread_mutex_lock(&lock);
    const struct op_info *o = op_of(seq);
    const char *t = o ? o->type : "?";
    pthread_mutex_unlock(&lock);
    return t;
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
    struct op_info info = {op->seq, type, stream, obj, 0, 0, 0, 0, NULL, 0, {NULL}};
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

void api_check_launched(struct api_check_op *op)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    pthread_mutex_lock(&lock);
    struct op_info *o = &ring[op->seq % RING];
    if (o->seq == op->seq) {
        o->start = op->start;
        o->end = op->end;
    }
    pthread_mutex_unlock(&lock);
}

void api_check_op_workspace(const struct api_check_op *op, const char *call)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    pthread_mutex_lock(&lock);
    struct op_info *o = &ring[op->seq % RING];
    if (o->seq == op->seq)
        o->ws_call = call;
    pthread_mutex_unlock(&lock);
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

/* ---- Races: two uses of shared bytes that nothing orders (sim/hb.c) ---- */

const char *api_stream_name(const void *stream, char buf[API_NAME_LEN])
{
    if (!stream)
        snprintf(buf, API_NAME_LEN, "the host");
    else
        snprintf(buf, API_NAME_LEN, "stream %u (%p)", api_cap_stream_id(stream), stream);
    return buf;
}

static const char *verb(const struct be_use *u)
{
    return u->role == BE_USE_FREE ? "frees" : u->write ? "writes" : "reads";
}

/* What the bytes are to an operator: its role. pre: lock held. */
static void op_role(const struct be_use *u, const struct op_info *o, char *buf, size_t len)
{
    switch (u->role) {
    case BE_USE_INPUT:
        snprintf(buf, len, "an input");
        break;
    case BE_USE_OUTPUT:
        snprintf(buf, len, "its output");
        break;
    case BE_USE_WORKSPACE:
        if (o && o->ws_call)
            snprintf(buf, len, "the workspace passed to %s", o->ws_call);
        else
            snprintf(buf, len, "the executor's block (its workspace)");
        break;
    default:
        snprintf(buf, len, "the executor's block (its tiling record)");
        break;
    }
}

/* One use, as a sentence's subject and verb: "operator MatMul (#3) on
 * stream 1 (0x...) writes the workspace passed to aclnnMatmul". */
static void describe(const struct be_use *u, char *buf, size_t len)
{
    char st[API_NAME_LEN], what[96], g[API_NAME_LEN + 40] = "";
    api_stream_name(u->stream, st);
    if (u->graph)
        snprintf(g, sizeof g, " (a replay of %s)", api_graph_name_be(u->graph, what, sizeof what));
    if (u->space != BE_SPACE_DEVICE && u->stream) {
        const struct op_info *o = op_of(u->tag);
        snprintf(buf, len, "operator %s (#%llu) on %s%s", o ? o->type : "?",
                 (unsigned long long)u->tag, st, g);
        return;
    }
    switch (u->role) {
    case BE_USE_INPUT:
    case BE_USE_OUTPUT:
    case BE_USE_WORKSPACE:
    case BE_USE_TILING: {
        const struct op_info *o = op_of(u->tag);
        op_role(u, o, what, sizeof what);
        snprintf(buf, len, "operator %s (#%llu) on %s%s %s %s", o ? o->type : "?",
                 (unsigned long long)u->tag, st, g, verb(u), what);
        return;
    }
    case BE_USE_COPY_DST:
    case BE_USE_COPY_SRC:
        snprintf(buf, len, "an asynchronous copy on %s%s %s", st, g, verb(u));
        return;
    case BE_USE_FILL:
        snprintf(buf, len, "an asynchronous memset on %s%s writes", st, g);
        return;
    case BE_USE_DEVTASK:
        snprintf(buf, len, "a device task on %s%s %s", st, g, verb(u));
        return;
    case BE_USE_VALUE:
        snprintf(buf, len, "a value write on %s%s writes", st, g);
        return;
    default:
        snprintf(buf, len, "%s on the host %s", u->call ? u->call
                 : u->write ? "a synchronous copy or memset" : "a synchronous copy", verb(u));
        return;
    }
}

static enum kind race_kind(const struct be_use *now, const struct be_use *before)
{
    if (now->space == BE_SPACE_ALLOCATOR)
        return K_SHARED;
    if (now->space == BE_SPACE_REGISTRATION)
        return K_UNREGISTER;
    if (now->space == BE_SPACE_DESC)
        return K_DESTROY;
    if (now->role == BE_USE_FREE || before->role == BE_USE_FREE)
        return K_FREE_PENDING;
    if (!now->stream || !before->stream)
        return K_HOST_REUSE;
    return K_CROSS;
}

/* The stream of the two uses, the one that is not the host's. */
static const void *device_side(const struct be_use *now, const struct be_use *before)
{
    return now->stream ? now->stream : before->stream;
}

static void fix_line(enum kind k, const struct be_use *now, const struct be_use *before)
{
    char a[API_NAME_LEN], b[API_NAME_LEN];
    api_stream_name(before->stream, b);
    api_stream_name(device_side(now, before), a);
    switch (k) {
    case K_SHARED:
        line(false, "fix: CANN requires that streams sharing one allocator do not run "
             "concurrently: make %s wait for %s (an event, aclrtRecordEvent then "
             "aclrtStreamWaitEvent, or a synchronisation) before it runs operators, or give each "
             "stream its own allocator", api_stream_name(now->stream, a), b);
        return;
    case K_UNREGISTER:
    case K_DESTROY:
        line(false, "fix: synchronise %s (aclrtSynchronizeStream) before unregistering or "
             "destroying the allocator its operators use (CANN: synchronise first)", a);
        return;
    case K_FREE_PENDING:
        line(false, "fix: aclrtFree does not wait for the device: synchronise %s first "
             "(aclrtSynchronizeStream, or an event it recorded after that work), or free with "
             "aclrtFreeWithDevSync", a);
        return;
    case K_HOST_REUSE:
        line(false, "fix: synchronise %s (aclrtSynchronizeStream, or aclrtSynchronizeEvent on "
             "an event recorded after that work) before the host touches these bytes", a);
        return;
    default:
        line(false, "fix: order the second use after the first: record an event on %s after "
             "the first use and make %s wait on it (aclrtRecordEvent, then "
             "aclrtStreamWaitEvent) before the second, or synchronise %s first; a caching "
             "allocator that gives a block freed on one stream to another must do the same",
             b, api_stream_name(now->stream, a), b);
        return;
    }
}

static void why_line(enum kind k)
{
    if (k == K_SHARED)
        line(false, "both operators draw blocks from that allocator, and nothing orders one "
             "stream's operator before the other's: on the device they may run at once");
    else if (k == K_UNREGISTER || k == K_DESTROY)
        line(false, "the operator has not been waited for: on the device it may still be using "
             "the allocator's blocks");
    else
        line(false, "nothing the program does (an event wait, a synchronisation, a callback) "
             "orders one before the other, so on the device they may run in either order or "
             "at once, whatever the simulated times say");
}

/* What one use does to its bytes, without naming its task: "writes its
 * output", "reads" (a copy's source). pre: lock held. */
static void short_use(const struct be_use *u, char *buf, size_t len)
{
    char what[96] = "";
    if (u->role == BE_USE_INPUT || u->role == BE_USE_OUTPUT || u->role == BE_USE_WORKSPACE ||
        u->role == BE_USE_TILING)
        op_role(u, op_of(u->tag), what, sizeof what);
    snprintf(buf, len, "%s%s%s", verb(u), what[0] ? " " : "", what);
}

/* The further ranges two racing tasks share, after the one the report
 * names: a line each. pre: lock held. */
static void also_lines(const struct be_use *now, const struct be_use *before, int n)
{
    char ranges[16 * 48] = "";
    size_t used = 0;
    for (int i = 1; i < n; i++) {
        const char *lo = (const char *)(now[i].p > before[i].p ? now[i].p : before[i].p);
        const char *e1 = (const char *)now[i].p + now[i].n;
        const char *e2 = (const char *)before[i].p + before[i].n;
        const char *hi = e1 < e2 ? e1 : e2;
        char a[128], b[128];
        short_use(&now[i], a, sizeof a);
        short_use(&before[i], b, sizeof b);
        line(false, "the same two also race on [%p, %p): the later %s, the earlier %s",
             (const void *)lo, (const void *)hi, a, b);
        if (used < sizeof ranges)
            used += (size_t)snprintf(ranges + used, sizeof ranges - used, "%s[%p, %p)",
                                     used ? " " : "", (const void *)lo, (const void *)hi);
    }
    if (n > 1)
        api_rep_fact("also_shared", "%s", ranges);
}

/* One race of two tasks: the first pair named, the rest as more lines. */
static void on_race(const struct be_use *now, const struct be_use *before, int n_pairs)
{
    if (api_check_mode() == API_CHECK_OFF || n_pairs <= 0)
        return;
    const struct be_use *all_now = now, *all_before = before;
    enum kind k = race_kind(now, before);
    char n1[320], n2[320];
    pthread_mutex_lock(&lock);
    describe(now, n1, sizeof n1);
    describe(before, n2, sizeof n2);
    api_rep_begin((enum api_rep_kind)k);
    const char *lo = (const char *)(now->p > before->p ? now->p : before->p);
    const char *e1 = (const char *)now->p + now->n, *e2 = (const char *)before->p + before->n;
    const char *hi = e1 < e2 ? e1 : e2;
    if (now->space == BE_SPACE_DEVICE)
        line(true, "allocator check (%s): %s [%p, %p), and %s [%p, %p): the two share [%p, %p) "
             "and neither is ordered before the other", kind_name(k), n1, now->p,
             (const void *)e1, n2, before->p, (const void *)e2, (const void *)lo,
             (const void *)hi);
    else if (k == K_SHARED)
        line(true, "allocator check (shared-allocator): allocator obj %p serves %s and %s, "
             "which nothing orders", now->p, n1, n2);
    else
        line(true, "allocator check (%s): %s(%p), but %s, which used that allocator, has not "
             "been waited for", kind_name(k), now->call ? now->call : before->call,
             now->stream ? before->p : now->p, now->stream ? n1 : n2);
    if (now->space == BE_SPACE_DEVICE)
        also_lines(all_now, all_before, n_pairs);
    why_line(k);
    fix_line(k, now, before);
    if (now->space == BE_SPACE_DEVICE)
        api_rep_range(lo, (size_t)(hi - lo));
    if (now->call || before->call)
        api_rep_fact("call", "%s", now->call ? now->call : before->call);
    api_rep_stream(now->stream);
    api_rep_stream(before->stream);
    api_rep_time("at", us(now->at));
    api_rep_time("earlier_at", us(before->at));
    api_rep_line(false, "(simulated times, for illustration only: %.3f us and %.3f us)",
                 us(now->at), us(before->at));
    bool op_now = now->stream && now->tag, op_before = before->stream && before->tag;
    struct api_check_op me = {now->tag, NULL, now->stream, NULL, NULL, 0, 0};
    stacks(op_now ? &me : NULL, op_before ? before->tag : 0);
    if (!op_now)
        san_here(now->stream ? "the work was enqueued at" : "the host call was made at");
    count(k);
    pthread_mutex_unlock(&lock);
}

/* ---- Host-side hooks (mem/memory.c, allocator.c) ---- */

static void host_use(uint32_t space, uint32_t role, const char *call, const void *p, size_t n)
{
    if (api_check_mode() == API_CHECK_OFF || !API_TOOL(hb_use))
        return;
    struct be_use u = {NULL, space, role, true, 0, call, NULL, p, n, 0};
    API_TOOL(hb_use)(&u);
}

void api_check_free(const void *p)
{
    /* Inside the free callback for a stream the allocator returns the block
     * in that stream's order: the bytes stay the operator's (its uses are
     * recorded), and any later unordered use of them is reported. */
    if (tls_in_free || api_check_mode() == API_CHECK_OFF ||
        (API_TOOL(hb_quiet) && API_TOOL(hb_quiet)()))
        return; /* (nothing to race with: not even the lookup) */
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    if (in.kind != BE_PTR_DEVICE || in.start != p || in.size == 0)
        return;
    host_use(BE_SPACE_DEVICE, BE_USE_FREE, "aclrtFree", p, in.size);
}

void api_check_unregister(const void *stream)
{
    host_use(BE_SPACE_REGISTRATION, BE_USE_UNREGISTER, "aclrtAllocatorUnregister", stream, 1);
}

void api_check_destroy_desc(const void *desc)
{
    host_use(BE_SPACE_DESC, BE_USE_DESTROY_DESC, "aclrtAllocatorDestroyDesc", desc, 1);
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
    /* Every use of device bytes is checked by the backend's happens-before
     * (whether it records any is ACLSIM_ALLOC_CHECK's, read as it runs). */
    if (API_TOOL(hb_reporter))
        API_TOOL(hb_reporter)(on_race);
}
