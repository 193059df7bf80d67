/*
 * callback.c - callbacks and host functions: aclrtSubscribeReport,
 * aclrtUnSubscribeReport, aclrtLaunchCallback, aclrtProcessReport and
 * aclrtLaunchHostFunc, run as CANN runs them.
 *
 * A thread subscribes streams (all of one device) with its thread id, the
 * pthread_t value aclrtProcessReport compares with pthread_self(), as
 * CANN's runtime does. aclrtLaunchCallback puts a host task on a subscribed
 * stream (backends/be.h, host_task): in simulated time it is ready when the
 * stream's earlier work is done (behind a wait that holds the stream, once
 * the wait is released: the backend tells when); the callback itself runs
 * only on the subscribed thread, inside its aclrtProcessReport, which first
 * moves the simulated host clock to the task's ready time (so the earlier
 * work reads as complete inside the callback), then runs it, then every
 * other callback of its queue that is ready by then. A blocking callback
 * (ACL_CALLBACK_BLOCK) blocks its stream until it has run: the stream's
 * later copies, fills and records wait for it when enqueued, and its
 * synchronisation waits for it, except in the subscribed thread itself
 * (which would wait for itself: there the synchronisation fails with
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT and copies go on). A non-blocking one
 * blocks nothing. Callbacks on different streams of one thread run in the
 * order they are ready in simulated time; on one stream, in launch order.
 *
 * aclrtProcessReport's timeout: while nothing is queued for the thread but
 * callbacks whose stream is held, it waits in real time, up to timeout ms,
 * for another thread to launch a callback or release a stream (a wait for
 * the program, not for the device; the simulated clock does not move). A
 * queued callback that is ready later than timeout ms of simulated time
 * after the host's clock times out in simulated time: the host clock
 * advances by the timeout and the callback stays queued. Both give
 * ACL_ERROR_RT_REPORT_TIMEOUT with no message, as CANN does.
 *
 * aclrtLaunchHostFunc subscribes the stream to a thread of aclsim's own,
 * one per context (created at the context's first host function, ended
 * with the context), and launches a blocking callback that this thread
 * runs, as CANN's runtime does.
 *
 * A callback still queued when its stream is unsubscribed or destroyed is
 * dropped (it never runs) and releases the stream. On hw=ascend every call
 * is forwarded to the real runtime after the ACL layer's own checks, with
 * the user's function and data untouched. No lock is held while a callback
 * runs or the backend is called.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "internal.h"
#include "base/mem.h"
#include "backends/be.h"

/* The most threads that may run callbacks (CANN's documented limit). */
#define MAX_RUNNERS 1024

/* The runtime's internal codes in its subscription messages. */
#define RT_SUBSCRIBE_STREAM 0x07160003u
#define RT_SUBSCRIBE_THREAD 0x07160004u
#define RT_SUBSCRIBE_GROUP 0x07160005u

/* A launched callback waiting for its thread. */
struct report {
    struct report *next;
    void *stream; /* backend handle */
    void (*fn)(void *);
    void *user;
    bool blocking;
    uint64_t ready; /* simulated time (ps) at which the stream reaches it (BE_PS_PENDING: not
                       known yet, the stream is held) */
    uint64_t task;  /* the backend's name for the host task */
};

/* A thread that runs callbacks: a user's (subscribed by thread id) or a
 * context's host-function thread (internal). */
struct runner {
    struct runner *next;
    uint64_t thread;
    int32_t device;
    unsigned streams;       /* streams subscribed to it */
    unsigned waiters;       /* its aclrtProcessReport calls in progress */
    void *current;          /* the stream whose callback it is running */
    struct report *head;    /* queued callbacks, in arrival order */
    pthread_cond_t arrived; /* a callback was queued, or a stream went */
    bool internal;
    const struct api_ctx *ctx; /* internal: its context */
    pthread_t handle;          /* internal: the thread */
    bool stop;                 /* internal: end the thread */
};

/* A subscribed stream. */
struct sub {
    struct sub *next;
    void *stream;
    struct runner *runner;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* a runner finished a callback */
static struct runner *runners;
static struct sub *subs;
static unsigned user_runners;

static uint64_t self(void)
{
    return (uint64_t)pthread_self();
}

static uint32_t stream_id(void *stream)
{
    int32_t dev = 0;
    uint32_t id = 0;
    if (API_TOOL(stream_id))
        API_TOOL(stream_id)(stream, &dev, &id);
    return id;
}

static int32_t stream_dev(void *stream)
{
    int32_t dev = 0;
    uint32_t id = 0;
    if (API_TOOL(stream_id))
        API_TOOL(stream_id)(stream, &dev, &id);
    return dev;
}

/* ---- The tables (lock held) ---- */

static struct sub **find_sub(void *stream)
{
    struct sub **p = &subs;
    while (*p && (*p)->stream != stream)
        p = &(*p)->next;
    return p;
}

static struct runner *find_user_runner(uint64_t thread)
{
    for (struct runner *r = runners; r; r = r->next)
        if (!r->internal && r->thread == thread)
            return r;
    return NULL;
}

/* Unlink and free a user runner nothing refers to any more. */
static void maybe_free(struct runner *r)
{
    if (r->internal || r->streams > 0 || r->waiters > 0 || r->current || r->head)
        return;
    for (struct runner **p = &runners; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    user_runners--;
    pthread_cond_destroy(&r->arrived);
    base_free(r);
}

/* Move the queued callbacks of `stream` (NULL: all) from r's queue to *out. */
static void take_reports(struct runner *r, void *stream, struct report **out)
{
    for (struct report **p = &r->head; *p;) {
        if (!stream || (*p)->stream == stream) {
            struct report *x = *p;
            *p = x->next;
            x->next = *out;
            *out = x;
        } else {
            p = &(*p)->next;
        }
    }
}

/* Remove the subscription of stream, its queued callbacks going to
 * *dropped, once its thread is not running one of them (unless that is the
 * calling thread, which cannot wait for itself). pre: lock held. */
static void unsubscribe(void *stream, struct report **dropped)
{
    for (;;) {
        struct sub **p = find_sub(stream);
        if (!*p)
            return; /* someone else removed it while we waited */
        struct sub *s = *p;
        struct runner *r = s->runner;
        if (r->current == stream && r->thread != self()) {
            pthread_cond_wait(&idle, &lock);
            continue;
        }
        *p = s->next;
        take_reports(r, stream, dropped);
        r->streams--;
        pthread_cond_broadcast(&r->arrived);
        base_free(s);
        maybe_free(r);
        return;
    }
}

/* Release the streams of dropped callbacks (no lock held). */
static void release(struct report *dropped)
{
    while (dropped) {
        struct report *x = dropped;
        dropped = x->next;
        API_TOOL(host_task_done)(x->stream, x->task, x->blocking);
        base_free(x);
    }
}

/* ---- Running callbacks ---- */

/* The queued callback of r that is ready first (ties: the earliest
 * queued), unlinked; with `by` != UINT64_MAX only one ready by then. One
 * whose ready time is not known yet is never taken. */
static struct report *pop_first(struct runner *r, uint64_t by)
{
    struct report **best = NULL;
    for (struct report **p = &r->head; *p; p = &(*p)->next)
        if ((*p)->ready != BE_PS_PENDING && (*p)->ready <= by &&
            (!best || (*p)->ready < (*best)->ready))
            best = p;
    if (!best)
        return NULL;
    struct report *x = *best;
    *best = x->next;
    x->next = NULL;
    return x;
}

/* Run x as runner r: the lock is held on entry and exit, not while the
 * callback runs. */
static void run_one(struct runner *r, struct report *x)
{
    r->current = x->stream;
    pthread_mutex_unlock(&lock);
    /* Happens-before: the callback comes after its stream's work before
     * it; a blocking one before the stream's later work. */
    if (API_TOOL(hb_callback))
        API_TOOL(hb_callback)(x->stream, 1, x->blocking);
    x->fn(x->user);
    if (API_TOOL(hb_callback))
        API_TOOL(hb_callback)(x->stream, 0, x->blocking);
    API_TOOL(host_task_done)(x->stream, x->task, x->blocking);
    pthread_mutex_lock(&lock);
    r->current = NULL;
    pthread_cond_broadcast(&idle);
    base_free(x);
}

/* Whether r's queue holds a callback whose ready time is known. */
static bool timed(const struct runner *r)
{
    for (const struct report *x = r->head; x; x = x->next)
        if (x->ready != BE_PS_PENDING)
            return true;
    return false;
}

/* Run r's first callback, waiting in simulated time at most timeout ms
 * (< 0: no limit) for its stream to reach it, then every other callback
 * ready by then. pre: lock held, timed(r). */
static aclError process(struct runner *r, int32_t timeout)
{
    struct report *x = pop_first(r, UINT64_MAX);
    r->current = x->stream;
    pthread_mutex_unlock(&lock);
    int late = 0;
    uint64_t limit = timeout < 0 ? UINT64_MAX : (uint64_t)timeout * 1000000000u;
    API_TOOL(host_wait)(x->ready, limit, &late);
    pthread_mutex_lock(&lock);
    r->current = NULL;
    pthread_cond_broadcast(&idle);
    if (late) {
        /* The stream is not there yet: the callback stays first. */
        x->next = r->head;
        r->head = x;
        return ACL_ERROR_RT_REPORT_TIMEOUT;
    }
    run_one(r, x);
    for (;;) {
        uint64_t now = 0;
        API_TOOL(clock)(BE_CLOCK_HOST, 0, NULL, &now);
        if (!(x = pop_first(r, now)))
            break;
        run_one(r, x);
    }
    return ACL_SUCCESS;
}

/* ---- Subscriptions ---- */

/* The stream's subscription messages and codes, as the runtime's. */
static aclError sub_error(const char *rt_call, uint32_t code, const char *first, void *stream,
                          uint64_t thread, bool subscribing)
{
    uint32_t sid = stream_id(stream);
    api_report(API_MSG_EH9999, "%s, streamId=%u, threadId=%llu", first, sid,
               (unsigned long long)thread);
    api_report(API_MSG_EH9999, "%s report failed, streamId=%u, threadId=%llu, retCode=%#x.",
               subscribing ? "Subscribe" : "Unsubscribe", sid, (unsigned long long)thread, code);
    api_report(API_MSG_EH9999, "%s execution failed, reason=%s", rt_call,
               code == RT_SUBSCRIBE_STREAM ? "subscribe stream error" : "subscribe thread error");
    return code == RT_SUBSCRIBE_STREAM ? ACL_ERROR_RT_STREAM_SUBSCRIBE
                                       : ACL_ERROR_RT_THREAD_SUBSCRIBE;
}

/* EE1016: the stream belongs to aclsim's host-function thread (or, for
 * aclrtLaunchHostFunc, to a user's thread). */
static aclError busy_stream(const char *desc, const char *rt_call, void *stream)
{
    api_report(API_MSG_EE1016, "%s failed. Reason: The stream (stream_id=%u) is in the host "
               "callback process and cannot call %s.", desc, stream_id(stream), rt_call);
    return ACL_ERROR_RT_STREAM_SUBSCRIBE;
}

aclError api_impl_aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    static const char fn[] = "aclrtSubscribeReport";
    API_FAULT(ACL_RT_SUBSCRIBE_REPORT, fn);
    if (API_REAL(aclrtSubscribeReport))
        return api_forwarded(fn, API_REAL(aclrtSubscribeReport)(threadId, stream), false);
    struct api_stream_ref ref;
    aclError rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    int32_t dev = stream_dev(ref.stream);
    pthread_mutex_lock(&lock);
    struct sub **p = find_sub(ref.stream);
    struct runner *r = find_user_runner(threadId);
    if (*p && (*p)->runner->internal) {
        rc = busy_stream("Specifying the thread for processing the callback function in stream",
                         "rtSubscribeReport", ref.stream);
    } else if (*p) {
        rc = sub_error("rtSubscribeReport", RT_SUBSCRIBE_STREAM,
                       "Stream already exists in stream map", ref.stream, threadId, true);
    } else if (r && r->device != dev) {
        api_report(API_MSG_EH9999, "Cannot find callback subscription by thread key, thread_id=%llu, "
                   "stream_id=%u, device_id=%d, ts_id=0.", (unsigned long long)threadId,
                   stream_id(ref.stream), (int)dev);
        api_report(API_MSG_EH9999, "Subscribe report failed, streamId=%u, threadId=%llu, "
                   "retCode=%#x.", stream_id(ref.stream), (unsigned long long)threadId,
                   RT_SUBSCRIBE_THREAD);
        api_report(API_MSG_EH9999, "rtSubscribeReport execution failed, reason=subscribe thread "
                   "error");
        rc = ACL_ERROR_RT_THREAD_SUBSCRIBE;
    } else if (!r && user_runners >= MAX_RUNNERS) {
        api_report(API_MSG_EH9999, "Failed to assign callback subscription group id because group "
                   "id is full, max_group_num=%u, thread_id=%llu, device_id=%d, ts_id=0, "
                   "stream_id=%u, retCode=%#x.", MAX_RUNNERS, (unsigned long long)threadId,
                   (int)dev, stream_id(ref.stream), RT_SUBSCRIBE_GROUP);
        api_report(API_MSG_EH9999, "rtSubscribeReport execution failed, reason=subscribe group "
                   "error");
        rc = ACL_ERROR_RT_INTERNAL_ERROR;
    } else {
        struct sub *s = base_malloc(sizeof *s);
        if (!r && s) {
            r = base_calloc(1, sizeof *r);
            if (r) {
                r->thread = threadId;
                r->device = dev;
                pthread_cond_init(&r->arrived, NULL);
                r->next = runners;
                runners = r;
                user_runners++;
            }
        }
        if (!s || !r) {
            base_free(s);
            rc = api_err_runtime(fn, ACL_ERROR_BAD_ALLOC);
        } else {
            *s = (struct sub){subs, ref.stream, r};
            subs = s;
            r->streams++;
        }
    }
    pthread_mutex_unlock(&lock);
    api_stream_put(&ref);
    return rc;
}

aclError api_impl_aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    static const char fn[] = "aclrtUnSubscribeReport";
    if (API_REAL(aclrtUnSubscribeReport))
        return api_forwarded(fn, API_REAL(aclrtUnSubscribeReport)(threadId, stream), false);
    struct api_stream_ref ref;
    aclError rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    struct report *dropped = NULL;
    pthread_mutex_lock(&lock);
    struct sub **p = find_sub(ref.stream);
    if (*p && (*p)->runner->internal)
        rc = busy_stream("Cancelling thread registration", "rtUnSubscribeReport", ref.stream);
    else if (!*p)
        rc = sub_error("rtUnSubscribeReport", RT_SUBSCRIBE_STREAM,
                       "Stream does not exist in stream map", ref.stream, threadId, false);
    else if ((*p)->runner->thread != threadId)
        rc = sub_error("rtUnSubscribeReport", RT_SUBSCRIBE_THREAD,
                       "Stream does not exist in thread map", ref.stream, threadId, false);
    else
        unsubscribe(ref.stream, &dropped);
    pthread_mutex_unlock(&lock);
    release(dropped);
    api_stream_put(&ref);
    return rc;
}

void api_cb_stream_gone(void *stream)
{
    struct report *dropped = NULL;
    pthread_mutex_lock(&lock);
    unsubscribe(stream, &dropped);
    pthread_mutex_unlock(&lock);
    release(dropped);
}

/* ---- Launching ---- */

/* The backend's word that the host task of x, queued behind a wait, is
 * ready at `ready` (called inside the backend: no backend call here). */
static void on_ready(void *arg, uint64_t ready)
{
    struct report *x = arg;
    pthread_mutex_lock(&lock);
    x->ready = ready;
    struct sub *s = *find_sub(x->stream);
    if (s)
        pthread_cond_broadcast(&s->runner->arrived);
    pthread_mutex_unlock(&lock);
}

/* Queue a callback for the stream's runner: its host task first (no lock
 * held), then the report; a stream unsubscribed meanwhile drops it. */
static aclError launch(const char *fn, void *stream, void (*cb)(void *), void *user,
                       bool blocking, uint64_t runner)
{
    if (api_cap_graph_of(stream)) { /* CANN captures them; aclsim does not yet */
        api_report(API_MSG_EE1016, "%s failed. Reason: a host callback on a capturing stream "
                   "(stream_id=%u) is not simulated by aclsim: launch it outside the capture.",
                   fn, api_cap_stream_id(stream));
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    struct report *x = base_malloc(sizeof *x);
    if (!x)
        return api_err_runtime(fn, ACL_ERROR_BAD_ALLOC);
    *x = (struct report){NULL, stream, cb, user, blocking, BE_PS_PENDING, 0};
    uint64_t ready = 0, task = 0;
    aclError rc = API_TOOL(host_task)(stream, blocking, runner, on_ready, x, &ready, &task);
    if (rc != ACL_SUCCESS) {
        base_free(x);
        return api_err_runtime(fn, rc);
    }
    pthread_mutex_lock(&lock);
    x->task = task;
    if (ready != BE_PS_PENDING)
        x->ready = ready;
    struct sub *s = *find_sub(stream);
    if (s) {
        struct report **p = &s->runner->head;
        while (*p)
            p = &(*p)->next;
        *p = x;
        pthread_cond_broadcast(&s->runner->arrived);
        x = NULL;
    }
    pthread_mutex_unlock(&lock);
    release(x);
    return ACL_SUCCESS;
}

/* The checks CANN's runtime makes of a stream a host task goes to: it
 * belongs to the current context. */
static aclError own_stream(const char *fn, const char *desc, const char *rt_call,
                           const struct api_stream_ref *ref)
{
    struct api_ctx *cur;
    aclError rc = api_current_ctx(fn, &cur);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ref->ctx != cur) {
        api_report(API_MSG_EE1010, "%s execution failed because stream does not belong to the "
                   "current context. Extended information: stream_id=%u, stream_ctx=%p, "
                   "cur_ctx=%p.", desc, stream_id(ref->stream), (void *)ref->ctx->be_ctx,
                   (void *)cur->be_ctx);
        api_report(API_MSG_EH9999, "%s execution failed, reason=stream not in current context",
                   rt_call);
        return ACL_ERROR_RT_STREAM_CONTEXT;
    }
    return ACL_SUCCESS;
}

static aclError null_fn(const char *desc, const char *rt_call)
{
    api_report(API_MSG_EE1004, "%s failed because callBackFunc cannot be a NULL pointer.", desc);
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s execution failed.", rt_call);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                       aclrtCallbackBlockType blockType, aclrtStream stream)
{
    static const char name[] = "aclrtLaunchCallback";
    static const char desc[] = "Delivering an on-host callback function task in a stream";
    API_FAULT(ACL_RT_LAUNCH_CALLBACK, name);
    if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK) {
        char v[32];
        snprintf(v, sizeof v, "UNKNOWN(%d)", (int)blockType);
        return api_err_value(name, v, "blockType", "ACL_CALLBACK_BLOCK or ACL_CALLBACK_NO_BLOCK");
    }
    if (API_REAL(aclrtLaunchCallback))
        return api_forwarded(name, API_REAL(aclrtLaunchCallback)(fn, userData, blockType, stream),
                             false);
    struct api_stream_ref ref;
    aclError rc = ACL_SUCCESS;
    if (stream && (rc = api_stream_get(name, stream, &ref)) != ACL_SUCCESS)
        return rc;
    if (!fn)
        rc = null_fn(desc, "rtCallbackLaunch");
    if (rc == ACL_SUCCESS && stream) {
        pthread_mutex_lock(&lock);
        struct sub *s = *find_sub(ref.stream);
        bool busy = s && s->runner->internal;
        pthread_mutex_unlock(&lock);
        if (busy)
            rc = busy_stream(desc, "rtCallbackLaunch", ref.stream);
    }
    if (rc != ACL_SUCCESS) {
        if (stream)
            api_stream_put(&ref);
        return rc;
    }
    if (!stream && (rc = api_stream_get(name, NULL, &ref)) != ACL_SUCCESS)
        return rc;
    rc = own_stream(name, desc, "rtCallbackLaunch", &ref);
    uint64_t runner = 0;
    if (rc == ACL_SUCCESS) {
        pthread_mutex_lock(&lock);
        struct sub *s = *find_sub(ref.stream);
        if (s)
            runner = s->runner->thread;
        pthread_mutex_unlock(&lock);
        if (!s) {
            /* Never a hang: a callback nobody would run is refused. */
            api_report(API_MSG_EE1018, "%s failed. Reason: Stream (stream_id=%u) is not bound to "
                       "any thread. Call the rtSubscribeReport API to bind a thread to the "
                       "stream.", desc, stream_id(ref.stream));
            api_report(API_MSG_EH9999, "rtCallbackLaunch execution failed, reason=stream not "
                       "registered");
            rc = ACL_ERROR_RT_STREAM_NO_CB_REG;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = launch(name, ref.stream, fn, userData, blockType == ACL_CALLBACK_BLOCK, runner);
    api_stream_put(&ref);
    return rc;
}

aclError api_impl_aclrtProcessReport(int32_t timeout)
{
    static const char fn[] = "aclrtProcessReport";
    if (timeout < -1 || timeout == 0) {
        api_report(API_MSG_EH0009, "%s failed. Value %d for parameter timeout is invalid. Reason: "
                   "-1 represents infinite wait, timeout value greater than 0 represents waiting "
                   "for a fixed time.", fn, (int)timeout);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (API_REAL(aclrtProcessReport)) {
        aclError rc = API_REAL(aclrtProcessReport)(timeout);
        return api_forwarded(fn, rc, rc == ACL_ERROR_RT_THREAD_SUBSCRIBE ||
                                         rc == ACL_ERROR_RT_REPORT_TIMEOUT);
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout > 0) {
        deadline.tv_sec += timeout / 1000;
        deadline.tv_nsec += (long)(timeout % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    struct runner *r = find_user_runner(self());
    if (!r || r->streams == 0) {
        /* Not subscribed: CANN's runtime says nothing but the code. */
        pthread_mutex_unlock(&lock);
        return ACL_ERROR_RT_THREAD_SUBSCRIBE;
    }
    r->waiters++;
    while (!timed(r) && rc == ACL_SUCCESS) {
        if (r->streams == 0)
            rc = ACL_ERROR_RT_THREAD_SUBSCRIBE;
        else if (timeout < 0)
            pthread_cond_wait(&r->arrived, &lock);
        else if (pthread_cond_timedwait(&r->arrived, &lock, &deadline) == ETIMEDOUT && !timed(r))
            rc = ACL_ERROR_RT_REPORT_TIMEOUT;
    }
    if (rc == ACL_SUCCESS)
        rc = process(r, timeout);
    r->waiters--;
    maybe_free(r);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- Host functions ---- */

/* A context's host-function thread: runs its callbacks until told to stop. */
static void *host_thread(void *arg)
{
    struct runner *r = arg;
    pthread_mutex_lock(&lock);
    while (!r->stop) {
        if (timed(r))
            process(r, -1);
        else
            pthread_cond_wait(&r->arrived, &lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* The host-function thread of ctx, started if need be. pre: lock held. */
static struct runner *host_runner(const struct api_ctx *ctx, int32_t dev)
{
    for (struct runner *r = runners; r; r = r->next)
        if (r->internal && r->ctx == ctx)
            return r;
    struct runner *r = base_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->internal = true;
    r->ctx = ctx;
    r->device = dev;
    pthread_cond_init(&r->arrived, NULL);
    if (pthread_create(&r->handle, NULL, host_thread, r) != 0) {
        pthread_cond_destroy(&r->arrived);
        base_free(r);
        return NULL;
    }
    r->thread = (uint64_t)r->handle;
    r->next = runners;
    runners = r;
    return r;
}

aclError api_impl_aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    static const char name[] = "aclrtLaunchHostFunc";
    static const char desc[] = "Adding a host callback function to the stream task queue";
    API_FAULT(ACL_RT_LAUNCH_CALLBACK, name);
    if (API_REAL(aclrtLaunchHostFunc))
        return api_forwarded(name, API_REAL(aclrtLaunchHostFunc)(stream, fn, args), false);
    struct api_stream_ref ref;
    aclError rc = api_stream_get(name, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!fn)
        rc = null_fn(desc, "rtsLaunchHostFunc");
    if (rc == ACL_SUCCESS) {
        pthread_mutex_lock(&lock);
        struct sub *s = *find_sub(ref.stream);
        bool busy = s && !s->runner->internal;
        pthread_mutex_unlock(&lock);
        if (busy)
            rc = busy_stream(desc, "rtsLaunchHostFunc", ref.stream);
    }
    if (rc == ACL_SUCCESS)
        rc = own_stream(name, desc, "rtsLaunchHostFunc", &ref);
    uint64_t runner = 0;
    if (rc == ACL_SUCCESS) {
        pthread_mutex_lock(&lock);
        struct runner *r = host_runner(ref.ctx, stream_dev(ref.stream));
        struct sub **p = find_sub(ref.stream);
        if (r && !*p) {
            struct sub *s = base_malloc(sizeof *s);
            if (s) {
                *s = (struct sub){subs, ref.stream, r};
                subs = s;
                r->streams++;
            }
            r = s ? r : NULL;
        }
        if (r)
            runner = r->thread;
        pthread_mutex_unlock(&lock);
        if (!r) {
            api_report(API_MSG_EH9999, "create callback thread failed.");
            rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = launch(name, ref.stream, fn, args, true, runner);
    api_stream_put(&ref);
    return rc;
}

void api_cb_ctx_gone(const struct api_ctx *ctx)
{
    struct report *dropped = NULL;
    pthread_mutex_lock(&lock);
    struct runner *r = NULL;
    for (struct runner **p = &runners; *p; p = &(*p)->next)
        if ((*p)->internal && (*p)->ctx == ctx) {
            r = *p;
            *p = r->next;
            break;
        }
    if (!r) {
        pthread_mutex_unlock(&lock);
        return;
    }
    /* Streams of the context still in use elsewhere lose their thread. */
    for (struct sub **p = &subs; *p;) {
        if ((*p)->runner == r) {
            struct sub *s = *p;
            *p = s->next;
            base_free(s);
        } else {
            p = &(*p)->next;
        }
    }
    take_reports(r, NULL, &dropped);
    r->stop = true;
    pthread_cond_broadcast(&r->arrived);
    pthread_mutex_unlock(&lock);
    release(dropped);
    /* A host function that destroyed its own context cannot join itself:
     * its thread ends when the function returns, and keeps r. */
    if (pthread_equal(r->handle, pthread_self())) {
        pthread_detach(r->handle);
        return;
    }
    pthread_join(r->handle, NULL);
    pthread_cond_destroy(&r->arrived);
    base_free(r);
}
