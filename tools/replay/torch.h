/*
 * torch.h - what the files of the replay's torch_npu caching allocator
 * share (alloc_torch.c: pools, cached blocks, the allocator's calls;
 * torch_vmm.c: expandable segments; torch_set.c: ordered sets of blocks;
 * torch_blocks.c: splitting, merging, segments and PYTORCH_NPU_ALLOC_CONF).
 * alloc_torch.c's header says which rules of NPUCachingAllocator.cpp
 * (CA:line) and NPUAllocatorConfig.h (CFG:line) each follows.
 */
#ifndef ACLSIM_REPLAY_TORCH_H_
#define ACLSIM_REPLAY_TORCH_H_

#include "builtin.h"

#define MIB ((size_t)1 << 20)
#define MIN_BLOCK ((size_t)512)        /* kMinBlockSize CA:97 */
#define SMALL_SIZE MIB                 /* kSmallSize CA:98 */
#define SMALL_BUFFER (2 * MIB)         /* kSmallBuffer CFG:16 */
#define LARGE_BUFFER (20 * MIB)        /* kLargeBuffer CFG:17 */
#define MIN_LARGE_ALLOC (10 * MIB)     /* kMinLargeAlloc CFG:18 */
#define ROUND_LARGE (2 * MIB)          /* kRoundLarge CA:100 */
#define ALIGN_ROUND_LARGE ((size_t)16384) /* kAlignRoundLarge CA:101 */

struct tpool;
struct tseg;

struct tblock {
    char *ptr;
    size_t size, req;
    aclrtStream stream;
    struct tpool *pool;
    struct tblock *prev, *next; /* neighbours in the segment */
    struct tseg *seg;
    uint64_t gc_count;
    unsigned allocated : 1, mapped : 1;
    struct tblock *l, *r; /* links in its pool's set (torch_set.c) */
    uint32_t prio;
};

/* A segment: an aclrtMalloc'd range, or an expandable segment's reserved range. */
struct tseg {
    struct tblock *any;  /* some block of it, kept valid through merges */
    struct tseg *prev, *next;
    /* expandable only */
    char *base;
    size_t page, max_pages, nh;
    aclrtDrvMemHandle *h; /* per page, NULL when unmapped */
};

struct tpool {
    int small;
    uint32_t id;                        /* the trace's pool number */
    struct tblock *free_root;           /* mapped free blocks: stream, size, address */
    struct tblock *unmapped_root;       /* unmapped ranges: stream, address */
    aclrtDrvMemHandle *spare;           /* free_physical_handles_ */
    size_t nspare, capspare;
};

struct conf {
    size_t max_split, max_non_split_rounding, divisions, align, large_segment;
    double gc_threshold, fraction;
    int expandable;
};

struct torch {
    struct conf cf;
    size_t pad, device_total, allowed_max, total_allocated;
    struct tpool **pools;
    size_t npools;
    struct tseg *segs;
    struct replay_map live; /* ptr -> struct tblock * */
    size_t cached;          /* free mapped bytes and spare pages */
    double gap_sq;
    uint32_t seed;
    int32_t device;
};

/* torch_set.c: a pool's free (mapped) blocks ordered as BlockComparatorSize
 * (CA:668: stream, size, address) or its unmapped ranges as
 * BlockComparatorAddress (CA:678: stream, address), in treaps. */
typedef int (*tset_cmp)(const struct tblock *, const struct tblock *);
int tset_by_size(const struct tblock *a, const struct tblock *b);
int tset_by_addr(const struct tblock *a, const struct tblock *b);
struct tblock *tset_insert(struct tblock *t, struct tblock *b, tset_cmp cmp);
struct tblock *tset_erase(struct tblock *t, struct tblock *b, tset_cmp cmp);
/* The first block not less than key (std::set::lower_bound), the one
 * after / before b; NULL when none. */
struct tblock *tset_lower(struct tblock *t, const struct tblock *key, tset_cmp cmp);
struct tblock *tset_next(struct tblock *t, const struct tblock *b, tset_cmp cmp);
struct tblock *tset_prev(struct tblock *t, const struct tblock *b, tset_cmp cmp);
/* The blocks in order into out (when not NULL) from out[n]; the count. */
size_t tset_collect(struct tblock *t, struct tblock **out, size_t n);

/* torch_blocks.c */
double torch_sq(size_t n);
struct tblock *torch_new_block(struct torch *T, struct tpool *p, aclrtStream s, char *ptr,
                               size_t size, struct tseg *seg);
/* b between neighbours before and after (Block::splice CA:263). */
void torch_splice(struct tblock *b, struct tblock *before, struct tblock *after);
/* Into / out of the pool's free set, counted as cached and as a gap. */
void torch_cache_in(struct torch *T, struct tblock *b);
void torch_cache_out(struct torch *T, struct tblock *b);
/* try_merge_blocks CA:2656: src into dst when src is free and alike. */
size_t torch_merge(struct torch *T, struct tblock *dst, struct tblock *src);
void torch_link_seg(struct torch *T, struct tseg *s);
void torch_unlink_seg(struct torch *T, struct tseg *s);
/* PYTORCH_NPU_ALLOC_CONF: 0, or -1 for a setting it does not read. */
int torch_parse_conf(struct conf *c, const char *s);

/* torch_vmm.c: expandable segments */
struct tblock *torch_alloc_expandable(struct torch *T, struct tpool *p, aclrtStream s, size_t size);
void torch_unmap_block(struct torch *T, struct tblock *b, int free_physical);
void torch_release_segment(struct torch *T, struct tblock *b);

#endif /* ACLSIM_REPLAY_TORCH_H_ */
