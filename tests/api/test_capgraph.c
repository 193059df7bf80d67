/*
 * test_capgraph.c - what captured graphs hold besides tasks: task groups
 * updated from another stream, conditional tasks over sub-graphs, task
 * parameters and their updates, aborts, and launches racing a destroy.
 * Each answer is CANN's, the line cited where it is pinned:
 *  hicann/runtime src/runtime/feature/aclgraph/context_aclgraph.cc
 *    (StreamBeginTaskGrp L778-811, StreamEndTaskGrp L813-856,
 *    StreamBeginTaskUpdate L858-876, StreamEndTaskUpdate L878-905, the
 *    parent's End with a sub-graph capturing L564-569, a group left open
 *    L357-360), api_error_aclgraph.cc (L80-112, L173-232),
 *    v100/api_impl_aclgraph.cc (ModelCondHandleCreate L197-224,
 *    StreamAddCondTaskParasCheck L236-281), cond_handle.cc
 *    (InitCondTaskByDefValue L128-150: the default at each launch),
 *    stars_cond_isa_helper.cc L2453-2560 (IF: the first sub-graph when the
 *    word is not 0, else the second; SWITCH: none past the end; WHILE: while
 *    not 0), src/runtime/core/src/stream/stream.cc (AllocTask L4742-4764,
 *    PackingTaskGroup L5182-5200, IsTaskGroupBreak L5219-5234),
 *    src/runtime/api/impl/api_impl.cc (TaskGetParams L9538-9628,
 *    TaskSetParams L9630-9673, ModelUpdate L9682-9708, ModelTaskDisable
 *    L9764-9792), capture_model.cc CheckExecuteReady L308-327,
 *    memory_task.cc L631-776, event_task.cc L481-517, api_error.cc
 *    (ModelAbort L4264-4276, the destroy callbacks L7019-7048).
 */
#include <pthread.h>
#include <stdlib.h>
#include "testutil.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

enum { N = 256 };
static float *dev_a, *dev_b, *dev_o;
static uint8_t *dev_c;
static aclrtStream s, u, x;
static aclTensor *ta, *tb, *to;
static aclScalar *one, *three;

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_WAIT_GRACE_MS", "50", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&u), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
    float h[N];
    void *p;
    for (int i = 0; i < N; i++)
        h[i] = 1.0f;
    assert_int_equal(aclrtMalloc(&p, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    dev_a = p;
    assert_int_equal(aclrtMemcpy(dev_a, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    for (int i = 0; i < N; i++)
        h[i] = 2.0f;
    assert_int_equal(aclrtMalloc(&p, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    dev_b = p;
    assert_int_equal(aclrtMemcpy(dev_b, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    dev_o = p;
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    dev_c = p;
    int64_t d[1] = {N}, st[1] = {1};
    ta = aclCreateTensor(d, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 1, dev_a);
    tb = aclCreateTensor(d, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 1, dev_b);
    to = aclCreateTensor(d, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 1, dev_o);
    float v1 = 1.0f, v3 = 3.0f;
    one = aclCreateScalar(&v1, ACL_FLOAT);
    three = aclCreateScalar(&v3, ACL_FLOAT);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyScalar(one);
    aclDestroyScalar(three);
    aclrtFree(dev_a);
    aclrtFree(dev_b);
    aclrtFree(dev_o);
    aclrtFree(dev_c);
    aclrtDestroyStream(s);
    aclrtDestroyStream(u);
    aclrtDestroyStream(x);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

/* o = a + alpha * b on stream st (workspace-free operator). */
static aclError add(aclScalar *alpha, aclrtStream st)
{
    uint64_t n = 0;
    aclOpExecutor *ex = NULL;
    aclError rc = aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &n, &ex);
    assert_int_equal(rc, ACL_SUCCESS);
    assert_int_equal(n, 0);
    return aclnnAdd(NULL, 0, ex, st);
}

static float out0(void)
{
    float h[N];
    assert_int_equal(aclrtMemcpy(h, sizeof h, dev_o, sizeof h, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    return h[0];
}

static uint8_t byte0(void)
{
    uint8_t v = 0;
    assert_int_equal(aclrtMemcpy(&v, 1, dev_c, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return v;
}

static void put_c(uint8_t v)
{
    assert_int_equal(aclrtMemset(dev_c, 4096, v, 4096), ACL_SUCCESS);
}

static uint32_t sid(aclrtStream st)
{
    int32_t id = -1;
    assert_int_equal(aclrtStreamGetId(st, &id), ACL_SUCCESS);
    return (uint32_t)id;
}

/* ---- Task groups ---- */

static void test_group_updated_from_another_stream(void **state)
{
    (void)state;
    aclrtEvent e;
    aclrtTaskGrp grp = NULL;
    aclmdlRI ri = NULL;
    assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_SUCCESS);
    assert_int_equal(aclrtResetEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    assert_int_equal(add(one, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_SUCCESS);
    assert_non_null(grp);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    /* The launch waits for the external event (held), the update happens
     * meanwhile on u, the record after it releases the replay: 1 + 3 * 2. */
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(u, grp), ACL_SUCCESS);
    assert_int_equal(add(three, u), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskUpdateEnd(u), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, u), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(out0() == 7.0f);
    /* the task the group holds is a kernel task of the group */
    aclmdlRITask tasks[4];
    uint32_t n = 4;
    assert_int_equal(aclmdlRIGetTasksByStream(s, tasks, &n), ACL_SUCCESS);
    assert_int_equal(n, 3); /* wait, reset, the operator */
    aclmdlRITaskParams p;
    assert_int_equal(aclmdlRITaskGetParams(tasks[2], &p), ACL_SUCCESS);
    assert_int_equal(p.type, ACL_MODEL_RI_TASK_KERNEL);
    assert_ptr_equal(p.taskGrp, grp);
    assert_null(p.kernelTaskParams.funcHandle);
    assert_int_equal(p.kernelTaskParams.argsSize, 3 * sizeof(void *)); /* a, b, o */
    assert_ptr_equal(((void **)p.kernelTaskParams.args)[2], dev_o);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void test_group_misuse(void **state)
{
    (void)state;
    aclrtTaskGrp grp = (aclrtTaskGrp)1;
    aclmdlRI ri = NULL;
    char want[256];
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICaptureTaskGrpBegin", "stream");
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICaptureTaskGrpEnd", "handle");
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    snprintf(want, sizeof want, "Marking the start of a task group failed. Reason: Stream "
             "(stream_id=%u) is not in the capture stage.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    assert_null(grp);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    FAILS(aclmdlRICaptureTaskGrpBegin(s), ACL_ERROR_STREAM_TASK_GROUP_STATUS); /* twice */
    /* only kernels go into a group */
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 1, 4096, s), ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1006)", "Adding the task to the task group failed. Task type "
               "MEMCPY_ASYNC(5) is not supported. Reason: Only tasks running on Cube Core or "
               "Vector Core can be added to a task group.");
    /* a task of the capture outside the open group interrupts it */
    aclrtEvent fork;
    assert_int_equal(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(fork, s), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(u, fork), ACL_SUCCESS); /* u joins */
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    FAILS(aclrtMemsetAsync(dev_c, 4096, 1, 4096, u), ACL_ERROR_STREAM_TASK_GROUP_INTR);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_ERROR_STREAM_TASK_GROUP_INTR);
    snprintf(want, sizeof want, "Marking the end of a task group failed. Parameter stream "
             "(stream_id=%u) is invalid. Reason: The ACL Graph associated with the stream has "
             "errors. The previous API may report an error. Handle the error reported by the "
             "previous API first.", sid(s));
    expect_msg("Invalid_Argument(EE1017)", want);
    assert_null(grp);
    /* End with a group left open: 107033, the graph goes */
    assert_int_equal(aclrtRecordEvent(fork, u), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, fork), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    (void)aclGetRecentErrMsg();
    assert_null(ri);
    assert_int_equal(aclrtDestroyEvent(fork), ACL_SUCCESS);
}

static void test_update_misuse(void **state)
{
    (void)state;
    aclrtTaskGrp grp = NULL, other = NULL;
    aclmdlRI ri = NULL;
    char want[256];
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    assert_int_equal(add(one, s), ACL_SUCCESS);
    assert_int_equal(add(one, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpBegin(s), ACL_SUCCESS);
    assert_int_equal(add(one, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(s, &other), ACL_SUCCESS);
    /* a capturing stream updates nothing */
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(s, grp), ACL_ERROR_RT_STREAM_CAPTURED);
    snprintf(want, sizeof want, "Marking the start of the task to be updated failed. Reason: "
             "Stream (stream_id=%u) during the capture stage is not supported.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(NULL, grp), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICaptureTaskUpdateBegin", "stream");
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(u, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICaptureTaskUpdateBegin", "handle");
    assert_int_equal(aclmdlRICaptureTaskUpdateEnd(u), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    expect_msg("Not_Supported(EE1016)", "Marking the end of the task to be updated failed. "
               "Reason: The stream is not in task update mode.");
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(u, grp), ACL_SUCCESS);
    /* one stream, one group at a time; one group, one stream */
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(u, other), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    expect_msg("Not_Supported(EE1016)", "Marking the start of the task to be updated failed. "
               "Reason: The stream is already in task update or sample mode.");
    FAILS(aclmdlRICaptureTaskUpdateBegin(x, grp), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    /* only kernels, no more than the group holds */
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 1, 4096, u), ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1006)", "Updating the task group failed. Task type "
               "MEMCPY_ASYNC(5) is not supported. Reason: Only tasks running on Cube Core or "
               "Vector Core support task group update.");
    assert_int_equal(add(three, u), ACL_SUCCESS);
    /* one of two updated: 507899 (RT_ERROR_STREAM_TASKGRP_UPDATE) */
    assert_int_equal(aclmdlRICaptureTaskUpdateEnd(u), ACL_ERROR_RT_INTERNAL_ERROR);
    snprintf(want, sizeof want, "Marking the end of the task to be updated failed. Parameter "
             "stream (stream_id=%u) is invalid. Reason: The task group under this stream "
             "contains unupdated tasks. total_num=2, matched_num=1.", sid(u));
    expect_msg("Invalid_Argument(EE1017)", want);
    assert_int_equal(aclmdlRICaptureTaskUpdateBegin(u, other), ACL_SUCCESS);
    assert_int_equal(add(three, u), ACL_SUCCESS);
    FAILS(add(three, u), ACLNN_ERR_RUNTIME_ERROR); /* past its one task (aclnn's code) */
    assert_int_equal(aclmdlRICaptureTaskUpdateEnd(u), ACL_SUCCESS);
    /* the first update still happened (its task ran on u when u reached it) */
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(out0() == 7.0f); /* the last operator of the graph: other's, updated */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    /* the handle died with its graph */
    FAILS(aclmdlRICaptureTaskUpdateBegin(u, grp), ACL_ERROR_RT_PARAM_INVALID);
}

/* ---- Conditional tasks ---- */

/* A conditional task of type over n sub-graphs, each a fill of dev_c with
 * its index + 1; the parent's capture begun on s by the caller. */
static aclmdlRICondHandle cond_task(aclmdlRI parent, aclmdlRICondTaskType type, uint32_t n,
                                    aclmdlRICondHandleFlag flag, uint32_t deflt, aclmdlRI *subs)
{
    aclmdlRICondHandle h = NULL;
    assert_int_equal(aclmdlRICondHandleCreate(parent, deflt, flag, &h), ACL_SUCCESS);
    aclmdlRICondTaskParams p = {h, type, n, subs};
    assert_int_equal(aclmdlRIAddCondTask(p, s, 0), ACL_SUCCESS);
    for (uint32_t i = 0; i < n; i++) {
        assert_non_null(subs[i]);
        assert_int_equal(aclmdlRICaptureToModelRIBegin(u, subs[i], ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
                         ACL_SUCCESS);
        assert_int_equal(aclrtMemsetAsync(dev_c, 4096, (int32_t)(i + 1), 4096, u), ACL_SUCCESS);
        assert_int_equal(aclmdlRICaptureEnd(u, NULL), ACL_SUCCESS); /* a sub-graph's: no handle */
    }
    return h;
}

static aclmdlRI begin_parent(void)
{
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureGetInfo(s, NULL, &ri), ACL_SUCCESS);
    return ri;
}

static void set_word(uint64_t *w, uint64_t v)
{
    assert_int_equal(aclrtMemcpy(w, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

/* Launch ri on x with the word at v (set by the host first) and read c. */
static uint8_t run_with(aclmdlRI ri, uint64_t *w, uint64_t v)
{
    put_c(0);
    set_word(w, v);
    assert_int_equal(aclmdlRIExecuteAsync(ri, x), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
    return byte0();
}

static void test_if_and_switch_choose_by_the_word(void **state)
{
    (void)state;
    aclmdlRI subs[3] = {0}, ri = begin_parent();
    uint64_t *w = NULL;
    aclmdlRICondHandle h = cond_task(ri, ACL_MODEL_RI_COND_TYPE_IF, 2, 0, 0, subs);
    assert_int_equal(aclmdlRICondHandleGetCondPtr(h, &w), ACL_SUCCESS);
    assert_non_null(w);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    /* flag 0: the program manages the word */
    assert_int_equal(run_with(ri, w, 1), 1); /* not 0: the first */
    assert_int_equal(run_with(ri, w, 0), 2); /* 0: the second */
    assert_int_equal(run_with(ri, w, 5), 1);
    /* a sub-graph is not a model of its own */
    assert_int_equal(aclmdlRIExecuteAsync(subs[0], x), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclmdlRIDestroy(subs[0]), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    FAILS(aclmdlRICondHandleGetCondPtr(h, &w), ACL_ERROR_RT_PARAM_INVALID); /* went with it */

    ri = begin_parent();
    h = cond_task(ri, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, 0, 0, subs);
    assert_int_equal(aclmdlRICondHandleGetCondPtr(h, &w), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    assert_int_equal(run_with(ri, w, 0), 1);
    assert_int_equal(run_with(ri, w, 2), 3);
    assert_int_equal(run_with(ri, w, 3), 0); /* past the end: none */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static void test_default_value_at_each_launch(void **state)
{
    (void)state;
    aclmdlRI subs[2] = {0}, ri = begin_parent();
    uint64_t *w = NULL;
    aclmdlRICondHandle h = cond_task(ri, ACL_MODEL_RI_COND_TYPE_IF, 2,
                                     ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, 1, subs);
    assert_int_equal(aclmdlRICondHandleGetCondPtr(h, &w), ACL_SUCCESS);
    uint64_t v = 9;
    assert_int_equal(aclrtMemcpy(&v, 8, w, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(v, 0); /* the runtime's word starts at 0 (cond_handle.cc L94) */
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    /* the host's 0 is overwritten by the default 1 at the launch */
    assert_int_equal(run_with(ri, w, 0), 1);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static void test_condition_read_when_the_replay_reaches_it(void **state)
{
    (void)state;
    aclrtEvent e;
    aclmdlRI subs[2] = {0}, ri = begin_parent();
    uint64_t *w = NULL;
    assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_SUCCESS); /* the replay waits here */
    aclmdlRICondHandle h = cond_task(ri, ACL_MODEL_RI_COND_TYPE_IF, 2, 0, 0, subs);
    assert_int_equal(aclmdlRICondHandleGetCondPtr(h, &w), ACL_SUCCESS);
    assert_int_equal(aclrtResetEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    put_c(0);
    set_word(w, 0);
    assert_int_equal(aclmdlRIExecuteAsync(ri, x), ACL_SUCCESS); /* held at the wait */
    set_word(w, 1);                                              /* before the replay reads it */
    assert_int_equal(aclrtRecordEvent(e, u), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
    assert_int_equal(byte0(), 1);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void test_while_runs_until_the_body_clears_the_word(void **state)
{
    (void)state;
    aclmdlRI body[1] = {0}, ri = begin_parent();
    aclmdlRICondHandle h = NULL;
    uint64_t *w = NULL;
    assert_int_equal(aclmdlRICondHandleCreate(ri, 0, 0, &h), ACL_SUCCESS);
    assert_int_equal(aclmdlRICondHandleGetCondPtr(h, &w), ACL_SUCCESS);
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body};
    assert_int_equal(aclmdlRIAddCondTask(p, s, 0), ACL_SUCCESS);
    /* the body: c += 1 (a fill of the count so far, from a counter word)... */
    assert_int_equal(aclmdlRICaptureToModelRIBegin(u, body[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 7, 4096, u), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(w, 0, 0, u), ACL_SUCCESS); /* ...once: the body clears it */
    assert_int_equal(aclmdlRICaptureEnd(u, NULL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    assert_int_equal(run_with(ri, w, 0), 0); /* 0: never */
    assert_int_equal(run_with(ri, w, 1), 7); /* once, then 0 */
    uint64_t v = 1;
    assert_int_equal(aclrtMemcpy(&v, 8, w, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(v, 0);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static void test_condition_refusals(void **state)
{
    (void)state;
    aclmdlRI subs[2] = {0}, ri = NULL, done = NULL;
    aclmdlRICondHandle h = NULL;
    char want[256];
    /* a graph whose capture ended takes no handle */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &done), ACL_SUCCESS);
    assert_int_equal(aclmdlRICondHandleCreate(done, 0, 0, &h), ACL_ERROR_RT_PARAM_INVALID);
    uint32_t id = 0;
    assert_int_equal(aclmdlRIGetId(done, &id), ACL_SUCCESS);
    snprintf(want, sizeof want, "Conditional handle creation failed. Parameter modelRI is invalid. "
             "Reason: ModelRI (model_id=%u) is not in the capture stage.", id);
    expect_msg("Invalid_Argument(EE1017)", want);
    assert_int_equal(aclmdlRICondHandleCreate(NULL, 0, 0, &h), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICondHandleCreate", "modelRI");
    ri = begin_parent();
    assert_int_equal(aclmdlRICondHandleCreate(ri, 0, (aclmdlRICondHandleFlag)2, &h),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Conditional handle creation failed because value 2 "
               "for parameter flag is invalid. Expected value: [0, 1].");
    assert_int_equal(aclmdlRICondHandleCreate(ri, 0, 0, &h), ACL_SUCCESS);
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_IF, 3, subs};
    assert_int_equal(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the number of parameters of a conditional "
               "task failed because value 3 for parameter params.size is invalid. Expected value: "
               "1 or 2.");
    p.size = 2;
    assert_int_equal(aclmdlRIAddCondTask(p, s, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Adding a conditional task to a stream failed. "
               "Parameter flags is invalid. Reason: flags is reserved parameter and must be 0.");
    assert_int_equal(aclmdlRIAddCondTask(p, x, 0), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    snprintf(want, sizeof want, "rtStreamAddCondTask failed. Reason: Stream (stream_id=%u) must "
             "be in the capture stage before adding a condition task.", sid(x));
    expect_msg("Invalid_Argument_API_Call_Sequence(EE1018)", want);
    assert_int_equal(aclmdlRIAddCondTask(p, s, 0), ACL_SUCCESS);
    assert_int_equal(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_RT_PARAM_INVALID); /* used */
    expect_msg("Invalid_Argument(EE1017)", "rtStreamAddCondTask failed. Parameter params.handle "
               "is invalid. Reason: The handle has been launched with condition task, create a new "
               "handle before adding another condition task.");
    /* only a sub-graph takes aclmdlRICaptureToModelRIBegin, once */
    assert_int_equal(aclmdlRICaptureToModelRIBegin(u, done, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Stream begin capture failed. Parameter modelRI is "
               "invalid. Reason: The modelRI is not a sub ACL Graph.");
    assert_int_equal(aclmdlRICaptureToModelRIBegin(u, subs[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
                     ACL_SUCCESS);
    /* the parent's End while a sub-graph captures: 107045, the parent goes */
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING);
    snprintf(want, sizeof want, "Stream end capture failed. Reason: Sub ACL Graph is capturing, "
             "stream_id=%u, capture stream_id=%u.", sid(s), sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    assert_null(ri);
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    assert_int_equal(aclmdlRICaptureGetInfo(u, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE); /* its sub-graph went with it */
    assert_int_equal(aclmdlRIDestroy(done), ACL_SUCCESS);
}

/* ---- Task parameters, updates, aborts ---- */

static void test_params_of_each_kind_and_an_update(void **state)
{
    (void)state;
    aclrtEvent e;
    aclmdlRI ri = NULL;
    uint64_t *word = (uint64_t *)(void *)dev_c;
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 0, 4096, s), ACL_SUCCESS);      /* DEFAULT */
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);                         /* RECORD */
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_SUCCESS);                     /* WAIT */
    assert_int_equal(aclrtValueWrite(word, 5, 0, s), ACL_SUCCESS);                 /* WRITE */
    assert_int_equal(aclrtValueWait(word, 5, ACL_STREAM_WAIT_VALUE_EQ, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    aclmdlRITask t[5];
    uint32_t n = 5;
    assert_int_equal(aclmdlRIGetTasksByStream(s, t, &n), ACL_SUCCESS);
    assert_int_equal(n, 5);
    aclmdlRITaskParams p;
    assert_int_equal(aclmdlRITaskGetParams(t[0], &p), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Obtaining task parameter information failed. "
               "Parameter task->type is invalid. Reason: The current task type RT_TASK_DEFAULT "
               "does not support obtaining of parameters. Only task types other than "
               "RT_TASK_DEFAULT supports obtaining of parameters.");
    assert_int_equal(aclmdlRITaskGetParams(t[1], &p), ACL_SUCCESS);
    assert_int_equal(p.type, ACL_MODEL_RI_TASK_EVENT_RECORD);
    assert_ptr_equal(p.eventRecordTaskParams.event, e);
    assert_int_equal(p.eventRecordTaskParams.eventFlag, ACL_EVENT_SYNC);
    assert_int_equal(aclmdlRITaskGetParams(t[2], &p), ACL_SUCCESS);
    assert_int_equal(p.type, ACL_MODEL_RI_TASK_EVENT_WAIT);
    assert_ptr_equal(p.eventWaitTaskParams.event, e);
    assert_int_equal(aclmdlRITaskGetParams(t[3], &p), ACL_SUCCESS);
    assert_int_equal(p.type, ACL_MODEL_RI_TASK_VALUE_WRITE);
    assert_ptr_equal(p.valueWriteTaskParams.devAddr, word);
    assert_int_equal(p.valueWriteTaskParams.value, 5);
    assert_int_equal(aclmdlRITaskGetParams(t[4], &p), ACL_SUCCESS);
    assert_int_equal(p.type, ACL_MODEL_RI_TASK_VALUE_WAIT);
    assert_int_equal(p.valueWaitTaskParams.flag, ACL_STREAM_WAIT_VALUE_EQ);
    /* the runtime's NULL checks (no ACL layer's) */
    assert_int_equal(aclmdlRITaskGetParams(NULL, &p), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining task parameter information "
               "failed because task cannot be a NULL pointer.");
    /* an event task cannot be set */
    aclmdlRITaskParams q = {0};
    q.type = ACL_MODEL_RI_TASK_EVENT_RECORD;
    assert_int_equal(aclmdlRITaskSetParams(t[1], &q), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting task parameters failed because value "
               "TASK_EVENT_RECORD(2) for parameter params->type is invalid. Expected value: "
               "TASK_KERNEL(1) or TASK_VALUE_WRITE(5) or TASK_VALUE_WAIT(6).");
    /* ...which left the model FAULT: no update, no launch */
    assert_int_equal(aclmdlRIUpdate(ri), ACL_ERROR_RT_MODEL_UPDATE_FAILED);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void test_set_params_and_disable_take_effect_at_update(void **state)
{
    (void)state;
    aclmdlRI ri = NULL;
    uint64_t *word = (uint64_t *)(void *)dev_c;
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(word, 5, 0, s), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(word + 1, 6, 0, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    aclmdlRITask t[2];
    uint32_t n = 2;
    assert_int_equal(aclmdlRIGetTasksByStream(s, t, &n), ACL_SUCCESS);
    aclmdlRITaskParams p = {0};
    p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
    p.valueWriteTaskParams.devAddr = word;
    p.valueWriteTaskParams.value = 42;
    assert_int_equal(aclmdlRITaskSetParams(t[0], &p), ACL_SUCCESS);
    assert_int_equal(aclmdlRITaskDisable(t[1]), ACL_SUCCESS);
    /* UPDATING: no launch until aclmdlRIUpdate */
    uint32_t id = 0;
    assert_int_equal(aclmdlRIGetId(ri, &id), ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecuteAsync(ri, x), ACL_ERROR_RT_MODEL_EXECUTE);
    char want[256];
    snprintf(want, sizeof want, "Checking whether the capture model is ready failed. Parameter "
             "modelRI is invalid. Reason: ModelRI (model_id=%u) is not ready, status=UPDATING(3).",
             id);
    expect_msg("Invalid_Argument(EE1017)", want);
    assert_int_equal(aclmdlRIUpdate(ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIUpdate(ri), ACL_SUCCESS); /* READY: nothing to do */
    put_c(0);
    assert_int_equal(aclmdlRIExecuteAsync(ri, x), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
    uint64_t h[2] = {1, 1};
    assert_int_equal(aclrtMemcpy(h, 16, word, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(h[0], 42); /* the new value */
    assert_int_equal(h[1], 0);  /* disabled */
    assert_int_equal(aclmdlRIUpdate(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)",
               "Model update failed because mdl cannot be a NULL pointer.");
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static int destroyed;
static void on_destroy(void *arg)
{
    destroyed += *(int *)arg;
}

static void test_abort_drops_the_queued_replay(void **state)
{
    (void)state;
    aclrtEvent e;
    aclmdlRI ri = NULL;
    int weight = 1;
    assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 9, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroyRegisterCallback(ri, on_destroy, &weight), ACL_SUCCESS);
    put_c(0);
    assert_int_equal(aclmdlRIExecuteAsync(ri, x), ACL_SUCCESS); /* held at the wait */
    assert_int_equal(aclrtMemsetAsync(dev_c + 1, 1, 3, 1, x), ACL_SUCCESS); /* x's own work */
    assert_int_equal(aclmdlRIAbort(ri), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS); /* x goes on with its own work */
    uint8_t h[2] = {1, 1};
    assert_int_equal(aclrtMemcpy(h, 2, dev_c, 2, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(h[0], 0); /* the graph's fill never ran */
    assert_int_equal(h[1], 3);
    assert_int_equal(aclmdlRIAbort(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Aborting the model running instance "
               "failed because mdl cannot be a NULL pointer.");
    assert_int_equal(aclmdlRIDestroyRegisterCallback(NULL, on_destroy, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Registering the callback function for "
               "model destruction failed because mdl cannot be a NULL pointer.");
    destroyed = 0;
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(destroyed, 1);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

/* ---- Launches racing a destroy ---- */

struct racer {
    aclmdlRI ri;
    aclrtStream st;
    int launched;
};

static void *launcher(void *arg)
{
    struct racer *r = arg;
    for (int i = 0; i < 200; i++) {
        aclError rc = aclmdlRIExecuteAsync(r->ri, r->st);
        if (rc == ACL_SUCCESS)
            r->launched++;
        else
            (void)aclGetRecentErrMsg(); /* destroyed meanwhile: refused, not a crash */
    }
    return NULL;
}

static void *destroyer(void *arg)
{
    aclmdlRI ri = arg;
    aclError rc = aclmdlRIDestroy(ri);
    assert_int_equal(rc, ACL_SUCCESS);
    return NULL;
}

static void test_launches_race_a_destroy(void **state)
{
    (void)state;
    aclrtContext ctx;
    aclmdlRI ri = NULL;
    assert_int_equal(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(dev_c, 4096, 4, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS);
    struct racer a = {ri, u, 0}, b = {ri, x, 0};
    pthread_t t1, t2, t3;
    assert_int_equal(pthread_create(&t1, NULL, launcher, &a), 0);
    assert_int_equal(pthread_create(&t2, NULL, launcher, &b), 0);
    assert_int_equal(pthread_create(&t3, NULL, destroyer, ri), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    assert_int_equal(aclrtSynchronizeStream(u), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
    FAILS(aclmdlRIExecuteAsync(ri, u), ACL_ERROR_RT_PARAM_INVALID); /* gone */
    assert_true(a.launched + b.launched <= 400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_updated_from_another_stream),
        cmocka_unit_test(test_group_misuse),
        cmocka_unit_test(test_update_misuse),
        cmocka_unit_test(test_if_and_switch_choose_by_the_word),
        cmocka_unit_test(test_default_value_at_each_launch),
        cmocka_unit_test(test_condition_read_when_the_replay_reaches_it),
        cmocka_unit_test(test_while_runs_until_the_body_clears_the_word),
        cmocka_unit_test(test_condition_refusals),
        cmocka_unit_test(test_params_of_each_kind_and_an_update),
        cmocka_unit_test(test_set_params_and_disable_take_effect_at_update),
        cmocka_unit_test(test_abort_drops_the_queued_replay),
        cmocka_unit_test(test_launches_race_a_destroy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
