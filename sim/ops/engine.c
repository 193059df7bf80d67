/*
 * engine.c - the one iteration engine of the built-in operators (ops.h
 * says how it works): reaching an operator's tensors on the device, laying
 * them over one iteration shape with broadcasting, coalescing its dims and
 * walking it strip by strip. Every family's kernel goes through it; none
 * walks shapes or strides of its own.
 */
#include <string.h>
#include "api/abi/opview.h"
#include "base/mem.h"
#include "fault/fault.h"
#include "sim/internal.h"
#include "ops.h"

void sim_view_span(const struct sim_view *v, const void **lo, size_t *bytes)
{
    int64_t es = (int64_t)sim_dt_size(v->dt), first, count;
    opview_span(v->ndims, v->dims, v->strides, v->offset, v->nz_c0, v->nz_t, &first, &count);
    *lo = (const char *)v->data + first * es;
    *bytes = (size_t)(count * es);
}

int64_t sim_view_elems(const struct sim_view *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->ndims; i++)
        n *= v->dims[i];
    return n;
}

/* ---- Access ---- */

/* Whether two views name the same elements in the same order. */
static bool same_view(const struct sim_view *a, const struct sim_view *b)
{
    if (a->data != b->data || a->ndims != b->ndims ||
        sim_dt_size(a->dt) != sim_dt_size(b->dt) || a->offset != b->offset ||
        a->nz_c0 != b->nz_c0 || a->nz_t != b->nz_t)
        return false;
    for (int i = 0; i < a->ndims; i++)
        if (a->dims[i] != b->dims[i] || (a->dims[i] > 1 && a->strides[i] != b->strides[i]))
            return false;
    return true;
}

static bool spans_meet(const char *a, size_t na, const char *b, size_t nb)
{
    return na && nb && a < b + nb && b < a + na;
}

/* Slot k of x for view v: reach its span. */
static enum sim_rc reach(struct sim_access *x, int k, const struct sim_view *v, bool write,
                         bool private_copy)
{
    const void *lo;
    size_t bytes;
    sim_view_span(v, &lo, &bytes);
    x->a[k].v = v;
    x->a[k].lo = lo;
    x->a[k].bytes = bytes;
    x->a[k].write = write;
    x->a[k].dev = v->dev;
    x->a[k].scratch = NULL;
    x->a[k].elem0 = NULL;
    if (!bytes)
        return SIM_OK;
    char *host = NULL;
    if (v->dev) {
        if (FLT_HIT(SIM_COPY_ENGINE))
            return SIM_EIO;
        host = private_copy ? NULL : sim_mem_view(lo, true, bytes);
        if (!host) {
            /* not one piece in the host view, or read before an output
             * that overlaps it is written: a copy of its bytes */
            if (!(x->a[k].scratch = base_malloc(bytes)))
                return SIM_EHOSTMEM;
            enum sim_rc rc = sim_mem_copy(x->a[k].scratch, false, lo, true, bytes);
            if (rc != SIM_OK) {
                base_free(x->a[k].scratch);
                x->a[k].scratch = NULL;
                return rc;
            }
            host = x->a[k].scratch;
        }
    } else {
        host = (char *)(uintptr_t)lo;
    }
    size_t es = sim_dt_size(v->dt);
    x->a[k].elem0 = host + ((v->offset * (int64_t)es) - ((const char *)lo - (const char *)v->data));
    return SIM_OK;
}

void sim_access_drop(struct sim_access *x)
{
    for (int k = 0; k < x->n; k++) {
        base_free(x->a[k].scratch);
        x->a[k].scratch = NULL;
    }
    x->n = 0;
}

enum sim_rc sim_access_open(struct sim_access *x, const struct sim_op *op)
{
    x->n = 0;
    enum sim_rc rc = SIM_OK;
    for (int i = 0; i < op->n_out && rc == SIM_OK; i++, x->n++)
        rc = reach(x, x->n, &op->out[i], true, false);
    for (int i = 0; i < op->n_in && rc == SIM_OK; i++, x->n++) {
        const struct sim_view *v = &op->in[i];
        const void *lo;
        size_t bytes;
        sim_view_span(v, &lo, &bytes);
        bool copy = false;
        for (int o = 0; o < op->n_out && v->dev; o++)
            if (spans_meet(lo, bytes, x->a[o].lo, x->a[o].bytes) && !same_view(v, &op->out[o]))
                copy = true;
        rc = reach(x, x->n, v, false, copy);
    }
    if (rc != SIM_OK)
        sim_access_drop(x); /* the failed slot (counted) holds no scratch */
    return rc;
}

enum sim_rc sim_access_close(struct sim_access *x)
{
    enum sim_rc rc = SIM_OK;
    for (int k = 0; k < x->n; k++)
        if (x->a[k].write && x->a[k].scratch && rc == SIM_OK)
            rc = sim_mem_copy((void *)(uintptr_t)x->a[k].lo, true, x->a[k].scratch, false,
                              x->a[k].bytes);
    sim_access_drop(x);
    return rc;
}

char *sim_access_out(const struct sim_access *x, int i)
{
    return x->a[i].elem0;
}

char *sim_access_in(const struct sim_access *x, const struct sim_op *op, int i)
{
    return x->a[op->n_out + i].elem0;
}

/* ---- Iteration ---- */

void sim_iter_init(struct sim_iter *it, int ndim, const int64_t *shape)
{
    it->ndim = ndim;
    it->nops = 0;
    for (int i = 0; i < ndim; i++)
        it->shape[i] = shape[i];
}

void sim_iter_add(struct sim_iter *it, char *base, int vdims, const int64_t *vshape,
                  const int64_t *vstrides, size_t esize)
{
    int k = it->nops++;
    it->base[k] = base;
    for (int j = it->ndim - 1, i = vdims - 1; j >= 0; j--, i--)
        it->strides[k][j] = i < 0 || vshape[i] == 1 ? 0 : vstrides[i] * (int64_t)esize;
}

void sim_iter_add_view(struct sim_iter *it, char *base, const struct sim_view *v)
{
    sim_iter_add(it, base, v->ndims, v->dims, v->strides, sim_dt_size(v->dt));
}

static int64_t mag(int64_t s)
{
    return s < 0 ? -s : s;
}

void sim_iter_coalesce(struct sim_iter *it, int key)
{
    /* drop dims of size 1 (a dim of 0 stays: the iteration is empty) */
    int n = 0;
    for (int j = 0; j < it->ndim; j++) {
        if (it->shape[j] == 1)
            continue;
        it->shape[n] = it->shape[j];
        for (int k = 0; k < it->nops; k++)
            it->strides[k][n] = it->strides[k][j];
        n++;
    }
    it->ndim = n;
    /* order by the key operand's strides, largest outermost (insertion
     * sort: stable, so ties keep the caller's order) */
    for (int j = 1; j < n; j++)
        for (int i = j; i > 0 && mag(it->strides[key][i - 1]) < mag(it->strides[key][i]); i--) {
            int64_t t = it->shape[i];
            it->shape[i] = it->shape[i - 1];
            it->shape[i - 1] = t;
            for (int k = 0; k < it->nops; k++) {
                t = it->strides[k][i];
                it->strides[k][i] = it->strides[k][i - 1];
                it->strides[k][i - 1] = t;
            }
        }
    /* merge an outer dim into the inner one next to it when every operand
     * steps over the outer as over shape-many inner elements */
    int m = 0;
    for (int j = 1; j < n; j++) {
        bool merge = true;
        for (int k = 0; k < it->nops && merge; k++)
            merge = it->strides[k][m] == it->strides[k][j] * it->shape[j];
        if (merge) {
            it->shape[m] *= it->shape[j];
            for (int k = 0; k < it->nops; k++)
                it->strides[k][m] = it->strides[k][j];
        } else {
            m++;
            it->shape[m] = it->shape[j];
            for (int k = 0; k < it->nops; k++)
                it->strides[k][m] = it->strides[k][j];
        }
    }
    it->ndim = n ? m + 1 : 0;
}

int64_t sim_iter_count(const struct sim_iter *it)
{
    int64_t n = 1;
    for (int j = 0; j < it->ndim; j++)
        n *= it->shape[j];
    return n;
}

void sim_iter_run(struct sim_iter *it, sim_loop_fn fn, void *ctx)
{
    if (sim_iter_count(it) == 0)
        return;
    char *ptrs[SIM_ITER_OPS];
    int64_t inner[SIM_ITER_OPS];
    for (int k = 0; k < it->nops; k++) {
        ptrs[k] = it->base[k];
        inner[k] = it->ndim ? it->strides[k][it->ndim - 1] : 0;
    }
    if (it->ndim <= 1) {
        fn(ctx, ptrs, inner, it->ndim ? it->shape[0] : 1);
        return;
    }
    int outer = it->ndim - 1;
    int64_t idx[SIM_OP_MAX_DIMS] = {0};
    for (;;) {
        fn(ctx, ptrs, inner, it->shape[outer]);
        /* odometer over the outer dims, last fastest */
        int j = outer - 1;
        for (; j >= 0; j--) {
            for (int k = 0; k < it->nops; k++)
                ptrs[k] += it->strides[k][j];
            if (++idx[j] < it->shape[j])
                break;
            for (int k = 0; k < it->nops; k++)
                ptrs[k] -= it->strides[k][j] * it->shape[j];
            idx[j] = 0;
        }
        if (j < 0)
            return;
    }
}

/* ---- Plain arrays ---- */

struct xfer {
    enum sim_dtype dt;
};

static void gather_strip(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct xfer *x = ctx;
    char *d = p[0];
    const char *v = p[1];
    for (int64_t i = 0; i < n; i++, d += s[0], v += s[1]) {
        double val = sim_dt_load(x->dt, v);
        memcpy(d, &val, sizeof val);
    }
}

static void scatter_strip(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct xfer *x = ctx;
    char *v = p[0];
    const char *d = p[1];
    for (int64_t i = 0; i < n; i++, v += s[0], d += s[1]) {
        double val;
        memcpy(&val, d, sizeof val);
        sim_dt_store(x->dt, v, val);
    }
}

/* Strides of a row-major array of the view's shape. */
static void row_major(const struct sim_view *v, int64_t *st)
{
    int64_t s = 1;
    for (int i = v->ndims - 1; i >= 0; i--) {
        st[i] = s;
        s *= v->dims[i];
    }
}

void sim_gather_f64(const struct sim_view *v, const char *elem0, double *dst)
{
    struct sim_iter it;
    int64_t st[SIM_OP_MAX_DIMS];
    row_major(v, st);
    sim_iter_init(&it, v->ndims, v->dims);
    sim_iter_add(&it, (char *)dst, v->ndims, v->dims, st, sizeof *dst);
    sim_iter_add_view(&it, (char *)(uintptr_t)elem0, v);
    sim_iter_coalesce(&it, 0);
    struct xfer x = {v->dt};
    sim_iter_run(&it, gather_strip, &x);
}

void sim_gather_f64_bcast(const struct sim_view *v, const char *elem0, int nd,
                          const int64_t *dims, double *dst)
{
    struct sim_iter it;
    struct sim_view shape = {.ndims = nd};
    memcpy(shape.dims, dims, (size_t)nd * sizeof *dims);
    int64_t st[SIM_OP_MAX_DIMS];
    row_major(&shape, st);
    sim_iter_init(&it, nd, dims);
    sim_iter_add(&it, (char *)dst, nd, dims, st, sizeof *dst);
    sim_iter_add_view(&it, (char *)(uintptr_t)elem0, v);
    sim_iter_coalesce(&it, 0);
    struct xfer x = {v->dt};
    sim_iter_run(&it, gather_strip, &x);
}

void sim_scatter_f64(const struct sim_view *v, char *elem0, const double *src)
{
    struct sim_iter it;
    int64_t st[SIM_OP_MAX_DIMS];
    row_major(v, st);
    sim_iter_init(&it, v->ndims, v->dims);
    sim_iter_add_view(&it, elem0, v);
    sim_iter_add(&it, (char *)(uintptr_t)src, v->ndims, v->dims, st, sizeof *src);
    sim_iter_coalesce(&it, 0);
    struct xfer x = {v->dt};
    sim_iter_run(&it, scatter_strip, &x);
}
