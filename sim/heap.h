/*
 * sim/heap.h - constant-time device heap for the aclsim device-memory simulator.
 *
 * A TLSF-shaped (two-level segregated fit) allocator over an abstract range of
 * device addresses [base, base+size).  Device memory is not host-accessible, so
 * every piece of metadata (block nodes, free lists, the start-address hash and
 * the block-start bitmap used by sim_heap_lookup) lives on the host side in
 * ordinary malloc'd / anonymous memory; the heap never touches the range itself.
 *
 * Granularity is 64 bytes: every block starts on a multiple of 64 and its size
 * is the requested size rounded up to 64; that rounded size is what free,
 * lookup and walk report.  alloc, free and lookup cost O(1) in the number of
 * live blocks (an alloc about to fail first flushes the quick lists below:
 * O(quick-listed blocks), at most 32 * 1024).
 *
 * Deferred coalescing ("quick lists"): a freed block of at most 64 KiB is, within
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

#include <stdint.h>

/* Every block starts on, and is sized in, multiples of this many bytes. */
#define SIM_HEAP_GRANULE 64u

struct sim_heap;

/*
 * Create a heap managing the device range [base, base+size), all free.
 * pre: base and size are multiples of 64, size >= 64, base+size does not wrap.
 * Returns the handle, or NULL on host out-of-memory or a bad geometry.
 */
struct sim_heap *sim_heap_create(uint64_t base, uint64_t size);

/*
 * Free all host metadata of the heap.  Live blocks are simply forgotten.
 * h may be NULL (no-op).
 */
void sim_heap_destroy(struct sim_heap *h);

/*
 * Allocate a block of at least size bytes whose start is a multiple of align,
 * and remember the opaque tag with it.
 * pre: size > 0; align is a power of two >= 64 (64, 2 MiB huge pages, 1 GiB).
 * Returns 0 and stores the start address in *addr, or -1 when no free block
 * fits (device out of memory; also on host OOM while growing metadata, or on
 * violated preconditions).  On -1 no live block, counter or lookup result has
 * changed (the quick lists may have been flushed as by sim_heap_trim).
 * align == 64 and a quick-listed block of exactly the rounded size: that block
 * (the most recently freed one) is returned, O(1) with no search.  Otherwise the
 * search is TLSF "good fit" (request rounded up to the next size class, plus
 * align-64 when align > 64); if that finds nothing, a bounded number (64) of
 * smaller candidates is probed; if that fails too and quick lists are non-empty,
 * they are flushed (sim_heap_trim) and the search runs once more before giving
 * up, so an exactly fitting last block is usually still found.
 */
int sim_heap_alloc(struct sim_heap *h, uint64_t size, uint64_t align, uint32_t tag,
                   uint64_t *addr);

/*
 * Free the live block that starts at addr.
 * pre: h comes from sim_heap_create (any addr value is accepted and checked).
 * Returns 0 and, if size_out != NULL, the block's (64-rounded) size.
 * Returns -1 and changes nothing when addr is not the start of a live block
 * (unknown address, interior pointer, already freed block - including one now
 * parked on a quick list).
 * A block of at most 64 KiB goes to its quick list while the bounds allow (see
 * the top of this file); any other block is coalesced with its free neighbours.
 */
int sim_heap_free(struct sim_heap *h, uint64_t addr, uint64_t *size_out);

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
 * Returns 0 and stores start/size/tag (each pointer may be NULL), or -1 when
 * addr lies in free space or outside the heap.  O(1): constant-depth search of
 * a hierarchical bitmap of block starts plus one hash probe.
 */
int sim_heap_lookup(const struct sim_heap *h, uint64_t addr, uint64_t *start, uint64_t *size,
                    uint32_t *tag);

/*
 * Verify every internal invariant: the blocks tile [base, base+size), no two
 * physically adjacent blocks are free in the general (TLSF) lists (quick-listed
 * blocks may neighbour free or quick blocks), the free-list bitmaps match the
 * lists, every free block sits in the list of its size class, every quick list
 * holds only parked blocks of its exact size within the bounds and the counts
 * match, the hash and the block-start bitmap hold exactly the live and the
 * quick-listed blocks (the latter marked not live), and the counters match.
 * O(number of blocks + hash capacity); meant for tests.
 * Returns 0 when everything holds, a non-zero code naming the first failure
 * otherwise.
 */
int sim_heap_check(const struct sim_heap *h);

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
    uint64_t size;            /* bytes managed */
    uint64_t used_bytes;      /* sum of live block sizes */
    uint64_t free_bytes;      /* size - used_bytes (quick-listed blocks included) */
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
