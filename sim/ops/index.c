/*
 * index.c - the family that picks or places slices by an index tensor
 * (api/abi/ops/index.def): GATHER (CANN's GatherV2 and IndexSelect) and
 * INDEX_COPY (InplaceIndexCopy). The indices are read through the engine
 * (sim_gather_f64), then each slice is one copy of a sub-view through the
 * engine: the slice of a view at position k along dim d is the view
 * without that dim, starting k strides further, so one walk, planned
 * once, serves every slice.
 */
#include <string.h>
#include "base/mem.h"
#include "ops.h"

struct cp {
    enum sim_dtype to, from;
    size_t size;
};

static void strip(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct cp *m = ctx;
    char *o = p[0];
    const char *i = p[1];
    if (m->to == m->from && s[0] == (int64_t)m->size && s[1] == (int64_t)m->size) {
        memcpy(o, i, (size_t)n * m->size); /* a run of whole rows */
        return;
    }
    for (int64_t k = 0; k < n; k++, o += s[0], i += s[1]) {
        if (m->to == m->from)
            memcpy(o, i, m->size);
        else
            sim_dt_convert(m->to, o, m->from, i);
    }
}

static void strip_zero(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct cp *m = ctx;
    char *o = p[0];
    for (int64_t k = 0; k < n; k++, o += s[0])
        memset(o, 0, m->size);
}

/* v without dims [d, d + k) (*r); *step: the byte strides of those dims. */
static void drop(const struct sim_view *v, int d, int k, struct sim_view *r, int64_t *step)
{
    *r = *v;
    r->ndims = 0;
    for (int i = 0; i < v->ndims; i++) {
        if (i >= d && i < d + k) {
            step[i - d] = v->strides[i] * (int64_t)sim_dt_size(v->dt);
            continue;
        }
        r->dims[r->ndims] = v->dims[i];
        r->strides[r->ndims++] = v->strides[i];
    }
}

/* The walk of one slice, dst's against src's, planned once: slice() runs
 * it at each slice's place. */
struct slices {
    struct sim_iter it;
    struct cp m;
};

static void slices_init(struct slices *w, const struct sim_view *dst, const struct sim_view *src)
{
    w->m = (struct cp){dst->dt, src->dt, sim_dt_size(dst->dt)};
    sim_iter_init(&w->it, dst->ndims, dst->dims);
    sim_iter_add_view(&w->it, NULL, dst);
    sim_iter_add_view(&w->it, NULL, src);
    sim_iter_coalesce(&w->it, 0);
}

/* Copy src's slice (at s) to dst's (at d), or zero dst's (s NULL). */
static void slice(const struct slices *w, char *d, const char *s)
{
    struct sim_iter it = w->it;
    it.base[0] = d;
    it.base[1] = (char *)(uintptr_t)s;
    sim_iter_run(&it, s ? strip : strip_zero, (void *)&w->m);
}

/* The indices, as int64 (*out, freed by the caller). */
static enum sim_rc indices(const struct sim_view *v, const char *at, int64_t **out, int64_t *n)
{
    *n = sim_view_elems(v);
    double *f = base_malloc((size_t)(*n ? *n : 1) * sizeof *f);
    int64_t *i = base_malloc((size_t)(*n ? *n : 1) * sizeof *i);
    if (!f || !i) {
        base_free(f);
        base_free(i);
        return SIM_EHOSTMEM;
    }
    sim_gather_f64(v, at, f);
    for (int64_t k = 0; k < *n; k++)
        i[k] = (int64_t)f[k];
    base_free(f);
    *out = i;
    return SIM_OK;
}

static enum sim_rc gather(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *self = &op->in[0], *iv = &op->in[1], *out = &op->out[0];
    int d = (int)op->axes[0], k_nd = (int)op->iparam[0];
    int64_t *idx, n;
    enum sim_rc rc = indices(iv, sim_access_in(x, op, 1), &idx, &n);
    if (rc != SIM_OK)
        return rc;
    struct sim_view so, ss;
    int64_t ostep[SIM_OP_MAX_DIMS], sstep[1];
    drop(out, d, k_nd, &so, ostep);
    drop(self, d, 1, &ss, sstep);
    struct slices w;
    slices_init(&w, &so, &ss);
    char *o0 = sim_access_out(x, 0), *s0 = sim_access_in(x, op, 0);
    for (int64_t k = 0; k < n; k++) {
        /* k's place in out's index dims (row-major over iv's shape) */
        int64_t off = 0, rest = k;
        for (int j = k_nd - 1; j >= 0; j--) {
            int64_t size = out->dims[d + j];
            off += (rest % size) * ostep[j];
            rest /= size;
        }
        bool in = idx[k] >= 0 && idx[k] < self->dims[d];
        slice(&w, o0 + off, in ? s0 + idx[k] * sstep[0] : NULL);
    }
    base_free(idx);
    return SIM_OK;
}

static enum sim_rc index_copy(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *self = &op->out[0], *src = &op->in[1];
    int d = (int)op->axes[0];
    int64_t *idx, n;
    enum sim_rc rc = indices(&op->in[0], sim_access_in(x, op, 0), &idx, &n);
    if (rc != SIM_OK)
        return rc;
    struct sim_view so, ss;
    int64_t ostep[1], sstep[1];
    drop(self, d, 1, &so, ostep);
    drop(src, d, 1, &ss, sstep);
    struct slices w;
    slices_init(&w, &so, &ss);
    char *o0 = sim_access_out(x, 0), *s0 = sim_access_in(x, op, 1);
    for (int64_t k = 0; k < n; k++)
        if (idx[k] >= 0 && idx[k] < self->dims[d])
            slice(&w, o0 + idx[k] * ostep[0], s0 + k * sstep[0]);
    base_free(idx);
    return SIM_OK;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    return op->kind == SIM_OP_GATHER ? gather(op, x) : index_copy(op, x);
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    *flops = (double)sim_view_elems(op->kind == SIM_OP_GATHER ? &op->out[0] : &op->in[1]);
}

const struct sim_family sim_family_index = {compute, cost};
