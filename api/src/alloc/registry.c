/*
 * registry.c - the stream -> allocator registry behind aclrtAllocatorRegister,
 * aclrtAllocatorGetByStream and aclrtAllocatorUnregister.
 *
 * CANN keeps an ordered map under one global mutex, so every GetByStream of
 * every thread queues on that mutex. Here lookups take no lock and write no
 * shared memory: an open-addressing hash table (linear probing, load <= 1/4,
 * backward-shift deletion, so no tombstones) guarded by a sequence counter.
 * A slot is one pointer, to the record of a registration: the stream and
 * its snapshot. Writers (Register, Unregister: rare) serialise on a mutex,
 * make the counter odd, mutate, make it even.
 *
 * Records never change and are never freed while the library is loaded,
 * so whatever record a reader finds in a slot was a registration when it
 * was read, and stays readable. A hit (the record's stream is the one
 * looked for) therefore needs no counter: GetByStream's common path reads
 * two words next to the counter, a slot and the record, and calls nothing
 * (scons bench: registry_speedup_1t). A miss may be a writer moving
 * records, so the full lookup (api_registry_get) probes under the counter
 * and retries if it moved. Records are interned by content: the same
 * stream registered again with the same allocator reuses its record. What
 * grows is one 72-byte record per distinct (stream, desc, obj, callbacks)
 * ever registered; a program that registers and unregisters in a loop
 * reuses its few (test_allocator: the heap stays flat).
 *
 * Ordering is spelled with release stores and acquire loads, no fences, so
 * ThreadSanitizer sees it (it does not model fences) and x86 compiles each
 * of them to a plain mov. A writer's stores to the table are release stores
 * made after its odd counter store; a reader's loads from the table are
 * acquire loads made before its second counter load; so a reader that saw
 * any store of a mutation also sees the counter move, and retries. A record
 * is complete before the release store that puts it in a slot; a hit read
 * from a table that was retired meanwhile was a registration when that
 * table was replaced, after the lookup began.
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
#include "base/hash.h"
#include "base/mem.h"
#include "alloc.h"

#define MIN_CAP 64u

/* One registration: a stream and its snapshot, immutable once published. */
struct rec {
    uintptr_t key; /* the stream pointer value */
    struct api_alloc_snapshot s;
    struct rec *same_hash; /* interning: records whose content hashes alike */
    struct rec *older;     /* every record, newest first (freed at unload) */
};

/* What an empty slot points at: a key no stream has. */
static const struct rec none;

typedef _Atomic(const struct rec *) slot_t;

struct table {
    size_t cap;            /* a power of two */
    unsigned shift;        /* 64 - log2(cap) */
    struct table *retired; /* older tables, still readable */
    slot_t *slots;
};

/* Until the first Register: two empty slots, never freed. */
static slot_t empty_slots[2] = {&none, &none};
static struct table empty = {2, 63, NULL, empty_slots};

static struct {
    /* What readers load, in one cache line. */
    _Alignas(64) _Atomic unsigned long seq; /* odd while a writer mutates */
    _Atomic unsigned shift;                 /* the live table's */
    _Atomic(slot_t *) slots;                /* the live table's */
    /* Writers only, under lock. */
    _Alignas(64) pthread_mutex_t lock;
    struct table *table;
    size_t count;
    struct base_map recs; /* content hash -> struct rec (same_hash chain) */
    struct rec *newest;   /* every record */
} reg = {.shift = 63, .slots = empty_slots, .lock = PTHREAD_MUTEX_INITIALIZER,
         .table = &empty};

static inline size_t hash(uintptr_t key)
{
    return (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ull);
}

static const struct rec *slot_rec(const slot_t *e, memory_order mo)
{
    return atomic_load_explicit(e, mo);
}

/* The record of stream `key` with snapshot *s, made if there is none; NULL
 * on host OOM. pre: lock held. */
static const struct rec *intern(uintptr_t key, const struct api_alloc_snapshot *s)
{
    const uintptr_t w[7] = {key,
                            (uintptr_t)s->desc,
                            (uintptr_t)s->obj,
                            (uintptr_t)s->alloc,
                            (uintptr_t)s->free,
                            (uintptr_t)s->advise,
                            (uintptr_t)s->get_addr};
    uint64_t h = 0;
    for (int j = 0; j < 7; j++)
        h = (h ^ w[j]) * BASE_HASH_PHI;
    h |= 1; /* base_map keys are non-zero */
    void **first = base_map_find(&reg.recs, h);
    for (struct rec *r = first ? *first : NULL; r; r = r->same_hash)
        if (r->key == key && !memcmp(&r->s, s, sizeof *s))
            return r;
    struct rec *r = base_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->key = key;
    r->s = *s;
    r->same_hash = first ? *first : NULL;
    if (base_map_put(&reg.recs, h, r) != 0) {
        base_free(r);
        return NULL;
    }
    r->older = reg.newest;
    reg.newest = r;
    return r;
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
    for (size_t i = 0; i < cap; i++)
        atomic_init(&t->slots[i], &none);
    t->cap = cap;
    unsigned bits = 0;
    while (((size_t)1 << bits) < cap)
        bits++;
    t->shift = 64 - bits;
    return t;
}

/* Linear-probe insert into a table that is not visible to readers yet, or
 * inside a writer's odd-sequence window. pre: r's key not present, room
 * left. */
static void insert(struct table *t, const struct rec *r)
{
    size_t mask = t->cap - 1;
    for (size_t i = hash(r->key) >> t->shift;; i = (i + 1) & mask) {
        if (slot_rec(&t->slots[i], memory_order_relaxed) == &none) {
            atomic_store_explicit(&t->slots[i], r, memory_order_release);
            return;
        }
    }
}

/* key's slot in the probe run that starts at slot i of a table of
 * 2^(64 - shift) slots, or NULL. Readers and writers share it. Bounded: a
 * reader racing writers may see a table with no empty slot. */
static slot_t *probe(slot_t *slots, unsigned shift, size_t i, uintptr_t key)
{
    size_t mask = ((size_t)1 << (64 - shift)) - 1;
    for (size_t n = 0; n <= mask; n++, i = (i + 1) & mask) {
        const struct rec *r = slot_rec(&slots[i], memory_order_acquire);
        if (r->key == key)
            return &slots[i];
        if (r == &none)
            return NULL;
    }
    return NULL;
}

/* Writers' lookup in the live table. pre: lock held. */
static slot_t *find(const struct table *t, uintptr_t key)
{
    return probe(t->slots, t->shift, hash(key) >> t->shift, key);
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
        const struct rec *r = slot_rec(&old->slots[i], memory_order_relaxed);
        if (r != &none)
            insert(t, r);
    }
    t->retired = old;
    return t;
}

int api_registry_put(const void *stream, const struct api_alloc_snapshot *s)
{
    uintptr_t key = (uintptr_t)stream;
    pthread_mutex_lock(&reg.lock);
    const struct rec *r = intern(key, s);
    struct table *t = reg.table;
    slot_t *at = find(t, key);
    bool grow = !at && 4 * (reg.count + 1) > t->cap;
    struct table *bigger = r && grow ? grown(t) : NULL;
    if (!r || (grow && !bigger)) {
        pthread_mutex_unlock(&reg.lock); /* an interned record stays: harmless */
        return -1;
    }
    write_begin();
    if (bigger) {
        /* The array first, then the shift that lets readers index it. */
        atomic_store_explicit(&reg.slots, bigger->slots, memory_order_release);
        atomic_store_explicit(&reg.shift, bigger->shift, memory_order_release);
        reg.table = t = bigger;
    }
    if (!at) {
        insert(t, r);
        reg.count++;
    } else {
        atomic_store_explicit(at, r, memory_order_release);
    }
    write_end();
    pthread_mutex_unlock(&reg.lock);
    return 0;
}

/* One look, no retry, no lock and no call: the snapshot of stream when its
 * record is in its home slot, NULL otherwise (absent, further along a
 * probe run, or moved by a writer at work: ask api_registry_get). A hit
 * needs no counter: the slot held that record, which never changes, when
 * it was read (or, in a retired table, when the table was replaced, after
 * this look began). Inlined into GetByStream (link-time optimisation sees
 * both). pre: stream != NULL (empty slots hold the key 0). */
__attribute__((always_inline)) inline const struct api_alloc_snapshot *
api_registry_try(const void *stream)
{
    unsigned shift = atomic_load_explicit(&reg.shift, memory_order_acquire);
    slot_t *slots = atomic_load_explicit(&reg.slots, memory_order_acquire);
    const struct rec *r = slot_rec(&slots[hash((uintptr_t)stream) >> shift], memory_order_acquire);
    return r->key == (uintptr_t)stream ? &r->s : NULL;
}

const struct api_alloc_snapshot *api_registry_get(const void *stream)
{
    uintptr_t key = (uintptr_t)stream;
    size_t h = hash(key);
    for (;;) {
        /* Even: the value a stable counter still has at the end. An odd
         * one (a writer at work) becomes a value it can no longer have. */
        unsigned long s1 = atomic_load_explicit(&reg.seq, memory_order_acquire) & ~1ul;
        unsigned shift = atomic_load_explicit(&reg.shift, memory_order_acquire);
        slot_t *slots = atomic_load_explicit(&reg.slots, memory_order_acquire);
        slot_t *e = probe(slots, shift, h >> shift, key);
        const struct rec *r = e ? slot_rec(e, memory_order_acquire) : NULL;
        if (atomic_load_explicit(&reg.seq, memory_order_relaxed) == s1)
            return r && r->key == key ? &r->s : NULL;
        /* a writer was at work: look again */
    }
}

void api_registry_remove(const void *stream)
{
    uintptr_t key = (uintptr_t)stream;
    pthread_mutex_lock(&reg.lock);
    struct table *t = reg.table;
    slot_t *at = find(t, key);
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
        const struct rec *r = slot_rec(&t->slots[i], memory_order_relaxed);
        if (r == &none)
            break;
        size_t h = hash(r->key) >> t->shift;
        if (((i - h) & mask) >= ((i - hole) & mask)) {
            atomic_store_explicit(&t->slots[hole], r, memory_order_release);
            hole = i;
        }
    }
    atomic_store_explicit(&t->slots[hole], &none, memory_order_release);
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
        const struct rec *r = slot_rec(&t->slots[i], memory_order_relaxed);
        if (r != &none)
            fn((const void *)r->key, &r->s, user);
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

/* The library is being unloaded: no reader can be left, free every table
 * and record. */
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
    while (reg.newest) {
        struct rec *older = reg.newest->older;
        base_free(reg.newest);
        reg.newest = older;
    }
    base_map_clear(&reg.recs);
}
