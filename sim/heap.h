/*
 * sim/heap.h - constant-time device heap for the aclsim device-memory simulator.
 *
 * A TLSF-shaped (two-level segregated fit) allocator over an abstract range of
 * device addresses [base, base+size), of which at most `limit` bytes are in
 * live blocks at once: the range is the driver's virtual heap, the limit the
 * physical pages behind it, so an allocation is refused when the pages run
 * out and (with a range larger than the limit) practically never because the
 * addresses are fragmented.  Device memory is not host-accessible, so
 * every piece of metadata (block nodes, free lists, the start-address hash and
 * the block-start bitmap used by sim_heap_lookup) lives on the host side in
 * ordinary malloc'd / anonymous memory; the heap never touches the range itself.
 *
 * Granularity is a power of two from 64 bytes to 4 KiB chosen at creation (64
 * for sim_heap_create): every block starts on a multiple of the granule and
 * its size is the requested size rounded up to it; that rounded size is what
 * free, lookup and walk report (the rest of this header says 64 for it).  alloc, free and lookup cost O(1) in the number of
 * live blocks (an alloc about to fail first flushes the quick lists below:
 * O(quick-listed blocks), at most 32 * 1025).
 *
 * Deferred coalescing ("quick lists"): a freed block of at most 64 KiB + 64 (a
 * 64 KiB aclrtMalloc with CANN's padding) is, within
 * bounds (32 blocks per exact size, and at most min(64 MiB, size/64) bytes in
 * all), not coalesced but parked on a per-exact-size LIFO list, and the next
 * 64-aligned allocation of that rounded size takes it back without any search.
 * A parked block is free in every observable sense: free and lookup reject it,
 * it counts as free in the stats and walk reports it as a free block (so walk
 * may show adjacent free blocks).  An allocation that would otherwise fail first
 * returns every parked block to the general free lists (coalescing) and retries,
 * so parked memory never causes an out-of-memory; sim_heap_trim does the same on
 * demand.
 *
 * NOT thread-safe: the caller serialises all calls on one heap (one lock).
 * There is no global state; any number of heaps may coexist.
 */
#ifndef ACLSIM_SIM_HEAP_H_
#define ACLSIM_SIM_HEAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The smallest and the largest granule: every block starts on, and is sized
 * in, multiples of its heap's granule. */
#define SIM_HEAP_GRANULE 64u
#define SIM_HEAP_GRANULE_MAX 4096u

struct sim_heap;

/* What alloc, free and lookup return. */
enum sim_heap_rc {
    SIM_HEAP_OK = 0,
    SIM_HEAP_NOSPACE, /* alloc: no free block fits (device out of memory) */
    SIM_HEAP_HOSTMEM, /* alloc: host memory for the heap's own metadata ran out */
    SIM_HEAP_EINVAL,  /* a violated precondition (NULL heap or out-pointer, size 0,
                       * alignment not a power of two >= 64) */
    SIM_HEAP_NOBLOCK  /* free: addr is not the start of a live block; lookup: addr
                       * lies in no live block */
};

/*
 * Create a heap managing the device range [base, base+size), all free.
 * pre: base and size are multiples of 64, size >= 64, base+size does not wrap.
 * Returns the handle, or NULL on host out-of-memory or a bad geometry.
 */
struct sim_heap *sim_heap_create(uint64_t base, uint64_t size);

/*
 * Create a heap managing the device range [base, base+size), all free, whose
 * live blocks hold at most limit bytes at once (an allocation beyond that is
 * SIM_HEAP_NOSPACE however much of the range is free), in granules of
 * `granule` bytes.  sim_heap_create(base, size) is
 * sim_heap_create_paged(base, size, size, 64).
 * pre: granule a power of two from SIM_HEAP_GRANULE to SIM_HEAP_GRANULE_MAX;
 * base and size multiples of it, size >= granule, base+size does not wrap.
 * Returns the handle, or NULL on host out-of-memory or a bad geometry.
 */
struct sim_heap *sim_heap_create_paged(uint64_t base, uint64_t size, uint64_t limit,
                                       uint64_t granule);

/*
 * Change the bound on the bytes of live blocks (pages another range took or
 * gave back).  pre: h != NULL, limit >= the bytes in live and parked blocks
 * now (sim_heap_trim first to give the parked ones back).
 */
void sim_heap_set_limit(struct sim_heap *h, uint64_t limit);

/*
 * Free all host metadata of the heap.  Live blocks are simply forgotten.
 * h may be NULL (no-op).
 */
void sim_heap_destroy(struct sim_heap *h);

/*
 * Allocate a block of at least size bytes whose start is a multiple of align,
 * and remember the opaque tag with it.
 * pre: size > 0; align is a power of two >= the granule (2 MiB huge pages,
 * 1 GiB).
 * Returns SIM_HEAP_OK and stores the start address in *addr; SIM_HEAP_NOSPACE
 * when the live blocks would hold more than the limit, or no free block fits
 * (size larger than the heap included),
 * SIM_HEAP_HOSTMEM when the metadata cannot grow, SIM_HEAP_EINVAL on violated
 * preconditions.  On failure no live block, counter or lookup result has
 * changed (the quick lists may have been flushed as by sim_heap_trim).
 * align == 64 and a quick-listed block of exactly the rounded size: that block
 * (the most recently freed one) is returned, O(1) with no search.  Otherwise the
 * search is TLSF "good fit" (request rounded up to the next size class, plus
 * align-64 when align > 64); if that finds nothing, a bounded number (64) of
 * smaller candidates is probed; if that fails too and quick lists are non-empty,
 * they are flushed (sim_heap_trim) and the search runs once more before giving
 * up, so an exactly fitting last block is usually still found.
 */
enum sim_heap_rc sim_heap_alloc(struct sim_heap *h, uint64_t size, uint64_t align, uint32_t tag,
                                uint64_t *addr);

/*
 * Free the live block that starts at addr.
 * pre: h comes from sim_heap_create (any addr value is accepted and checked).
 * Returns SIM_HEAP_OK and, if size_out != NULL, the block's (64-rounded) size.
 * Returns SIM_HEAP_NOBLOCK and changes nothing when addr is not the start of a
 * live block (unknown address, interior pointer, already freed block -
 * including one now parked on a quick list); SIM_HEAP_EINVAL for a NULL h.
 * A block of at most 64 KiB + 64 goes to its quick list while the bounds allow (see
 * the top of this file); any other block is coalesced with its free neighbours.
 */
enum sim_heap_rc sim_heap_free(struct sim_heap *h, uint64_t addr, uint64_t *size_out);

/*
 * The quick halves of alloc and free, for a caller's own fast path. Each
 * does what sim_heap_alloc or sim_heap_free would, or nothing at all:
 * sim_heap_pop takes the most recently parked block of exactly size
 * (rounded to 64; align 64) and returns true, or returns false when there
 * is none; sim_heap_push parks the block at addr and returns true when it
 * is live, was made live lately and fits the quick bounds, and returns
 * false otherwise (sim_heap_free then knows what to do). pre: h != NULL.
 */
bool sim_heap_pop(struct sim_heap *h, uint64_t size, uint32_t tag, uint64_t *addr);
bool sim_heap_push(struct sim_heap *h, uint64_t addr, uint64_t *size_out);

/*
 * Flush every quick list: each parked block returns to the general free lists,
 * coalesced with its free neighbours.  Afterwards no two physically adjacent
 * blocks are free, and walk/largest_free describe the fully coalesced heap.
 * Live blocks, the counters (except quick_*) and lookup results do not change.
 * O(parked blocks + 1024); never needed for correctness (alloc flushes by itself
 * before failing), useful before inspecting fragmentation or going idle.
 * h may be NULL (no-op).
 */
void sim_heap_trim(struct sim_heap *h);

/*
 * Find the LIVE block containing addr (start <= addr < start+size).
 * pre: h comes from sim_heap_create (any addr value is accepted and checked).
 * Returns SIM_HEAP_OK and stores start/size/tag (each pointer may be NULL), or
 * SIM_HEAP_NOBLOCK when addr lies in free space or outside the heap
 * (SIM_HEAP_EINVAL for a NULL h).  O(1): constant-depth search of a
 * hierarchical bitmap of block starts plus one hash probe.
 */
enum sim_heap_rc sim_heap_lookup(const struct sim_heap *h, uint64_t addr, uint64_t *start,
                                 uint64_t *size, uint32_t *tag);

/* The invariants sim_heap_check verifies, in the order it checks them. */
enum sim_heap_invariant {
    SIM_HEAP_SOUND = 0,       /* every invariant holds */
    SIM_HEAP_NO_HEAP,         /* h is NULL */
    SIM_HEAP_BLOCK_CHAIN,     /* the physical chain leaves the nodes or loops */
    SIM_HEAP_BLOCK_LINK,      /* a block's back link does not name its predecessor */
    SIM_HEAP_BLOCK_OVERLAP,   /* a block runs into its successor */
    SIM_HEAP_BLOCK_GAP,       /* a block starts after its predecessor ends */
    SIM_HEAP_BLOCK_SIZE,      /* a size of 0, not a multiple of 64, or past the end */
    SIM_HEAP_BLOCK_STATE,     /* a block neither free, live nor parked */
    SIM_HEAP_TILING,          /* the blocks do not end at the heap's end */
    SIM_HEAP_ADJACENT_FREE,   /* two neighbouring free blocks (not coalesced) */
    SIM_HEAP_UNHASHED,        /* a live or parked block missing from the hash */
    SIM_HEAP_START_BIT,       /* its start bit clear, or another one inside it */
    SIM_HEAP_FREE_MARKED,     /* a start bit inside a free block */
    SIM_HEAP_COUNTERS,        /* used bytes, live blocks or peak disagree, or
                               * the used and parked bytes exceed the limit */
    SIM_HEAP_FREE_BITMAP,     /* a free-list bitmap bit disagrees with its list */
    SIM_HEAP_FREE_LIST,       /* a free list leaves the nodes, loops, holds a block
                               * not free or has a wrong back link */
    SIM_HEAP_FREE_CLASS,      /* a free block in the list of another size class */
    SIM_HEAP_FREE_UNLISTED,   /* a free block on no free list */
    SIM_HEAP_QUICK_LIST,      /* a quick list leaves the nodes, loops, or holds a
                               * block not parked or of another size */
    SIM_HEAP_QUICK_COUNT,     /* a quick-list count or byte total wrong or over bound */
    SIM_HEAP_QUICK_UNLISTED,  /* a parked block on no quick list */
    SIM_HEAP_SPARE_LIST,      /* the spare-node list or its count is wrong */
    SIM_HEAP_HASH_ENTRY,      /* a hash entry naming no live or parked block there */
    SIM_HEAP_HASH_PROBE,      /* a hash entry unreachable from its home slot */
    SIM_HEAP_HASH_COUNT       /* the hash's count wrong, or the hash over half full */
};

/* A broken invariant and the address it concerns: the offending block's
 * start (for BLOCK_OVERLAP the block that runs into its successor, for
 * TILING where the blocks end, for a list the head), 0 when none applies. */
struct sim_heap_fault {
    enum sim_heap_invariant what;
    uint64_t addr;
};

/*
 * Verify every internal invariant: the blocks tile [base, base+size), no two
 * physically adjacent blocks are free in the general (TLSF) lists (quick-listed
 * blocks may neighbour free or quick blocks), the free-list bitmaps match the
 * lists, every free block sits in the list of its size class, every quick list
 * holds only parked blocks of its exact size within the bounds and the counts
 * match, the hash and the block-start bitmap hold exactly the live and the
 * quick-listed blocks (the latter marked not live), and the counters match.
 * O(number of blocks + hash capacity); meant for tests.
 * Returns SIM_HEAP_SOUND when everything holds, otherwise the first broken
 * invariant; f (may be NULL) receives it with its address.
 */
enum sim_heap_invariant sim_heap_check(const struct sim_heap *h, struct sim_heap_fault *f);

/* One line saying what f names, e.g. "free block 0x124000001000 follows
 * another free block (not coalesced)", written into buf (len bytes);
 * returns buf. */
const char *sim_heap_fault_text(const struct sim_heap_fault *f, char *buf, size_t len);

/* Callback for sim_heap_walk: one block; used is 1 for live, 0 for free blocks,
 * quick-listed ones included (tag is 0 for free blocks). */
typedef void (*sim_heap_walker)(uint64_t start, uint64_t size, int used, uint32_t tag,
                                void *user);

/*
 * Call fn for every block, free and live, in increasing address order.
 * pre: fn does not call back into this heap.
 */
void sim_heap_walk(const struct sim_heap *h, sim_heap_walker fn, void *user);

struct sim_heap_stats {
    uint64_t size;            /* bytes of addresses managed */
    uint64_t limit;           /* bound on used_bytes (the create call's limit) */
    uint64_t used_bytes;      /* sum of live block sizes */
    uint64_t free_bytes;      /* limit - used_bytes (quick-listed blocks included) */
    uint64_t live_blocks;     /* number of live blocks */
    uint64_t largest_free;    /* largest single free block, quick-listed ones ignored */
    uint64_t peak_used_bytes; /* high-water mark of used_bytes */
    uint64_t quick_bytes;     /* part of free_bytes parked on quick lists */
    uint64_t quick_blocks;    /* number of blocks parked on quick lists */
};

/*
 * Fill *st with the heap's counters.  O(1) except largest_free, which scans the
 * single highest non-empty free list (call sim_heap_trim first to make it count
 * the memory parked on quick lists).
 * pre: st != NULL (h == NULL yields all zeros).
 */
void sim_heap_stats(const struct sim_heap *h, struct sim_heap_stats *st);

#endif /* ACLSIM_SIM_HEAP_H_ */
