/*
 * hash.c - the shared pointer map of hash.h: linear probing in a
 * power-of-two table kept at most half full, backward-shift deletion.
 */
#include "hash.h"
#include "mem.h"

#define MIN_BITS 4u

static size_t mask(const struct base_map *m)
{
    return ((size_t)1 << m->bits) - 1;
}

/* The slot holding key, or the empty slot where it would go. pre: a table. */
static struct base_map_slot *probe(const struct base_map *m, uint64_t key)
{
    size_t i = base_hash_home(key, m->bits);
    while (m->slot[i].key && m->slot[i].key != key)
        i = (i + 1) & mask(m);
    return &m->slot[i];
}

void **base_map_find(const struct base_map *m, uint64_t key)
{
    if (!m->slot)
        return NULL;
    struct base_map_slot *s = probe(m, key);
    return s->key ? &s->val : NULL;
}

/* Double the table (or make the first one): 0, or -1 with m unchanged. */
static int grow(struct base_map *m)
{
    struct base_map bigger = {NULL, 0, m->slot ? m->bits + 1 : MIN_BITS};
    if (bigger.bits > 63)
        return -1;
    bigger.slot = base_calloc((size_t)1 << bigger.bits, sizeof *bigger.slot);
    if (!bigger.slot)
        return -1;
    for (size_t i = 0; m->slot && i <= mask(m); i++)
        if (m->slot[i].key)
            *probe(&bigger, m->slot[i].key) = m->slot[i];
    bigger.count = m->count;
    base_free(m->slot);
    *m = bigger;
    return 0;
}

int base_map_put(struct base_map *m, uint64_t key, void *val)
{
    void **old = base_map_find(m, key);
    if (old) {
        *old = val;
        return 0;
    }
    if ((!m->slot || 2 * (m->count + 1) > mask(m) + 1) && grow(m) != 0)
        return -1;
    *probe(m, key) = (struct base_map_slot){key, val};
    m->count++;
    return 0;
}

bool base_map_remove(struct base_map *m, uint64_t key, void **val)
{
    if (!m->slot)
        return false;
    struct base_map_slot *s = probe(m, key);
    if (!s->key)
        return false;
    if (val)
        *val = s->val;
    /* Backward shift: an entry after the hole moves into it unless its home
     * lies cyclically in (hole, entry], so every key stays reachable. */
    size_t hole = (size_t)(s - m->slot), msk = mask(m);
    for (size_t i = (hole + 1) & msk; m->slot[i].key; i = (i + 1) & msk) {
        size_t home = base_hash_home(m->slot[i].key, m->bits);
        if (((i - home) & msk) >= ((i - hole) & msk)) {
            m->slot[hole] = m->slot[i];
            hole = i;
        }
    }
    m->slot[hole] = (struct base_map_slot){0, NULL};
    m->count--;
    return true;
}

bool base_map_next(const struct base_map *m, size_t *pos, uint64_t *key, void **val)
{
    for (; m->slot && *pos <= mask(m); (*pos)++) {
        const struct base_map_slot *s = &m->slot[*pos];
        if (s->key) {
            if (key)
                *key = s->key;
            if (val)
                *val = s->val;
            (*pos)++;
            return true;
        }
    }
    return false;
}

void base_map_clear(struct base_map *m)
{
    base_free(m->slot);
    *m = (struct base_map){NULL, 0, 0};
}
