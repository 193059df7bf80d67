/*
 * test_threads.c - the ACL layer's lock contract (backends/be.h) seen from
 * a program: a slow backend call stalls only its own caller, legal
 * programs that share handles between threads run without races (this
 * suite runs under ThreadSanitizer too), and misuse races (destroying a
 * handle another thread uses, or destroys too) end in errors, never in
 * crashes.
 *
 * A slow backend is made with aclsim_fault_delay on a point inside the
 * simulator: the hit sleeps, the call goes on.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "aclsim/fault.h"
#include "testutil.h"

#define SLOW_MS 1500ul

static int up(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int down(void **state)
{
    (void)state;
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1);
    return aclFinalize();
}

/* ---- A slow backend call holds up only its caller ---- */

struct slow {
    aclrtContext ctx;
    int32_t device; /* for the device-open case: the device to open */
    _Atomic int done;
    aclError rc;
    aclrtStream stream;
};

static void *slow_create_stream(void *arg)
{
    struct slow *s = arg;
    aclrtSetCurrentContext(s->ctx);
    s->rc = aclrtCreateStream(&s->stream);
    atomic_store(&s->done, 1);
    return NULL;
}

static void *slow_set_device(void *arg)
{
    struct slow *s = arg;
    s->rc = aclrtSetDevice(s->device);
    atomic_store(&s->done, 1);
    return NULL;
}

static void nap(void)
{
    struct timespec ts = {0, 100000}; /* 0.1 ms */
    nanosleep(&ts, NULL);
}

/* Wait until the slow call is inside the backend (the point was hit). */
static void wait_for_hit(const char *point, unsigned long before)
{
    while (aclsim_fault_hits(point) == before)
        sched_yield();
}

/* Calls of every kind this thread can make while the other is slow. */
static void unrelated_calls(void)
{
    for (int i = 0; i < 50; i++) {
        void *p;
        aclrtEvent e;
        int32_t dev;
        size_t fr, tot;
        assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemset(p, 4096, 0, 4096), ACL_SUCCESS);
        assert_int_equal(aclrtFree(p), ACL_SUCCESS);
        assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
        assert_int_equal(aclrtRecordEvent(e, NULL), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
        assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
        assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    }
}

static void test_slow_stream_create_does_not_stall_other_threads(void **state)
{
    (void)state;
    struct slow s = {.done = 0};
    assert_int_equal(aclrtGetCurrentContext(&s.ctx), ACL_SUCCESS);
    unsigned long hits = aclsim_fault_hits("sim/stream/create");
    assert_int_equal(aclsim_fault_delay("sim/stream/create", SLOW_MS), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, slow_create_stream, &s), 0);
    wait_for_hit("sim/stream/create", hits);
    unrelated_calls();
    /* All that ran while the stream was still being created. */
    assert_int_equal(atomic_load(&s.done), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(s.rc, ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s.stream), ACL_SUCCESS);
}

static void test_slow_device_open_does_not_stall_another_device(void **state)
{
    (void)state;
    struct slow s = {.device = 1, .done = 0};
    unsigned long hits = aclsim_fault_hits("sim/hbm/map");
    assert_int_equal(aclsim_fault_delay("sim/hbm/map", SLOW_MS), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, slow_set_device, &s), 0);
    wait_for_hit("sim/hbm/map", hits);
    aclsim_fault_disable_all(); /* device 0's allocations hit sim/hbm/map too */
    unrelated_calls();
    assert_int_equal(atomic_load(&s.done), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(s.rc, ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS); /* back to device 0's context */
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
}

/* ---- Legal sharing ---- */

struct shared {
    aclrtContext ctx;
    aclrtEvent event;
    aclrtStream stream;
    _Atomic int stop;
};

static void *query_and_wait(void *arg)
{
    struct shared *sh = arg;
    aclrtSetCurrentContext(sh->ctx);
    aclrtStream mine;
    assert_int_equal(aclrtCreateStream(&mine), ACL_SUCCESS);
    while (!atomic_load(&sh->stop)) {
        aclrtEventRecordedStatus st;
        assert_int_equal(aclrtQueryEventStatus(sh->event, &st), ACL_SUCCESS);
        assert_int_equal(aclrtStreamWaitEvent(mine, sh->event), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeEvent(sh->event), ACL_SUCCESS);
    }
    assert_int_equal(aclrtSynchronizeStream(mine), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(mine), ACL_SUCCESS);
    return NULL;
}

static void test_record_while_others_query_and_wait(void **state)
{
    (void)state;
    struct shared sh = {.stop = 0};
    assert_int_equal(aclrtGetCurrentContext(&sh.ctx), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&sh.event), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&sh.stream), ACL_SUCCESS);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, query_and_wait, &sh), 0);
    void *d;
    assert_int_equal(aclrtMalloc(&d, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(aclrtMemsetAsync(d, 1 << 16, i & 0xff, 1 << 16, sh.stream), ACL_SUCCESS);
        assert_int_equal(aclrtRecordEvent(sh.event, sh.stream), ACL_SUCCESS);
    }
    atomic_store(&sh.stop, 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(aclrtSynchronizeStream(sh.stream), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(sh.stream), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(sh.event), ACL_SUCCESS);
}

static void *own_device(void *arg)
{
    int32_t dev = (int32_t)(intptr_t)arg;
    for (int i = 0; i < 100; i++) {
        void *p;
        assert_int_equal(aclrtSetDevice(dev), ACL_SUCCESS);
        assert_int_equal(aclrtMalloc(&p, 1 << 12, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemset(p, 1 << 12, 7, 1 << 12), ACL_SUCCESS);
        assert_int_equal(aclrtFree(p), ACL_SUCCESS);
        assert_int_equal(aclrtResetDevice(dev), ACL_SUCCESS);
    }
    return NULL;
}

static void test_one_device_per_thread_opening_and_closing(void **state)
{
    (void)state;
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); /* the threads own both devices */
    pthread_t t[2];
    for (intptr_t i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, own_device, (void *)i), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS); /* for teardown */
}

/* ---- Misuse races: errors, not crashes ---- */

struct destroyer {
    aclrtContext ctx;
    aclrtEvent event;
    pthread_barrier_t *go;
    aclError rc;
};

static void *destroy_event(void *arg)
{
    struct destroyer *d = arg;
    pthread_barrier_wait(d->go);
    d->rc = aclrtDestroyEvent(d->event);
    (void)aclGetRecentErrMsg();
    return NULL;
}

static void test_two_threads_destroying_one_event_one_wins(void **state)
{
    (void)state;
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    for (int round = 0; round < 500; round++) {
        aclrtEvent e;
        assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
        struct destroyer d[2] = {{.event = e, .go = &go}, {.event = e, .go = &go}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&t[i], NULL, destroy_event, &d[i]), 0);
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_join(t[i], NULL), 0);
        int won = (d[0].rc == ACL_SUCCESS) + (d[1].rc == ACL_SUCCESS);
        assert_int_equal(won, 1);
        assert_true(d[0].rc == ACL_ERROR_RT_INTERNAL_ERROR ||
                    d[1].rc == ACL_ERROR_RT_INTERNAL_ERROR);
    }
    pthread_barrier_destroy(&go);
}

struct user {
    aclrtContext ctx;
    aclrtStream stream;
    aclrtEvent event;
    void *dev;
    _Atomic int ok, failed;
    _Atomic int stop;
};

static void *use_stream_and_event(void *arg)
{
    struct user *u = arg;
    aclrtSetCurrentContext(u->ctx);
    char host[256];
    while (!atomic_load(&u->stop)) {
        aclError a = aclrtMemcpyAsync(u->dev, sizeof host, host, sizeof host,
                                      ACL_MEMCPY_HOST_TO_DEVICE, u->stream);
        aclError b = aclrtRecordEvent(u->event, u->stream);
        aclError c = aclrtSynchronizeStream(u->stream);
        (void)aclGetRecentErrMsg();
        if (a == ACL_SUCCESS && b == ACL_SUCCESS && c == ACL_SUCCESS) {
            atomic_fetch_add(&u->ok, 1);
        } else {
            /* Only CANN's answer for a handle that is gone. */
            assert_true(a == ACL_SUCCESS || a == ACL_ERROR_RT_INTERNAL_ERROR);
            assert_true(b == ACL_SUCCESS || b == ACL_ERROR_RT_INTERNAL_ERROR);
            assert_true(c == ACL_SUCCESS || c == ACL_ERROR_RT_INTERNAL_ERROR);
            atomic_fetch_add(&u->failed, 1);
        }
    }
    return NULL;
}

static void test_stream_and_event_destroyed_while_another_thread_uses_them(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        struct user u = {.ok = 0, .failed = 0, .stop = 0};
        assert_int_equal(aclrtGetCurrentContext(&u.ctx), ACL_SUCCESS);
        assert_int_equal(aclrtCreateStream(&u.stream), ACL_SUCCESS);
        assert_int_equal(aclrtCreateEvent(&u.event), ACL_SUCCESS);
        assert_int_equal(aclrtMalloc(&u.dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, use_stream_and_event, &u), 0);
        /* A short sleep, not sched_yield: under memcheck a yielding loop once
         * starved the worker for minutes (valgrind runs one thread at a time). */
        while (atomic_load(&u.ok) < 5)
            nap();
        assert_int_equal(aclrtDestroyStream(u.stream), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyEvent(u.event), ACL_SUCCESS);
        while (atomic_load(&u.failed) < 5)
            nap();
        atomic_store(&u.stop, 1);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(aclrtFree(u.dev), ACL_SUCCESS);
    }
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_slow_stream_create_does_not_stall_other_threads),
        T(test_slow_device_open_does_not_stall_another_device),
        T(test_record_while_others_query_and_wait),
        T(test_one_device_per_thread_opening_and_closing),
        T(test_two_threads_destroying_one_event_one_wins),
        T(test_stream_and_event_destroyed_while_another_thread_uses_them),
    };
    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
