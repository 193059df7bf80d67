/*
 * registry.c - the stream -> allocator registry behind aclrtAllocatorRegister,
 * aclrtAllocatorGetByStream and aclrtAllocatorUnregister.
 *
 * CANN keeps an ordered map under one global mutex, so every GetByStream of
 * every thread queues on that mutex. Here lookups take no lock and write no
 * shared memory: an open-addressing hash table (linear probing, load <= 1/4,
 * backward-shift deletion, so no tombstones) guarded by a sequence counter.
 * Writers (Register, Unregister: rare) serialise on a mutex, make the
 * counter odd, mutate, make it even. A reader copies the entry it finds and
 * retries if the counter moved. All slot fields are atomics, so the racing
 * reads are well defined C11.
 *
 * Ordering is spelled with release stores and acquire loads, no fences, so
 * ThreadSanitizer sees it (it does not model fences) and x86 compiles each
 * of them to a plain mov. A writer's stores to the table are release stores
 * made after its odd counter store; a reader's loads from the table are
 * acquire loads made before its second counter load; so a reader that saw
 * any store of a mutation also sees the counter move, and retries. A grown
 * table is published with a release store and read with an acquire load.
 *
 * Growing replaces the table; a reader may still be probing the old one, so
 * old tables are retired, not freed, until the library is unloaded. Tables
 * only ever double, so the retired ones together are smaller than the live
 * one. The registry lives as long as the library, like CANN's: it needs no
 * aclInit and survives aclFinalize.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "base/mem.h"
#include "api.h"

#define MIN_CAP 64u

/* Keys are probed in their own dense array (8 bytes a slot, so a probe
 * stays in one or two cache lines); the snapshot of slot i sits in vals[i],
 * one cache line of its own. */
struct vals {
    _Alignas(64) _Atomic uintptr_t v[6]; /* the snapshot, field by field */
};

struct table {
    size_t cap;            /* power of two */
    unsigned shift;        /* 64 - log2(cap) */
    struct table *retired; /* older tables still readable */
    _Atomic uintptr_t *keys; /* stream pointer values; 0 = empty */
    struct vals *vals;
};

static struct {
    _Alignas(64) _Atomic unsigned long seq; /* odd while a writer mutates */
    _Atomic(struct table *) table;
    _Alignas(64) pthread_mutex_t lock; /* writers only */
    size_t count;
} reg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t home(const struct table *t, uintptr_t key)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> t->shift);
}

static void pack(const struct api_alloc_snapshot *s, uintptr_t v[6])
{
    v[0] = (uintptr_t)s->desc;
    v[1] = (uintptr_t)s->obj;
    v[2] = (uintptr_t)s->alloc;
    v[3] = (uintptr_t)s->free;
    v[4] = (uintptr_t)s->advise;
    v[5] = (uintptr_t)s->get_addr;
}

static void unpack(const uintptr_t v[6], struct api_alloc_snapshot *s)
{
    s->desc = (aclrtAllocatorDesc)v[0];
    s->obj = (aclrtAllocator)v[1];
    s->alloc = (aclrtAllocatorAllocFunc)v[2];
    s->free = (aclrtAllocatorFreeFunc)v[3];
    s->advise = (aclrtAllocatorAllocAdviseFunc)v[4];
    s->get_addr = (aclrtAllocatorGetAddrFromBlockFunc)v[5];
}

static void store_slot(struct table *t, size_t i, uintptr_t key, const uintptr_t v[6])
{
    for (int j = 0; j < 6; j++)
        atomic_store_explicit(&t->vals[i].v[j], v[j], memory_order_release);
    atomic_store_explicit(&t->keys[i], key, memory_order_release);
}

/* Acquire loads: see the top. */
static void load_vals(const struct table *t, size_t i, uintptr_t v[6])
{
    for (int j = 0; j < 6; j++)
        v[j] = atomic_load_explicit(&t->vals[i].v[j], memory_order_acquire);
}

static void free_table(struct table *t)
{
    base_free(t->keys);
    base_free(t->vals);
    base_free(t);
}

static struct table *new_table(size_t cap)
{
    struct table *t = base_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->keys = base_aligned(64, cap * sizeof *t->keys);
    t->vals = base_aligned(64, cap * sizeof *t->vals);
    if (!t->keys || !t->vals) {
        free_table(t);
        return NULL;
    }
    memset((void *)t->keys, 0, cap * sizeof *t->keys);
    memset(t->vals, 0, cap * sizeof *t->vals);
    t->cap = cap;
    unsigned bits = 0;
    while (((size_t)1 << bits) < cap)
        bits++;
    t->shift = 64 - bits;
    return t;
}

/* Linear-probe insert into a table that is not visible to readers yet, or
 * inside a writer's odd-sequence window. pre: key not present, room left. */
static void insert(struct table *t, uintptr_t key, const uintptr_t v[6])
{
    size_t mask = t->cap - 1;
    for (size_t i = home(t, key);; i = (i + 1) & mask) {
        if (atomic_load_explicit(&t->keys[i], memory_order_relaxed) == 0) {
            store_slot(t, i, key, v);
            return;
        }
    }
}

/* Index of key's slot, or cap when absent. Readers and writers share it. */
static inline size_t find(const struct table *t, uintptr_t key)
{
    size_t mask = t->cap - 1;
    size_t i = home(t, key);
    /* Bounded: a reader racing a writer may see a table with no empty slot. */
    for (size_t n = 0; n < t->cap; n++, i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&t->keys[i], memory_order_acquire);
        if (k == key)
            return i;
        if (k == 0)
            return t->cap;
    }
    return t->cap;
}

static void write_begin(void)
{
    unsigned long s = atomic_load_explicit(&reg.seq, memory_order_relaxed);
    atomic_store_explicit(&reg.seq, s + 1, memory_order_relaxed);
}

static void write_end(void)
{
    unsigned long s = atomic_load_explicit(&reg.seq, memory_order_relaxed);
    atomic_store_explicit(&reg.seq, s + 1, memory_order_release);
}

/* A doubled copy of the live table, not yet published; NULL on host OOM. */
static struct table *grown(struct table *old)
{
    struct table *t = new_table(old ? old->cap * 2 : MIN_CAP);
    if (!t || !old)
        return t;
    for (size_t i = 0; i < old->cap; i++) {
        uintptr_t k = atomic_load_explicit(&old->keys[i], memory_order_relaxed);
        if (!k)
            continue;
        uintptr_t v[6];
        load_vals(old, i, v);
        insert(t, k, v);
    }
    t->retired = old;
    return t;
}

int api_registry_put(const void *stream, const struct api_alloc_snapshot *s)
{
    uintptr_t key = (uintptr_t)stream, v[6];
    pack(s, v);
    pthread_mutex_lock(&reg.lock);
    struct table *t = atomic_load_explicit(&reg.table, memory_order_relaxed);
    size_t at = t ? find(t, key) : 0;
    struct table *bigger = NULL;
    if (!t || (at == t->cap && 4 * (reg.count + 1) > t->cap)) {
        bigger = grown(t);
        if (!bigger) {
            pthread_mutex_unlock(&reg.lock);
            return -1;
        }
    }
    write_begin();
    if (bigger) {
        atomic_store_explicit(&reg.table, bigger, memory_order_release);
        t = bigger;
        at = t->cap;
    }
    if (at == t->cap) {
        insert(t, key, v);
        reg.count++;
    } else {
        store_slot(t, at, key, v);
    }
    write_end();
    pthread_mutex_unlock(&reg.lock);
    return 0;
}

int api_registry_get(const void *stream, struct api_alloc_snapshot *out)
{
    uintptr_t key = (uintptr_t)stream, v[6];
    for (;;) {
        unsigned long s1 = atomic_load_explicit(&reg.seq, memory_order_acquire);
        if (s1 & 1)
            continue;
        const struct table *t = atomic_load_explicit(&reg.table, memory_order_acquire);
        int found = 0;
        if (t) {
            size_t at = find(t, key);
            if (at != t->cap) {
                found = 1;
                load_vals(t, at, v);
            }
        }
        if (atomic_load_explicit(&reg.seq, memory_order_relaxed) != s1)
            continue;
        if (!found)
            return -1;
        unpack(v, out);
        return 0;
    }
}

void api_registry_remove(const void *stream)
{
    uintptr_t key = (uintptr_t)stream;
    pthread_mutex_lock(&reg.lock);
    struct table *t = atomic_load_explicit(&reg.table, memory_order_relaxed);
    size_t hole = t ? find(t, key) : 0;
    if (!t || hole == t->cap) {
        pthread_mutex_unlock(&reg.lock);
        return;
    }
    write_begin();
    /* Backward-shift deletion: pull later members of the probe run into the
     * hole whenever the hole lies on their way from home, so no tombstone
     * is needed and lookups stay short. */
    size_t mask = t->cap - 1;
    for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&t->keys[i], memory_order_relaxed);
        if (!k)
            break;
        size_t h = home(t, k);
        if (((i - h) & mask) >= ((i - hole) & mask)) {
            uintptr_t v[6];
            load_vals(t, i, v);
            store_slot(t, hole, k, v);
            hole = i;
        }
    }
    atomic_store_explicit(&t->keys[hole], 0, memory_order_release);
    reg.count--;
    write_end();
    pthread_mutex_unlock(&reg.lock);
}

void api_registry_each(void (*fn)(const void *stream, const struct api_alloc_snapshot *s,
                                  void *user),
                       void *user)
{
    pthread_mutex_lock(&reg.lock);
    struct table *t = atomic_load_explicit(&reg.table, memory_order_relaxed);
    for (size_t i = 0; t && i < t->cap; i++) {
        uintptr_t k = atomic_load_explicit(&t->keys[i], memory_order_relaxed), v[6];
        if (!k)
            continue;
        struct api_alloc_snapshot s;
        load_vals(t, i, v);
        unpack(v, &s);
        fn((const void *)k, &s, user);
    }
    pthread_mutex_unlock(&reg.lock);
}

size_t api_registry_count(void)
{
    pthread_mutex_lock(&reg.lock);
    size_t n = reg.count;
    pthread_mutex_unlock(&reg.lock);
    return n;
}

/* The library is being unloaded: no reader can be left, free every table. */
__attribute__((destructor)) static void registry_unload(void)
{
    struct table *t = atomic_load_explicit(&reg.table, memory_order_relaxed);
    while (t) {
        struct table *older = t->retired;
        free_table(t);
        t = older;
    }
    atomic_store_explicit(&reg.table, NULL, memory_order_relaxed);
    reg.count = 0;
}
