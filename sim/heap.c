/*
 * sim/heap.c - constant-time device heap (TLSF-shaped) for the aclsim simulator.
 *
 * Layout of the host-side metadata:
 *  - block nodes: one array of struct blk indexed by uint32_t, grown by doubling;
 *    unused nodes are recycled through a spare list (no malloc per alloc in
 *    steady state).  Every block, free or live, has a node; nodes link to their
 *    physical neighbours, free nodes also to their size-class list.
 *  - size classes: first level = floor(log2(granules)), second level = 32 linear
 *    subdivisions; a 64-bit first-level bitmap and 32-bit second-level bitmaps
 *    find a non-empty class with one ctz each.
 *  - live (and quick, see below) blocks only: an open-addressing (linear probing,
 *    backward-shift delete) hash from start address to node, and a hierarchical
 *    bitmap with one bit per granule marking their starts.  The level-0
 *    bitmap lives in a MAP_NORESERVE anonymous mapping (size/512 bytes of virtual
 *    space, touched only near used addresses); each summary level has one bit per
 *    word below it, so a predecessor search (sim_heap_lookup) costs at most
 *    2 * levels word reads.
 *  - quick lists (deferred coalescing, like glibc's tcache/fastbins but exact and
 *    bounded): freeing a block of at most QUICK_MAX_BYTES (rounded up to the
 *    granule) is accounted as a free
 *    (used_bytes and live_blocks drop) but the block is not coalesced: its node
 *    goes to state BLK_QUICK on a LIFO list per exact size in granules
 *    (1..quick_grans, linked through next_free).  A granule-aligned allocation of that
 *    exact size pops it: no TLSF search, split or coalescing at all.
 *    A quick block KEEPS its hash entry and its start bit ("parked"): free and
 *    lookup find the node and reject it because its state is not BLK_USED, so to
 *    every caller it is free space exactly as after a normal free (double free
 *    and lookup return SIM_HEAP_NOBLOCK; lookup of free space behind it finds its start first
 *    and fails the same way).  Keeping them makes the quick pair O(1) with no
 *    hash insert/delete and no bitmap walk: measured, that removal and
 *    re-insertion cost ~15 ns of a ~28 ns pair.  The hash therefore holds the
 *    live plus the quick blocks; both leave it when the block rejoins TLSF.
 *    Each list holds at most QUICK_LIST_MAX blocks and all lists together at most
 *    quick_limit bytes (QUICK_BYTES_MAX or 1/QUICK_HEAP_FRACTION of the heap,
 *    whichever is smaller); a free beyond either bound coalesces as usual.
 *    Quick blocks never cause a spurious out-of-memory: an allocation that finds
 *    no TLSF block flushes every quick list into TLSF (coalescing) and searches
 *    once more; sim_heap_trim flushes on demand.  A parked block keeps its
 *    pages against the heap's limit (used + parked bytes <= limit), so the
 *    quick pop needs no check of the limit; an allocation the limit would
 *    refuse flushes the quick lists first.  Only TLSF-free blocks obey "no
 *    two adjacent free blocks"; a quick block may neighbour free or quick blocks.
 *  - recent blocks: the last 64 blocks made live, by start address (direct
 *    mapped); a free looks there before the hash, so that freeing a fresh
 *    block touches only lines its allocation touched.  sim_heap_pop and
 *    sim_heap_push are the quick pop and the quick push of a recent block on
 *    their own, for a caller's fast path (sim/blocks.c).
 */
#include "base/mem.h"
#include "heap.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MIN_SHIFT 6u /* the smallest granule, SIM_HEAP_GRANULE */
#define MAX_SHIFT 12u
#define SL_LOG 5u
#define SL_COUNT (1u << SL_LOG)
#define FL_COUNT 64u
#define MAX_LEVELS 12u
#define NIL UINT32_MAX
#define FALLBACK_PROBES 64u

/* Quick-list tuning (compile-time; -D overrides).  Blocks up to QUICK_MAX_BYTES
 * (a multiple of 64) are cached per exact size: 64 KiB + 64, the block of a
 * 64 KiB aclrtMalloc with CANN's 32-byte padding, so that every request up to
 * 64 KiB qualifies.  64 MiB holds one block of every size 64 B..64 KiB + 64
 * (32 MiB) with room to spare, so a log-uniform alloc+free mix hits every time
 * (8 MiB: ~20 ns instead of ~13 ns per pair); on the 32..144 GiB device heaps
 * that is at most 0.2% of the memory, and never lost (see above). */
#ifndef QUICK_MAX_BYTES
#define QUICK_MAX_BYTES ((UINT64_C(64) << 10) + 64)
#endif
#ifndef QUICK_LIST_MAX
#define QUICK_LIST_MAX 32u
#endif
#ifndef QUICK_BYTES_MAX
#define QUICK_BYTES_MAX (UINT64_C(64) << 20)
#endif
#ifndef QUICK_HEAP_FRACTION
#define QUICK_HEAP_FRACTION 64u
#endif
/* Quick lists per exact size, enough for the smallest granule. */
#define QUICK_GRANS_MAX ((unsigned)((QUICK_MAX_BYTES + (1u << MAX_SHIFT)) >> MIN_SHIFT))
#define RECENT 64u                /* a power of two */
#define RECENT_NONE UINT64_MAX    /* no block starts there: starts are granules */

enum { BLK_FREE = 0, BLK_USED = 1, BLK_SPARE = 2, BLK_QUICK = 3 };

struct blk {
    uint64_t start;
    uint64_t size;      /* bytes, multiple of h->gran */
    uint32_t prev_phys; /* physical neighbours, NIL at the ends */
    uint32_t next_phys;
    uint32_t prev_free; /* size-class list links while free */
    uint32_t next_free; /* also the spare-list / quick-list link */
    uint32_t tag;
    uint32_t state; /* BLK_FREE, BLK_USED, BLK_SPARE, BLK_QUICK */
};

struct slot {
    uint64_t key;  /* block start address */
    uint32_t node; /* NIL: empty slot */
    uint32_t pad;
};

struct sim_heap {
    uint64_t base;
    uint64_t size;
    uint64_t limit;       /* bound on used_bytes: the pages behind the range */
    uint64_t gran;        /* the granule, 1 << shift */
    unsigned shift;
    unsigned quick_grans; /* quick lists in use: sizes 1..quick_grans granules */
    uint64_t quick_max;   /* the largest quick block, QUICK_MAX_BYTES rounded up */

    /* TLSF free lists */
    uint64_t fl_map;
    uint32_t sl_map[FL_COUNT];
    uint32_t heads[FL_COUNT][SL_COUNT];

    /* block nodes */
    struct blk *nodes;
    uint32_t n_nodes; /* high-water mark of indices handed out */
    uint32_t cap_nodes;
    uint32_t spare; /* head of the recycled-node list */
    uint32_t n_spare;
    uint32_t first; /* node of the block at base */

    /* start -> node hash of live blocks */
    struct slot *tab;
    uint64_t tab_mask;
    unsigned tab_shift; /* 64 - log2(capacity) */
    uint64_t tab_count;

    /* hierarchical bitmap of live block starts */
    void *bm_mem;
    size_t bm_len;
    unsigned levels;
    uint64_t *lvl[MAX_LEVELS];
    uint64_t lvl_words[MAX_LEVELS];

    /* quick lists, indexed by size in granules (index 0 unused) */
    struct {
        uint32_t head; /* most recently parked block, or NIL */
        uint32_t count;
    } quick[QUICK_GRANS_MAX + 1]; /* head and count side by side: one cache line */
    /* Counters that one operation updates together are never adjacent: gcc's SLP
     * vectoriser would otherwise merge one side's two 8-byte updates into a 16-byte
     * load/store, and a 16-byte load of two separate 8-byte stores stalls store
     * forwarding (measured: +1..2 ns on a ~13 ns quick alloc+free pair). */
    uint64_t quick_bytes; /* sum of the sizes of all quick blocks */
    uint64_t quick_limit; /* bound on quick_bytes */
    uint64_t quick_blocks;

    /* The blocks made live last, by start address: a free of one of them
     * finds its node here, in a line the allocation just wrote, instead of
     * in a hash slot it may have to fetch from far away. Every block turns
     * live through make_live or the quick pop, and both write its entry, so
     * an entry whose node still starts there and is still live is right;
     * anything else asks the hash. */
    struct {
        uint64_t start; /* RECENT_NONE: empty */
        uint32_t node;
    } recent[RECENT];

    /* counters */
    uint64_t used_bytes;
    uint64_t peak_used;
    uint64_t live_blocks;
};

/* ------------------------------------------------------------------ bits */

static unsigned ilog2(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

static unsigned ctz64(uint64_t x)
{
    return (unsigned)__builtin_ctzll(x);
}

static unsigned ctz32(uint32_t x)
{
    return (unsigned)__builtin_ctz(x);
}

/* ------------------------------------------------------------- size classes */

static void mapping(uint64_t g, unsigned *fl, unsigned *sl)
{
    if (g < SL_COUNT) {
        *fl = 0;
        *sl = (unsigned)g;
    } else {
        unsigned t = ilog2(g);
        *fl = t - (SL_LOG - 1);
        *sl = (unsigned)(g >> (t - SL_LOG)) - SL_COUNT;
    }
}

/* Round g up so that every block of the resulting class holds g granules. */
static uint64_t round_class(uint64_t g)
{
    if (g >= SL_COUNT)
        g += ((uint64_t)1 << (ilog2(g) - SL_LOG)) - 1;
    return g;
}

static void list_insert(struct sim_heap *h, uint32_t bi)
{
    struct blk *b = &h->nodes[bi];
    unsigned fl, sl;

    mapping(b->size >> h->shift, &fl, &sl);
    b->state = BLK_FREE;
    b->tag = 0;
    b->prev_free = NIL;
    b->next_free = h->heads[fl][sl];
    if (b->next_free != NIL)
        h->nodes[b->next_free].prev_free = bi;
    h->heads[fl][sl] = bi;
    h->sl_map[fl] |= 1u << sl;
    h->fl_map |= (uint64_t)1 << fl;
}

static void list_remove(struct sim_heap *h, uint32_t bi)
{
    struct blk *b = &h->nodes[bi];
    unsigned fl, sl;

    if (b->prev_free != NIL) {
        h->nodes[b->prev_free].next_free = b->next_free;
    } else {
        mapping(b->size >> h->shift, &fl, &sl);
        h->heads[fl][sl] = b->next_free;
        if (b->next_free == NIL) {
            h->sl_map[fl] &= ~(1u << sl);
            if (h->sl_map[fl] == 0)
                h->fl_map &= ~((uint64_t)1 << fl);
        }
    }
    if (b->next_free != NIL)
        h->nodes[b->next_free].prev_free = b->prev_free;
}

/* First non-empty class at or above (fl, sl): returns 0 and updates fl and sl,
 * or -1 if there is none. */
static int next_class(const struct sim_heap *h, unsigned *fl, unsigned *sl)
{
    uint32_t m;
    uint64_t f;

    if (*fl >= FL_COUNT)
        return -1;
    m = h->sl_map[*fl] & (~0u << *sl);
    if (m == 0) {
        if (*fl + 1 >= FL_COUNT)
            return -1;
        f = h->fl_map & (~(uint64_t)0 << (*fl + 1));
        if (f == 0)
            return -1;
        *fl = ctz64(f);
        m = h->sl_map[*fl];
    }
    *sl = ctz32(m);
    return 0;
}

/* ------------------------------------------------------------------ nodes */

/* Make sure node_new can be called n times without reallocating. */
static int reserve_nodes(struct sim_heap *h, uint32_t n)
{
    struct blk *nn;
    uint32_t ncap;

    if (h->n_spare >= n || h->cap_nodes - h->n_nodes >= n - h->n_spare)
        return 0;
    if (h->cap_nodes > (NIL - 1) / 2)
        return -1;
    ncap = h->cap_nodes * 2;
    nn = base_realloc(h->nodes, (size_t)ncap * sizeof(*nn));
    if (nn == NULL)
        return -1;
    h->nodes = nn;
    h->cap_nodes = ncap;
    return 0;
}

static uint32_t node_new(struct sim_heap *h)
{
    uint32_t i;

    if (h->spare != NIL) {
        i = h->spare;
        h->spare = h->nodes[i].next_free;
        h->n_spare--;
        return i;
    }
    return h->n_nodes++;
}

static void node_release(struct sim_heap *h, uint32_t i)
{
    h->nodes[i].state = BLK_SPARE;
    h->nodes[i].next_free = h->spare;
    h->spare = i;
    h->n_spare++;
}

/* ------------------------------------------------------------------- hash */

static uint64_t tab_home(const struct sim_heap *h, uint64_t key)
{
    return ((key >> h->shift) * UINT64_C(0x9E3779B97F4A7C15)) >> h->tab_shift;
}

static uint32_t tab_find(const struct sim_heap *h, uint64_t key, uint64_t *slot_out)
{
    uint64_t i = tab_home(h, key);

    for (;;) {
        const struct slot *s = &h->tab[i];
        if (s->node == NIL)
            return NIL;
        if (s->key == key) {
            if (slot_out != NULL)
                *slot_out = i;
            return s->node;
        }
        i = (i + 1) & h->tab_mask;
    }
}

static void tab_put(struct slot *tab, uint64_t mask, uint64_t i, uint64_t key, uint32_t node)
{
    while (tab[i].node != NIL)
        i = (i + 1) & mask;
    tab[i].key = key;
    tab[i].node = node;
}

/* Make room for one more entry (load factor <= 1/2). */
static int tab_reserve(struct sim_heap *h)
{
    struct slot *nt, *ot = h->tab;
    uint64_t ocap = h->tab_mask + 1, ncap = ocap * 2, i;

    if ((h->tab_count + 1) * 2 <= ocap)
        return 0;
    nt = base_malloc((size_t)ncap * sizeof(*nt));
    if (nt == NULL)
        return -1;
    for (i = 0; i < ncap; i++)
        nt[i].node = NIL;
    h->tab = nt;
    h->tab_mask = ncap - 1;
    h->tab_shift--;
    for (i = 0; i < ocap; i++) {
        if (ot[i].node != NIL)
            tab_put(nt, h->tab_mask, tab_home(h, ot[i].key), ot[i].key, ot[i].node);
    }
    base_free(ot);
    return 0;
}

static void tab_delete(struct sim_heap *h, uint64_t i)
{
    uint64_t j = i, mask = h->tab_mask;

    for (;;) {
        j = (j + 1) & mask;
        if (h->tab[j].node == NIL)
            break;
        /* the entry at j may move back to the hole at i unless its home lies
         * cyclically in (i, j] */
        if (((j - tab_home(h, h->tab[j].key)) & mask) >= ((j - i) & mask)) {
            h->tab[i] = h->tab[j];
            i = j;
        }
    }
    h->tab[i].node = NIL;
    h->tab_count--;
}

/* ----------------------------------------------------------------- bitmap */

static void bm_set(struct sim_heap *h, uint64_t i)
{
    unsigned l;

    for (l = 0; l < h->levels; l++) {
        uint64_t *w = &h->lvl[l][i >> 6];
        uint64_t was = *w;
        *w = was | ((uint64_t)1 << (i & 63));
        if (was != 0)
            break;
        i >>= 6;
    }
}

static void bm_clear(struct sim_heap *h, uint64_t i)
{
    unsigned l;

    for (l = 0; l < h->levels; l++) {
        uint64_t *w = &h->lvl[l][i >> 6];
        *w &= ~((uint64_t)1 << (i & 63));
        if (*w != 0)
            break;
        i >>= 6;
    }
}

/* Highest set level-0 bit at index <= i: 0 and *out, or -1 if none. */
static int bm_pred(const struct sim_heap *h, uint64_t i, uint64_t *out)
{
    unsigned l;

    for (l = 0; l < h->levels; l++) {
        uint64_t w = i >> 6;
        uint64_t m = h->lvl[l][w] & (~(uint64_t)0 >> (63 - (i & 63)));
        if (m != 0) {
            uint64_t p = (w << 6) | ilog2(m);
            while (l > 0) {
                l--;
                p = (p << 6) | ilog2(h->lvl[l][p]);
            }
            *out = p;
            return 0;
        }
        if (w == 0)
            return -1;
        i = w - 1;
    }
    return -1;
}

static int bm_test(const struct sim_heap *h, uint64_t i)
{
    return (int)((h->lvl[0][i >> 6] >> (i & 63)) & 1);
}

static int bm_init(struct sim_heap *h)
{
    uint64_t words = h->size >> h->shift; /* bits at level 0 */
    uint64_t total = 0, off = 0;
    unsigned l = 0;
    void *mem;

    do {
        words = (words + 63) / 64;
        h->lvl_words[l++] = words;
        total += words;
    } while (words > 1 && l < MAX_LEVELS);
    if (words > 1)
        return -1;
    h->levels = l;
    h->bm_len = (size_t)(total * sizeof(uint64_t));
    mem = mmap(NULL, h->bm_len, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED)
        return -1;
    h->bm_mem = mem;
    /* small summary levels first, the big level 0 last */
    for (l = h->levels; l-- > 0;) {
        h->lvl[l] = (uint64_t *)mem + off;
        off += h->lvl_words[l];
    }
    return 0;
}

/* ------------------------------------------------------------------- API */

struct sim_heap *sim_heap_create(uint64_t base, uint64_t size)
{
    return sim_heap_create_paged(base, size, size, SIM_HEAP_GRANULE);
}

struct sim_heap *sim_heap_create_paged(uint64_t base, uint64_t size, uint64_t limit,
                                       uint64_t granule)
{
    struct sim_heap *h;
    uint64_t i;

    if (granule < SIM_HEAP_GRANULE || granule > SIM_HEAP_GRANULE_MAX ||
        (granule & (granule - 1)) != 0)
        return NULL;
    if (size < granule || (base | size) % granule != 0 || base + size < base)
        return NULL;
    h = base_calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    h->base = base;
    h->size = size;
    h->limit = limit;
    h->gran = granule;
    h->shift = (unsigned)__builtin_ctzll(granule);
    h->quick_max = (QUICK_MAX_BYTES + granule - 1) & ~(granule - 1);
    h->quick_grans = (unsigned)(h->quick_max >> h->shift);
    memset(h->heads, 0xff, sizeof(h->heads));
    for (i = 0; i <= h->quick_grans; i++)
        h->quick[i].head = NIL;
    for (i = 0; i < RECENT; i++)
        h->recent[i].start = RECENT_NONE;
    uint64_t room = limit < size ? limit : size;
    h->quick_limit = room / QUICK_HEAP_FRACTION < QUICK_BYTES_MAX ? room / QUICK_HEAP_FRACTION
                                                                   : QUICK_BYTES_MAX;
    h->spare = NIL;
    h->cap_nodes = 64;
    h->nodes = base_malloc(h->cap_nodes * sizeof(*h->nodes));
    h->tab_mask = 63;
    h->tab_shift = 64 - 6;
    h->tab = base_malloc((size_t)(h->tab_mask + 1) * sizeof(*h->tab));
    if (h->nodes == NULL || h->tab == NULL || bm_init(h) != 0) {
        base_free(h->nodes);
        base_free(h->tab);
        base_free(h);
        return NULL;
    }
    for (i = 0; i <= h->tab_mask; i++)
        h->tab[i].node = NIL;

    h->first = node_new(h);
    h->nodes[h->first] = (struct blk){
        .start = base, .size = size, .prev_phys = NIL, .next_phys = NIL,
    };
    list_insert(h, h->first);
    return h;
}

void sim_heap_set_limit(struct sim_heap *h, uint64_t limit)
{
    h->limit = limit;
}

void sim_heap_destroy(struct sim_heap *h)
{
    if (h == NULL)
        return;
    munmap(h->bm_mem, h->bm_len);
    base_free(h->nodes);
    base_free(h->tab);
    base_free(h);
}

/* Split block bi at offset off (bytes, 0 < off < size): bi keeps the head, the
 * returned node is the tail.  pre: a node is reserved. */
static uint32_t split(struct sim_heap *h, uint32_t bi, uint64_t off)
{
    uint32_t ti = node_new(h);
    struct blk *b = &h->nodes[bi], *t = &h->nodes[ti];

    t->start = b->start + off;
    t->size = b->size - off;
    t->prev_phys = bi;
    t->next_phys = b->next_phys;
    t->tag = 0;
    if (b->next_phys != NIL)
        h->nodes[b->next_phys].prev_phys = ti;
    b->next_phys = ti;
    b->size = off;
    return ti;
}

/* Does free block b hold need bytes at an align-aligned start? */
static int fits(const struct blk *b, uint64_t need, uint64_t align)
{
    uint64_t a = (b->start + align - 1) & ~(align - 1);

    return a >= b->start && a - b->start <= b->size && b->size - (a - b->start) >= need;
}

/* Highest non-empty class at or below (fl, sl): returns 0 and updates fl and sl,
 * or -1 if there is none. */
static int prev_class(const struct sim_heap *h, unsigned *fl, unsigned *sl)
{
    uint32_t m = h->sl_map[*fl] & (*sl >= SL_COUNT - 1 ? ~0u : (2u << *sl) - 1);
    uint64_t f;

    if (m == 0) {
        f = h->fl_map & (((uint64_t)1 << *fl) - 1);
        if (f == 0)
            return -1;
        *fl = ilog2(f);
        m = h->sl_map[*fl];
    }
    *sl = 31u - (unsigned)__builtin_clz(m);
    return 0;
}

/* Bounded last-resort search when good fit failed: probe up to FALLBACK_PROBES
 * free blocks, largest classes first (the likeliest to hold an aligned fit), down
 * to the request's own class. */
static uint32_t fallback(const struct sim_heap *h, uint64_t need, uint64_t align)
{
    unsigned lo_fl, lo_sl, fl, sl, budget = FALLBACK_PROBES;

    if (h->fl_map == 0)
        return NIL;
    mapping(need >> h->shift, &lo_fl, &lo_sl);
    fl = ilog2(h->fl_map);
    sl = ilog2(h->sl_map[fl]);
    while (budget > 0 && (fl > lo_fl || (fl == lo_fl && sl >= lo_sl))) {
        uint32_t bi;
        for (bi = h->heads[fl][sl]; bi != NIL && budget > 0; bi = h->nodes[bi].next_free) {
            budget--;
            if (fits(&h->nodes[bi], need, align))
                return bi;
        }
        if (sl > 0) {
            sl--;
        } else if (fl > 0) {
            fl--;
            sl = SL_COUNT - 1;
        } else {
            break;
        }
        if (prev_class(h, &fl, &sl) != 0)
            break;
    }
    return NIL;
}

/* TLSF search for a free block holding need bytes at an align-aligned start, or
 * NIL. */
static uint32_t find_block(const struct sim_heap *h, uint64_t g, uint64_t need, uint64_t align)
{
    uint64_t search = round_class(g + ((align >> h->shift) - 1));
    unsigned fl, sl;

    if (search <= (h->size >> h->shift)) {
        mapping(search, &fl, &sl);
        if (next_class(h, &fl, &sl) == 0)
            return h->heads[fl][sl];
    }
    return fallback(h, need, align);
}

static void recent_note(struct sim_heap *h, uint64_t start, uint32_t bi)
{
    unsigned i = (unsigned)(start >> h->shift) & (RECENT - 1);
    h->recent[i].start = start;
    h->recent[i].node = bi;
}

/* The node of the live block starting at addr when the recent blocks know
 * it, else NIL (which says nothing: ask the hash). */
static uint32_t recent_find(const struct sim_heap *h, uint64_t addr)
{
    unsigned i = (unsigned)(addr >> h->shift) & (RECENT - 1);
    if (h->recent[i].start != addr)
        return NIL;
    uint32_t bi = h->recent[i].node;
    const struct blk *b = &h->nodes[bi];
    return b->start == addr && b->state == BLK_USED ? bi : NIL;
}

/* Turn block bi (already out of every free structure) into a live block.
 * pre: tab_reserve succeeded. */
static enum sim_heap_rc make_live(struct sim_heap *h, uint32_t bi, uint32_t tag, uint64_t *addr)
{
    struct blk *b = &h->nodes[bi];

    b->state = BLK_USED;
    b->tag = tag;
    recent_note(h, b->start, bi);
    tab_put(h->tab, h->tab_mask, tab_home(h, b->start), b->start, bi);
    h->tab_count++;
    bm_set(h, (b->start - h->base) >> h->shift);
    h->used_bytes += b->size;
    h->live_blocks++;
    if (h->used_bytes > h->peak_used)
        h->peak_used = h->used_bytes;
    *addr = b->start;
    return SIM_HEAP_OK;
}

static void flush_quick(struct sim_heap *h);

/* Everything but the quick-list pop: a TLSF search, splitting, and once a
 * flush of the quick lists.  Kept out of line so that the pop stays small
 * enough to inline into the caller (the library is built with LTO). */
static enum sim_heap_rc __attribute__((noinline))
alloc_slow(struct sim_heap *h, uint64_t g, uint64_t need, uint64_t align, uint32_t tag,
           uint64_t *addr)
{
    uint64_t lead;
    uint32_t bi;
    struct blk *b;

    if (reserve_nodes(h, 2) != 0 || tab_reserve(h) != 0)
        return SIM_HEAP_HOSTMEM;
    /* The pages: parked blocks hold theirs until flushed. */
    if (need > h->limit - h->used_bytes - h->quick_bytes) {
        if (need > h->limit - h->used_bytes)
            return SIM_HEAP_NOSPACE; /* the pages run out: however the range lies */
        flush_quick(h);
    }
    bi = find_block(h, g, need, align);
    if (bi == NIL && h->quick_blocks != 0) {
        flush_quick(h); /* only releases nodes: the reservations above still hold */
        bi = find_block(h, g, need, align);
    }
    if (bi == NIL)
        return SIM_HEAP_NOSPACE;

    list_remove(h, bi);
    b = &h->nodes[bi];
    lead = ((b->start + align - 1) & ~(align - 1)) - b->start;
    if (lead != 0) {
        uint32_t ti = split(h, bi, lead);
        list_insert(h, bi); /* left neighbour is live or quick: no coalescing */
        bi = ti;
    }
    if (h->nodes[bi].size > need)
        list_insert(h, split(h, bi, need)); /* right neighbour is live or quick too */
    return make_live(h, bi, tag, addr);
}

/* The quick pop: an exact-size quick block; its hash entry and start bit
 * are still in place, so only the state changes. 1 <= size <= the quick
 * bound (size - 1 wraps for 0) is all it checks: a parked block of that
 * size exists only in a heap that holds it. Inlined into its callers in
 * other files (link-time optimisation): it is most of an aclrtMalloc
 * (scons bench: malloc_free_vs_glibc). */
__attribute__((always_inline)) inline bool sim_heap_pop(struct sim_heap *h, uint64_t size,
                                                        uint32_t tag, uint64_t *addr)
{
    uint64_t g = (size + h->gran - 1) >> h->shift, need = g << h->shift;
    if (size - 1 >= h->quick_max || h->quick[g].head == NIL)
        return false; /* (no limit to check: a parked block's pages are still held) */
    uint32_t bi = h->quick[g].head;
    struct blk *b = &h->nodes[bi];
    h->quick[g].head = b->next_free;
    h->quick[g].count--;
    h->quick_bytes -= need;
    h->quick_blocks--;
    b->state = BLK_USED;
    b->tag = tag;
    recent_note(h, b->start, bi);
    h->used_bytes += need;
    h->live_blocks++;
    if (h->used_bytes > h->peak_used)
        h->peak_used = h->used_bytes;
    *addr = b->start;
    return true;
}

/* Inlined into its callers in other files, as sim_heap_pop. */
__attribute__((always_inline)) inline enum sim_heap_rc
sim_heap_alloc(struct sim_heap *h, uint64_t size, uint64_t align, uint32_t tag, uint64_t *addr)
{
    uint64_t g, need;

    if (h != NULL && addr != NULL && align == h->gran && sim_heap_pop(h, size, tag, addr))
        return SIM_HEAP_OK;
    if (h == NULL || addr == NULL || size == 0 || align < h->gran || (align & (align - 1)) != 0)
        return SIM_HEAP_EINVAL;
    if (size > h->size)
        return SIM_HEAP_NOSPACE; /* also keeps g and need below from wrapping */
    g = (size + h->gran - 1) >> h->shift;
    need = g << h->shift;
    return alloc_slow(h, g, need, align, tag, addr);
}

/* Merge block ri into its physical predecessor li and recycle ri's node. */
static void absorb(struct sim_heap *h, uint32_t li, uint32_t ri)
{
    struct blk *l = &h->nodes[li], *r = &h->nodes[ri];

    l->size += r->size;
    l->next_phys = r->next_phys;
    if (r->next_phys != NIL)
        h->nodes[r->next_phys].prev_phys = li;
    node_release(h, ri);
}

/* Put block bi (already out of hash, bitmap and quick lists) into TLSF, merging
 * it with TLSF-free physical neighbours (quick neighbours stay as they are). */
static void release(struct sim_heap *h, uint32_t bi)
{
    uint32_t ni, pi = h->nodes[bi].prev_phys;

    if (pi != NIL && h->nodes[pi].state == BLK_FREE) {
        list_remove(h, pi);
        absorb(h, pi, bi);
        bi = pi;
    }
    ni = h->nodes[bi].next_phys;
    if (ni != NIL && h->nodes[ni].state == BLK_FREE) {
        list_remove(h, ni);
        absorb(h, bi, ni);
    }
    list_insert(h, bi);
}

/* Empty every quick list into TLSF (unhash, clear the start bit, coalesce). */
static void flush_quick(struct sim_heap *h)
{
    unsigned g;

    for (g = 1; g <= h->quick_grans && h->quick_blocks != 0; g++) {
        while (h->quick[g].head != NIL) {
            uint32_t bi = h->quick[g].head;
            uint64_t slot = 0, start = h->nodes[bi].start;
            h->quick[g].head = h->nodes[bi].next_free;
            h->quick[g].count--;
            h->quick_bytes -= h->nodes[bi].size;
            h->quick_blocks--;
            if (tab_find(h, start, &slot) == bi)
                tab_delete(h, slot);
            bm_clear(h, (start - h->base) >> h->shift);
            release(h, bi);
        }
    }
}

void sim_heap_trim(struct sim_heap *h)
{
    if (h != NULL && h->quick_blocks != 0)
        flush_quick(h);
}

/* Return live block bi, at `slot` of the hash (NO_SLOT: not looked up
 * yet), to TLSF, coalescing: out of line, as alloc_slow. */
#define NO_SLOT UINT64_MAX
static void __attribute__((noinline)) free_slow(struct sim_heap *h, uint32_t bi, uint64_t slot)
{
    if (slot == NO_SLOT)
        tab_find(h, h->nodes[bi].start, &slot);
    tab_delete(h, slot);
    bm_clear(h, (h->nodes[bi].start - h->base) >> h->shift);
    release(h, bi);
}

/* Park live block bi on its quick list when the bounds allow: true and
 * its size in *size_out, or false with nothing changed. */
static inline bool park(struct sim_heap *h, uint32_t bi, uint64_t *size_out)
{
    struct blk *b = &h->nodes[bi];
    uint64_t size = b->size, g = size >> h->shift;
    if (g > h->quick_grans || h->quick[g].count >= QUICK_LIST_MAX ||
        h->quick_bytes + size > h->quick_limit)
        return false;
    /* the hash entry and the start bit stay */
    if (size_out != NULL)
        *size_out = size;
    h->used_bytes -= size;
    h->live_blocks--;
    b->state = BLK_QUICK;
    b->tag = 0;
    b->next_free = h->quick[g].head;
    h->quick[g].head = bi;
    h->quick[g].count++;
    h->quick_bytes += size;
    h->quick_blocks++;
    return true;
}

/* The quick push: the free of a block made live lately (one of the recent
 * blocks) that can be parked. Inlined into its callers in other files, as
 * sim_heap_pop. */
__attribute__((always_inline)) inline bool sim_heap_push(struct sim_heap *h, uint64_t addr,
                                                         uint64_t *size_out)
{
    uint32_t bi = recent_find(h, addr);
    return bi != NIL && park(h, bi, size_out);
}

enum sim_heap_rc sim_heap_free(struct sim_heap *h, uint64_t addr, uint64_t *size_out)
{
    if (h == NULL)
        return SIM_HEAP_EINVAL;
    if (addr < h->base || addr - h->base >= h->size)
        return SIM_HEAP_NOBLOCK;
    uint64_t slot = NO_SLOT;
    uint32_t bi = recent_find(h, addr);
    if (bi == NIL) {
        bi = tab_find(h, addr, &slot);
        if (bi == NIL || h->nodes[bi].state != BLK_USED)
            return SIM_HEAP_NOBLOCK; /* unknown, interior, or already free (quick) */
    }
    if (park(h, bi, size_out))
        return SIM_HEAP_OK;
    uint64_t size = h->nodes[bi].size;
    if (size_out != NULL)
        *size_out = size;
    h->used_bytes -= size;
    h->live_blocks--;
    free_slow(h, bi, slot);
    return SIM_HEAP_OK;
}

enum sim_heap_rc sim_heap_lookup(const struct sim_heap *h, uint64_t addr, uint64_t *start,
                                 uint64_t *size, uint32_t *tag)
{
    uint64_t p, s;
    uint32_t bi;
    const struct blk *b;

    if (h == NULL)
        return SIM_HEAP_EINVAL;
    if (addr < h->base || addr - h->base >= h->size)
        return SIM_HEAP_NOBLOCK;
    if (bm_pred(h, (addr - h->base) >> h->shift, &p) != 0)
        return SIM_HEAP_NOBLOCK;
    s = h->base + (p << h->shift);
    bi = tab_find(h, s, NULL);
    if (bi == NIL)
        return SIM_HEAP_NOBLOCK; /* cannot happen while the invariants hold */
    b = &h->nodes[bi];
    if (b->state != BLK_USED || addr - b->start >= b->size)
        return SIM_HEAP_NOBLOCK; /* a quick block, or free space behind a block */
    if (start != NULL)
        *start = b->start;
    if (size != NULL)
        *size = b->size;
    if (tag != NULL)
        *tag = b->tag;
    return SIM_HEAP_OK;
}

void sim_heap_walk(const struct sim_heap *h, sim_heap_walker fn, void *user)
{
    uint32_t bi;

    if (h == NULL || fn == NULL)
        return;
    for (bi = h->first; bi != NIL; bi = h->nodes[bi].next_phys) {
        const struct blk *b = &h->nodes[bi];
        int used = b->state == BLK_USED;
        fn(b->start, b->size, used, used ? b->tag : 0, user);
    }
}

void sim_heap_stats(const struct sim_heap *h, struct sim_heap_stats *st)
{
    uint64_t largest = 0;

    if (st == NULL)
        return;
    memset(st, 0, sizeof(*st));
    if (h == NULL)
        return;
    if (h->fl_map != 0) {
        unsigned fl = ilog2(h->fl_map);
        unsigned sl = ilog2(h->sl_map[fl]);
        uint32_t bi;
        for (bi = h->heads[fl][sl]; bi != NIL; bi = h->nodes[bi].next_free) {
            if (h->nodes[bi].size > largest)
                largest = h->nodes[bi].size;
        }
    }
    st->size = h->size;
    st->limit = h->limit;
    st->used_bytes = h->used_bytes;
    st->free_bytes = h->limit - h->used_bytes;
    st->live_blocks = h->live_blocks;
    st->largest_free = largest;
    st->peak_used_bytes = h->peak_used;
    st->quick_bytes = h->quick_bytes;
    st->quick_blocks = h->quick_blocks;
}

/* ------------------------------------------------------------------ check */

/* Record the first broken invariant and the address it concerns. */
static enum sim_heap_invariant broken(struct sim_heap_fault *f, enum sim_heap_invariant what,
                                      uint64_t addr)
{
    if (f != NULL) {
        f->what = what;
        f->addr = addr;
    }
    return what;
}

/* Start of the block of node bi, or 0 for an index outside the nodes. */
static uint64_t start_of(const struct sim_heap *h, uint32_t bi)
{
    return bi < h->n_nodes ? h->nodes[bi].start : 0;
}

static enum sim_heap_invariant check_lists(const struct sim_heap *h, uint64_t *n_listed,
                                           struct sim_heap_fault *f)
{
    unsigned fl, sl, cfl, csl;
    uint64_t steps = 0;

    *n_listed = 0;
    for (fl = 0; fl < FL_COUNT; fl++) {
        if (((h->fl_map >> fl) & 1) != (h->sl_map[fl] != 0))
            return broken(f, SIM_HEAP_FREE_BITMAP, 0);
        for (sl = 0; sl < SL_COUNT; sl++) {
            uint32_t bi = h->heads[fl][sl], prev = NIL;
            if (((h->sl_map[fl] >> sl) & 1) != (bi != NIL))
                return broken(f, SIM_HEAP_FREE_BITMAP, start_of(h, bi));
            for (; bi != NIL; prev = bi, bi = h->nodes[bi].next_free) {
                const struct blk *b = &h->nodes[bi];
                if (bi >= h->n_nodes || ++steps > h->n_nodes)
                    return broken(f, SIM_HEAP_FREE_LIST, start_of(h, prev));
                if (b->state != BLK_FREE || b->prev_free != prev)
                    return broken(f, SIM_HEAP_FREE_LIST, b->start);
                mapping(b->size >> h->shift, &cfl, &csl);
                if (cfl != fl || csl != sl)
                    return broken(f, SIM_HEAP_FREE_CLASS, b->start);
                (*n_listed)++;
            }
        }
    }
    return SIM_HEAP_SOUND;
}

static enum sim_heap_invariant check_tab(const struct sim_heap *h, struct sim_heap_fault *f)
{
    uint64_t i, j, n = 0;

    for (i = 0; i <= h->tab_mask; i++) {
        const struct slot *s = &h->tab[i];
        if (s->node == NIL)
            continue;
        n++;
        if (s->node >= h->n_nodes ||
            (h->nodes[s->node].state != BLK_USED && h->nodes[s->node].state != BLK_QUICK) ||
            h->nodes[s->node].start != s->key)
            return broken(f, SIM_HEAP_HASH_ENTRY, s->key);
        /* reachable from its home: no hole between home and i */
        for (j = tab_home(h, s->key); j != i; j = (j + 1) & h->tab_mask) {
            if (h->tab[j].node == NIL)
                return broken(f, SIM_HEAP_HASH_PROBE, s->key);
        }
    }
    if (n != h->tab_count || n != h->live_blocks + h->quick_blocks || n * 2 > h->tab_mask + 1)
        return broken(f, SIM_HEAP_HASH_COUNT, 0);
    return SIM_HEAP_SOUND;
}

/* Every quick list: nodes are BLK_QUICK blocks of the list's size, counts and
 * byte totals match and respect the bounds.  *n_listed: quick blocks listed. */
static enum sim_heap_invariant check_quick(const struct sim_heap *h, uint64_t *n_listed,
                                           struct sim_heap_fault *f)
{
    uint64_t steps = 0, bytes = 0;
    unsigned g;

    *n_listed = 0;
    if (h->quick[0].head != NIL || h->quick[0].count != 0)
        return broken(f, SIM_HEAP_QUICK_LIST, start_of(h, h->quick[0].head));
    for (g = 1; g <= h->quick_grans; g++) {
        uint64_t n = 0;
        uint32_t bi, prev = NIL;
        for (bi = h->quick[g].head; bi != NIL; prev = bi, bi = h->nodes[bi].next_free) {
            const struct blk *b = &h->nodes[bi];
            if (bi >= h->n_nodes || ++steps > h->n_nodes)
                return broken(f, SIM_HEAP_QUICK_LIST, start_of(h, prev));
            if (b->state != BLK_QUICK || b->size != (uint64_t)g << h->shift)
                return broken(f, SIM_HEAP_QUICK_LIST, b->start);
            n++;
            bytes += b->size;
        }
        if (n != h->quick[g].count || n > QUICK_LIST_MAX)
            return broken(f, SIM_HEAP_QUICK_COUNT, start_of(h, h->quick[g].head));
        *n_listed += n;
    }
    if (*n_listed != h->quick_blocks || bytes != h->quick_bytes || bytes > h->quick_limit)
        return broken(f, SIM_HEAP_QUICK_COUNT, 0);
    return SIM_HEAP_SOUND;
}

/* The physical chain: the blocks tile the heap, each is sound for its state;
 * counts of free and parked blocks for the list checks. */
static enum sim_heap_invariant check_blocks(const struct sim_heap *h, uint64_t *n_blocks,
                                            uint64_t *n_free, uint64_t *n_quick,
                                            struct sim_heap_fault *f)
{
    uint64_t expect = h->base, n_used = 0, used = 0, p;
    uint32_t bi, prev = NIL;
    int prev_free = 0;

    for (bi = h->first; bi != NIL; prev = bi, bi = h->nodes[bi].next_phys) {
        const struct blk *b = &h->nodes[bi];
        uint64_t g0, g1;
        if (bi >= h->n_nodes || ++*n_blocks > h->n_nodes)
            return broken(f, SIM_HEAP_BLOCK_CHAIN, start_of(h, prev));
        if (b->prev_phys != prev)
            return broken(f, SIM_HEAP_BLOCK_LINK, b->start);
        if (b->start < expect)
            return broken(f, SIM_HEAP_BLOCK_OVERLAP, start_of(h, prev));
        if (b->start > expect)
            return broken(f, SIM_HEAP_BLOCK_GAP, b->start);
        if (b->size == 0 || b->size % h->gran != 0 || b->size > h->base + h->size - b->start)
            return broken(f, SIM_HEAP_BLOCK_SIZE, b->start);
        if (b->next_phys < h->n_nodes && h->nodes[b->next_phys].start < b->start + b->size)
            return broken(f, SIM_HEAP_BLOCK_OVERLAP, b->start);
        g0 = (b->start - h->base) >> h->shift;
        g1 = g0 + (b->size >> h->shift) - 1;
        if (b->state == BLK_USED || b->state == BLK_QUICK) {
            /* live and quick blocks: hashed, start bit set, no other bit inside;
             * a quick block may touch free or quick blocks */
            if (b->state == BLK_USED) {
                n_used++;
                used += b->size;
            } else {
                ++*n_quick;
            }
            prev_free = 0;
            if (tab_find(h, b->start, NULL) != bi)
                return broken(f, SIM_HEAP_UNHASHED, b->start);
            if (!bm_test(h, g0) || bm_pred(h, g1, &p) != 0 || p != g0)
                return broken(f, SIM_HEAP_START_BIT, b->start);
        } else if (b->state == BLK_FREE) {
            if (prev_free)
                return broken(f, SIM_HEAP_ADJACENT_FREE, b->start);
            prev_free = 1;
            ++*n_free;
            if (bm_pred(h, g1, &p) == 0 && p >= g0)
                return broken(f, SIM_HEAP_FREE_MARKED, b->start);
        } else {
            return broken(f, SIM_HEAP_BLOCK_STATE, b->start);
        }
        expect = b->start + b->size;
    }
    if (expect != h->base + h->size)
        return broken(f, SIM_HEAP_TILING, expect);
    if (n_used != h->live_blocks || used != h->used_bytes || h->peak_used < h->used_bytes ||
        h->used_bytes + h->quick_bytes > h->limit)
        return broken(f, SIM_HEAP_COUNTERS, 0);
    return SIM_HEAP_SOUND;
}

enum sim_heap_invariant sim_heap_check(const struct sim_heap *h, struct sim_heap_fault *f)
{
    uint64_t n_blocks = 0, n_free = 0, n_quick = 0, n_listed, i;
    enum sim_heap_invariant rc;
    uint32_t bi;

    if (h == NULL)
        return broken(f, SIM_HEAP_NO_HEAP, 0);
    rc = check_blocks(h, &n_blocks, &n_free, &n_quick, f);
    if (rc != SIM_HEAP_SOUND)
        return rc;
    rc = check_lists(h, &n_listed, f);
    if (rc != SIM_HEAP_SOUND)
        return rc;
    if (n_listed != n_free)
        return broken(f, SIM_HEAP_FREE_UNLISTED, 0);
    rc = check_quick(h, &n_listed, f);
    if (rc != SIM_HEAP_SOUND)
        return rc;
    if (n_listed != n_quick)
        return broken(f, SIM_HEAP_QUICK_UNLISTED, 0);

    /* every node is either a block or on the spare list */
    n_listed = 0;
    for (bi = h->spare; bi != NIL; bi = h->nodes[bi].next_free) {
        if (bi >= h->n_nodes || ++n_listed > h->n_nodes || h->nodes[bi].state != BLK_SPARE)
            return broken(f, SIM_HEAP_SPARE_LIST, 0);
    }
    if (n_listed != h->n_spare || n_blocks + h->n_spare != h->n_nodes)
        return broken(f, SIM_HEAP_SPARE_LIST, 0);
    for (i = 0; i < h->n_nodes; i++) {
        if (h->nodes[i].state == BLK_SPARE)
            n_listed--;
    }
    if (n_listed != 0)
        return broken(f, SIM_HEAP_SPARE_LIST, 0);

    rc = check_tab(h, f);
    if (rc == SIM_HEAP_SOUND)
        broken(f, SIM_HEAP_SOUND, 0);
    return rc;
}

const char *sim_heap_fault_text(const struct sim_heap_fault *f, char *buf, size_t len)
{
    /* Each text names the offending block (or list, or counter) around its
     * address: before it, the address, after it. */
    static const char *const text[][2] = {
        [SIM_HEAP_SOUND] = {"every invariant holds", ""},
        [SIM_HEAP_NO_HEAP] = {"no heap (NULL)", ""},
        [SIM_HEAP_BLOCK_CHAIN] = {"the block chain after block ", " leaves the nodes or loops"},
        [SIM_HEAP_BLOCK_LINK] = {"block ", " does not link back to its predecessor"},
        [SIM_HEAP_BLOCK_OVERLAP] = {"block ", " overlaps its successor"},
        [SIM_HEAP_BLOCK_GAP] = {"block ", " starts after its predecessor ends (a gap)"},
        [SIM_HEAP_BLOCK_SIZE] = {"block ", " has a size of 0, not a multiple of the granule, or past the "
                                           "heap's end"},
        [SIM_HEAP_BLOCK_STATE] = {"block ", " is neither free, live nor parked"},
        [SIM_HEAP_TILING] = {"the blocks end at ", ", not at the heap's end"},
        [SIM_HEAP_ADJACENT_FREE] = {"free block ", " follows another free block (not coalesced)"},
        [SIM_HEAP_UNHASHED] = {"block ", " is live or parked but not in the start hash"},
        [SIM_HEAP_START_BIT] = {"block ", " is live or parked but its start bit is clear, or "
                                           "another start bit lies inside it"},
        [SIM_HEAP_FREE_MARKED] = {"free block ", " has a start bit set inside it"},
        [SIM_HEAP_COUNTERS] = {"the used-bytes, live-block or peak counter disagrees with the "
                               "blocks", ""},
        [SIM_HEAP_FREE_BITMAP] = {"a free-list bitmap bit disagrees with its list (head ", ")"},
        [SIM_HEAP_FREE_LIST] = {"free list at block ", ": a node out of range, a loop, a block "
                                                      "not free or a wrong back link"},
        [SIM_HEAP_FREE_CLASS] = {"free block ", " sits in the list of another size class"},
        [SIM_HEAP_FREE_UNLISTED] = {"a free block is on no free list", ""},
        [SIM_HEAP_QUICK_LIST] = {"quick list at block ", ": a node out of range, a loop, or a "
                                                        "block not parked or of another size"},
        [SIM_HEAP_QUICK_COUNT] = {"a quick list's count or byte total is wrong or over its "
                                  "bound (head ", ")"},
        [SIM_HEAP_QUICK_UNLISTED] = {"a parked block is on no quick list", ""},
        [SIM_HEAP_SPARE_LIST] = {"the spare-node list or its count is wrong", ""},
        [SIM_HEAP_HASH_ENTRY] = {"hash entry ", " names no live or parked block starting there"},
        [SIM_HEAP_HASH_PROBE] = {"hash entry ", " cannot be reached from its home slot"},
        [SIM_HEAP_HASH_COUNT] = {"the hash's count disagrees with the blocks, or it is over "
                                 "half full", ""},
    };
    unsigned w = (unsigned)f->what;
    if (w >= sizeof text / sizeof text[0] || text[w][0] == NULL)
        snprintf(buf, len, "unknown invariant %u", w);
    else if (text[w][1][0] == '\0')
        snprintf(buf, len, "%s", text[w][0]);
    else
        snprintf(buf, len, "%s0x%llx%s", text[w][0], (unsigned long long)f->addr, text[w][1]);
    return buf;
}
