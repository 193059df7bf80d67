/*
 * fuzz_model.c - decoder and model of the API-sequence fuzzer (see
 * fuzz_model.h).
 *
 * Decoding: one byte picks an operation, the next bytes its arguments
 * (which handle, live, destroyed, mistyped, interior or garbage; which size,
 * offset, count, kind, policy, flag); running out of bytes ends the
 * sequence. Handles and pointers are chosen from what the model knows, so
 * any input is a valid program or a misuse whose answer the model knows.
 *
 * The model: init references; per device open, references, default
 * context, user contexts, an instance number (bumped when the device
 * opens), the bytes its heap uses and the most it used; the calling
 * thread's current context; live contexts, streams and events (and which
 * are known complete); live device blocks with the heap footprint CANN's
 * rounding gives (ALIGN_UP(size, 32) + 32 of padding on 910B, 2 MB pages,
 * 4 KiB normal pages) and a shadow of their bytes (with which bytes are
 * defined); pinned host blocks; descs and the stream -> snapshot registry;
 * armed fault points. For each call it derives the code CANN's check order
 * gives (hicann/runtime src/acl/aclrt_impl/memory.cpp, stream.cpp,
 * device.cpp, acl.cpp; the README's "What behaves like CANN"), or
 * the set of codes when the answer depends on simulated time or on the
 * library's own host memory failing (lib/host/malloc: then a failed call
 * must leave everything as it was).
 *
 * Checked after every call: the code; a message is queued iff the call
 * failed (CANN's REPEAT codes excepted); outputs (handles not NULL and new,
 * device, context, status, elapsed time, pointer attributes, memory info
 * and usage, GetByStream's snapshot); device allocations are aligned,
 * inside a gap the model has, and succeed exactly when one fits; copies
 * and fills move exactly the model's bytes (data moves when the call is
 * made, as aclsim documents) and are refused exactly when a side is not
 * inside live memory of the right kind.
 */
#include "fuzz_model.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifdef VALGRIND_DISABLE_ERROR_REPORTING
/* Misuse is deliberate here: aclsim tells memcheck too, which is right for
 * programs, not for a fuzzer (scons leakcheck runs the driver). */
#define MISUSE_BEGIN() VALGRIND_DISABLE_ERROR_REPORTING
#define MISUSE_END() VALGRIND_ENABLE_ERROR_REPORTING
#else
#define MISUSE_BEGIN() ((void)0)
#define MISUSE_END() ((void)0)
#endif
/* Device blocks a reset or aclFinalize reclaimed: aclsim leaves them
 * allocated for memcheck (a program that never freed them leaked them);
 * the fuzzer does so on purpose, and its next blocks reuse the addresses. */
#ifdef VALGRIND_FREELIKE_BLOCK
#define RECLAIMED(p) VALGRIND_FREELIKE_BLOCK((p), 0)
#else
#define RECLAIMED(p) ((void)(p))
#endif

int fuzz_verbose;
void (*fuzz_fail_hook)(void) = abort;

/* ---- The environment the model assumes ---- */

#define NDEV 2
#define HBM ((uint64_t)32 << 20)
#define RESERVED ((uint64_t)8 << 20) /* CANN's cmodel reserve, not in total */
#define PAD 32                       /* Ascend910B1's aclrtMalloc padding */
#define GIB ((uint64_t)1 << 30)
#define HUGE_PAGE ((uint64_t)2 << 20)
#define BUF 65536
#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))

/* ---- Model state ---- */

enum { MAXCTX = 12, MAXSTREAM = 24, MAXEVENT = 24, MAXBLOCK = 40, MAXPIN = 12, MAXDESC = 6,
       MAXREG = 12, MAXDEAD = 32 };

struct mdev {
    bool open;
    unsigned refs, user_ctxs, inst;
    int primary; /* index into ctx[], -1: none */
    uint64_t used, peak;
    unsigned peers; /* bit p: this device enabled access to device p */
};

/* A stream as events see it: a stream handle, or a context's default one. */
struct skey {
    void *h;
    bool deflt; /* h is the context */
    int dev;
};

struct mctx {
    void *h;
    int dev;
    bool primary, idle; /* idle: its default stream known to have no work */
    void *ds;           /* its default stream's handle (a live handle too) */
};
struct mstream {
    void *h, *ctx;
    int dev;
    bool idle;
};
struct mevent {
    void *h;
    int dev; /* the device it was created on, which owns it */
    bool timeline, recorded, done;
    struct skey on; /* the stream of the last record */
    unsigned seq;
};
struct mblock {
    char *p;
    uint64_t size, usable, foot, page; /* page 0: either (ambiguous) */
    int dev;
    unsigned inst;
    uint8_t *val, *def;
    bool abandoned; /* its free failed (acl/rt/free): aclsim frees it at close */
};
struct mpin {
    char *p;
    size_t size;
};
struct mdesc {
    void *h;
    void *f[5]; /* obj, alloc, free, advise, get_addr */
};
struct mreg {
    void *key;
    void *snap[6]; /* desc, then the five of the desc */
};
/* A pointer that was device memory (dead) and where it came from. */
struct mdead {
    char *p;
    int dev; /* -1: a pinned host block */
    unsigned inst;
};

static struct {
    int init_refs;
    bool end_pending; /* an aclFinalize left devices open: the end comes as the last closes */
    struct mdev dev[NDEV];
    void *cur; /* the thread's current context handle (maybe dead) */
    struct mctx ctx[MAXCTX];
    int nctx;
    struct mstream st[MAXSTREAM];
    int nst;
    struct mevent ev[MAXEVENT];
    int nev;
    unsigned seq;
    struct mblock blk[MAXBLOCK];
    int nblk;
    struct mpin pin[MAXPIN];
    int npin;
    uint64_t host_bytes;
    struct mdesc desc[MAXDESC];
    int ndesc;
    struct mreg reg[MAXREG];
    int nreg;
    void *dead_h[MAXDEAD]; /* destroyed context, stream and event handles */
    unsigned ndead_h;
    struct mdead dead_p[MAXDEAD];
    unsigned ndead_p;
    unsigned faults;
} m;

/* Fault points the model knows the effect of. */
enum { F_MALLOC, F_MEMCPY, F_CREATE_STREAM, F_CREATE_EVENT, F_FREE, F_HBM, F_HOSTMALLOC, NFAULT };
static const char *const fault_names[NFAULT] = {
    "acl/rt/malloc", "acl/rt/memcpy", "acl/rt/create_stream", "acl/rt/create_event",
    "acl/rt/free", "sim/hbm/alloc", "lib/host/malloc"};
#define ARMED(f) ((m.faults >> (f)) & 1u)

static unsigned char hsrc[BUF], hdst[BUF];

/* ---- Input ---- */

static const uint8_t *in;
static size_t in_len, in_pos;

static unsigned byte(void)
{
    return in_pos < in_len ? in[in_pos++] : 0;
}

static unsigned pick(unsigned n)
{
    return n ? byte() % n : 0;
}

static uint32_t u16(void)
{
    uint32_t lo = byte();
    return lo | byte() << 8;
}

/* ---- Reporting ---- */

#define LOG_LINES 48
static char oplog[LOG_LINES][200];
static unsigned nops; /* calls made in this sequence */
static char cur_op[200];

static void op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void op(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur_op, sizeof cur_op, fmt, ap);
    va_end(ap);
    snprintf(oplog[nops % LOG_LINES], sizeof oplog[0], "%s", cur_op);
    nops++;
    if (fuzz_verbose)
        fprintf(stderr, "fuzz: %4u %s\n", nops, cur_op);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    fprintf(stderr, "aclsim fuzz: MISMATCH at call %u of the sequence, input byte %zu of %zu\n",
            nops, in_pos, in_len);
    unsigned first = nops > LOG_LINES ? nops - LOG_LINES : 0;
    for (unsigned i = first; i < nops; i++)
        fprintf(stderr, "  %4u %s\n", i + 1, oplog[i % LOG_LINES]);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "aclsim fuzz: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fuzz_fail_hook();
    abort();
}

/* The pending message must be there iff the call failed. */
static void check_msg(aclError rc)
{
    const char *msg = aclGetRecentErrMsg();
    if (rc == ACL_SUCCESS && msg)
        fail("%s succeeded but queued a message: %s", cur_op, msg);
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_INITIALIZE && rc != ACL_ERROR_REPEAT_FINALIZE) {
        if (!msg)
            fail("%s failed with %d without a message", cur_op, rc);
        if (strncmp(msg, "[PID: ", 6) != 0)
            fail("%s: message not in CANN's format: %s", cur_op, msg);
    }
}

/* lib/host/malloc armed: the call may fail for want of host memory, with
 * `alt` as its code too (0: only ACL_ERROR_BAD_ALLOC). True: it did, and
 * the model stays as it was. */
static bool host_failed(aclError rc, aclError alt)
{
    return ARMED(F_HOSTMALLOC) && rc != ACL_SUCCESS &&
           (rc == ACL_ERROR_BAD_ALLOC || (alt && rc == alt));
}

static void expect(aclError rc, aclError want)
{
    if (rc != want)
        fail("%s answered %d, the model says %d", cur_op, rc, want);
}

#define RETURN_EXPECT(rc, want)                                                          \
    do {                                                                                 \
        expect((rc), (want));                                                            \
        return;                                                                          \
    } while (0)

/* ---- Model helpers ---- */

static void forget_dead(void *h)
{
    for (unsigned i = 0; i < MAXDEAD; i++)
        if (m.dead_h[i] == h)
            m.dead_h[i] = NULL;
}

static void bury(void *h)
{
    m.dead_h[m.ndead_h++ % MAXDEAD] = h;
}

static void bury_ptr(char *p, int dev, unsigned inst)
{
    m.dead_p[m.ndead_p++ % MAXDEAD] = (struct mdead){p, dev, inst};
}

static struct mctx *ctx_of(const void *h)
{
    for (int i = 0; i < m.nctx; i++)
        if (m.ctx[i].h == h)
            return &m.ctx[i];
    return NULL;
}

static struct mstream *stream_of(const void *h)
{
    for (int i = 0; i < m.nst; i++)
        if (m.st[i].h == h)
            return &m.st[i];
    return NULL;
}

static struct mevent *event_of(const void *h)
{
    for (int i = 0; i < m.nev; i++)
        if (m.ev[i].h == h)
            return &m.ev[i];
    return NULL;
}

/* The context whose default stream has handle h. */
static struct mctx *ctx_of_ds(const void *h)
{
    for (int i = 0; h && i < m.nctx; i++)
        if (m.ctx[i].ds == h)
            return &m.ctx[i];
    return NULL;
}

static bool live_handle(const void *h)
{
    return ctx_of(h) || stream_of(h) || event_of(h) || ctx_of_ds(h);
}

static struct mctx *cur_ctx(void)
{
    return m.cur ? ctx_of(m.cur) : NULL;
}

static void new_handle(const void *h, const char *what)
{
    if (!h)
        fail("%s returned a NULL %s", cur_op, what);
    if (live_handle(h))
        fail("%s returned %p, already a live handle", cur_op, h);
    forget_dead((void *)h);
}

/* A new context, current now: its default stream has a handle of its own,
 * which may reuse a destroyed handle's address. */
static void learn_default_stream(struct mctx *c)
{
    aclrtStream s = NULL;
    aclError rc = aclrtCtxGetCurrentDefaultStream(&s);
    check_msg(rc);
    expect(rc, ACL_SUCCESS);
    new_handle(s, "default stream");
    c->ds = s;
}

/* Events recorded on streams matching (key, or every stream of dev when
 * key is NULL) are complete once those streams were waited for. */
static void events_done(const struct skey *key, int dev)
{
    for (int i = 0; i < m.nev; i++) {
        struct mevent *e = &m.ev[i];
        if (!e->recorded)
            continue;
        if (key ? (e->on.h == key->h && e->on.deflt == key->deflt) : e->on.dev == dev)
            e->done = true;
    }
}

static void drop_stream(int i)
{
    struct skey k = {m.st[i].h, false, m.st[i].dev};
    events_done(&k, -1); /* a destroy waits for its work */
    bury(m.st[i].h);
    m.st[i] = m.st[--m.nst];
}

/* Context i goes, with its streams (CANN); events stay with the device. */
static void drop_ctx(int i)
{
    void *h = m.ctx[i].h;
    struct skey k = {h, true, m.ctx[i].dev};
    events_done(&k, -1);
    for (int s = m.nst - 1; s >= 0; s--)
        if (m.st[s].ctx == h)
            drop_stream(s);
    int dev = m.ctx[i].dev;
    if (m.dev[dev].primary >= 0 && m.ctx[m.dev[dev].primary].h == h)
        m.dev[dev].primary = -1;
    if (m.cur == h)
        m.cur = NULL; /* gone for good, even if a new context gets its address */
    bury(h);
    bury(m.ctx[i].ds);
    int last = --m.nctx;
    if (i != last) {
        m.ctx[i] = m.ctx[last];
        for (int d = 0; d < NDEV; d++)
            if (m.dev[d].primary == last)
                m.dev[d].primary = i;
    }
}

/* Shadows are zeroed pages the kernel maps lazily: a 20 MiB block costs
 * only what the sequence touches of it. */
static uint8_t *shadow_new(uint64_t n)
{
    void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void shadow_free(uint8_t *p, uint64_t n)
{
    if (p)
        munmap(p, (size_t)n);
}

static void drop_block(int i, bool reclaimed)
{
    struct mblock *b = &m.blk[i];
    if (reclaimed && !b->abandoned)
        RECLAIMED(b->p);
    bury_ptr(b->p, b->dev, b->inst);
    shadow_free(b->val, b->usable);
    shadow_free(b->def, b->usable);
    m.blk[i] = m.blk[--m.nblk];
}

static void close_device(int d)
{
    for (int i = m.nctx - 1; i >= 0; i--)
        if (m.ctx[i].dev == d)
            drop_ctx(i);
    for (int i = m.nev - 1; i >= 0; i--)
        if (m.ev[i].dev == d) {
            bury(m.ev[i].h);
            m.ev[i] = m.ev[--m.nev];
        }
    for (int i = m.nblk - 1; i >= 0; i--)
        if (m.blk[i].dev == d)
            drop_block(i, true);
    m.dev[d] = (struct mdev){.open = false, .primary = -1, .inst = m.dev[d].inst};
}

static bool any_open(void)
{
    for (int d = 0; d < NDEV; d++)
        if (m.dev[d].open)
            return true;
    return false;
}

/* After an aclFinalize that left devices open (CANN's resets none), the
 * runtime ends as the last one closes. Pinned blocks outlive it: host
 * memory tied to no device, freed by aclrtFreeHost whenever (hicann/runtime
 * src/runtime/driver/npu_driver_mem.cc:838-862, api_impl.cc:2512-2536). */
static void end_if_idle(void)
{
    if (m.end_pending && m.init_refs == 0 && !any_open())
        m.end_pending = false;
}

static void close_if_unused(int d)
{
    struct mdev *v = &m.dev[d];
    if (v->open && v->refs == 0 && v->user_ctxs == 0 && v->primary < 0)
        close_device(d);
    end_if_idle();
}

static void open_device(int d)
{
    if (!m.dev[d].open) {
        m.dev[d].open = true;
        m.dev[d].used = m.dev[d].peak = 0;
        m.dev[d].inst++;
    }
}

/* The pinned blocks left at teardown, freed with aclrtFreeHost after the
 * runtime's end: they outlive it (end_if_idle). */
static void free_pinned(void)
{
    for (int i = 0; i < m.npin; i++) {
        op("aclrtFreeHost(%p) [teardown]", m.pin[i].p);
        aclError rc = aclrtFreeHost(m.pin[i].p);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
        bury_ptr(m.pin[i].p, -1, 0);
    }
    m.npin = 0;
    m.host_bytes = 0;
}

/* The last reference of aclFinalize went: CANN's aclFinalize resets no
 * device (hicann/runtime src/acl/aclrt_impl/acl.cpp:547-628), so the
 * runtime ends now only when none is open. */
static void finalize_all(void)
{
    m.init_refs = 0;
    m.end_pending = true;
    end_if_idle();
}

/* ---- Choosing handles ---- */

static void *garbage(void)
{
    static int on_stack_anchor;
    switch (pick(6)) {
    case 0:
        return (void *)(uintptr_t)1;
    case 1:
        return &on_stack_anchor;
    case 2:
        return hsrc + 8;
    case 3:
        return (void *)(uintptr_t)(UINTPTR_MAX - 7);
    case 4:
        return m.nblk ? (void *)m.blk[pick((unsigned)m.nblk)].p : (void *)(uintptr_t)0xdeadbeef;
    default:
        return (void *)(uintptr_t)0xdeadbeef;
    }
}

static void *dead_handle(void)
{
    for (unsigned tries = 0; tries < 4; tries++) {
        void *h = m.dead_h[pick(MAXDEAD)];
        if (h && !live_handle(h))
            return h;
    }
    return (void *)(uintptr_t)0x40;
}

/* A context argument: live (user or default), destroyed, mistyped,
 * interior, garbage, NULL. */
static void *choose_ctx(void)
{
    switch (pick(8)) {
    case 0:
    case 1:
    case 2:
        if (m.nctx)
            return m.ctx[pick((unsigned)m.nctx)].h;
        return NULL;
    case 3:
        return dead_handle();
    case 4:
        return m.nst ? m.st[pick((unsigned)m.nst)].h : garbage();
    case 5:
        return m.nctx ? (char *)m.ctx[pick((unsigned)m.nctx)].h + 1 : garbage();
    case 6:
        return NULL;
    default:
        return garbage();
    }
}

/* A stream argument; NULL means the current context's default stream, which
 * a context's default-stream handle also names. */
static void *choose_stream(void)
{
    switch (pick(9)) {
    case 0:
    case 1:
    case 2:
    case 3:
        if (m.nst)
            return m.st[pick((unsigned)m.nst)].h;
        return NULL;
    case 4:
        if (pick(2) && m.nctx)
            return m.ctx[pick((unsigned)m.nctx)].ds;
        return NULL;
    case 5:
        return NULL;
    case 6:
        return dead_handle();
    case 7:
        if (pick(2) && m.nev)
            return m.ev[pick((unsigned)m.nev)].h;
        return m.nst ? (char *)m.st[pick((unsigned)m.nst)].h + 8 : garbage();
    default:
        return garbage();
    }
}

static void *choose_event(void)
{
    switch (pick(8)) {
    case 0:
    case 1:
    case 2:
    case 3:
        if (m.nev)
            return m.ev[pick((unsigned)m.nev)].h;
        return NULL;
    case 4:
        return dead_handle();
    case 5:
        if (pick(2) && m.nst)
            return m.st[pick((unsigned)m.nst)].h;
        return m.nev ? (char *)m.ev[pick((unsigned)m.nev)].h + 1 : garbage();
    case 6:
        return NULL;
    default:
        return garbage();
    }
}

/* What a stream argument resolves to: ACL_SUCCESS and its key, or CANN's
 * code (current context missing: 107002; not a live stream: 507000). */
static aclError resolve_stream(void *s, struct skey *key)
{
    if (!s) {
        struct mctx *c = cur_ctx();
        if (!c)
            return ACL_ERROR_RT_CONTEXT_NULL;
        *key = (struct skey){c->h, true, c->dev};
        return ACL_SUCCESS;
    }
    struct mstream *st = stream_of(s);
    struct mctx *c = st ? NULL : ctx_of_ds(s);
    if (c) { /* a default stream named explicitly is the NULL stream of its context */
        *key = (struct skey){c->h, true, c->dev};
        return ACL_SUCCESS;
    }
    if (!st)
        return ACL_ERROR_RT_INTERNAL_ERROR;
    *key = (struct skey){s, false, st->dev};
    return ACL_SUCCESS;
}

static bool *idle_of(const struct skey *k)
{
    if (k->deflt) {
        struct mctx *c = ctx_of(k->h);
        return c ? &c->idle : NULL;
    }
    struct mstream *s = stream_of(k->h);
    return s ? &s->idle : NULL;
}

static void set_busy(const struct skey *k)
{
    bool *idle = idle_of(k);
    if (idle)
        *idle = false;
}

static int choose_dev(void)
{
    switch (pick(8)) {
    case 6:
        return pick(2) ? -1 : NDEV;
    case 7:
        return pick(2) ? 64 : INT32_MIN;
    default:
        return (int)pick(NDEV);
    }
}

/* ---- Init and devices ---- */

static void do_init(void)
{
    op("aclInit(NULL)");
    aclError rc = aclInit(NULL);
    check_msg(rc);
    expect(rc, m.init_refs > 0 ? ACL_ERROR_REPEAT_INITIALIZE : ACL_SUCCESS);
    m.init_refs++;
}

static void do_finalize(void)
{
    bool ref = pick(2);
    uint64_t left = 12345;
    uint64_t *lp = pick(2) ? &left : NULL;
    op(ref ? "aclFinalizeReference(%s)" : "aclFinalize()", lp ? "&n" : "NULL");
    aclError rc = ref ? aclFinalizeReference(lp) : aclFinalize();
    check_msg(rc);
    if (m.init_refs == 0) {
        expect(rc, ACL_ERROR_REPEAT_FINALIZE);
        if (lp && left != 12345)
            fail("%s wrote the count on failure", cur_op);
        return;
    }
    expect(rc, ACL_SUCCESS);
    m.init_refs = ref ? m.init_refs - 1 : 0;
    if (ref && lp && left != (uint64_t)m.init_refs)
        fail("%s left %llu references, the model %d", cur_op, (unsigned long long)left,
             m.init_refs);
    if (m.init_refs == 0)
        finalize_all();
}

static void learn_primary(int d)
{
    aclrtContext h = NULL;
    aclError rc = aclrtGetCurrentContext(&h);
    check_msg(rc);
    expect(rc, ACL_SUCCESS);
    if (m.dev[d].primary >= 0) {
        if (h != m.ctx[m.dev[d].primary].h)
            fail("%s: the current context is %p, the device's default one %p", cur_op, h,
                 m.ctx[m.dev[d].primary].h);
    } else {
        if (m.nctx == MAXCTX)
            fail("model: too many contexts");
        new_handle(h, "default context");
        m.ctx[m.nctx] = (struct mctx){h, d, true, true, NULL};
        m.dev[d].primary = m.nctx++;
        learn_default_stream(&m.ctx[m.dev[d].primary]);
    }
    m.cur = h;
}

static void do_set_device(void)
{
    int d = choose_dev();
    if (m.nctx >= MAXCTX - 1)
        return;
    op("aclrtSetDevice(%d)", d);
    aclError rc = aclrtSetDevice(d);
    check_msg(rc);
    if (d < 0 || d >= NDEV) {
        expect(rc, ACL_ERROR_RT_INVALID_DEVICEID);
        return;
    }
    if (host_failed(rc, 0)) {
        if (!m.dev[d].open)
            m.dev[d].inst++; /* opened and closed again: a new range */
        return;
    }
    expect(rc, ACL_SUCCESS);
    open_device(d);
    learn_primary(d);
    m.dev[d].refs++;
}

static void do_reset_device(void)
{
    int d = choose_dev();
    bool force = pick(3) == 0;
    op("aclrtResetDevice%s(%d)", force ? "Force" : "", d);
    aclError rc = force ? aclrtResetDeviceForce(d) : aclrtResetDevice(d);
    check_msg(rc);
    if (d < 0 || d >= NDEV) {
        expect(rc, ACL_ERROR_RT_INVALID_DEVICEID);
        return;
    }
    struct mdev *v = &m.dev[d];
    if (!v->open || (force ? v->primary < 0 : v->refs == 0)) {
        expect(rc, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
        return;
    }
    expect(rc, ACL_SUCCESS);
    /* Forced or not, only the default context goes (CANN's DeviceReset
     * releases the primary context alone): user contexts keep the device. */
    v->refs = force ? 0 : v->refs - 1;
    if (v->refs == 0 && v->primary >= 0) {
        if (v->user_ctxs > 0)
            drop_ctx(v->primary);
        else
            v->primary = -1; /* goes with the device, below */
    }
    close_if_unused(d);
}

/* ---- Contexts ---- */

static void do_create_context(void)
{
    int d = choose_dev();
    bool null_out = pick(10) == 0;
    if (m.nctx >= MAXCTX - 1)
        return;
    op("aclrtCreateContext(%s, %d)", null_out ? "NULL" : "&c", d);
    aclrtContext c = NULL;
    aclError rc = aclrtCreateContext(null_out ? NULL : &c, d);
    check_msg(rc);
    if (null_out)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (d < 0 || d >= NDEV)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INVALID_DEVICEID);
    if (host_failed(rc, 0)) {
        if (!m.dev[d].open)
            m.dev[d].inst++;
        return;
    }
    expect(rc, ACL_SUCCESS);
    open_device(d);
    new_handle(c, "context");
    m.ctx[m.nctx] = (struct mctx){c, d, false, true, NULL};
    m.dev[d].user_ctxs++;
    m.cur = c;
    learn_default_stream(&m.ctx[m.nctx++]);
}

static void do_destroy_context(void)
{
    void *h = choose_ctx();
    op("aclrtDestroyContext(%p)", h);
    aclError rc = aclrtDestroyContext(h);
    check_msg(rc);
    struct mctx *c = h ? ctx_of(h) : NULL;
    if (!c || c->primary)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    expect(rc, ACL_SUCCESS);
    int d = c->dev;
    if (m.cur == h)
        m.cur = NULL;
    drop_ctx((int)(c - m.ctx));
    m.dev[d].user_ctxs--;
    close_if_unused(d);
}

static void do_set_current_context(void)
{
    void *h = choose_ctx();
    op("aclrtSetCurrentContext(%p)", h);
    aclError rc = aclrtSetCurrentContext(h);
    check_msg(rc);
    if (!h || !ctx_of(h))
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    expect(rc, ACL_SUCCESS);
    m.cur = h;
}

static void do_queries(void)
{
    struct mctx *c = cur_ctx();
    switch (pick(4)) {
    case 0: {
        int32_t d = -7;
        bool null_out = pick(8) == 0;
        op("aclrtGetDevice(%s)", null_out ? "NULL" : "&d");
        aclError rc = aclrtGetDevice(null_out ? NULL : &d);
        check_msg(rc);
        if (null_out)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        expect(rc, c ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL);
        if (c ? d != c->dev : d != -7)
            fail("%s gave device %d, the model %d", cur_op, d, c ? c->dev : -7);
        return;
    }
    case 1: {
        aclrtContext h = (void *)(uintptr_t)0x77;
        op("aclrtGetCurrentContext(&c)");
        aclError rc = aclrtGetCurrentContext(&h);
        check_msg(rc);
        expect(rc, c ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL);
        if (c && h != c->h)
            fail("%s gave %p, the model %p", cur_op, h, c->h);
        return;
    }
    case 2: {
        op("aclrtGetSocName()");
        /* The process's SoC, with or without aclInit and a context. */
        const char *name = aclrtGetSocName();
        check_msg(ACL_SUCCESS);
        if (!name || strcmp(name, "Ascend910B1") != 0)
            fail("%s gave %s", cur_op, name ? name : "NULL");
        return;
    }
    default: {
        uint32_t n = 0;
        op("aclrtGetDeviceCount(&n)");
        aclError rc = aclrtGetDeviceCount(&n);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
        if (n != NDEV)
            fail("%s gave %u", cur_op, n);
        return;
    }
    }
}

/* ---- Streams ---- */

static void do_create_stream(void)
{
    bool null_out = pick(12) == 0, config = pick(2);
    if (m.nst == MAXSTREAM)
        return;
    op("aclrtCreateStream%s(%s)", config ? "WithConfig" : "", null_out ? "NULL" : "&s");
    aclrtStream s = NULL;
    aclError rc = config ? aclrtCreateStreamWithConfig(null_out ? NULL : &s, byte(), byte())
                         : aclrtCreateStream(null_out ? NULL : &s);
    check_msg(rc);
    struct mctx *c = cur_ctx();
    if (ARMED(F_CREATE_STREAM))
        RETURN_EXPECT(rc, ACL_ERROR_RT_NO_STREAM_RESOURCE);
    if (null_out)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (!c)
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    if (host_failed(rc, 0))
        return;
    expect(rc, ACL_SUCCESS);
    new_handle(s, "stream");
    m.st[m.nst++] = (struct mstream){s, c->h, c->dev, true};
}

static void do_destroy_stream(void)
{
    void *s = choose_stream();
    op("aclrtDestroyStream(%p)", s);
    aclError rc = aclrtDestroyStream(s);
    check_msg(rc);
    if (!s)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (ctx_of_ds(s)) /* it goes with its context */
        RETURN_EXPECT(rc, ACL_ERROR_RT_PARAM_INVALID);
    struct mstream *st = stream_of(s);
    if (!st)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    expect(rc, ACL_SUCCESS);
    drop_stream((int)(st - m.st));
}

static void sync_stream(void *s, int variant)
{
    static const int32_t timeouts[] = {-1, -1, 0, 1000, -2};
    int32_t t = timeouts[variant];
    op("aclrtSynchronizeStream%s(%p, %d)", variant ? "WithTimeout" : "", s, t);
    aclError rc = variant ? aclrtSynchronizeStreamWithTimeout(s, t) : aclrtSynchronizeStream(s);
    check_msg(rc);
    if (t < -1 || (variant && t == 0)) /* CANN: [-1, INT_MAX], and not 0 */
        RETURN_EXPECT(rc, ACL_ERROR_RT_PARAM_INVALID);
    struct skey k;
    aclError want = resolve_stream(s, &k);
    if (want != ACL_SUCCESS)
        RETURN_EXPECT(rc, want);
    bool *idle = idle_of(&k);
    if (t >= 0 && rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT && !*idle)
        return; /* the limit ran out first: allowed while work is queued */
    expect(rc, ACL_SUCCESS);
    *idle = true;
    events_done(&k, -1);
}

static void do_sync_stream(void)
{
    void *s = choose_stream();
    sync_stream(s, (int)pick(5)); /* plain, or with timeout -1, 0, 1000, -2 */
}

static void do_stream_query(void)
{
    void *s = choose_stream();
    bool null_status = pick(10) == 0;
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    op("aclrtStreamQuery(%p, %s)", s, null_status ? "NULL" : "&st");
    aclError rc = aclrtStreamQuery(s, null_status ? NULL : &st);
    check_msg(rc);
    if (null_status)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct skey k;
    aclError want = resolve_stream(s, &k);
    expect(rc, want);
    if (want != ACL_SUCCESS)
        return;
    if (st != ACL_STREAM_STATUS_COMPLETE && st != ACL_STREAM_STATUS_NOT_READY)
        fail("%s gave status %d", cur_op, (int)st);
    if (*idle_of(&k) && st != ACL_STREAM_STATUS_COMPLETE)
        fail("%s: a stream known idle is not complete", cur_op);
}

static void do_sync_device(void)
{
    op("aclrtSynchronizeDevice()");
    aclError rc = aclrtSynchronizeDevice();
    check_msg(rc);
    struct mctx *c = cur_ctx();
    if (!c)
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    expect(rc, ACL_SUCCESS);
    for (int i = 0; i < m.nst; i++)
        if (m.st[i].dev == c->dev)
            m.st[i].idle = true;
    for (int i = 0; i < m.nctx; i++)
        if (m.ctx[i].dev == c->dev)
            m.ctx[i].idle = true;
    events_done(NULL, c->dev);
}

/* ---- Events ---- */

#define KNOWN_EVENT_FLAGS                                                                \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |          \
     ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

static void do_create_event(void)
{
    bool with_flag = pick(2), null_out = pick(12) == 0;
    static const uint32_t flags[] = {ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE,
                                     ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, 0,
                                     ACL_EVENT_DEVICE_USE_ONLY, 0x80u, 0x80000000u};
    uint32_t flag = flags[pick(sizeof flags / sizeof flags[0])];
    if (m.nev == MAXEVENT)
        return;
    op("aclrtCreateEvent%s(%s, %#x)", with_flag ? "WithFlag" : "", null_out ? "NULL" : "&e",
       flag);
    aclrtEvent e = NULL;
    aclError rc = with_flag ? aclrtCreateEventWithFlag(null_out ? NULL : &e, flag)
                            : aclrtCreateEvent(null_out ? NULL : &e);
    check_msg(rc);
    struct mctx *c = cur_ctx();
    if (ARMED(F_CREATE_EVENT))
        RETURN_EXPECT(rc, ACL_ERROR_RT_NO_EVENT_RESOURCE);
    if (null_out || (with_flag && (flag & ~(uint32_t)KNOWN_EVENT_FLAGS)))
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (!c)
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    if (host_failed(rc, 0))
        return;
    expect(rc, ACL_SUCCESS);
    new_handle(e, "event");
    bool timeline = !with_flag || (flag & ACL_EVENT_TIME_LINE);
    m.ev[m.nev++] = (struct mevent){e, c->dev, timeline, false, false, {NULL, false, -1}, 0};
}

static void do_destroy_event(void)
{
    void *e = choose_event();
    op("aclrtDestroyEvent(%p)", e);
    aclError rc = aclrtDestroyEvent(e);
    check_msg(rc);
    if (!e)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mevent *ev = event_of(e);
    if (!ev)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    expect(rc, ACL_SUCCESS);
    bury(e);
    *ev = m.ev[--m.nev];
}

/* Record, reset and wait: the event is checked first, then the stream. */
static void event_on_stream(int which, void *e, void *s)
{
    static const char *const names[] = {"aclrtRecordEvent", "aclrtResetEvent",
                                        "aclrtStreamWaitEvent"};
    op("%s(%p, %p)", names[which], which == 2 ? s : e, which == 2 ? e : s);
    aclError rc = which == 0   ? aclrtRecordEvent(e, s)
                  : which == 1 ? aclrtResetEvent(e, s)
                               : aclrtStreamWaitEvent(s, e);
    check_msg(rc);
    if (!e)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mevent *ev = event_of(e);
    if (!ev)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    struct skey k;
    aclError want = resolve_stream(s, &k);
    expect(rc, want);
    if (want != ACL_SUCCESS)
        return;
    switch (which) {
    case 0:
        ev->recorded = true;
        ev->done = false;
        ev->on = k;
        ev->seq = ++m.seq;
        set_busy(&k);
        break;
    case 1:
        ev->recorded = false;
        ev->done = false;
        ev->on = (struct skey){NULL, false, -1};
        break;
    default:
        if (ev->recorded && !ev->done)
            set_busy(&k);
        break;
    }
}

static void do_event_on_stream(void)
{
    int which = (int)pick(3);
    void *e = choose_event(), *s = choose_stream();
    event_on_stream(which, e, s);
}

static void do_sync_event(void)
{
    void *e = choose_event();
    op("aclrtSynchronizeEvent(%p)", e);
    aclError rc = aclrtSynchronizeEvent(e);
    check_msg(rc);
    if (!e)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mevent *ev = event_of(e);
    if (!ev)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    expect(rc, ACL_SUCCESS);
    if (ev->recorded)
        ev->done = true;
}

static void do_query_event(void)
{
    void *e = choose_event();
    bool status_api = pick(2), null_status = pick(10) == 0;
    int st = 99;
    op("%s(%p, %s)", status_api ? "aclrtQueryEventStatus" : "aclrtQueryEvent", e,
       null_status ? "NULL" : "&st");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* CANN deprecates it; it is exported */
    aclError rc = status_api ? aclrtQueryEventStatus(e, null_status ? NULL
                                                                    : (aclrtEventRecordedStatus *)&st)
                             : aclrtQueryEvent(e, null_status ? NULL : (aclrtEventStatus *)&st);
#pragma GCC diagnostic pop
    check_msg(rc);
    if (null_status || !e)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mevent *ev = event_of(e);
    if (!ev)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    expect(rc, ACL_SUCCESS);
    int complete = status_api ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_STATUS_COMPLETE;
    int not_ready = status_api ? ACL_EVENT_RECORDED_STATUS_NOT_READY : ACL_EVENT_STATUS_NOT_READY;
    if (st != complete && st != not_ready)
        fail("%s gave status %d", cur_op, st);
    if ((!ev->recorded || ev->done) && st != complete)
        fail("%s: an event %s is not complete", cur_op,
             ev->recorded ? "waited for" : "never recorded");
}

static void elapsed(void *a, void *b, bool null_ms)
{
    float ms = -1.0f;
    op("aclrtEventElapsedTime(%s, %p, %p)", null_ms ? "NULL" : "&ms", a, b);
    aclError rc = aclrtEventElapsedTime(null_ms ? NULL : &ms, a, b);
    check_msg(rc);
    if (null_ms || !a)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mevent *ea = event_of(a), *eb = b ? event_of(b) : NULL;
    if (!ea)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    if (!b)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (!eb)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INTERNAL_ERROR);
    if (!ea->recorded || !eb->recorded || !ea->timeline || !eb->timeline)
        RETURN_EXPECT(rc, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    bool ordered = ea->done && eb->done && ea->on.h == eb->on.h &&
                   ea->on.deflt == eb->on.deflt && ea->seq <= eb->seq;
    if (ordered)
        expect(rc, ACL_SUCCESS);
    else if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_EVENT_NOT_COMPLETE &&
             rc != ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL)
        fail("%s answered %d", cur_op, rc);
    else if (ea->done && eb->done && rc == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
        fail("%s: events waited for are not complete", cur_op);
    if (rc == ACL_SUCCESS && !(ms >= 0.0f))
        fail("%s gave %f ms", cur_op, (double)ms);
    if (rc == ACL_SUCCESS && a == b && ms != 0.0f)
        fail("%s: an event to itself took %f ms", cur_op, (double)ms);
}

static void do_elapsed(void)
{
    void *a = choose_event(), *b = pick(3) == 0 ? a : choose_event();
    elapsed(a, b, pick(12) == 0);
}

/* A timing program, as CANN's samples write it: two timeline events
 * recorded around work on one stream, the stream waited for, the time
 * between them read (random bytes rarely line that up on their own). */
static void do_timing(void)
{
    void *s = choose_stream();
    struct skey k;
    if (resolve_stream(s, &k) != ACL_SUCCESS)
        return;
    void *ev[2] = {NULL, NULL};
    for (int i = 0, n = 0; i < m.nev && n < 2; i++)
        if (m.ev[i].timeline)
            ev[n++] = m.ev[i].h;
    if (!ev[1])
        return;
    event_on_stream(0, ev[0], s);
    if (m.nblk && pick(2)) {
        struct mblock *b = &m.blk[pick((unsigned)m.nblk)];
        op("aclrtMemsetAsync(%p, %llu, 7, %llu, %p) [timing]", (void *)b->p,
           (unsigned long long)b->usable, (unsigned long long)b->usable, s);
        aclError rc = aclrtMemsetAsync(b->p, (size_t)b->usable, 7, (size_t)b->usable, s);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
        memset(b->val, 7, (size_t)b->usable);
        memset(b->def, 1, (size_t)b->usable);
    }
    event_on_stream(0, ev[1], s);
    if (pick(2))
        sync_stream(s, 0);
    else
        event_on_stream(1, NULL, s); /* (a NULL event: 100000, changes nothing) */
    elapsed(ev[0], ev[1], false);
    elapsed(ev[1], ev[0], false);
}

/* ---- Device memory ---- */

/* Whether a block of foot bytes fits on device d: the driver maps physical
 * pages into a virtual heap far larger than the device, so what refuses is
 * the pages running out (hicann/driver src/ascend_hal/svm/v2/devmm/
 * devmm_virt_interface.c:1562, DEVMM_OUT_OF_PHYS_MEM), never where the
 * live blocks lie: the pages are HBM - RESERVED, the driver's reserve never
 * handed out. (align: every candidate's alignment is one the heap's range
 * of four times the HBM has room for.) */
static bool fits(int d, uint64_t foot, uint64_t align)
{
    (void)align;
    return foot != 0 && foot <= HBM - RESERVED - m.dev[d].used;
}

struct candidate {
    uint64_t foot, align, page;
};

/* The placements aclrtMalloc tries, in order (hicann/runtime docs/zh/api_ref, aclrtMalloc). */
static int candidates(uint64_t size, int policy, bool no_pad, struct candidate *c)
{
    uint64_t usable = ALIGN_UP(size, 32);
    if (usable < size)
        return 0;
    if (policy == ACL_MEM_MALLOC_HUGE1G_ONLY || policy == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P) {
        c[0] = (struct candidate){ALIGN_UP(usable, GIB), GIB, GIB};
        return c[0].foot >= usable ? 1 : 0;
    }
    uint64_t padded = usable + (no_pad ? 0 : PAD);
    if (padded < usable || padded > UINT64_MAX - HUGE_PAGE)
        return 0; /* the rounding wraps: nothing that large fits */
    struct candidate huge = {ALIGN_UP(padded, HUGE_PAGE), HUGE_PAGE, HUGE_PAGE};
    /* normal pages: the driver's 4 KiB unit, each block starting on one
     * (hicann/driver src/ascend_hal/svm/v2/devmm/devmm_virt_com_heap.c:1527) */
    struct candidate normal = {ALIGN_UP(padded, 4096), 4096, 4096};
    switch (policy) {
    case ACL_MEM_MALLOC_HUGE_ONLY:
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
        c[0] = huge;
        return 1;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
        c[0] = normal;
        return 1;
    default: {
        bool first = policy == ACL_MEM_MALLOC_HUGE_FIRST || policy == ACL_MEM_MALLOC_HUGE_FIRST_P2P;
        uint64_t threshold = first ? ((uint64_t)1 << 20) : HUGE_PAGE - 1;
        int n = 0;
        if (padded > threshold)
            c[n++] = huge;
        c[n++] = normal;
        return n;
    }
    }
}

static uint64_t choose_size(void)
{
    switch (pick(12)) {
    case 0:
        return 1 + pick(64);
    case 1:
    case 2:
        return 1 + u16() % 4096;
    case 3:
    case 4:
        return 1 + u16();
    case 5:
        return ((uint64_t)1 + pick(6)) << 20;
    case 6:
        return HUGE_PAGE - 32 - 32 * pick(3);
    case 7:
        return ((uint64_t)(1 + pick(24)) << 20) + u16();
    case 8:
        return pick(4) ? 0 : HBM + 1;
    case 9:
        return pick(2) ? SIZE_MAX - 64 : SIZE_MAX - pick(64);
    default:
        return 1 + u16() % 1024;
    }
}

static void do_malloc(void)
{
    static const char *const names[] = {"aclrtMalloc", "aclrtMallocAlign32", "aclrtMallocCached"};
    int variant = (int)pick(3);
    static const int policies[] = {ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY,
                                   ACL_MEM_MALLOC_NORMAL_ONLY, ACL_MEM_MALLOC_HUGE_FIRST_P2P,
                                   ACL_MEM_MALLOC_NORMAL_ONLY_P2P, ACL_MEM_MALLOC_HUGE1G_ONLY,
                                   0x77, -1};
    int policy = policies[pick(sizeof policies / sizeof policies[0])];
    uint64_t size = choose_size();
    bool null_out = pick(16) == 0;
    struct mctx *c = cur_ctx();
    if (m.nblk == MAXBLOCK)
        return;
    op("%s(%s, %llu, %d)", names[variant], null_out ? "NULL" : "&p", (unsigned long long)size,
       policy);
    void *p = NULL;
    aclError rc;
    void **out = null_out ? NULL : &p;
    if (variant == 0)
        rc = aclrtMalloc(out, (size_t)size, (aclrtMemMallocPolicy)policy);
    else if (variant == 1)
        rc = aclrtMallocAlign32(out, (size_t)size, (aclrtMemMallocPolicy)policy);
    else
        rc = aclrtMallocCached(out, (size_t)size, (aclrtMemMallocPolicy)policy);
    check_msg(rc);
    if (ARMED(F_MALLOC))
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
    if (null_out || size == 0 || size > SIZE_MAX - 64)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (!c)
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    if (ARMED(F_HBM))
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
    if (host_failed(rc, ACL_ERROR_RT_MEMORY_ALLOCATION))
        return;
    struct candidate cand[2];
    int n = candidates(size, policy, variant == 1, cand), chosen = -1;
    for (int i = 0; i < n && chosen < 0; i++)
        if (fits(c->dev, cand[i].foot, cand[i].align))
            chosen = i;
    if (chosen < 0)
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect(rc, ACL_SUCCESS);
    struct candidate *k = &cand[chosen];
    char *q = p;
    if (!q || (uintptr_t)q % k->align)
        fail("%s gave %p, not aligned to %llu", cur_op, p, (unsigned long long)k->align);
    for (int i = 0; i < m.nblk; i++) {
        struct mblock *b = &m.blk[i];
        if (q < b->p + b->foot && b->p < q + k->foot)
            fail("%s gave [%p, +%llu), over the live block [%p, +%llu)", cur_op, p,
                 (unsigned long long)k->foot, (void *)b->p, (unsigned long long)b->foot);
    }
    uint64_t usable = ALIGN_UP(size, 32);
    struct mblock *b = &m.blk[m.nblk++];
    *b = (struct mblock){q, size, usable, k->foot, k->page, c->dev, m.dev[c->dev].inst,
                         shadow_new(usable), shadow_new(usable), false};
    if (!b->val || !b->def)
        fail("model: out of host memory for a %llu-byte shadow", (unsigned long long)usable);
    /* Both placements can have the same footprint: then the page size is
     * whichever the heap found first. */
    if (n == 2 && cand[0].foot == cand[1].foot)
        b->page = 0;
    m.dev[c->dev].used += k->foot;
    if (m.dev[c->dev].used > m.dev[c->dev].peak)
        m.dev[c->dev].peak = m.dev[c->dev].used;
}

/* ---- Pointers for frees, copies and fills ---- */

enum { C_DEV, C_PIN, C_FREE, C_UNKNOWN };

struct mptr {
    char *p;
    int origin; /* what it was chosen as: C_DEV (a device address), C_PIN, C_UNKNOWN */
    int dev;
    unsigned inst;
    bool host_ok; /* safe for the host to read or write, count bytes of it */
};

struct where {
    int cls;
    struct mblock *b;
    struct mpin *h;
    uint64_t off, left; /* bytes from the block's start; usable bytes left */
};

static struct where classify(const char *p)
{
    for (int i = 0; i < m.nblk; i++) {
        struct mblock *b = &m.blk[i];
        if (p >= b->p && p < b->p + b->foot) {
            uint64_t off = (uint64_t)(p - b->p);
            return (struct where){C_DEV, b, NULL, off, off < b->usable ? b->usable - off : 0};
        }
    }
    for (int i = 0; i < m.npin; i++) {
        struct mpin *h = &m.pin[i];
        if (p >= h->p && p < h->p + h->size) {
            uint64_t off = (uint64_t)(p - h->p);
            return (struct where){C_PIN, NULL, h, off, h->size - off};
        }
    }
    return (struct where){C_UNKNOWN, NULL, NULL, 0, 0};
}

/* A dead device address still names its device's range (device_free) as
 * long as that device has not opened again since (sim/device.c keeps the
 * range until then); after, it may be anything, so the fuzzer never lets
 * the host near it. */
static int cls_of(const struct mptr *q, struct where *w)
{
    *w = classify(q->p);
    if (w->cls == C_UNKNOWN && q->origin == C_DEV)
        w->cls = C_FREE;
    return w->cls;
}

static bool stable_dead(const struct mptr *q)
{
    return q->origin == C_DEV && q->dev >= 0 && m.dev[q->dev].inst == q->inst;
}

static struct mptr choose_ptr(uint64_t count)
{
    struct mptr q = {NULL, C_UNKNOWN, -1, 0, false};
    switch (pick(11)) {
    case 0:
    case 1:
    case 2:
    case 3:
        if (m.nblk) { /* a live block, at an offset up to its footprint */
            struct mblock *b = &m.blk[pick((unsigned)m.nblk)];
            uint64_t off;
            switch (pick(6)) {
            case 0:
            case 1:
                off = 0;
                break;
            case 2:
                off = u16() % b->usable;
                break;
            case 3:
                off = b->usable > count ? b->usable - count : 0;
                break;
            case 4:
                off = b->usable - pick(b->usable < 64 ? (unsigned)b->usable : 64);
                break;
            default:
                off = b->usable + pick((unsigned)(b->foot - b->usable)); /* the padding */
                break;
            }
            return (struct mptr){b->p + off, C_DEV, b->dev, b->inst, false};
        }
        break;
    case 4:
    case 5:
        if (m.npin) {
            struct mpin *h = &m.pin[pick((unsigned)m.npin)];
            uint64_t off = pick(3) == 0 ? u16() % h->size : 0;
            if (pick(4) == 0)
                off = h->size > count ? h->size - count : 0;
            return (struct mptr){h->p + off, C_PIN, -1, 0, false};
        }
        break;
    case 6:
    case 7: { /* pageable host memory, in bounds when the count allows */
        unsigned char *buf = pick(2) ? hsrc : hdst;
        if (count <= BUF) {
            uint64_t off = u16() % (BUF - count + 1);
            return (struct mptr){(char *)buf + off, C_UNKNOWN, -1, 0, true};
        }
        return (struct mptr){(char *)buf, C_UNKNOWN, -1, 0, false};
    }
    case 8: { /* once device (or pinned) memory */
        struct mdead *d = &m.dead_p[pick(MAXDEAD)];
        if (d->p)
            return (struct mptr){d->p, d->dev >= 0 ? C_DEV : C_PIN, d->dev, d->inst, false};
        break;
    }
    case 9:
        return q; /* NULL */
    default:
        break;
    }
    q.p = garbage();
    if ((unsigned char *)q.p == hsrc + 8)
        q.host_ok = count <= BUF - 8;
    return q;
}

/* May the host touch q as memory of its own for this access? Only real,
 * in-bounds pageable memory, and addresses the library will classify as
 * device memory (and so never touch as host memory). */
static bool host_side_safe(const struct mptr *q, int cls)
{
    if (cls == C_UNKNOWN)
        return q->host_ok;
    if (cls == C_FREE)
        return stable_dead(q);
    return true;
}

static void do_free(void)
{
    struct mptr q = choose_ptr(0);
    op("aclrtFree(%p)", (void *)q.p);
    aclError rc = aclrtFree(q.p);
    check_msg(rc);
    struct where w;
    cls_of(&q, &w);
    if (ARMED(F_FREE)) {
        if (q.p && w.cls == C_DEV && w.off == 0)
            w.b->abandoned = true; /* the block stays, freed at close */
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_FREE);
    }
    if (!q.p)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (w.cls != C_DEV || w.off != 0)
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_FREE);
    expect(rc, ACL_SUCCESS);
    m.dev[w.b->dev].used -= w.b->foot;
    drop_block((int)(w.b - m.blk), false);
}

static void do_malloc_host(void)
{
    size_t size = pick(8) ? 1 + u16() % 8192 : pick(2) ? 0 : (size_t)1 << 50;
    bool null_out = pick(16) == 0;
    if (m.npin == MAXPIN)
        return;
    op("aclrtMallocHost(%s, %zu)", null_out ? "NULL" : "&p", size);
    void *p = NULL;
    aclError rc = aclrtMallocHost(null_out ? NULL : &p, size);
    check_msg(rc);
    if (null_out || size == 0)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (!cur_ctx())
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && size / (size_t)page >= (size_t)pages)
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_ALLOCATION); /* more than the machine has */
    if (host_failed(rc, ACL_ERROR_RT_MEMORY_ALLOCATION))
        return;
    expect(rc, ACL_SUCCESS);
    char *q = p;
    if (!q || (uintptr_t)q % 64)
        fail("%s gave %p, not 64-byte aligned", cur_op, p);
    for (int i = 0; i < m.npin; i++)
        if (q < m.pin[i].p + m.pin[i].size && m.pin[i].p < q + size)
            fail("%s gave %p, inside the live block %p", cur_op, p, (void *)m.pin[i].p);
    m.pin[m.npin++] = (struct mpin){q, size};
    m.host_bytes += size;
    memset(q, 0x3c, size); /* the program's bytes from now on (defined for memcheck too) */
}

static void do_free_host(void)
{
    struct mptr q = choose_ptr(0);
    op("aclrtFreeHost(%p)", (void *)q.p);
    aclError rc = aclrtFreeHost(q.p);
    check_msg(rc);
    if (!q.p)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct where w = classify(q.p);
    /* Live device memory: the runtime's location check (api_impl.cc:2512-2535). */
    if (w.cls == C_DEV)
        RETURN_EXPECT(rc, ACL_ERROR_RT_PARAM_INVALID);
    if (w.cls != C_PIN || w.off != 0)
        RETURN_EXPECT(rc, ACL_ERROR_RT_MEMORY_FREE);
    expect(rc, ACL_SUCCESS);
    m.host_bytes -= w.h->size;
    bury_ptr(w.h->p, -1, 0);
    *w.h = m.pin[--m.npin];
}

/* ---- Copies and fills ---- */

static uint64_t choose_count(void)
{
    switch (pick(10)) {
    case 0:
        return 0;
    case 1:
    case 2:
        return 1 + pick(64);
    case 3:
    case 4:
        return 1 + u16() % 4096;
    case 5:
        return 1 + u16();
    case 6:
        return BUF;
    case 7:
        return pick(2) ? SIZE_MAX : (uint64_t)BUF + 1 + u16();
    default:
        return 1 + pick(512);
    }
}

static uint64_t choose_max(uint64_t count)
{
    switch (pick(8)) {
    case 0:
        return 0;
    case 1:
        return count ? count - 1 : 0;
    case 2:
        return SIZE_MAX;
    case 3:
        return count + u16();
    default:
        return count;
    }
}

/* Whether side q of an access of n bytes passes, as memory.c's side_ok. */
static bool side_ok(const struct where *w, bool device, bool need_acl, uint64_t n)
{
    if (w->cls == C_DEV || w->cls == C_PIN)
        return (w->cls == C_DEV) == device && n <= w->left;
    return w->cls == C_UNKNOWN && !device && !need_acl;
}

/* The bytes at a side (defined mask too): shadow for device memory, the
 * memory itself for host memory. */
static void read_side(const struct where *w, const char *p, uint64_t n, uint8_t *val, uint8_t *def)
{
    if (w->cls == C_DEV) {
        memcpy(val, w->b->val + w->off, (size_t)n);
        memcpy(def, w->b->def + w->off, (size_t)n);
    } else {
        memcpy(val, p, (size_t)n);
        memset(def, 1, (size_t)n);
    }
}

static uint8_t tmp_val[2 * BUF + 1], tmp_def[2 * BUF + 1];

/* After a copy or fill of n bytes to side w at p: the model's device bytes
 * take the new values; host memory must now hold them. */
static void land(const struct where *w, const char *p, uint64_t n, const uint8_t *val,
                 const uint8_t *def)
{
    if (w->cls == C_DEV) {
        memcpy(w->b->val + w->off, val, (size_t)n);
        memcpy(w->b->def + w->off, def, (size_t)n);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (def[i] && (uint8_t)p[i] != val[i])
            fail("%s: byte %llu at the destination is %#x, the model says %#x", cur_op,
                 (unsigned long long)i, (uint8_t)p[i], val[i]);
        /* Host memory is the model's truth: bytes copied from device memory
         * nobody wrote become the program's, defined from here on. */
        if (!def[i])
            ((char *)p)[i] = (char)0xa5;
    }
}

/* A copy between two devices' memory, issued on device dev: each side on
 * another device needs dev's peer access to it (aclrtDeviceEnablePeerAccess). */
static bool peer_ok(int dev, int src, int dst)
{
    unsigned on = m.dev[dev].peers | 1u << dev;
    return src == dst || ((on >> src & 1u) && (on >> dst & 1u));
}

static void do_memcpy(void)
{
    bool async = pick(2);
    static const int kinds[] = {ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
                                ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEFAULT,
                                ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                                ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
                                ACL_MEMCPY_DEFAULT, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 42};
    int kind = kinds[pick(sizeof kinds / sizeof kinds[0])];
    uint64_t count = choose_count(), max = choose_max(count);
    struct mptr dq = choose_ptr(count), sq = choose_ptr(count);
    void *s = async ? choose_stream() : NULL;

    /* The model's answer, in memory.c's (CANN's) order. */
    aclError want = ACL_SUCCESS;
    struct where dw = {0}, sw = {0};
    bool dst_dev = false, src_dev = false, moves = false;
    struct skey k = {0};
    if (ARMED(F_MEMCPY))
        want = ACL_ERROR_RT_COPY_DATA;
    else if (count == 0)
        want = ACL_SUCCESS;
    else if (!dq.p || !sq.p)
        want = ACL_ERROR_INVALID_PARAM;
    else if (kind < 0 || kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        want = ACL_ERROR_INVALID_PARAM;
    else if ((max == 0 && !async) || count > max)
        want = ACL_ERROR_RT_PARAM_INVALID;
    else if ((want = async ? resolve_stream(s, &k) : cur_ctx() ? ACL_SUCCESS
                                                              : ACL_ERROR_RT_CONTEXT_NULL)) {
    } else {
        /* dst == src is checked like any other copy (a freed address must
         * not pass). */
        cls_of(&dq, &dw);
        cls_of(&sq, &sw);
        switch (kind) {
        case ACL_MEMCPY_HOST_TO_DEVICE:
        case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
            dst_dev = true;
            break;
        case ACL_MEMCPY_DEVICE_TO_HOST:
            src_dev = true;
            break;
        case ACL_MEMCPY_DEVICE_TO_DEVICE:
            dst_dev = src_dev = true;
            break;
        case ACL_MEMCPY_DEFAULT:
            dst_dev = dw.cls == C_DEV || dw.cls == C_FREE;
            src_dev = sw.cls == C_DEV || sw.cls == C_FREE;
            break;
        default:
            break;
        }
        if (!side_ok(&dw, dst_dev, false, count) || !side_ok(&sw, src_dev, false, count))
            want = ACL_ERROR_RT_PARAM_INVALID;
        else if (dst_dev && src_dev && dw.cls == C_DEV && sw.cls == C_DEV &&
                 !peer_ok(async ? k.dev : cur_ctx()->dev, sw.b->dev, dw.b->dev))
            want = ACL_ERROR_RT_PARAM_INVALID;
        else
            moves = true;
        /* A dead address whose device opened again may be anything now: no
         * answer to predict. What the library will copy through as host
         * memory must be real and in bounds: otherwise this is no program
         * (the host side is taken on trust, as in CANN). */
        if ((dw.cls == C_FREE && !stable_dead(&dq)) || (sw.cls == C_FREE && !stable_dead(&sq)))
            return;
        if (moves && ((!dst_dev && !host_side_safe(&dq, dw.cls)) ||
                      (!src_dev && !host_side_safe(&sq, sw.cls))))
            return;
    }
    if (moves && count > 2 * BUF)
        return; /* beyond the model's scratch (the sides bound it: never) */
    if (moves)
        read_side(&sw, sq.p, count, tmp_val, tmp_def);

    op("aclrtMemcpy%s(%p, %llu, %p, %llu, %d%s%p)", async ? "Async" : "", (void *)dq.p,
       (unsigned long long)max, (void *)sq.p, (unsigned long long)count, kind,
       async ? ", " : "", async ? s : NULL);
    MISUSE_BEGIN();
    aclError rc = async ? aclrtMemcpyAsync(dq.p, (size_t)max, sq.p, (size_t)count,
                                           (aclrtMemcpyKind)kind, s)
                        : aclrtMemcpy(dq.p, (size_t)max, sq.p, (size_t)count,
                                      (aclrtMemcpyKind)kind);
    MISUSE_END();
    check_msg(rc);
    expect(rc, want);
    if (moves) {
        land(&dw, dq.p, count, tmp_val, tmp_def);
        if (async)
            set_busy(&k);
    }
}

static void do_memset(void)
{
    bool async = pick(2);
    uint64_t count = choose_count(), max = choose_max(count);
    int32_t value = (int32_t)(byte() | (pick(4) == 0 ? 0x1200 : 0));
    struct mptr q = choose_ptr(count);
    void *s = async ? choose_stream() : NULL;
    aclError want = ACL_SUCCESS;
    struct where w = {0};
    struct skey k = {0};
    bool moves = false;
    if (count == 0)
        want = ACL_SUCCESS;
    else if (!q.p)
        want = ACL_ERROR_INVALID_PARAM;
    else if (max == 0 || count > max)
        want = ACL_ERROR_RT_PARAM_INVALID;
    else if ((want = async ? resolve_stream(s, &k) : cur_ctx() ? ACL_SUCCESS
                                                              : ACL_ERROR_RT_CONTEXT_NULL)) {
    } else {
        cls_of(&q, &w);
        if (side_ok(&w, w.cls != C_PIN, true, count))
            moves = true;
        else
            want = ACL_ERROR_RT_PARAM_INVALID;
    }
    op("aclrtMemset%s(%p, %llu, %d, %llu%s%p)", async ? "Async" : "", (void *)q.p,
       (unsigned long long)max, value, (unsigned long long)count, async ? ", " : "",
       async ? s : NULL);
    MISUSE_BEGIN();
    aclError rc = async ? aclrtMemsetAsync(q.p, (size_t)max, value, (size_t)count, s)
                        : aclrtMemset(q.p, (size_t)max, value, (size_t)count);
    MISUSE_END();
    check_msg(rc);
    expect(rc, want);
    if (!moves)
        return;
    if (w.cls == C_DEV) {
        memset(w.b->val + w.off, value & 0xff, (size_t)count);
        memset(w.b->def + w.off, 1, (size_t)count);
    } else {
        for (uint64_t i = 0; i < count; i++)
            if ((uint8_t)q.p[i] != (uint8_t)(value & 0xff))
                fail("%s: pinned byte %llu is %#x", cur_op, (unsigned long long)i,
                     (uint8_t)q.p[i]);
    }
    if (async)
        set_busy(&k);
}

/* Read a window of a live block back and compare it with the model. */
static void do_readback(void)
{
    if (!m.nblk || !cur_ctx() || ARMED(F_MEMCPY))
        return;
    struct mblock *b = &m.blk[pick((unsigned)m.nblk)];
    uint64_t off = u16() % b->usable, n = b->usable - off;
    if (n > BUF)
        n = BUF;
    op("aclrtMemcpy(buf, %llu, %p, %llu, DEVICE_TO_HOST) [readback]", (unsigned long long)n,
       (void *)(b->p + off), (unsigned long long)n);
    aclError rc = aclrtMemcpy(hdst, BUF, b->p + off, (size_t)n, ACL_MEMCPY_DEVICE_TO_HOST);
    check_msg(rc);
    expect(rc, ACL_SUCCESS);
    for (uint64_t i = 0; i < n; i++)
        if (b->def[off + i] && hdst[i] != b->val[off + i])
            fail("%s: device byte %llu of the block is %#x, the model says %#x", cur_op,
                 (unsigned long long)(off + i), hdst[i], b->val[off + i]);
}

/* ---- Memory queries ---- */

static void check_usage(int d)
{
    aclrtMemUsageInfo u[8];
    size_t n = 99;
    aclError rc = aclrtGetMemUsageInfo(d, u, 8, &n);
    check_msg(rc);
    expect(rc, ACL_SUCCESS);
    if (n != 2 || strcmp(u[0].name, "aclrtMalloc") != 0 || strcmp(u[1].name, "aclrtMallocHost"))
        fail("%s: %zu lines", cur_op, n);
    if (u[0].curMemSize != m.dev[d].used || u[0].memPeakSize != m.dev[d].peak)
        fail("%s: device %d uses %llu (peak %llu), the model %llu (peak %llu)", cur_op, d,
             (unsigned long long)u[0].curMemSize, (unsigned long long)u[0].memPeakSize,
             (unsigned long long)m.dev[d].used, (unsigned long long)m.dev[d].peak);
    if (u[1].curMemSize != m.host_bytes || u[1].memPeakSize < u[1].curMemSize)
        fail("%s: pinned host memory %llu (peak %llu), the model %llu", cur_op,
             (unsigned long long)u[1].curMemSize, (unsigned long long)u[1].memPeakSize,
             (unsigned long long)m.host_bytes);
}

static void do_mem_queries(void)
{
    struct mctx *c = cur_ctx();
    switch (pick(3)) {
    case 0: {
        int attr = (int)pick(13);
        size_t fr = 1, total = 1;
        bool null_free = pick(12) == 0;
        op("aclrtGetMemInfo(%d, %s, &total)", attr, null_free ? "NULL" : "&free");
        aclError rc = aclrtGetMemInfo((aclrtMemAttr)attr, null_free ? NULL : &fr, &total);
        check_msg(rc);
        if (null_free)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        if (!c)
            RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
        expect(rc, ACL_SUCCESS);
        bool ddr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
                   attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
        uint64_t t = ddr ? 0 : HBM - RESERVED, used = m.dev[c->dev].used;
        uint64_t f = ddr ? 0 : t > used ? t - used : 0;
        if (total != t || fr != f)
            fail("%s gave free %zu total %zu, the model %llu %llu", cur_op, fr, total,
                 (unsigned long long)f, (unsigned long long)t);
        return;
    }
    case 1: {
        struct mptr q = choose_ptr(0);
        aclrtPtrAttributes a;
        memset(&a, 0xff, sizeof a);
        op("aclrtPointerGetAttributes(%p)", (void *)q.p);
        aclError rc = aclrtPointerGetAttributes(q.p, &a);
        check_msg(rc);
        if (!q.p)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        expect(rc, ACL_SUCCESS);
        struct where w;
        cls_of(&q, &w);
        if (w.cls == C_DEV) {
            if (a.location.type != ACL_MEM_LOCATION_TYPE_DEVICE ||
                a.location.id != (uint32_t)w.b->dev ||
                (w.b->page && a.pageSize != w.b->page) ||
                (!w.b->page && a.pageSize != 4096 && a.pageSize != HUGE_PAGE))
                fail("%s: type %d id %u page %llu for device %d memory", cur_op,
                     (int)a.location.type, a.location.id, (unsigned long long)a.pageSize,
                     w.b->dev);
        } else if (w.cls == C_PIN) {
            if (a.location.type != ACL_MEM_LOCATION_TYPE_HOST || a.pageSize != 4096)
                fail("%s: type %d for pinned memory", cur_op, (int)a.location.type);
        } else if (a.location.type != ACL_MEM_LOCATION_TYPE_UNREGISTERED) {
            fail("%s: type %d for memory nobody owns", cur_op, (int)a.location.type);
        }
        return;
    }
    default: {
        int d = choose_dev();
        size_t want_in = pick(4) ? 8 : pick(2);
        aclrtMemUsageInfo u[8];
        size_t n = 99;
        op("aclrtGetMemUsageInfo(%d, u, %zu, &n)", d, want_in);
        if (want_in == 8 && d >= 0 && d < NDEV && m.dev[d].open)
        {
            check_usage(d);
            return;
        }
        aclError rc = aclrtGetMemUsageInfo(d, u, want_in, &n);
        check_msg(rc);
        if (want_in == 0)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        if (d < 0 || d >= NDEV || !m.dev[d].open)
            RETURN_EXPECT(rc, ACL_ERROR_RT_INVALID_DEVICEID);
        expect(rc, ACL_SUCCESS);
        if (n != want_in || u[0].curMemSize != m.dev[d].used)
            fail("%s: %zu lines, %llu used", cur_op, n, (unsigned long long)u[0].curMemSize);
        return;
    }
    }
}

/* Peer access from the current device: enable or disable, then a copy
 * between the devices needs it (do_memcpy). Every simulated pair can reach
 * each other; a device's grants go when it closes. */
static void do_peer(void)
{
    bool enable = pick(2);
    int peer = choose_dev();
    uint32_t flags = pick(8) ? 0 : 1;
    struct mctx *c = cur_ctx();
    aclError rc;
    if (enable) {
        op("aclrtDeviceEnablePeerAccess(%d, %u)", peer, flags);
        rc = aclrtDeviceEnablePeerAccess(peer, flags);
    } else {
        op("aclrtDeviceDisablePeerAccess(%d)", peer);
        rc = aclrtDeviceDisablePeerAccess(peer);
    }
    check_msg(rc);
    if (enable && flags)
        RETURN_EXPECT(rc, ACL_ERROR_FEATURE_UNSUPPORTED);
    if (!c)
        RETURN_EXPECT(rc, ACL_ERROR_RT_CONTEXT_NULL);
    if (peer == c->dev)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (peer < 0 || peer >= NDEV)
        RETURN_EXPECT(rc, ACL_ERROR_RT_INVALID_DEVICEID);
    if (!enable && !(m.dev[c->dev].peers >> peer & 1u))
        RETURN_EXPECT(rc, ACL_ERROR_RT_PARAM_INVALID);
    expect(rc, ACL_SUCCESS);
    if (enable)
        m.dev[c->dev].peers |= 1u << peer;
    else
        m.dev[c->dev].peers &= ~(1u << peer);
}

/* ---- The allocator API ---- */

static void *fake_alloc(aclrtAllocator a, size_t n)
{
    (void)a, (void)n;
    return NULL;
}
static void fake_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a, (void)b;
}
static void *fake_advise(aclrtAllocator a, size_t n, aclrtAllocatorAddr addr)
{
    (void)a, (void)n, (void)addr;
    return NULL;
}
static void *fake_get_addr(aclrtAllocatorBlock b)
{
    return b;
}
static int allocator_objs[4];

static struct mreg *reg_of(const void *key)
{
    for (int i = 0; i < m.nreg; i++)
        if (m.reg[i].key == key)
            return &m.reg[i];
    return NULL;
}

/* A stream key: any non-NULL pointer is one (CANN never checks it). */
static void *choose_key(void)
{
    switch (pick(6)) {
    case 0:
    case 1:
        return m.nreg ? m.reg[pick((unsigned)m.nreg)].key : (void *)(uintptr_t)0x1000;
    case 2:
        return m.nst ? m.st[pick((unsigned)m.nst)].h : (void *)(uintptr_t)0x2000;
    case 3:
        return dead_handle();
    case 4:
        return NULL;
    default:
        return (void *)(uintptr_t)(0x1000 * (1 + pick(4)));
    }
}

static struct mdesc *choose_desc(void)
{
    return m.ndesc && pick(6) ? &m.desc[pick((unsigned)m.ndesc)] : NULL;
}

static void set_field(struct mdesc *d, int field, bool null_value)
{
    static void *const values[5] = {&allocator_objs[0], (void *)(uintptr_t)fake_alloc,
                                    (void *)(uintptr_t)fake_free, (void *)(uintptr_t)fake_advise,
                                    (void *)(uintptr_t)fake_get_addr};
    void *v = null_value ? NULL : field == 0 ? &allocator_objs[pick(4)] : values[field];
    void *h = d ? d->h : NULL;
    static const char *const names[5] = {
        "aclrtAllocatorSetObjToDesc", "aclrtAllocatorSetAllocFuncToDesc",
        "aclrtAllocatorSetFreeFuncToDesc", "aclrtAllocatorSetAllocAdviseFuncToDesc",
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc"};
    op("%s(%p, %p)", names[field], h, v);
    aclError rc;
    switch (field) {
    case 0:
        rc = aclrtAllocatorSetObjToDesc(h, v);
        break;
    case 1:
        rc = aclrtAllocatorSetAllocFuncToDesc(h, null_value ? NULL : fake_alloc);
        break;
    case 2:
        rc = aclrtAllocatorSetFreeFuncToDesc(h, null_value ? NULL : fake_free);
        break;
    case 3:
        rc = aclrtAllocatorSetAllocAdviseFuncToDesc(h, null_value ? NULL : fake_advise);
        break;
    default:
        rc = aclrtAllocatorSetGetAddrFromBlockFuncToDesc(h, null_value ? NULL : fake_get_addr);
        break;
    }
    check_msg(rc);
    if (!d || null_value)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    expect(rc, ACL_SUCCESS);
    d->f[field] = v;
}

static void register_desc(void *key, struct mdesc *d)
{
    if (m.nreg == MAXREG && key && !reg_of(key))
        return;
    op("aclrtAllocatorRegister(%p, %p)", key, d ? d->h : NULL);
    aclError rc = aclrtAllocatorRegister(key, d ? d->h : NULL);
    check_msg(rc);
    if (!key || !d || !d->f[0] || !d->f[1] || !d->f[2] || !d->f[4])
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    if (host_failed(rc, 0))
        return;
    expect(rc, ACL_SUCCESS);
    struct mreg *r = reg_of(key);
    if (!r)
        r = &m.reg[m.nreg++];
    r->key = key;
    r->snap[0] = d->h;
    memcpy(&r->snap[1], d->f, sizeof d->f);
}

static void get_by_stream(void *key, bool null_desc, bool null_rest)
{
    aclrtAllocatorDesc desc = (void *)(uintptr_t)0x55;
    aclrtAllocator obj = (void *)(uintptr_t)0x55;
    aclrtAllocatorAllocFunc af = NULL;
    aclrtAllocatorFreeFunc ff = NULL;
    aclrtAllocatorAllocAdviseFunc vf = NULL;
    aclrtAllocatorGetAddrFromBlockFunc gf = NULL;
    op("aclrtAllocatorGetByStream(%p, %s, ...)", key, null_desc ? "NULL" : "&desc");
    aclError rc = null_rest ? aclrtAllocatorGetByStream(key, null_desc ? NULL : &desc, NULL, NULL,
                                                        NULL, NULL, NULL)
                            : aclrtAllocatorGetByStream(key, null_desc ? NULL : &desc, &obj, &af,
                                                        &ff, &vf, &gf);
    check_msg(rc);
    if (null_desc || !key)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    struct mreg *r = reg_of(key);
    if (!r)
        RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
    expect(rc, ACL_SUCCESS);
    void *got[6] = {desc, obj, (void *)(uintptr_t)af, (void *)(uintptr_t)ff,
                    (void *)(uintptr_t)vf, (void *)(uintptr_t)gf};
    for (int i = 0; i < (null_rest ? 1 : 6); i++)
        if (got[i] != r->snap[i])
            fail("%s: field %d is %p, registered %p", cur_op, i, got[i], r->snap[i]);
    if (aclsim_registered_count() != (size_t)m.nreg)
        fail("%s: %zu streams registered, the model %d", cur_op, aclsim_registered_count(),
             m.nreg);
}

static void do_allocator(void)
{
    switch (pick(7)) {
    case 0: {
        if (m.ndesc == MAXDESC)
            return;
        op("aclrtAllocatorCreateDesc()");
        aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
        check_msg(d ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC);
        if (!d) {
            if (!ARMED(F_HOSTMALLOC))
                fail("%s returned NULL", cur_op);
            return;
        }
        for (int i = 0; i < m.ndesc; i++)
            if (m.desc[i].h == d)
                fail("%s returned the live desc %p", cur_op, d);
        struct mdesc *md = &m.desc[m.ndesc++];
        *md = (struct mdesc){d, {NULL}};
        if (pick(2)) { /* the sample's order: obj, alloc, free, get_addr, then register */
            static const int order[] = {0, 1, 2, 4, 3};
            for (int i = 0; i < (pick(2) ? 5 : 4); i++)
                set_field(md, order[i], false);
            register_desc(choose_key(), md);
            get_by_stream(m.nreg ? m.reg[m.nreg - 1].key : NULL, false, false);
        }
        return;
    }
    case 1:
        set_field(choose_desc(), (int)pick(5), pick(8) == 0);
        return;
    case 2: {
        void *key = choose_key();
        register_desc(key, choose_desc());
        return;
    }
    case 3:
    case 6: {
        void *key = choose_key();
        bool null_desc = pick(10) == 0;
        get_by_stream(key, null_desc, pick(3) == 0);
        return;
    }
    case 4: {
        void *key = choose_key();
        op("aclrtAllocatorUnregister(%p)", key);
        aclError rc = aclrtAllocatorUnregister(key);
        check_msg(rc);
        if (!key)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        expect(rc, ACL_SUCCESS);
        struct mreg *r = reg_of(key);
        if (r)
            *r = m.reg[--m.nreg];
        return;
    }
    default: {
        struct mdesc *d = choose_desc();
        op("aclrtAllocatorDestroyDesc(%p)", d ? d->h : NULL);
        aclError rc = aclrtAllocatorDestroyDesc(d ? d->h : NULL);
        check_msg(rc);
        if (!d)
            RETURN_EXPECT(rc, ACL_ERROR_INVALID_PARAM);
        expect(rc, ACL_SUCCESS);
        *d = m.desc[--m.ndesc]; /* registrations keep the snapshot (CANN) */
        return;
    }
    }
}

/* ---- Fault points ---- */

static void do_fault(void)
{
    if (pick(3) == 0) {
        op("aclsim_fault_disable_all()");
        aclsim_fault_disable_all();
        m.faults = 0;
        return;
    }
    unsigned f = pick(NFAULT);
    op("aclsim_fault_enable(\"%s\")", fault_names[f]);
    if (aclsim_fault_enable(fault_names[f]) != 0)
        fail("%s failed", cur_op);
    m.faults |= 1u << f;
}

/* ---- Sequences ---- */

static void reset_model(void)
{
    memset(&m, 0, sizeof m);
    for (int d = 0; d < NDEV; d++)
        m.dev[d].primary = -1;
}

/* Back to a clean library: faults off, registry empty, every device closed,
 * pinned memory released; the accounting checked on the way. */
static void teardown(void)
{
    aclsim_fault_disable_all();
    m.faults = 0;
    for (int d = 0; d < NDEV; d++)
        if (m.dev[d].open) {
            op("aclrtGetMemUsageInfo(%d) [teardown]", d);
            check_usage(d);
        }
    for (int i = 0; i < m.nreg; i++) {
        op("aclrtAllocatorUnregister(%p) [teardown]", m.reg[i].key);
        aclError rc = aclrtAllocatorUnregister(m.reg[i].key);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
    }
    m.nreg = 0;
    for (int i = 0; i < m.ndesc; i++) {
        op("aclrtAllocatorDestroyDesc(%p) [teardown]", m.desc[i].h);
        aclError rc = aclrtAllocatorDestroyDesc(m.desc[i].h);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
    }
    m.ndesc = 0;
    if (m.init_refs == 0) {
        op("aclInit(NULL) [teardown]");
        aclError rc = aclInit(NULL);
        check_msg(rc);
        expect(rc, ACL_SUCCESS);
    }
    /* Every device closed first: aclFinalize closes none. */
    for (int i = m.nctx - 1; i >= 0; i--)
        if (!m.ctx[i].primary) {
            op("aclrtDestroyContext(%p) [teardown]", m.ctx[i].h);
            aclError rc = aclrtDestroyContext(m.ctx[i].h);
            check_msg(rc);
            expect(rc, ACL_SUCCESS);
            int d = m.ctx[i].dev;
            if (m.cur == m.ctx[i].h)
                m.cur = NULL;
            drop_ctx(i);
            m.dev[d].user_ctxs--;
            close_if_unused(d);
        }
    for (int d = 0; d < NDEV; d++)
        if (m.dev[d].open) {
            op("aclrtResetDeviceForce(%d) [teardown]", d);
            aclError rc = aclrtResetDeviceForce(d);
            check_msg(rc);
            expect(rc, ACL_SUCCESS);
            close_device(d);
        }
    op("aclFinalize() [teardown]");
    aclError rc = aclFinalize();
    check_msg(rc);
    expect(rc, ACL_SUCCESS);
    finalize_all();
    free_pinned();
    for (int i = 0; i < m.nblk; i++)
        fail("model: block %p left after teardown", (void *)m.blk[i].p);
    if (aclsim_registered_count() != 0)
        fail("teardown: %zu registrations left", aclsim_registered_count());
}

int fuzz_setup(void)
{
    static const char *const armed[] = {"ACLSIM_FAULT", "ACLSIM_FAULT_COUNT", "ACLSIM_DIFF",
                                        "FIU_ENABLE", "FIU_CTRL_FIFO"};
    for (size_t i = 0; i < sizeof armed / sizeof armed[0]; i++)
        if (getenv(armed[i]) && *getenv(armed[i])) {
            fprintf(stderr, "aclsim fuzz: unset %s: the model cannot predict it\n", armed[i]);
            return -1;
        }
    setenv("ACLSIM_HBM_BYTES", "33554432", 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    static const char *const others[] = {"ACLSIM_SOC", "ACLSIM_TRACE", "ACLSIM_LEAK_CHECK",
                                         "ACLSIM_TRACK", "ACLSIM_BANNER"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        unsetenv(others[i]);
    /* aclInit reads them; everything later runs on these settings. */
    if (aclInit(NULL) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) {
        fprintf(stderr, "aclsim fuzz: aclInit failed: %s\n", aclGetRecentErrMsg());
        return -1;
    }
    for (size_t i = 0; i < BUF; i++)
        hsrc[i] = (unsigned char)(i * 131 + 7);
    return 0;
}

unsigned fuzz_one(const uint8_t *data, size_t size)
{
    in = data;
    in_len = size;
    in_pos = 0;
    nops = 0;
    reset_model();
    (void)aclGetRecentErrMsg();
    for (size_t i = 0; i < 64 && i < size; i++) /* the host data varies too */
        hsrc[(i * 977) % BUF] = data[i];
    while (in_pos < in_len) {
        switch (byte() % 32) {
        case 0:
            do_init();
            break;
        case 1:
            do_finalize();
            break;
        case 2:
        case 3:
            do_set_device();
            break;
        case 4:
            do_reset_device();
            break;
        case 5:
            do_create_context();
            break;
        case 6:
            do_destroy_context();
            break;
        case 7:
            do_set_current_context();
            break;
        case 8:
            do_queries();
            break;
        case 9:
            do_create_stream();
            break;
        case 10:
            do_destroy_stream();
            break;
        case 11:
            do_sync_stream();
            break;
        case 12:
            do_stream_query();
            break;
        case 13:
            do_sync_device();
            break;
        case 14:
            do_create_event();
            break;
        case 15:
            do_destroy_event();
            break;
        case 16:
        case 17:
            do_event_on_stream();
            break;
        case 18:
            do_sync_event();
            break;
        case 19:
            do_query_event();
            break;
        case 20:
            do_elapsed();
            break;
        case 21:
        case 22:
            do_malloc();
            break;
        case 23:
            do_free();
            break;
        case 24:
            do_malloc_host();
            break;
        case 25:
            do_free_host();
            break;
        case 26:
        case 27:
            do_memcpy();
            break;
        case 28:
            do_memset();
            break;
        case 29:
            switch (pick(4)) {
            case 0:
                do_readback();
                break;
            case 1:
                do_mem_queries();
                break;
            case 2:
                do_peer();
                break;
            default:
                do_timing();
                break;
            }
            break;
        case 30:
            do_allocator();
            break;
        default:
            if (pick(4) == 0)
                do_fault();
            else
                do_allocator();
            break;
        }
    }
    teardown();
    return nops;
}
