/*
 * objects.c - the handles the ACL layer gave out (contexts, streams), so
 * that a destroyed or foreign handle is rejected with CANN's error instead
 * of crashing, and so that resetting a device can find what it owns.
 *
 * A chained hash table keyed by handle value; the caller holds api_lock().
 */
#include <stdlib.h>
#include "base/mem.h"
#include "api.h"

#define BUCKETS 1024u

struct obj {
    struct obj *next;
    void *handle;
    enum api_obj_kind kind;
    int32_t device;
    struct api_ctx *owner;
};

static struct obj *buckets[BUCKETS];

static struct obj **bucket(const void *h)
{
    return &buckets[((uintptr_t)h * 0x9E3779B97F4A7C15ull) >> 54];
}

int api_obj_add(void *handle, enum api_obj_kind kind, int32_t device, struct api_ctx *owner)
{
    struct obj *o = base_malloc(sizeof *o);
    if (!o)
        return -1;
    struct obj **b = bucket(handle);
    *o = (struct obj){*b, handle, kind, device, owner};
    *b = o;
    return 0;
}

void api_obj_remove(void *handle)
{
    for (struct obj **p = bucket(handle); *p; p = &(*p)->next) {
        if ((*p)->handle == handle) {
            struct obj *o = *p;
            *p = o->next;
            base_free(o);
            return;
        }
    }
}

enum api_obj_kind api_obj_find(const void *handle, int32_t *device, struct api_ctx **owner)
{
    for (struct obj *o = *bucket(handle); o; o = o->next) {
        if (o->handle == handle) {
            if (device)
                *device = o->device;
            if (owner)
                *owner = o->owner;
            return o->kind;
        }
    }
    return 0;
}

static int matches(const struct obj *o, enum api_obj_kind kind, int32_t device,
                   const struct api_ctx *owner)
{
    return o->kind == kind && (device < 0 || o->device == device) && (!owner || o->owner == owner);
}

void api_obj_each(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                  void (*fn)(void *handle, struct api_ctx *owner, void *user), void *user)
{
    for (unsigned i = 0; i < BUCKETS; i++)
        for (struct obj *o = buckets[i]; o; o = o->next)
            if (matches(o, kind, device, owner))
                fn(o->handle, o->owner, user);
}

void api_obj_drain(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                   void (*release)(void *handle))
{
    /* Collect a batch, then release it: releasing edits the table. */
    enum { BATCH = 64 };
    void *h[BATCH];
    size_t n;
    do {
        n = 0;
        for (unsigned i = 0; i < BUCKETS && n < BATCH; i++)
            for (struct obj *o = buckets[i]; o && n < BATCH; o = o->next)
                if (matches(o, kind, device, owner))
                    h[n++] = o->handle;
        for (size_t i = 0; i < n; i++)
            release(h[i]);
    } while (n > 0);
}
