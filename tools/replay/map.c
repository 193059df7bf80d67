/*
 * map.c - the pointer map the built-in allocators keep their blocks in, and
 * the device-usage reading they share (builtin.h).
 */
#include <stdlib.h>
#include "builtin.h"

static size_t slot_of(uintptr_t key, size_t cap)
{
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (cap - 1);
}

static int grow(struct replay_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    uintptr_t *keys = calloc(cap, sizeof *keys);
    uint64_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t s = slot_of(m->keys[i], cap);
            while (keys[s])
                s = (s + 1) & (cap - 1);
            keys[s] = m->keys[i];
            vals[s] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int replay_map_put(struct replay_map *m, uintptr_t key, uint64_t val)
{
    if (2 * (m->n + 1) > m->cap && grow(m) != 0)
        return -1;
    size_t s = slot_of(key, m->cap);
    while (m->keys[s] && m->keys[s] != key)
        s = (s + 1) & (m->cap - 1);
    m->n += m->keys[s] == 0;
    m->keys[s] = key;
    m->vals[s] = val;
    return 0;
}

int replay_map_take(struct replay_map *m, uintptr_t key, uint64_t *val)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, s = slot_of(key, m->cap);
    while (m->keys[s] != key) {
        if (!m->keys[s])
            return 0;
        s = (s + 1) & mask;
    }
    *val = m->vals[s];
    /* backward-shift: move later entries of the run into the hole */
    for (size_t hole = s, j = (s + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m->keys[j], m->cap);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
        s = hole;
    }
    m->keys[s] = 0;
    m->n--;
    return 1;
}

void replay_map_free(struct replay_map *m)
{
    free(m->keys);
    free(m->vals);
    *m = (struct replay_map){0};
}

size_t replay_used(void)
{
    size_t fr = 0, total = 0;
    if (aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS)
        return 0;
    return total - fr;
}
