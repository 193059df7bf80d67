/*
 * test_faults.c - every catalogued fault point, fired through the public
 * helpers of aclsim/fault.h: the affected call returns the code the
 * catalogue documents, aclGetRecentErrMsg says why and names the point,
 * nothing is left half-built, and the runtime works again once the point
 * is disabled.
 *
 * Each point has a scenario_<ID> below; the table is generated from
 * fault/points.def, so a point without a scenario does not compile. The
 * message the user gets is compared with the catalogue's title, code and
 * text (a "%s" there stands for the name of the call that failed).
 * Built a second time with -DWRONG_WIRING (tests/meta), one expectation is
 * deliberately wrong and that binary must fail: proof this suite bites.
 */
#include <pthread.h>
#include <stdlib.h>
#include "../api/testutil.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_op.h"
#include "aclnnop/aclnn_add.h"
#include "aclnn/opdev/op_errno.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/ops/acl_dvpp.h"
#include "aclsim/fault.h"
#include "fault/fault.h"

static const struct {
    const char *name;
    aclError code;
    const char *msg, *text;
} catalogue[FLT_COUNT] = {
#define FLT(id, name, code, msg, text, what) {name, code, #msg, text},
#include "fault/points.def"
#undef FLT
};

/* Message kinds (api/src/diag/messages.def): id, code and title. */
static const struct {
    const char *id, *code, *title;
} kinds[] = {
#define MSG(id, code, title, cause, solution) {#id, code, title},
#include "api/src/diag/messages.def"
#undef MSG
};

/* Whether text matches pattern, where "%s" in pattern stands for an API
 * name (letters, digits, underscores). */
static int text_matches(const char *pattern, const char *text)
{
    while (*pattern) {
        if (pattern[0] == '%' && pattern[1] == 's') {
            const char *t = text;
            while ((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
                   (*t >= '0' && *t <= '9') || *t == '_')
                t++;
            if (t == text)
                return 0;
            text = t;
            pattern += 2;
        } else if (*pattern++ != *text++) {
            return 0;
        }
    }
    return *text == '\0' || *text == '\n';
}

/* The first line of the report must be the point's catalogued message:
 * "<title>(<code>): <text>" after the "[PID: n] <time> " prefix. */
static void check_text(size_t i, const char *m)
{
    const char *kind = NULL, *title = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(kinds[k].id, catalogue[i].msg) == 0)
            kind = kinds[k].code, title = kinds[k].title;
    assert_non_null(kind);
    char head[128];
    snprintf(head, sizeof head, "%s(%s): ", title, kind);
    const char *at = strstr(m, head);
    if (!at || memchr(m, '\n', (size_t)(at - m)))
        fail_msg("%s: the report does not start with %s:\n%s", catalogue[i].name, head, m);
    if (!text_matches(catalogue[i].text, at + strlen(head)))
        fail_msg("%s: the user sees\n  %.*s\nbut the catalogue says\n  %s", catalogue[i].name,
                 (int)strcspn(at + strlen(head), "\n"), at + strlen(head), catalogue[i].text);
}

static aclrtStream stream;
static int obj;
static void *A(aclrtAllocator a, size_t n) { (void)a; (void)n; return NULL; }
static void F(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void *V(aclrtAllocator a, size_t n, aclrtAllocatorAddr h) { (void)a; (void)n; (void)h; return NULL; }
static void *G(aclrtAllocatorBlock b) { return b; }

static const char *current; /* the point under test */

static void on(void) { assert_int_equal(aclsim_fault_enable(current), 0); }

/* The failed call's report, kept by off() for the generic checks. */
static const char *saved_msg;

static void keep_msg(void)
{
    static char keep[4096];
    const char *m = aclGetRecentErrMsg();
    snprintf(keep, sizeof keep, "%s", m ? m : "");
    saved_msg = keep;
}

/* Disable every point, keeping the failed call's report. */
static void off(void)
{
    aclsim_fault_disable_all();
    keep_msg();
}


static void up(void)
{
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&stream), ACL_SUCCESS);
}

static void down(void)
{
    assert_int_equal(aclrtDestroyStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static aclrtAllocatorDesc full_desc(void)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_non_null(d);
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, &obj), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, A), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, F), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, G), ACL_SUCCESS);
    return d;
}

static int registered(aclrtStream s)
{
    aclrtAllocatorDesc out;
    int yes = aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL) == ACL_SUCCESS;
    (void)aclGetRecentErrMsg();
    return yes;
}

/* ---- One scenario per point: fire it once, return the call's result,
 * and check that the call works again afterwards. ---- */

/* The library's own host memory: creating a stream needs some. */
static aclError scenario_LIB_HOST_MALLOC(void)
{
    aclrtStream s = NULL;
    on();
    aclError rc = aclrtCreateStream(&s);
    off();
    assert_null(s);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_ALLOCATOR_CREATE_DESC(void)
{
    on();
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    off();
    aclrtAllocatorDesc e = aclrtAllocatorCreateDesc();
    assert_non_null(e);
    aclrtAllocatorDestroyDesc(e);
    return d == NULL ? ACL_SUCCESS : ACL_ERROR_FAILURE; /* code 0: a NULL handle */
}

static aclError scenario_ACL_ALLOCATOR_DESTROY_DESC(void)
{
    aclrtAllocatorDesc d = full_desc();
    on();
    aclError rc = aclrtAllocatorDestroyDesc(d);
    off();
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    return rc;
}

/* A failed Set leaves the field unbound: Register then names it
 * ("missing callback"); field "" is the optional advise callback. */
static aclError set_scenario(aclError (*set)(aclrtAllocatorDesc), const char *field)
{
    aclrtAllocatorDesc e = aclrtAllocatorCreateDesc();
    if (strcmp(field, "allocatorDesc->obj") != 0)
        aclrtAllocatorSetObjToDesc(e, &obj);
    if (strcmp(field, "allocatorDesc->allocFunc") != 0)
        aclrtAllocatorSetAllocFuncToDesc(e, A);
    if (strcmp(field, "allocatorDesc->freeFunc") != 0)
        aclrtAllocatorSetFreeFuncToDesc(e, F);
    if (strcmp(field, "allocatorDesc->getAddrFromBlockFunc") != 0)
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc(e, G);
    on();
    aclError rc = set(e);
    off();
    aclError reg = aclrtAllocatorRegister(stream, e);
    if (field[0]) {
        assert_int_equal(reg, ACL_ERROR_INVALID_PARAM);
        expect_null_msg("aclrtAllocatorRegister", field);
    } else {
        assert_int_equal(reg, ACL_SUCCESS);
        aclrtAllocatorAllocAdviseFunc adv = V;
        aclrtAllocatorDesc out;
        assert_int_equal(aclrtAllocatorGetByStream(stream, &out, NULL, NULL, NULL, &adv, NULL),
                         ACL_SUCCESS);
        assert_null(adv);
        aclrtAllocatorUnregister(stream);
    }
    assert_int_equal(set(e), ACL_SUCCESS); /* works once the point is off */
    aclrtAllocatorDestroyDesc(e);
    return rc;
}

static aclError set_obj(aclrtAllocatorDesc d) { return aclrtAllocatorSetObjToDesc(d, &obj); }
static aclError set_alloc(aclrtAllocatorDesc d) { return aclrtAllocatorSetAllocFuncToDesc(d, A); }
static aclError set_free(aclrtAllocatorDesc d) { return aclrtAllocatorSetFreeFuncToDesc(d, F); }
static aclError set_adv(aclrtAllocatorDesc d) { return aclrtAllocatorSetAllocAdviseFuncToDesc(d, V); }
static aclError set_get(aclrtAllocatorDesc d) { return aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, G); }

static aclError scenario_ACL_ALLOCATOR_SET_OBJ(void) { return set_scenario(set_obj, "allocatorDesc->obj"); }
static aclError scenario_ACL_ALLOCATOR_SET_ALLOC(void) { return set_scenario(set_alloc, "allocatorDesc->allocFunc"); }
static aclError scenario_ACL_ALLOCATOR_SET_FREE(void) { return set_scenario(set_free, "allocatorDesc->freeFunc"); }
static aclError scenario_ACL_ALLOCATOR_SET_ADVISE(void) { return set_scenario(set_adv, ""); }
static aclError scenario_ACL_ALLOCATOR_SET_GET_ADDR(void) { return set_scenario(set_get, "allocatorDesc->getAddrFromBlockFunc"); }

static aclError scenario_ACL_ALLOCATOR_REGISTER(void)
{
    aclrtAllocatorDesc d = full_desc();
    on();
    aclError rc = aclrtAllocatorRegister(stream, d);
    off();
    assert_false(registered(stream)); /* nothing half-registered */
    assert_int_equal(aclrtAllocatorRegister(stream, d), ACL_SUCCESS);
    assert_true(registered(stream));
    aclrtAllocatorUnregister(stream);
    aclrtAllocatorDestroyDesc(d);
    return rc;
}

static aclError scenario_ACL_ALLOCATOR_GET_BY_STREAM(void)
{
    aclrtAllocatorDesc d = full_desc(), out = NULL;
    assert_int_equal(aclrtAllocatorRegister(stream, d), ACL_SUCCESS);
    on();
    aclError rc = aclrtAllocatorGetByStream(stream, &out, NULL, NULL, NULL, NULL, NULL);
    off();
    assert_null(out);
    assert_true(registered(stream)); /* the registration itself survives */
    aclrtAllocatorUnregister(stream);
    aclrtAllocatorDestroyDesc(d);
    return rc;
}

static aclError scenario_ACL_ALLOCATOR_UNREGISTER(void)
{
    aclrtAllocatorDesc d = full_desc();
    assert_int_equal(aclrtAllocatorRegister(stream, d), ACL_SUCCESS);
    on();
    aclError rc = aclrtAllocatorUnregister(stream);
    off();
    assert_true(registered(stream));
    assert_int_equal(aclrtAllocatorUnregister(stream), ACL_SUCCESS);
    assert_false(registered(stream));
    aclrtAllocatorDestroyDesc(d);
    return rc;
}

static aclError scenario_ACL_INIT(void)
{
    down();
    on();
    aclError rc = aclInit(NULL);
    off();
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE); /* stayed uninitialised */
    (void)aclGetRecentErrMsg();
    up();
    return rc;
}

static aclError scenario_ACL_FINALIZE(void)
{
    on();
    aclError rc = aclFinalize();
    off();
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE); /* still initialised */
    return rc;
}

static aclError scenario_ACL_RT_SET_DEVICE(void)
{
    on();
    aclError rc = aclrtSetDevice(0);
    off();
    int32_t d;
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_RESET_DEVICE(void)
{
    on();
    aclError rc = aclrtResetDevice(0);
    off();
    void *p; /* the device is still there */
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_GET_DEVICE(void)
{
    int32_t d = -1;
    on();
    aclError rc = aclrtGetDevice(&d);
    off();
    assert_int_equal(d, -1);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CREATE_CONTEXT(void)
{
    aclrtContext c = NULL, primary;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    on();
    aclError rc = aclrtCreateContext(&c, 0);
    off();
    assert_null(c);
    assert_int_equal(aclrtCreateContext(&c, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_DESTROY_CONTEXT(void)
{
    aclrtContext c, primary;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 0), ACL_SUCCESS);
    on();
    aclError rc = aclrtDestroyContext(c);
    off();
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CURRENT_CONTEXT(void)
{
    aclrtContext c = NULL;
    on();
    aclError rc = aclrtGetCurrentContext(&c);
    off();
    assert_null(c);
    assert_int_equal(aclrtGetCurrentContext(&c), ACL_SUCCESS);
    return rc;
}

static aclError create_stream_scenario(void)
{
    aclrtStream s = NULL;
    on();
    aclError rc = aclrtCreateStream(&s);
    off();
    assert_null(s);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CREATE_STREAM(void) { return create_stream_scenario(); }
static aclError scenario_SIM_STREAM_RESOURCE(void) { return create_stream_scenario(); }

static aclError scenario_ACL_RT_DESTROY_STREAM(void)
{
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    on();
    aclError rc = aclrtDestroyStream(s);
    off();
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return rc;
}

static aclError sync_scenario(void)
{
    on();
    aclError rc = aclrtSynchronizeStream(stream);
    off();
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_SYNC_STREAM(void) { return sync_scenario(); }
static aclError scenario_SIM_STREAM_HANG(void) { return sync_scenario(); }

static aclError malloc_scenario(void)
{
    void *p = NULL;
    size_t f0, f1, t;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t), ACL_SUCCESS);
    on();
    aclError rc = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    off();
    assert_null(p);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
    assert_int_equal(f0, f1); /* nothing allocated */
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MALLOC(void) { return malloc_scenario(); }
static aclError scenario_SIM_HBM_ALLOC(void) { return malloc_scenario(); }
static aclError scenario_SIM_HBM_MAP(void) { return malloc_scenario(); }

static aclError scenario_ACL_RT_FREE(void)
{
    void *p;
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    on();
    aclError rc = aclrtFree(p);
    off();
    assert_int_equal(aclrtFree(p), ACL_SUCCESS); /* the block was still allocated */
    return rc;
}

/* DVPP memory: the entry point fails before anything is taken, and a
 * failed free leaves the block allocated. */
static aclError scenario_ACL_DVPP_MALLOC(void)
{
    void *p = NULL;
    size_t f0, f1, t;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t), ACL_SUCCESS);
    on();
    aclError rc = acldvppMalloc(&p, 4096);
    off();
    assert_null(p);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
    assert_int_equal(f0, f1);
    assert_int_equal(acldvppMalloc(&p, 4096), ACL_SUCCESS);
    assert_int_equal(acldvppFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_DVPP_FREE(void)
{
    void *p;
    assert_int_equal(acldvppMalloc(&p, 4096), ACL_SUCCESS);
    on();
    aclError rc = acldvppFree(p);
    off();
    assert_int_equal(acldvppFree(p), ACL_SUCCESS); /* the block was still allocated */
    return rc;
}

static aclError malloc_host_scenario(void)
{
    void *p = NULL;
    on();
    aclError rc = aclrtMallocHost(&p, 4096);
    off();
    assert_null(p);
    assert_int_equal(aclrtMallocHost(&p, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MALLOC_HOST(void) { return malloc_host_scenario(); }
static aclError scenario_SIM_HOST_ALLOC(void) { return malloc_host_scenario(); }

static aclError scenario_ACL_RT_FREE_HOST(void)
{
    void *p;
    assert_int_equal(aclrtMallocHost(&p, 4096), ACL_SUCCESS);
    on();
    aclError rc = aclrtFreeHost(p);
    off();
    assert_int_equal(aclrtFreeHost(p), ACL_SUCCESS);
    return rc;
}

/* A failed copy or fill leaves the destination as it was. */
static aclError copy_scenario(int fill)
{
    unsigned char h[256], back[256];
    void *d;
    memset(h, 0x11, sizeof h);
    assert_int_equal(aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    memset(h, 0x22, sizeof h);
    on();
    aclError rc = fill ? aclrtMemset(d, sizeof h, 0x33, sizeof h)
                       : aclrtMemcpy(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE);
    off();
    assert_int_equal(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    for (size_t i = 0; i < sizeof back; i++)
        assert_int_equal(back[i], 0x11);
    assert_int_equal(aclrtMemset(d, sizeof h, 0x33, sizeof h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MEMCPY(void) { return copy_scenario(0); }
static aclError scenario_ACL_RT_MEMSET(void) { return copy_scenario(1); }
static aclError scenario_SIM_COPY_ENGINE(void) { return copy_scenario(0); }

static aclError scenario_ACL_RT_CREATE_EVENT(void)
{
    aclrtEvent e = NULL;
    on();
    aclError rc = aclrtCreateEvent(&e);
    off();
    assert_null(e);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_DESTROY_EVENT(void)
{
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    on();
    aclError rc = aclrtDestroyEvent(e);
    off();
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_RECORD_EVENT(void)
{
    aclrtEvent e;
    aclrtEventRecordedStatus st;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    on();
    aclError rc = aclrtRecordEvent(e, stream);
    off();
    assert_int_equal(aclrtRecordEvent(e, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

static aclError event_sync_scenario(void)
{
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, stream), ACL_SUCCESS);
    on();
    aclError rc = aclrtSynchronizeEvent(e);
    off();
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_SYNC_EVENT(void) { return event_sync_scenario(); }
static aclError scenario_SIM_EVENT_HANG(void) { return event_sync_scenario(); }

static aclError scenario_ACL_RT_QUERY_EVENT(void)
{
    aclrtEvent e;
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    on();
    aclError rc = aclrtQueryEventStatus(e, &st);
    off();
    assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE); /* never recorded */
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

/* ---- streams, events, notifies, peers ---- */

static aclError scenario_ACL_RT_STREAM_ATTR(void)
{
    int32_t id = -1;
    on();
    aclError rc = aclrtStreamGetId(stream, &id);
    off();
    assert_int_equal(id, -1); /* nothing written */
    assert_int_equal(aclrtStreamGetId(stream, &id), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_STREAM_ABORT(void)
{
    on();
    aclError rc = aclrtStreamAbort(stream);
    off();
    assert_int_equal(aclrtStreamAbort(stream), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_NOTIFY(void)
{
    aclrtNotify n = NULL;
    on();
    aclError rc = aclrtCreateNotify(&n, 0);
    off();
    assert_null(n);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CNT_NOTIFY(void)
{
    aclrtCntNotify n = NULL;
    on();
    aclError rc = aclrtCntNotifyCreate(&n, 0);
    off();
    assert_null(n);
    assert_int_equal(aclrtCntNotifyCreate(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(n), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_PEER_ACCESS(void)
{
    int32_t can = -1;
    on();
    aclError rc = aclrtDeviceCanAccessPeer(&can, 0, 1);
    off();
    assert_int_equal(can, -1);
    return rc;
}

/* ---- virtual memory and stream-ordered pools ---- */
static aclrtPhysicalMemProp vmm_prop(void)
{
    aclrtPhysicalMemProp p;
    memset(&p, 0, sizeof p);
    p.memAttr = ACL_HBM_MEM_HUGE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    return p;
}

/* Reserve, back and map 2 MB; the fault is on while `step` runs
 * (0 reserve, 1 physical, 2 map); nothing is left behind either way. */
static aclError vmm_scenario(int step)
{
    aclrtPhysicalMemProp p = vmm_prop();
    void *va = NULL;
    aclrtDrvMemHandle h = NULL;
    size_t f0, f1, t;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t), ACL_SUCCESS);
    if (step == 0)
        on();
    aclError rc = aclrtReserveMemAddress(&va, 2u << 20, 0, NULL, 0);
    if (step == 0) {
        off();
        assert_null(va);
        return rc;
    }
    assert_int_equal(rc, ACL_SUCCESS);
    if (step == 1)
        on();
    rc = aclrtMallocPhysical(&h, 2u << 20, &p, 0);
    if (step == 1) {
        off();
        assert_null(h);
        assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t), ACL_SUCCESS);
        assert_int_equal(f0, f1);
        assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
        return rc;
    }
    assert_int_equal(rc, ACL_SUCCESS);
    on();
    rc = aclrtMapMem(va, 2u << 20, 0, h, 0);
    off();
    char b[16] = {0};
    /* not mapped: a copy there is refused */
    assert_int_not_equal(aclrtMemcpy(va, 16, b, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
    return rc;
}

static aclError scenario_SIM_VMM_RESERVE(void) { return vmm_scenario(0); }
static aclError scenario_SIM_VMM_PHYSICAL(void) { return vmm_scenario(1); }
static aclError scenario_SIM_VMM_MAP(void) { return vmm_scenario(2); }
static aclError scenario_ACL_RT_VMM(void) { return vmm_scenario(2); }

static aclError pool_scenario(int at_create)
{
    aclrtMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    aclrtMemPool pool = NULL;
    void *ptr = NULL;
    if (at_create)
        on();
    aclError rc = aclrtMemPoolCreate(&pool, &pp);
    if (at_create) {
        off();
        assert_null(pool);
        return rc;
    }
    assert_int_equal(rc, ACL_SUCCESS);
    on();
    rc = aclrtMemPoolMallocAsync(&ptr, 4096, pool, stream);
    off();
    assert_null(ptr);
    assert_int_equal(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_POOL(void) { return pool_scenario(1); }
static aclError scenario_SIM_POOL_GROW(void) { return pool_scenario(0); }

/* ---- resource limits, device tasks, IPC events ---- */

static aclError scenario_ACL_RT_RES_LIMIT(void)
{
    uint32_t before = 0, after = 0;
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &before), ACL_SUCCESS);
    on();
    aclError rc = aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1);
    off();
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &after), ACL_SUCCESS);
    assert_int_equal(after, before); /* nothing changed */
    return rc;
}

static aclError scenario_ACL_RT_BUILTIN_TASK(void)
{
    float one[4] = {1, 2, 3, 4}, back[4] = {0};
    void *a, *b;
    assert_int_equal(aclrtMalloc(&a, sizeof one, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, sizeof one, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(a, sizeof one, one, sizeof one, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(b, sizeof one, one, sizeof one, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    on();
    aclError rc = aclrtReduceAsync(a, b, sizeof one, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
                                   stream, NULL);
    off();
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, sizeof back, a, sizeof one, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_memory_equal(back, one, sizeof one); /* nothing written */
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_IPC_EVENT(void)
{
    aclrtEvent e, opened = NULL;
    aclrtIpcEventHandle h;
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
    assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
    on();
    aclError rc = aclrtIpcOpenEventHandle(h, &opened);
    off();
    assert_null(opened);
    assert_int_equal(aclrtIpcOpenEventHandle(h, &opened), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(opened), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    return rc;
}

/* IPC memory: a 2 MB block exported (pid validation off) and imported in
 * this very process; each point fails its call and leaves the key as it
 * was, so the same call succeeds next. */
static aclError scenario_ACL_RT_IPC_NOTIFY(void)
{
    aclrtNotify n;
    char key[65] = "";
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    on();
    aclError rc = aclrtNotifyGetExportKey(n, key, sizeof key, 0);
    off();
    assert_string_equal(key, "");
    assert_int_equal(aclrtNotifyGetExportKey(n, key, sizeof key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_IPC_MEM_EXPORT(void)
{
    void *p;
    char key[65] = "";
    assert_int_equal(aclrtMalloc(&p, 2 << 20, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    on();
    aclError rc = aclrtIpcMemGetExportKey(p, 2 << 20, key, sizeof key, 0);
    off();
    assert_string_equal(key, "");
    assert_int_equal(aclrtIpcMemGetExportKey(p, 2 << 20, key, sizeof key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_IPC_MEM_IMPORT(void)
{
    void *p, *q = NULL;
    char key[65];
    assert_int_equal(aclrtMalloc(&p, 2 << 20, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, 2 << 20, key, sizeof key, 1), ACL_SUCCESS);
    on();
    aclError rc = aclrtIpcMemImportByKey(&q, key, 0);
    off();
    assert_null(q);
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* the import */
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* the export */
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_IPC_MEM_CLOSE(void)
{
    void *p;
    char key[65];
    assert_int_equal(aclrtMalloc(&p, 2 << 20, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, 2 << 20, key, sizeof key, 1), ACL_SUCCESS);
    on();
    aclError rc = aclrtIpcMemClose(key);
    off();
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* it stayed open */
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MEM_INFO(void)
{
    size_t f = 0, t = 0;
    on();
    aclError rc = aclrtGetMemInfo(ACL_HBM_MEM, &f, &t);
    off();
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_SYS_VERSION_FILE(void)
{
    char pkg[] = "runtime", ver[ACL_PKG_VERSION_MAX_SIZE] = "";
    on();
    aclError rc = aclsysGetVersionStr(pkg, ver);
    off();
    assert_string_equal(ver, ""); /* nothing written */
    assert_int_equal(aclsysGetVersionStr(pkg, ver), ACL_SUCCESS);
    assert_string_equal(ver, "9.1.0");
    return rc;
}

static aclError scenario_ACL_RT_DEVICE_INFO(void)
{
    int64_t v = -1;
    on();
    aclError rc = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v);
    off();
    assert_int_equal(v, -1);
    assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v), ACL_SUCCESS);
    assert_int_equal(v, 24);
    return rc;
}

/* ---- errors, init callbacks, callbacks ---- */

static aclError scenario_ACL_RT_ERROR_VERBOSE(void)
{
    aclrtErrorInfo info;
    memset(&info, 0x5a, sizeof info);
    on();
    aclError rc = aclrtGetErrorVerbose(0, &info);
    off();
    assert_int_equal(info.tryRepair, 0x5a); /* untouched */
    assert_int_equal(aclrtGetErrorVerbose(0, &info), ACL_SUCCESS);
    assert_int_equal(info.errorType, ACL_RT_NO_ERROR);
    return rc;
}

static aclError count_fini(void *user)
{
    ++*(int *)user;
    return ACL_SUCCESS;
}

static aclError scenario_ACL_INIT_CALLBACK(void)
{
    int calls = 0;
    on();
    aclError rc = aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, count_fini, &calls);
    off();
    /* Nothing was registered. */
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, count_fini),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, count_fini, &calls),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, count_fini), ACL_SUCCESS);
    assert_int_equal(calls, 0);
    return rc;
}

static aclError scenario_ACL_RT_SUBSCRIBE_REPORT(void)
{
    uint64_t me = (uint64_t)pthread_self();
    on();
    aclError rc = aclrtSubscribeReport(me, stream);
    off();
    /* Nothing was subscribed. */
    assert_int_equal(aclrtUnSubscribeReport(me, stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSubscribeReport(me, stream), ACL_SUCCESS);
    assert_int_equal(aclrtUnSubscribeReport(me, stream), ACL_SUCCESS);
    return rc;
}

static void count_cb(void *user)
{
    ++*(int *)user;
}

static aclError scenario_ACL_RT_LAUNCH_CALLBACK(void)
{
    uint64_t me = (uint64_t)pthread_self();
    int calls = 0;
    assert_int_equal(aclrtSubscribeReport(me, stream), ACL_SUCCESS);
    on();
    aclError rc = aclrtLaunchCallback(count_cb, &calls, ACL_CALLBACK_BLOCK, stream);
    off();
    /* Nothing was queued. */
    assert_int_equal(aclrtProcessReport(1), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_int_equal(aclrtLaunchCallback(count_cb, &calls, ACL_CALLBACK_BLOCK, stream),
                     ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(calls, 1);
    assert_int_equal(aclrtUnSubscribeReport(me, stream), ACL_SUCCESS);
    return rc;
}
/* ---- The single-op executor: an allocator handing out device memory
 * (the block is the address), registered on a fresh stream. ---- */
static int op_allocs, op_frees;
static void *DA(aclrtAllocator a, size_t n)
{
    (void)a;
    void *p = NULL;
    if (aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    op_allocs++;
    return p;
}
static void DF(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; op_frees++; aclrtFree(b); }
static void *DG(aclrtAllocatorBlock b) { return b; }

static aclError op_scenario(void)
{
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, &obj), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, DA), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, DF), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, DG), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    int64_t dims[1] = {16};
    void *mem[3];
    aclTensorDesc *td[3];
    aclDataBuffer *db[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtMalloc(&mem[i], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemset(mem[i], 64, 0, 64), ACL_SUCCESS);
        td[i] = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
        db[i] = aclCreateDataBuffer(mem[i], 64);
    }
    op_allocs = op_frees = 0;
    on();
    aclError rc = aclopExecuteV2("Add", 2, td, db, 1, td + 2, db + 2, NULL, s);
    off();
    assert_int_equal(op_allocs, op_frees); /* what it got went back */
    assert_int_equal(aclopExecuteV2("Add", 2, td, db, 1, td + 2, db + 2, NULL, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(op_allocs > 0 && op_allocs == op_frees);
    for (int i = 0; i < 3; i++) {
        aclDestroyTensorDesc(td[i]);
        aclDestroyDataBuffer(db[i]);
        assert_int_equal(aclrtFree(mem[i]), ACL_SUCCESS);
    }
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_OP_ALLOC(void) { return op_scenario(); }
static aclError scenario_ACL_OP_GET_ADDR(void) { return op_scenario(); }

/* ---- The aclnn operators: an Add of 16 floats on a fresh stream ---- */

struct nn_add {
    aclrtStream s;
    void *mem[3];
    aclTensor *t[3];
    aclScalar *alpha;
};

static void nn_up(struct nn_add *a)
{
    assert_int_equal(aclrtCreateStream(&a->s), ACL_SUCCESS);
    int64_t dims[1] = {16}, strides[1] = {1};
    float one = 1.0f;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtMalloc(&a->mem[i], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemset(a->mem[i], 64, 0, 64), ACL_SUCCESS);
        a->t[i] = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, a->mem[i]);
    }
    a->alpha = aclCreateScalar(&one, ACL_FLOAT);
}

static void nn_down(struct nn_add *a)
{
    /* The operator works again once the point is off. */
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(a->t[0], a->t[1], a->alpha, a->t[2], &ws, &e), 0);
    assert_int_equal(aclnnAdd(NULL, ws, e, a->s), 0);
    assert_int_equal(aclrtSynchronizeStream(a->s), ACL_SUCCESS);
    for (int i = 0; i < 3; i++) {
        aclDestroyTensor(a->t[i]);
        assert_int_equal(aclrtFree(a->mem[i]), ACL_SUCCESS);
    }
    aclDestroyScalar(a->alpha);
    assert_int_equal(aclrtDestroyStream(a->s), ACL_SUCCESS);
}

static aclError nn_plan_scenario(void)
{
    struct nn_add a;
    nn_up(&a);
    uint64_t ws = 7;
    aclOpExecutor *e = NULL;
    on();
    aclError rc = aclnnAddGetWorkspaceSize(a.t[0], a.t[1], a.alpha, a.t[2], &ws, &e);
    off();
    assert_null(e); /* nothing handed out */
    assert_int_equal(ws, 7);
    nn_down(&a);
    return rc;
}

static aclError scenario_ACL_NN_WORKSPACE(void) { return nn_plan_scenario(); }
static aclError scenario_ACL_NN_EXECUTOR(void) { return nn_plan_scenario(); }

static aclError scenario_ACL_NN_LAUNCH(void)
{
    struct nn_add a;
    nn_up(&a);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t[0], a.t[1], a.alpha, a.t[2], &ws, &e), 0);
    on();
    aclError rc = aclnnAdd(NULL, ws, e, a.s);
    off();
    /* The single-use executor went with the failed launch. */
    assert_int_equal(aclnnAdd(NULL, ws, e, a.s), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    nn_down(&a);
    return rc;
}

/* ---- 2-D, batch and descriptor copies ---- */

static aclError scenario_ACL_RT_MEMCPY2D(void)
{
    unsigned char h[64], back[64];
    void *d;
    memset(h, 0x44, sizeof h);
    assert_int_equal(aclrtMalloc(&d, sizeof back, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d, sizeof back, 0x11, sizeof back), ACL_SUCCESS);
    on();
    aclError rc = aclrtMemcpy2d(d, 16, h, 8, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE);
    off();
    assert_int_equal(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    for (size_t i = 0; i < sizeof back; i++)
        assert_int_equal(back[i], 0x11); /* unchanged */
    assert_int_equal(aclrtMemcpy2d(d, 16, h, 8, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MEMSET_D32(void)
{
    uint32_t back[16];
    void *d;
    assert_int_equal(aclrtMalloc(&d, sizeof back, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d, sizeof back, 0, sizeof back), ACL_SUCCESS);
    on();
    aclError rc = aclrtMemsetD32(d, sizeof back, 0xdeadbeefu, 16);
    off();
    assert_int_equal(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    for (size_t i = 0; i < 16; i++)
        assert_int_equal(back[i], 0); /* unchanged */
    assert_int_equal(aclrtMemsetD32(d, sizeof back, 0xdeadbeefu, 16), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

/* ---- registered, managed and configured memory; cache maintenance ---- */

static aclError scenario_ACL_RT_MALLOC_CFG(void)
{
    void *p = NULL;
    on();
    aclError rc = aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL);
    off();
    assert_null(p);
    assert_int_equal(aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_HOST_REGISTER(void)
{
    static _Alignas(4096) char page[8192];
    void *dev = NULL;
    on();
    aclError rc = aclrtHostRegisterV2(page, sizeof page, ACL_HOST_REG_MAPPED);
    off();
    /* nothing was registered: the pointer has no device address */
    assert_int_equal(aclrtHostGetDevicePointer(page, &dev, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtHostRegisterV2(page, sizeof page, ACL_HOST_REG_MAPPED), ACL_SUCCESS);
    assert_int_equal(aclrtHostUnregister(page), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MALLOC_MANAGED(void)
{
    void *p = NULL;
    on();
    aclError rc = aclrtMemAllocManaged(&p, 4096, ACL_RT_MEM_ATTACH_GLOBAL);
    off();
    assert_null(p);
    assert_int_equal(aclrtMemAllocManaged(&p, 4096, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CACHE(void)
{
    void *d;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    on();
    aclError rc = aclrtMemFlush(d, 4096);
    off();
    assert_int_equal(aclrtMemFlush(d, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_CMO(void)
{
    void *d;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    on();
    aclError rc = aclrtCmoAsync(d, 4096, ACL_RT_CMO_TYPE_PREFETCH, NULL);
    off();
    assert_int_equal(aclrtCmoAsync(d, 4096, ACL_RT_CMO_TYPE_PREFETCH, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_RT_MEMCPY_DESC(void)
{
    void *d;
    size_t n = 0;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    on();
    aclError rc = aclrtSetMemcpyDesc(d, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (char *)d + 1024,
                                     (char *)d + 2048, 64, NULL);
    off();
    assert_int_equal(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &n), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

/* ---- stream capture and model runtime instances ---- */

static aclError scenario_ACL_MDLRI_CAPTURE_BEGIN(void)
{
    on();
    aclError rc = aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    off();
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    assert_int_equal(aclmdlRICaptureGetInfo(stream, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE); /* it does not capture */
    return rc;
}

static aclError scenario_ACL_MDLRI_CAPTURE_END(void)
{
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    on();
    aclError rc = aclmdlRICaptureEnd(stream, &ri);
    off();
    assert_null(ri);
    assert_int_equal(aclmdlRICaptureEnd(stream, &ri), ACL_SUCCESS); /* it still captured */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_MDLRI_TASK_GROUP(void)
{
    aclmdlRI ri = NULL;
    aclrtTaskGrp grp = (aclrtTaskGrp)1;
    assert_int_equal(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    on();
    aclError rc = aclmdlRICaptureTaskGrpBegin(stream);
    off();
    /* no group was begun: End has none to end */
    assert_int_equal(aclmdlRICaptureTaskGrpEnd(stream, &grp), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
    assert_null(grp);
    assert_int_equal(aclmdlRICaptureEnd(stream, &ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    return rc;
}

/* A graph of one fill, for the points below. */
static aclmdlRI small_graph(void **d)
{
    aclmdlRI ri = NULL;
    assert_int_equal(aclrtMalloc(d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(*d, 4096, 1, 4096, stream), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(stream, &ri), ACL_SUCCESS);
    return ri;
}

static aclError scenario_ACL_MDLRI_EXECUTE(void)
{
    void *d;
    aclmdlRI ri = small_graph(&d);
    on();
    aclError rc = aclmdlRIExecuteAsync(ri, stream);
    off();
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_MDLRI_UPDATE(void)
{
    void *d;
    aclmdlRI ri = small_graph(&d);
    aclmdlRITask task = NULL;
    uint32_t n = 1;
    assert_int_equal(aclmdlRIGetTasksByStream(stream, &task, &n), ACL_SUCCESS);
    on();
    aclError rc = aclmdlRITaskDisable(task);
    off();
    /* nothing changed: the graph is not being updated, it runs */
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_MDLRI_COND(void)
{
    aclmdlRI ri = NULL;
    aclmdlRICondHandle h = NULL;
    assert_int_equal(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureGetInfo(stream, NULL, &ri), ACL_SUCCESS);
    on();
    aclError rc = aclmdlRICondHandleCreate(ri, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h);
    off();
    assert_null(h);
    assert_int_equal(aclmdlRICaptureEnd(stream, &ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    return rc;
}

static aclError scenario_ACL_MDLRI_DESTROY(void)
{
    void *d;
    aclmdlRI ri = small_graph(&d);
    on();
    aclError rc = aclmdlRIDestroy(ri);
    off();
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS); /* it stayed */
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static aclError (*const scenarios[FLT_COUNT])(void) = {
#define FLT(id, name, code, msg, text, what) scenario_##id,
#include "fault/points.def"
#undef FLT
};

/* ---- The generic checks ---- */

static void check_point(size_t i)
{
    current = catalogue[i].name;
    aclError want = catalogue[i].code;
#ifdef WRONG_WIRING
    /* Claim acl/rt/malloc fails with a host-OOM code: must be caught. */
    if (strcmp(current, "acl/rt/malloc") == 0)
        want = ACL_ERROR_BAD_ALLOC;
#endif
    unsigned long hits = aclsim_fault_hits(current);
    saved_msg = NULL;
    (void)aclGetRecentErrMsg();
    aclError rc = scenarios[i]();
    const char *m = saved_msg;
    if (rc != want)
        fail_msg("%s: the call returned %d, the catalogue says %d", current, rc, want);
    if (!m)
        fail_msg("%s: no message for aclGetRecentErrMsg", current);
    check_text(i, m);
    char tag[128];
    snprintf(tag, sizeof tag, "[aclsim] fault point %s fired", current);
    if (!strstr(m, tag))
        fail_msg("%s: the message does not name the point:\n%s", current, m);
    assert_true(aclsim_fault_hits(current) > hits);
    (void)aclGetRecentErrMsg();
}

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    up();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    size_t f, t;
    aclsim_fault_disable_all();
    /* Nothing a failure path built may be left: all device memory free. */
    if (aclrtGetMemInfo(ACL_HBM_MEM, &f, &t) != ACL_SUCCESS || f != t)
        return -1;
    down();
    return 0;
}

static void test_every_point_fails_its_call_as_catalogued(void **state)
{
    (void)state;
    for (size_t i = 0; i < FLT_COUNT; i++)
        check_point(i);
}

static void test_catalogue_is_what_the_library_reports(void **state)
{
    (void)state;
    assert_int_equal(aclsim_fault_count(), FLT_COUNT);
    for (size_t i = 0; i < FLT_COUNT; i++) {
        assert_string_equal(aclsim_fault_name(i), catalogue[i].name);
        assert_non_null(aclsim_fault_description(i));
    }
    assert_null(aclsim_fault_name(FLT_COUNT));
    assert_int_equal(aclsim_fault_enable("no/such/point"), -1);
}

static void test_nth_hit_fails_once_then_calls_work(void **state)
{
    (void)state;
    void *p[4];
    assert_int_equal(aclsim_fault_enable_nth("acl/rt/malloc", 3, 0), 0);
    assert_int_equal(aclrtMalloc(&p[0], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p[1], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p[2], 64, ACL_MEM_MALLOC_HUGE_FIRST),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMalloc(&p[2], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclsim_fault_disable_all();
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
}

static void test_nth_persistent_fails_from_n_on(void **state)
{
    (void)state;
    void *p;
    assert_int_equal(aclsim_fault_enable_nth("acl/rt/malloc", 2, 1), 0);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST),
                         ACL_ERROR_RT_MEMORY_ALLOCATION);
        (void)aclGetRecentErrMsg();
    }
    aclsim_fault_disable_all();
}

static void test_random_is_reproducible_under_a_seed(void **state)
{
    (void)state;
    char first[200], second[200];
    for (int round = 0; round < 2; round++) {
        char *out = round ? second : first;
        assert_int_equal(aclsim_fault_enable_random("acl/rt/get_device", 0.3, 42), 0);
        int fails = 0;
        for (int i = 0; i < 199; i++) {
            int32_t d;
            out[i] = aclrtGetDevice(&d) == ACL_SUCCESS ? '.' : 'x';
            fails += out[i] == 'x';
        }
        out[199] = '\0';
        aclsim_fault_disable_all();
        (void)aclGetRecentErrMsg();
        assert_true(fails > 30 && fails < 90);
    }
    assert_string_equal(first, second);
}

static void test_wildcard_covers_a_layer_and_disable_all_clears_it(void **state)
{
    (void)state;
    assert_int_equal(aclsim_fault_enable("acl/allocator/*"), 0);
    assert_null(aclrtAllocatorCreateDesc());
    assert_int_equal(aclrtAllocatorUnregister(stream), ACL_ERROR_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    aclsim_fault_disable_all();
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_non_null(d);
    aclrtAllocatorDestroyDesc(d);
}

/* docs/faults.md's fault table lists every point (the catalogue is the single
 * source; this keeps the documentation from drifting). */
static void test_readme_table_lists_every_point(void **state)
{
    (void)state;
    FILE *f = fopen(ACLSIM_ROOT "/docs/faults.md", "r");
    assert_non_null(f);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (size_t i = 0; i < FLT_COUNT; i++) {
        char row[128];
        snprintf(row, sizeof row, "| `%s` | ", catalogue[i].name);
        if (!strstr(text, row))
            fail_msg("docs/faults.md has no table row for fault point %s", catalogue[i].name);
    }
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_every_point_fails_its_call_as_catalogued),
        T(test_catalogue_is_what_the_library_reports),
        T(test_nth_hit_fails_once_then_calls_work),
        T(test_nth_persistent_fails_from_n_on),
        T(test_random_is_reproducible_under_a_seed),
        T(test_wildcard_covers_a_layer_and_disable_all_clears_it),
        cmocka_unit_test(test_readme_table_lists_every_point),
    };
    return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
