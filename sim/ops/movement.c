/*
 * movement.c - the family that moves and sets elements
 * (api/abi/ops/movement.def): CAST writes in[0] into out[0] in out[0]'s type
 * (CANN's Cast, sim_dt_convert; a plain copy of the bytes when the types
 * agree), whatever the two views' strides: transposes, permutations,
 * broadcasts and strided outputs are all this one kernel over the engine.
 * FILL sets every element of out[0] to alpha.
 */
#include <string.h>
#include "ops.h"

struct mv {
    enum sim_dtype to, from;
    size_t size;
    char value[8]; /* FILL: alpha in the output's type */
};

static void strip_copy(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    if (s[0] == (int64_t)m->size && s[1] == (int64_t)m->size) {
        memmove(p[0], p[1], (size_t)n * m->size);
        return;
    }
    char *o = p[0];
    const char *i = p[1];
    for (int64_t k = 0; k < n; k++, o += s[0], i += s[1])
        memcpy(o, i, m->size);
}

static void strip_cast(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    char *o = p[0];
    const char *i = p[1];
    for (int64_t k = 0; k < n; k++, o += s[0], i += s[1])
        sim_dt_convert(m->to, o, m->from, i);
}

static void strip_fill(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct mv *m = ctx;
    char *o = p[0];
    for (int64_t k = 0; k < n; k++, o += s[0])
        memcpy(o, m->value, m->size);
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    const struct sim_view *o = &op->out[0];
    struct mv m = {o->dt, o->dt, sim_dt_size(o->dt), {0}};
    struct sim_iter it;
    sim_iter_init(&it, o->ndims, o->dims);
    sim_iter_add_view(&it, sim_access_out(x, 0), o);
    if (op->kind == SIM_OP_FILL) {
        sim_dt_store(o->dt, m.value, op->alpha);
        sim_iter_coalesce(&it, 0);
        sim_iter_run(&it, strip_fill, &m);
        return SIM_OK;
    }
    m.from = op->in[0].dt;
    sim_iter_add_view(&it, sim_access_in(x, op, 0), &op->in[0]);
    sim_iter_coalesce(&it, 0);
    sim_iter_run(&it, m.from == m.to ? strip_copy : strip_cast, &m);
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    *flops = (double)sim_view_elems(&op->out[0]); /* one vector move per element */
}

const struct sim_family sim_family_movement = {compute, cost};
