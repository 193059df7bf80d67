/*
 * test_hb.c - the allocator sanitizer decides by happens-before (sim/hb.c):
 * two uses of the same device bytes, one writing, from two streams (or a
 * stream and the host) are reported exactly when nothing the program does
 * orders them. For each ordering edge a must-pass test (the edge present:
 * no report, guarding against false positives) and its twin without the
 * edge (one report). The verdict is the same on every SoC profile and
 * whatever unrelated work ran first. Also: bytes a live graph writes
 * (an aclnn workspace among them) stored into by eager work are reported,
 * inputs and outputs used between replays are not; report wording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_relu.h"
#include "aclsim/aclsim.h"

enum { N = 64, BYTES = N * N * 4 };
static aclrtStream A, B;
static void *X, *Y, *W;
static float host[N * N];

static int up(void)
{
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&A) || aclrtCreateStream(&B))
        return -1;
    if (aclrtMalloc(&X, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&Y, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&W, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST))
        return -1;
    for (int i = 0; i < N * N; i++)
        host[i] = (float)(i % 7) / 7.0f;
    return aclrtMemcpy(X, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE) ? -1 : 0;
}

static int down(void)
{
    aclrtSynchronizeDevice();
    aclrtFree(X);
    aclrtFree(Y);
    aclrtFree(W);
    aclrtDestroyStream(A);
    aclrtDestroyStream(B);
    aclrtResetDevice(0);
    return aclFinalize() ? -1 : 0;
}

static int setup(void **state)
{
    (void)state;
    return up();
}

static int teardown(void **state)
{
    (void)state;
    return down();
}

static unsigned long n(const char *kind)
{
    return aclsim_alloc_check_reports(kind);
}

/* Reports of each kind, to compare after a step. */
static unsigned long counts[16];
static const char *const kinds[] = {"cross-stream-reuse", "host-reuse", "free-while-pending",
                                    "graph-block-reuse", NULL};
static void mark(void)
{
    for (int i = 0; kinds[i]; i++)
        counts[i] = n(kinds[i]);
    counts[15] = n(NULL);
}

/* Exactly one report since mark(), of kind. */
static void one(const char *kind)
{
    for (int i = 0; kinds[i]; i++)
        if (strcmp(kinds[i], kind) == 0)
            assert_int_equal(n(kind), counts[i] + 1);
    assert_int_equal(n(NULL), counts[15] + 1);
    mark();
}

/* Settle both streams so that the next test starts with nothing pending. */
static void settle(void)
{
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

/* ---- program order ---- */

static void test_same_stream_is_ordered(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(Y, BYTES, X, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, A),
                     ACL_SUCCESS);
    settle();
    assert_int_equal(n(NULL), before);
}

/* ---- event record -> stream wait ---- */

static void two_writes(bool event)
{
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, A), ACL_SUCCESS);
    if (event)
        assert_int_equal(aclrtStreamWaitEvent(B, e), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    settle();
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void test_event_wait_orders(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    two_writes(true);
    assert_int_equal(n(NULL), before);
    two_writes(false); /* the twin: no wait */
    one("cross-stream-reuse");
}

/* ---- synchronisations and completed queries -> host ---- */

enum how { SYNC_STREAM, SYNC_EVENT, SYNC_DEVICE, QUERY_STREAM, QUERY_EVENT, NOTHING };

/* A writes Y; the host learns of it by `how`; B writes Y. What each call
 * waits for, in the runtime (hicann/runtime src/runtime/api/impl/
 * api_impl.cc): StreamSynchronize (:1704) the stream's work;
 * EventSynchronize (:2250) the event's record (an IPC event's through
 * IpcEventSync); EventQuery / EventQueryStatus (:2274-2297) only report,
 * so the host learns only from an answer of "complete"; DeviceSynchronize
 * (:3975) synchronises the current context (curCtx->Synchronize): every
 * stream here is the one context's (another's: the next test). */
static void ordered_by_host(enum how how)
{
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, A), ACL_SUCCESS);
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclrtStreamStatus ss = ACL_STREAM_STATUS_NOT_READY;
    switch (how) {
    case SYNC_STREAM:
        assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
        break;
    case SYNC_EVENT:
        assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
        break;
    case SYNC_DEVICE:
        assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
        break;
    case QUERY_STREAM: /* each query costs the host time: it completes */
        for (int i = 0; i < 100000 && ss != ACL_STREAM_STATUS_COMPLETE; i++)
            assert_int_equal(aclrtStreamQuery(A, &ss), ACL_SUCCESS);
        assert_int_equal(ss, ACL_STREAM_STATUS_COMPLETE);
        break;
    case QUERY_EVENT:
        for (int i = 0; i < 100000 && st != ACL_EVENT_RECORDED_STATUS_COMPLETE; i++)
            assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
        assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
        break;
    default:
        break;
    }
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    settle();
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void test_host_learns_by_sync_and_query(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    for (enum how h = SYNC_STREAM; h < NOTHING; h++)
        ordered_by_host(h);
    assert_int_equal(n(NULL), before);
    ordered_by_host(NOTHING); /* the twin */
    one("cross-stream-reuse");
}

/* A device synchronisation waits for the current context's streams only
 * (DeviceSynchronize above; context.cc Context::Synchronize L1219-1243
 * walks that context's streams_): a stream of another context of the same
 * device is not waited for, so the host's later write races with what it
 * wrote; the same synchronisation made from that context orders them. */
static void test_device_sync_orders_its_context_only(void **state)
{
    (void)state;
    aclrtContext mine, other;
    aclrtStream s;
    assert_int_equal(aclrtGetCurrentContext(&mine), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&other, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS); /* other's */
    mark();
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, s), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS); /* mine: not s */
    assert_int_equal(aclrtMemcpy(Y, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    one("host-reuse");
    unsigned long before = n(NULL);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, s), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(other), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS); /* s's context */
    assert_int_equal(aclrtMemcpy(Y, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(other), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
}

/* The host's own uses: a synchronous copy after a synchronisation is
 * clean, before it is host-reuse; aclrtFree before it free-while-pending.
 * A synchronous copy or memset waits for no stream: aclrtMemcpy calls
 * rtMemcpy (hicann/runtime src/acl/aclrt_impl/memory.cpp:650-667), and
 * ApiImpl::MemCopySync (src/runtime/api/impl/api_impl.cc:2745-2777) and
 * MemSetSync (:3202-3212) go straight to the driver's copy or set: they
 * are uses of the host's, ordered after nothing a stream does. */
static void test_host_uses(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(host, BYTES, Y, BYTES, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(Y, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    one("host-reuse");
    void *tmp;
    assert_int_equal(aclrtMalloc(&tmp, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(tmp, 4096, 1, 4096, B), ACL_SUCCESS);
    assert_int_equal(aclrtFree(tmp), ACL_SUCCESS);
    one("free-while-pending");
    settle();
}

/* ---- many ranges between two synchronisations ----
 *
 * The checker keeps a record per range until the host learns of it (in
 * chunks of a few hundred: sim/hb.c); 2,000 ranges made in interleaved
 * order (two buffers slice by slice, the even slices up, then the odd ones
 * down, into the middle of full chunks) are each still found: a write from
 * another stream to any of them is one report, to bytes nobody used none. */
static void test_many_ranges_are_all_kept(void **state)
{
    (void)state;
    enum { SLICES = 1000, SL = 64 };
    char *p, *q;
    assert_int_equal(aclrtMalloc((void **)&p, SLICES * SL, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclrtMalloc((void **)&q, SLICES * SL + SL, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    mark();
    for (int j = 0; j < SLICES; j++) { /* even slices up, then odd ones down */
        int k = j < SLICES / 2 ? 2 * j : SLICES - 1 - 2 * (j - SLICES / 2);
        assert_int_equal(aclrtMemsetAsync(q + k * SL, SL, 1, SL, A), ACL_SUCCESS);
        assert_int_equal(aclrtMemsetAsync(p + k * SL, SL, 1, SL, A), ACL_SUCCESS);
    }
    assert_int_equal(n(NULL), counts[15]);
    const int at[] = {0, 1, 255, 256, 257, 500, 511, 512, 997, 998, 999};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        assert_int_equal(aclrtMemsetAsync(p + at[i] * SL, SL, 2, SL, B), ACL_SUCCESS);
        one("cross-stream-reuse");
        assert_int_equal(aclrtMemsetAsync(q + at[i] * SL, SL, 2, SL, B), ACL_SUCCESS);
        one("cross-stream-reuse");
    }
    assert_int_equal(aclrtMemsetAsync(q + SLICES * SL, SL, 2, SL, B), ACL_SUCCESS);
    assert_int_equal(n(NULL), counts[15]); /* bytes A never used */
    settle();
    assert_int_equal(aclrtMemsetAsync(p, SL, 3, SL, B), ACL_SUCCESS); /* the host learned */
    settle();
    assert_int_equal(n(NULL), counts[15]);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtFree(q), ACL_SUCCESS);
}

/* ---- host functions: both directions ---- */

static void *hf_buf;
static aclError hf_rc;
static aclrtContext hf_ctx;
static void read_back(void *arg)
{
    (void)arg; /* the host function reads what its stream wrote before it */
    hf_rc = aclrtSetCurrentContext(hf_ctx);
    if (hf_rc == ACL_SUCCESS)
        hf_rc = aclrtMemcpy(host, BYTES, hf_buf, BYTES, ACL_MEMCPY_DEVICE_TO_HOST);
}

static void test_host_function_orders(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    hf_buf = Y;
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 3, BYTES, A), ACL_SUCCESS);
    hf_rc = -1;
    assert_int_equal(aclrtGetCurrentContext(&hf_ctx), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchHostFunc(A, read_back, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(hf_rc, ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
    /* The twin: the main thread reads without waiting for the stream. */
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 3, BYTES, A), ACL_SUCCESS);
    read_back(NULL);
    assert_int_equal(hf_rc, ACL_SUCCESS);
    settle();
    one("host-reuse");
}

/* ---- notify record -> wait ---- */

static void test_notify_orders(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    aclrtNotify nt;
    assert_int_equal(aclrtCreateNotify(&nt, 0), ACL_SUCCESS);
    /* The wait comes first: B is held until A records. */
    assert_int_equal(aclrtWaitAndResetNotify(nt, B, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(nt, A), ACL_SUCCESS);
    settle();
    assert_int_equal(n(NULL), before);
    /* The record first, then the wait. */
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(nt, A), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(nt, B, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    settle();
    assert_int_equal(n(NULL), before);
    /* The twin: B writes before it waits. */
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(nt, A), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(nt, B, 0), ACL_SUCCESS);
    settle();
    one("cross-stream-reuse");
    assert_int_equal(aclrtDestroyNotify(nt), ACL_SUCCESS);
}

/* ---- value write -> value wait ---- */

static void test_value_wait_orders(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    void *flag;
    assert_int_equal(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(flag, 64, 0, 64), ACL_SUCCESS);
    assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, B), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(flag, 1, 0, A), ACL_SUCCESS);
    settle();
    assert_int_equal(n(NULL), before);
    /* The twin: nothing waits. */
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    settle();
    one("cross-stream-reuse");
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
}

/* ---- graph replays: launch point and what follows ---- */

static void test_replay_is_ordered_on_its_stream(void **state)
{
    (void)state;
    mark();
    unsigned long before = n(NULL);
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureBegin(A, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(Y, BYTES, X, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, A),
                     ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(A, &ri), ACL_SUCCESS);
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    /* The graph's input written before the launch on its stream, its output
     * read after it through an event: clean. */
    assert_int_equal(aclrtMemsetAsync(X, BYTES, 0, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecuteAsync(ri, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, A), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(B, e), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(host, BYTES, Y, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, B),
                     ACL_SUCCESS);
    settle();
    assert_int_equal(n(NULL), before);
    /* The twin: B writes the graph's input while the replay may read it. */
    assert_int_equal(aclmdlRIExecuteAsync(ri, A), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(X, BYTES, 0, BYTES, B), ACL_SUCCESS);
    settle();
    one("cross-stream-reuse");
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(X, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

/* A graph's second lane writes what its first lane wrote, ordered by the
 * captured record -> wait or not (`ordered`); the user's events are
 * destroyed after the capture, as torch's graph pool does: CANN's capture
 * recorded into events the model owns (runtime
 * src/runtime/feature/aclgraph/v100/api_impl_capture_event.cc:28-78,
 * InsertCaptureEvent at :71; CaptureEventWait at :80-103 waits on that
 * event), so the edge stays in the graph. */
static unsigned long two_lane_graph(bool ordered)
{
    unsigned long before = n(NULL);
    aclrtEvent fork, early, join;
    assert_int_equal(aclrtCreateEvent(&fork), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&early), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&join), ACL_SUCCESS);
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureBegin(A, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(early, A), ACL_SUCCESS); /* before the write */
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 1, BYTES, A), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(fork, A), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(B, ordered ? fork : early), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(Y, BYTES, 2, BYTES, B), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(join, B), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(A, join), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(A, &ri), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(fork), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(early), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(join), ACL_SUCCESS);
    unsigned long at_capture = n(NULL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclmdlRIExecuteAsync(ri, A), ACL_SUCCESS);
    settle();
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(at_capture, before); /* a capture runs nothing */
    return n(NULL) - before;
}

static void test_graph_lanes_keep_their_captured_events(void **state)
{
    (void)state;
    mark();
    assert_int_equal(two_lane_graph(true), 0);
    /* the twin: the second lane waits for a record made before the write;
     * each replay is one race of the two lanes' writes */
    assert_int_equal(two_lane_graph(false), 3);
    mark();
}

/* ---- aclnn: workspaces, graph-owned memory ---- */

static aclTensor *t2(void *dev)
{
    int64_t d[2] = {N, N}, st[2] = {N, 1};
    return aclCreateTensor(d, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 2, dev);
}

/* out = x @ x on s with workspace ws. */
static void matmul(aclTensor *x, aclTensor *out, void *ws, aclrtStream s)
{
    uint64_t need = 0;
    aclOpExecutor *ex = NULL;
    assert_int_equal(aclnnMatmulGetWorkspaceSize(x, x, out, 0, &need, &ex), ACL_SUCCESS);
    assert_true(need > 0 && need <= (1 << 20)); /* this test needs a workspace */
    assert_int_equal(aclnnMatmul(ws, need, ex, s), ACL_SUCCESS);
}

static void relus(aclTensor *t, aclrtStream s, int k)
{
    for (int i = 0; i < k; i++) {
        uint64_t need = 0;
        aclOpExecutor *ex = NULL;
        assert_int_equal(aclnnReluGetWorkspaceSize(t, t, &need, &ex), ACL_SUCCESS);
        assert_int_equal(aclnnRelu(NULL, 0, ex, s), ACL_SUCCESS);
    }
}

/* One workspace on two streams, nothing ordering them, with `delay`
 * unrelated Relus queued on the second first: reports made. */
static unsigned long unordered_workspace(int delay)
{
    void *junk;
    assert_int_equal(aclrtMalloc(&junk, BYTES, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(junk, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    aclTensor *tx = t2(X), *ty = t2(Y), *tj = t2(junk);
    unsigned long before = n("cross-stream-reuse");
    relus(tj, B, delay);
    matmul(tx, ty, W, A);
    matmul(tx, ty, W, B);
    settle();
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tj);
    assert_int_equal(aclrtFree(junk), ACL_SUCCESS);
    return n("cross-stream-reuse") - before;
}

/* The same verdict on every profile, with and without earlier work: the
 * profiles (sim/profile.c) time kernels differently, so an interval check
 * would see overlap on some and none on others. */
static void test_same_verdict_on_every_profile(void **state)
{
    (void)state;
    static const char *socs[] = {"Ascend910B1", "Ascend910B4", "Ascend950DT_9581"};
    assert_int_equal(down(), 0);
    for (size_t i = 0; i < sizeof socs / sizeof *socs; i++) {
        setenv("ACLSIM_SOC", socs[i], 1);
        assert_int_equal(up(), 0);
        /* one race of the two MatMuls: their output and their workspace are
         * the ranges of one report (one per pair of racing tasks) */
        assert_int_equal(unordered_workspace(0), 1);
        assert_int_equal(unordered_workspace(50), 1);
        assert_int_equal(down(), 0);
    }
    unsetenv("ACLSIM_SOC");
    assert_int_equal(up(), 0);
}

static void test_graph_owned_workspace(void **state)
{
    (void)state;
    void *ws2;
    assert_int_equal(aclrtMalloc(&ws2, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclTensor *tx = t2(X), *ty = t2(Y), *tw = t2(W);
    mark();
    unsigned long before = n(NULL);
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureBegin(A, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    matmul(tx, ty, W, A);
    assert_int_equal(aclmdlRICaptureEnd(A, &ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecuteAsync(ri, A), ACL_SUCCESS);
    /* Between replays, in order: new input, the output read out: clean. */
    assert_int_equal(aclrtMemcpyAsync(X, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, A),
                     ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecuteAsync(ri, A), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(host, BYTES, Y, BYTES, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
    /* An eager Matmul stores its result in the graph's workspace. */
    matmul(tx, tw, ws2, A);
    one("graph-block-reuse");
    settle();
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    before = n(NULL);
    matmul(tx, tw, ws2, A); /* the graph is gone: the bytes are free again */
    settle();
    assert_int_equal(n(NULL), before);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tw);
    assert_int_equal(aclrtFree(ws2), ACL_SUCCESS);
}

/* ---- wording: what the bytes are, names one way (ACLSIM_REPORT) ---- */

static void test_report_wording(void **state)
{
    (void)state;
    char path[] = "/tmp/test_hb_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(down(), 0);
    setenv("ACLSIM_REPORT", path, 1);
    assert_int_equal(up(), 0);
    assert_int_equal(unordered_workspace(0), 1);
    assert_int_equal(down(), 0);
    unsetenv("ACLSIM_REPORT");
    assert_int_equal(up(), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    unlink(path);
    /* the output named first (sim_op_uses lists it before the blocks), the
     * workspace as a further range of the same race */
    assert_non_null(strstr(text, "writes its output"));
    assert_non_null(strstr(text, "the same two also race on ["));
    assert_non_null(strstr(text, "the later writes the workspace passed to aclnnMatmul, the "
                                 "earlier writes the workspace passed to aclnnMatmul"));
    const char *st = strstr(text, "on stream ");
    assert_non_null(st); /* "stream N (0x...)": the per-device id, then the handle */
    unsigned id = 0;
    char open = 0;
    assert_int_equal(sscanf(st, "on stream %u %c0x", &id, &open), 2);
    assert_int_equal(open, '(');
    assert_non_null(strstr(text, "neither is ordered before the other"));
    assert_non_null(strstr(text, "fix: order the second use after the first"));
    assert_null(strstr(text, "still uses the block")); /* the old, interval wording */
}

/* A report leaves a marker in the trace on the track of each stream it
 * names (its kind in the name, its headline as args.text), at the start of
 * each of the two uses, so the reader finds it on the memsets' slices. */
static void test_report_marks_the_trace(void **state)
{
    (void)state;
    char path[] = "/tmp/test_hb_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(down(), 0);
    setenv("ACLSIM_TRACE", path, 1);
    assert_int_equal(up(), 0);
    unsetenv("ACLSIM_TRACE");
    mark();
    two_writes(false);
    one("cross-stream-reuse");
    char check[2048];
    snprintf(check, sizeof check,
             "python3 -c \"import json,sys; t=json.load(open('%s'))['traceEvents']; "
             "tr={(e['pid'],e['tid']):e['args']['name'] for e in t if e['name']=='thread_name'}; "
             "m=[e for e in t if e['name']=='allocator check (cross-stream-reuse)' and e['ph']=='i']; "
             "on=[tr[(e['pid'],e['tid'])] for e in m]; want=['(%p)','(%p)']; "
             "ok=len(m)==2 and all(any(w in o for o in on) for w in want) and "
             "all('neither is ordered' in e['args']['text'] for e in m) and "
             "all(any(x['ph']=='X' and x['name']=='memset' and (x['pid'],x['tid'])==(e['pid'],e['tid']) "
             "and abs(float(x['ts'])-float(e['ts']))<1e-6 for x in t) for e in m); "
             "print('' if ok else (on, want, m)); sys.exit(0 if ok else 1)\"",
             path, (void *)A, (void *)B);
    assert_int_equal(down(), 0); /* aclFinalize writes the trace */
    int rc = system(check);
    unlink(path);
    assert_int_equal(up(), 0);
    assert_int_equal(rc, 0);
}

int main(void)
{
    setenv("ACLSIM_ALLOC_CHECK", "warn", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_stream_is_ordered),
        cmocka_unit_test(test_event_wait_orders),
        cmocka_unit_test(test_host_learns_by_sync_and_query),
        cmocka_unit_test(test_device_sync_orders_its_context_only),
        cmocka_unit_test(test_host_uses),
        cmocka_unit_test(test_many_ranges_are_all_kept),
        cmocka_unit_test(test_host_function_orders),
        cmocka_unit_test(test_notify_orders),
        cmocka_unit_test(test_value_wait_orders),
        cmocka_unit_test(test_replay_is_ordered_on_its_stream),
        cmocka_unit_test(test_graph_lanes_keep_their_captured_events),
        cmocka_unit_test(test_same_verdict_on_every_profile),
        cmocka_unit_test(test_graph_owned_workspace),
        cmocka_unit_test(test_report_wording),
        cmocka_unit_test(test_report_marks_the_trace),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
