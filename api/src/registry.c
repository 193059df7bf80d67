/*
 * registry.c - the stream -> allocator registry behind aclrtAllocatorRegister,
 * aclrtAllocatorGetByStream and aclrtAllocatorUnregister.
 *
 * CANN keeps an ordered map under one global mutex, so every GetByStream of
 * every thread queues on that mutex. Here lookups take no lock and write no
 * shared memory: an open-addressing hash table (linear probing, load <= 1/4,
 * backward-shift deletion, so no tombstones) guarded by a sequence counter.
 * Each slot is one cache line holding the key and its snapshot, so a hit
 * touches one line of the table. Writers (Register, Unregister: rare)
 * serialise on a mutex, make the counter odd, mutate, make it even. A reader
 * copies the entry it finds and retries if the counter moved.
 *
 * Ordering is spelled with release stores and acquire loads, no fences, so
 * ThreadSanitizer sees it (it does not model fences) and x86 compiles each
 * of them to a plain mov. A writer's stores to the table are release stores
 * made after its odd counter store; a reader's loads from the table are
 * acquire loads made before its second counter load; so a reader that saw
 * any store of a mutation also sees the counter move, and retries.
 *
 * Growing replaces the table. The reader's view of the live table is two
 * words next to the counter: the slot array, stored first, and the hash
 * shift that sizes it, stored second (release) and read first (acquire);
 * tables only grow, so a reader that meets the old shift with either array
 * stays in bounds. A reader may still be probing an old table, so old
 * tables are retired, not freed, until the library is unloaded; they only
 * ever double, so the retired ones together are smaller than the live one.
 * The registry lives as long as the library, like CANN's: it needs no
 * aclInit and survives aclFinalize.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "base/mem.h"
#include "api.h"

#define MIN_CAP 64u

/* One cache line: the key (a stream pointer value, 0 = empty) and the
 * snapshot, field by field, in api_alloc_snapshot's order. */
struct slot {
    _Alignas(64) _Atomic uintptr_t key;
    _Atomic uintptr_t v[6];
};

struct table {
    size_t cap;            /* a power of two */
    unsigned shift;        /* 64 - log2(cap) */
    struct table *retired; /* older tables, still readable */
    struct slot *slots;
};

/* Until the first Register: two empty slots, never written, never freed. */
static struct slot empty_slots[2];
static struct table empty = {2, 63, NULL, empty_slots};

static struct {
    /* What readers load, in one cache line. */
    _Alignas(64) _Atomic unsigned long seq; /* odd while a writer mutates */
    _Atomic unsigned shift;                 /* the live table's */
    _Atomic(struct slot *) slots;           /* the live table's */
    /* Writers only, under lock. */
    _Alignas(64) pthread_mutex_t lock;
    struct table *table;
    size_t count;
} reg = {.shift = 63, .slots = empty_slots, .lock = PTHREAD_MUTEX_INITIALIZER,
         .table = &empty};

static inline size_t hash(uintptr_t key)
{
    return (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ull);
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

static void load_slot(const struct slot *e, uintptr_t v[6])
{
    for (int j = 0; j < 6; j++)
        v[j] = atomic_load_explicit(&e->v[j], memory_order_relaxed);
}

/* Writers: a slot's fields, then its key. Release stores (see the top). */
static void store_slot(struct slot *e, uintptr_t key, const uintptr_t v[6])
{
    for (int j = 0; j < 6; j++)
        atomic_store_explicit(&e->v[j], v[j], memory_order_release);
    atomic_store_explicit(&e->key, key, memory_order_release);
}

static void free_table(struct table *t)
{
    if (t == &empty)
        return;
    base_free(t->slots);
    base_free(t);
}

static struct table *new_table(size_t cap)
{
    struct table *t = base_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->slots = base_aligned(64, cap * sizeof *t->slots);
    if (!t->slots) {
        base_free(t);
        return NULL;
    }
    memset(t->slots, 0, cap * sizeof *t->slots);
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
    for (size_t i = hash(key) >> t->shift;; i = (i + 1) & mask) {
        if (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) == 0) {
            store_slot(&t->slots[i], key, v);
            return;
        }
    }
}

/* key's slot in the probe run that starts at slot i of a table of
 * 2^(64 - shift) slots, or NULL. Readers and writers share it. Bounded: a
 * reader racing writers may see a table with no empty slot. */
static const struct slot *probe(const struct slot *slots, unsigned shift, size_t i,
                                uintptr_t key)
{
    size_t mask = ((size_t)1 << (64 - shift)) - 1;
    for (size_t n = 0; n <= mask; n++, i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&slots[i].key, memory_order_acquire);
        if (k == key)
            return &slots[i];
        if (k == 0)
            return NULL;
    }
    return NULL;
}

/* Writers' lookup in the live table. pre: lock held. */
static struct slot *find(const struct table *t, uintptr_t key)
{
    return (struct slot *)probe(t->slots, t->shift, hash(key) >> t->shift, key);
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
    struct table *t = new_table(old == &empty ? MIN_CAP : 2 * old->cap);
    if (!t)
        return NULL;
    for (size_t i = 0; i < old->cap; i++) {
        const struct slot *e = &old->slots[i];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_relaxed), v[6];
        if (!k)
            continue;
        load_slot(e, v);
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
    struct table *t = reg.table;
    struct slot *at = find(t, key);
    struct table *bigger = NULL;
    if (!at && 4 * (reg.count + 1) > t->cap) {
        bigger = grown(t);
        if (!bigger) {
            pthread_mutex_unlock(&reg.lock);
            return -1;
        }
    }
    write_begin();
    if (bigger) {
        /* The array first, then the shift that lets readers index it. */
        atomic_store_explicit(&reg.slots, bigger->slots, memory_order_release);
        atomic_store_explicit(&reg.shift, bigger->shift, memory_order_release);
        reg.table = t = bigger;
    }
    if (!at) {
        insert(t, key, v);
        reg.count++;
    } else {
        store_slot(at, key, v);
    }
    write_end();
    pthread_mutex_unlock(&reg.lock);
    return 0;
}

/* Inlined into GetByStream (link-time optimisation sees both): a lookup is
 * a few loads, and a call level with its saved registers cost a fifth of it
 * (scons bench: registry_speedup_1t). */
__attribute__((always_inline)) inline int api_registry_get(const void *stream,
                                                           struct api_alloc_snapshot *out)
{
    uintptr_t key = (uintptr_t)stream;
    size_t h = hash(key);
    for (;;) {
        /* Even: the value a stable counter still has at the end. An odd
         * one (a writer at work) becomes a value it can no longer have. */
        unsigned long s1 = atomic_load_explicit(&reg.seq, memory_order_acquire) & ~1ul;
        unsigned shift = atomic_load_explicit(&reg.shift, memory_order_acquire);
        const struct slot *slots = atomic_load_explicit(&reg.slots, memory_order_acquire);
        size_t i = h >> shift;
        const struct slot *e = &slots[i];
        if (__builtin_expect(atomic_load_explicit(&e->key, memory_order_acquire) != key, 0)) {
            e = probe(slots, shift, i, key);
            if (!e) {
                if (atomic_load_explicit(&reg.seq, memory_order_relaxed) == s1)
                    return -1;
                continue; /* a writer was at work: look again */
            }
        }
        struct api_alloc_snapshot s = {
            (aclrtAllocatorDesc)atomic_load_explicit(&e->v[0], memory_order_acquire),
            (aclrtAllocator)atomic_load_explicit(&e->v[1], memory_order_acquire),
            (aclrtAllocatorAllocFunc)atomic_load_explicit(&e->v[2], memory_order_acquire),
            (aclrtAllocatorFreeFunc)atomic_load_explicit(&e->v[3], memory_order_acquire),
            (aclrtAllocatorAllocAdviseFunc)atomic_load_explicit(&e->v[4], memory_order_acquire),
            (aclrtAllocatorGetAddrFromBlockFunc)atomic_load_explicit(&e->v[5],
                                                                      memory_order_acquire)};
        if (__builtin_expect(atomic_load_explicit(&reg.seq, memory_order_relaxed) == s1, 1)) {
            *out = s;
            return 0;
        }
    }
}

void api_registry_remove(const void *stream)
{
    uintptr_t key = (uintptr_t)stream;
    pthread_mutex_lock(&reg.lock);
    struct table *t = reg.table;
    struct slot *at = find(t, key);
    if (!at) {
        pthread_mutex_unlock(&reg.lock);
        return;
    }
    write_begin();
    /* Backward-shift deletion: pull later members of the probe run into the
     * hole whenever the hole lies on their way from home, so no tombstone
     * is needed and lookups stay short. */
    size_t mask = t->cap - 1, hole = (size_t)(at - t->slots);
    for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed), v[6];
        if (!k)
            break;
        size_t h = hash(k) >> t->shift;
        if (((i - h) & mask) >= ((i - hole) & mask)) {
            load_slot(&t->slots[i], v);
            store_slot(&t->slots[hole], k, v);
            hole = i;
        }
    }
    atomic_store_explicit(&t->slots[hole].key, 0, memory_order_release);
    reg.count--;
    write_end();
    pthread_mutex_unlock(&reg.lock);
}

void api_registry_each(void (*fn)(const void *stream, const struct api_alloc_snapshot *s,
                                  void *user),
                       void *user)
{
    pthread_mutex_lock(&reg.lock);
    const struct table *t = reg.table;
    for (size_t i = 0; i < t->cap; i++) {
        const struct slot *e = &t->slots[i];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_relaxed), v[6];
        if (!k)
            continue;
        load_slot(e, v);
        struct api_alloc_snapshot s = {
            (aclrtAllocatorDesc)v[0],            (aclrtAllocator)v[1],
            (aclrtAllocatorAllocFunc)v[2],       (aclrtAllocatorFreeFunc)v[3],
            (aclrtAllocatorAllocAdviseFunc)v[4], (aclrtAllocatorGetAddrFromBlockFunc)v[5]};
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
    atomic_store_explicit(&reg.shift, empty.shift, memory_order_relaxed);
    atomic_store_explicit(&reg.slots, empty_slots, memory_order_relaxed);
    while (reg.table) {
        struct table *older = reg.table->retired;
        free_table(reg.table);
        reg.table = older;
    }
    reg.table = &empty;
    reg.count = 0;
}
