/*
 * torch_set.c - the ordered sets of blocks of the replay's torch_npu
 * caching allocator (torch.h): treaps keyed as NPUCachingAllocator's
 * std::sets of blocks (BlockComparatorSize CA:668, BlockComparatorAddress
 * CA:678), so that the best fit, and the next block in order, are found
 * in O(log n) among millions of cached blocks.
 */
#include "torch.h"

typedef int (*tset_cmp)(const struct tblock *, const struct tblock *);

static int cmp_u(uintptr_t a, uintptr_t b)
{
    return a < b ? -1 : a > b;
}

/* BlockComparatorSize CA:668: stream, size, address. */
int tset_by_size(const struct tblock *a, const struct tblock *b)
{
    int c = cmp_u((uintptr_t)a->stream, (uintptr_t)b->stream);
    if (!c)
        c = cmp_u(a->size, b->size);
    return c ? c : cmp_u((uintptr_t)a->ptr, (uintptr_t)b->ptr);
}

/* BlockComparatorAddress CA:678: stream, address. */
int tset_by_addr(const struct tblock *a, const struct tblock *b)
{
    int c = cmp_u((uintptr_t)a->stream, (uintptr_t)b->stream);
    return c ? c : cmp_u((uintptr_t)a->ptr, (uintptr_t)b->ptr);
}

struct tblock *tset_insert(struct tblock *t, struct tblock *b, tset_cmp cmp)
{
    if (!t) {
        b->l = b->r = NULL;
        return b;
    }
    if (cmp(b, t) < 0) {
        t->l = tset_insert(t->l, b, cmp);
        if (t->l->prio < t->prio) {
            struct tblock *x = t->l;
            t->l = x->r;
            x->r = t;
            return x;
        }
    } else {
        t->r = tset_insert(t->r, b, cmp);
        if (t->r->prio < t->prio) {
            struct tblock *x = t->r;
            t->r = x->l;
            x->l = t;
            return x;
        }
    }
    return t;
}

static struct tblock *tset_join(struct tblock *a, struct tblock *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio < b->prio) {
        a->r = tset_join(a->r, b);
        return a;
    }
    b->l = tset_join(a, b->l);
    return b;
}

struct tblock *tset_erase(struct tblock *t, struct tblock *b, tset_cmp cmp)
{
    if (!t)
        return NULL;
    if (t == b)
        return tset_join(t->l, t->r);
    if (cmp(b, t) < 0)
        t->l = tset_erase(t->l, b, cmp);
    else
        t->r = tset_erase(t->r, b, cmp);
    return t;
}

/* The first block not less than key (std::set::lower_bound). */
struct tblock *tset_lower(struct tblock *t, const struct tblock *key, tset_cmp cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, key) >= 0) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

/* The block after b / before b in the set. */
struct tblock *tset_next(struct tblock *t, const struct tblock *b, tset_cmp cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, b) > 0) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

struct tblock *tset_prev(struct tblock *t, const struct tblock *b, tset_cmp cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, b) < 0) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

size_t tset_collect(struct tblock *t, struct tblock **out, size_t n)
{
    if (!t)
        return n;
    n = tset_collect(t->l, out, n);
    if (out)
        out[n] = t;
    n++;
    return tset_collect(t->r, out, n);
}
