/*
 * stacks.c - allocation stacks of live device blocks, for the leak report.
 *
 * Kept only with ACLSIM_TRACK=1 (read when a device opens): each block's
 * aclrtMalloc call stack (backtrace(3), at most STACK_DEPTH frames) in a
 * base_map keyed by the block's offset + 1. Tracking is best effort: when
 * host memory runs out a block is simply not recorded, and the report shows
 * it without a stack. The device's lock serialises every call.
 */
#include <execinfo.h>
#include "base/hash.h"
#include "base/mem.h"
#include "internal.h"

#define STACK_DEPTH 16

struct stack {
    int n;
    void *frames[STACK_DEPTH];
};

struct sim_stacks {
    struct base_map map; /* offset + 1 -> struct stack */
};

struct sim_stacks *sim_stacks_create(void)
{
    return base_calloc(1, sizeof(struct sim_stacks));
}

void sim_stacks_destroy(struct sim_stacks *t)
{
    if (!t)
        return;
    void *st;
    for (size_t pos = 0; base_map_next(&t->map, &pos, NULL, &st);)
        base_free(st);
    base_map_clear(&t->map);
    base_free(t);
}

/* Cold: only with ACLSIM_TRACK=1, and then backtrace(3) dominates. */
__attribute__((cold)) void sim_stacks_remember(struct sim_stacks *t, uint64_t off)
{
    struct stack *st = base_malloc(sizeof *st);
    if (!st)
        return;
    st->n = backtrace(st->frames, STACK_DEPTH);
    void *old = NULL;
    base_map_remove(&t->map, off + 1, &old); /* none while blocks are freed once */
    base_free(old);
    if (base_map_put(&t->map, off + 1, st) != 0)
        base_free(st);
}

__attribute__((cold)) void sim_stacks_forget(struct sim_stacks *t, uint64_t off)
{
    void *st = NULL;
    if (base_map_remove(&t->map, off + 1, &st))
        base_free(st);
}

int sim_stacks_find(const struct sim_stacks *t, uint64_t off, void *const **frames)
{
    void **st = t ? base_map_find(&t->map, off + 1) : NULL;
    if (!st)
        return 0;
    const struct stack *s = *st;
    *frames = s->frames;
    return s->n;
}
