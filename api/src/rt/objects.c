/*
 * objects.c - the handles the ACL layer gave out (contexts, streams,
 * events, notifies) and who is using them; and the table of watchers rt/
 * tells when they go (rt.h, installed by api/src/watchers.c).
 *
 * A destroyed or foreign handle is rejected with CANN's error instead of
 * crashing, a device reset finds what it owns, and a handle is never
 * destroyed under a call that uses it: a call takes a reference
 * (api_obj_get), a destroy withdraws the handle from lookups
 * (api_obj_retire), and the backend object is released when the last
 * reference goes, by whichever thread drops it, with no lock held
 * (backends/be.h, the lock contract), through the release function it was
 * published with. Every object counts against its
 * device until released, so closing a device can wait for its last one.
 *
 * A context's default stream is published too (API_OBJ_DSTREAM), so a
 * program may name it; it goes with its context and the user cannot
 * destroy it.
 *
 * A chained hash table keyed by handle value, under its own mutex (a leaf:
 * nothing else is locked or called while it is held, except the
 * condition-variable wait of api_obj_wait_device).
 */
#include <pthread.h>
#include <stdatomic.h>
#include "internal.h"
#include "base/mem.h"
#include "backends/be.h"

#define BUCKETS 1024u

struct api_obj {
    struct api_obj *next; /* hash chain, while published */
    void *handle;
    enum api_obj_kind kind;
    int32_t device;
    struct api_ctx *owner;
    api_release_fn release; /* NULL: released by its owner (a default stream) */
    _Atomic uint64_t aux;   /* what its family keeps with it (an event's flags) */
    /* Users, plus one while published. The thread that drops it to zero
     * releases the backend object. */
    _Atomic unsigned refs;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static struct api_obj *buckets[BUCKETS];
static unsigned live[BE_MAX_DEVICES]; /* objects of a device not yet released */

const struct api_watcher *api_watch_table;
size_t api_watch_count;

void api_watchers_install(const struct api_watcher *table, size_t n)
{
    api_watch_table = table;
    api_watch_count = n;
}

static struct api_obj **bucket(const void *h)
{
    return &buckets[((uintptr_t)h * 0x9E3779B97F4A7C15ull) >> 54];
}

/* The published entry of h, or NULL. pre: lock held. */
static struct api_obj *find(const void *h)
{
    for (struct api_obj *o = *bucket(h); o; o = o->next)
        if (o->handle == h)
            return o;
    return NULL;
}

/* Unlink o from the table. pre: lock held, o published. */
static void unlink_obj(struct api_obj *o)
{
    for (struct api_obj **p = bucket(o->handle); *p; p = &(*p)->next)
        if (*p == o) {
            *p = o->next;
            return;
        }
}

int api_obj_add(void *handle, enum api_obj_kind kind, int32_t device, struct api_ctx *owner,
                api_release_fn release)
{
    struct api_obj *o = base_malloc(sizeof *o);
    if (!o)
        return API_OBJ_NOMEM;
    *o = (struct api_obj){
        .handle = handle, .kind = kind, .device = device, .owner = owner, .release = release};
    atomic_init(&o->refs, 1);
    pthread_mutex_lock(&lock);
    /* A stream or event of a context that is being destroyed meanwhile must
     * not outlive it. */
    struct api_obj *ctx = owner && kind != API_OBJ_CONTEXT ? find(owner->be_ctx) : NULL;
    if (owner && kind != API_OBJ_CONTEXT && (!ctx || ctx->kind != API_OBJ_CONTEXT)) {
        pthread_mutex_unlock(&lock);
        base_free(o);
        return API_OBJ_GONE;
    }
    struct api_obj **b = bucket(handle);
    o->next = *b;
    *b = o;
    live[device]++;
    pthread_mutex_unlock(&lock);
    return 0;
}

aclError api_obj_publish(aclError rc, void *handle, enum api_obj_kind kind, struct api_ctx *ctx,
                         api_release_fn release, aclError (*destroy)(void *handle))
{
    if (rc != ACL_SUCCESS)
        return rc;
    int added = api_obj_add(handle, kind, ctx->device, ctx, release);
    if (added == 0)
        return ACL_SUCCESS;
    destroy(handle);
    return added == API_OBJ_GONE ? ACL_ERROR_RT_CONTEXT_NULL : ACL_ERROR_BAD_ALLOC;
}

struct api_obj *api_obj_get(const void *handle, enum api_obj_kind kind)
{
    pthread_mutex_lock(&lock);
    struct api_obj *o = find(handle);
    if (o && o->kind == kind)
        atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
    else
        o = NULL;
    pthread_mutex_unlock(&lock);
    return o;
}

void *api_obj_handle(const struct api_obj *o)
{
    return o->handle;
}

struct api_ctx *api_obj_owner(const struct api_obj *o)
{
    return o->owner;
}

uint64_t api_obj_aux(const struct api_obj *o)
{
    return atomic_load_explicit(&o->aux, memory_order_relaxed);
}

void api_obj_set_aux(const void *handle, enum api_obj_kind kind, uint64_t v)
{
    struct api_obj *o = api_obj_get(handle, kind);
    if (o) {
        atomic_store_explicit(&o->aux, v, memory_order_relaxed);
        api_obj_put(o);
    }
}

int32_t api_obj_device(const struct api_obj *o)
{
    return o->device;
}

/* The last reference is gone: release the backend object with what it was
 * published with, then let a device close that waits for it go on. */
static void release(struct api_obj *o)
{
    if (o->release)
        o->release(o->handle, o->owner);
    pthread_mutex_lock(&lock);
    live[o->device]--;
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
    base_free(o);
}

void api_obj_put(struct api_obj *o)
{
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1)
        release(o);
}

/* Streams (and, for a context, what else it owns) go with their context. */
static void retire_owned_locked(const struct api_ctx *owner, struct api_obj **out, size_t *n,
                                size_t max);

int api_obj_retire(const void *handle, enum api_obj_kind kind)
{
    struct api_obj *batch[64];
    size_t n = 0;
    pthread_mutex_lock(&lock);
    struct api_obj *o = find(handle);
    if (!o || o->kind != kind) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    unlink_obj(o);
    pthread_mutex_unlock(&lock);
    /* A context's streams are destroyed with it (CANN), before it. */
    if (kind == API_OBJ_CONTEXT) {
        do {
            n = 0;
            pthread_mutex_lock(&lock);
            retire_owned_locked(o->owner, batch, &n, 64);
            pthread_mutex_unlock(&lock);
            for (size_t i = 0; i < n; i++)
                api_obj_put(batch[i]);
        } while (n == 64);
    }
    api_obj_put(o);
    return 0;
}

static int matches(const struct api_obj *o, enum api_obj_kind kind, int32_t device,
                   const struct api_ctx *owner)
{
    return o->kind == kind && (device < 0 || o->device == device) && (!owner || o->owner == owner);
}

static void retire_owned_locked(const struct api_ctx *owner, struct api_obj **out, size_t *n,
                                size_t max)
{
    for (unsigned i = 0; i < BUCKETS && *n < max; i++)
        for (struct api_obj **p = &buckets[i]; *p && *n < max;) {
            struct api_obj *o = *p;
            if (matches(o, API_OBJ_STREAM, -1, owner) || matches(o, API_OBJ_DSTREAM, -1, owner)) {
                *p = o->next;
                out[(*n)++] = o;
            } else {
                p = &o->next;
            }
        }
}

void api_obj_each(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                  void (*fn)(void *handle, enum api_obj_kind kind, struct api_ctx *owner,
                             void *user),
                  void *user)
{
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < BUCKETS; i++)
        for (struct api_obj *o = buckets[i]; o; o = o->next)
            if (matches(o, kind, device, owner))
                fn(o->handle, o->kind, o->owner, user);
    pthread_mutex_unlock(&lock);
}

size_t api_obj_hold(enum api_obj_kind kind, const struct api_ctx *owner, struct api_obj **held,
                    size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < BUCKETS; i++)
        for (struct api_obj *o = buckets[i]; o; o = o->next)
            if (matches(o, kind, -1, owner) && n++ < cap) {
                atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
                held[n - 1] = o;
            }
    pthread_mutex_unlock(&lock);
    return n;
}

void api_obj_retire_all(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner)
{
    /* Collect a batch, then retire it outside the lock: retiring a context
     * releases what it owns, which takes the lock again. */
    enum { BATCH = 64 };
    void *h[BATCH];
    size_t n;
    do {
        n = 0;
        pthread_mutex_lock(&lock);
        for (unsigned i = 0; i < BUCKETS && n < BATCH; i++)
            for (struct api_obj *o = buckets[i]; o && n < BATCH; o = o->next)
                if (matches(o, kind, device, owner))
                    h[n++] = o->handle;
        pthread_mutex_unlock(&lock);
        for (size_t i = 0; i < n; i++)
            api_obj_retire(h[i], kind);
    } while (n > 0);
}

void api_obj_wait_device(int32_t device)
{
    pthread_mutex_lock(&lock);
    while (live[device] > 0)
        pthread_cond_wait(&released, &lock);
    pthread_mutex_unlock(&lock);
}

struct api_ctx *api_ctx_lookup(const void *handle)
{
    pthread_mutex_lock(&lock);
    struct api_obj *o = find(handle);
    struct api_ctx *c = o && o->kind == API_OBJ_CONTEXT ? o->owner : NULL;
    pthread_mutex_unlock(&lock);
    return c;
}

enum api_obj_kind api_obj_kind_of(const void *handle)
{
    pthread_mutex_lock(&lock);
    struct api_obj *o = find(handle);
    enum api_obj_kind k = o ? o->kind : 0;
    pthread_mutex_unlock(&lock);
    return k;
}
