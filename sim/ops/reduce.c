/*
 * reduce.c - the reductions (api/abi/ops/reduce.def) over the engine: the
 * input is walked in its own layout against an accumulator laid out as the
 * output with strides 0 on the reduced axes (TensorIterator's reduction),
 * accumulated in double (int64 when the calc type is an integer type), then
 * written to the output in its type. The workspace keeps the fp32 partial
 * sums. A new reduction: its line in reduce.def, its accumulate and
 * finish steps below.
 */
#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "ops.h"

struct red {
    enum sim_dtype dt; /* the input's (accumulating) or the output's (writing) */
    enum sim_opkind kind;
    double p;     /* REDUCE_NORM's p */
    double count; /* elements reduced into each output (REDUCE_MEAN) */
};

/* What a float accumulator takes of element v, and how it takes it. */
static double take(const struct red *r, double a, double v)
{
    if (r->kind != SIM_OP_REDUCE_NORM)
        return a + v;
    v = fabs(v);
    if (isinf(r->p))
        return r->p > 0 ? (v > a ? v : a) : (v < a ? v : a);
    return a + (r->p == 0 ? (v != 0) : pow(v, r->p));
}

/* The output of a float accumulator. */
static double result(const struct red *r, double a)
{
    if (r->kind == SIM_OP_REDUCE_MEAN)
        return a / r->count;
    if (r->kind == SIM_OP_REDUCE_NORM && r->p != 0 && !isinf(r->p))
        return pow(a, 1 / r->p);
    return a;
}

static void acc_f(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct red *r = ctx;
    char *a = p[0];
    const char *x = p[1];
    for (int64_t i = 0; i < n; i++, a += s[0], x += s[1]) {
        double v;
        memcpy(&v, a, 8);
        v = take(r, v, sim_dt_load(r->dt, x));
        memcpy(a, &v, 8);
    }
}

static void acc_i(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct red *r = ctx;
    char *a = p[0];
    const char *x = p[1];
    for (int64_t i = 0; i < n; i++, a += s[0], x += s[1]) {
        int64_t v;
        memcpy(&v, a, 8);
        v = (int64_t)((uint64_t)v + (uint64_t)sim_dt_load_i(r->dt, x));
        memcpy(a, &v, 8);
    }
}

static void put_f(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct red *r = ctx;
    char *o = p[0];
    const char *a = p[1];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1]) {
        double v;
        memcpy(&v, a, 8);
        sim_dt_store(r->dt, o, result(r, v));
    }
}

static void put_i(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct red *r = ctx;
    char *o = p[0];
    const char *a = p[1];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1]) {
        int64_t v;
        memcpy(&v, a, 8);
        sim_dt_store_i(r->dt, o, v);
    }
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    const struct sim_view *in = &op->in[0], *o = &op->out[0];
    bool ints = !sim_dt_is_float(op->calc);
    int64_t n_out = sim_view_elems(o);
    /* the accumulator: row-major over the input's shape with the reduced
     * axes as 1 (the output's element order) */
    bool reduced[SIM_OP_MAX_DIMS] = {false};
    for (int i = 0; i < op->n_axes; i++)
        reduced[op->axes[i]] = true;
    int64_t keep[SIM_OP_MAX_DIMS], st[SIM_OP_MAX_DIMS], s = 1;
    for (int i = in->ndims - 1; i >= 0; i--) {
        keep[i] = reduced[i] ? 1 : in->dims[i];
        st[i] = s;
        s *= keep[i];
    }
    char *acc = base_calloc((size_t)(n_out ? n_out : 1), 8);
    float *part = base_malloc((size_t)(n_out ? n_out : 1) * sizeof *part);
    if (!acc || !part) {
        base_free(acc);
        base_free(part);
        return SIM_EHOSTMEM;
    }
    struct sim_iter it;
    sim_iter_init(&it, in->ndims, in->dims);
    sim_iter_add(&it, acc, in->ndims, keep, st, 8);
    sim_iter_add_view(&it, sim_access_in(x, op, 0), in);
    sim_iter_coalesce(&it, 1);
    int64_t n_in = sim_view_elems(in);
    struct red r = {in->dt, op->kind, op->fparam[0], n_out ? (double)n_in / (double)n_out : 1};
    if (r.kind == SIM_OP_REDUCE_NORM && isinf(r.p) && r.p < 0)
        for (int64_t i = 0; i < n_out; i++) /* the smallest |x| starts from +inf */
            memcpy(acc + 8 * i, &(double){INFINITY}, 8);
    sim_iter_run(&it, ints ? acc_i : acc_f, &r);
    /* the output, in its own layout */
    int64_t ost[SIM_OP_MAX_DIMS];
    s = 1;
    for (int i = o->ndims - 1; i >= 0; i--) {
        ost[i] = s;
        s *= o->dims[i];
    }
    sim_iter_init(&it, o->ndims, o->dims);
    sim_iter_add_view(&it, sim_access_out(x, 0), o);
    sim_iter_add(&it, acc, o->ndims, o->dims, ost, 8);
    sim_iter_coalesce(&it, 0);
    r.dt = o->dt;
    sim_iter_run(&it, ints ? put_i : put_f, &r);
    for (int64_t i = 0; i < n_out; i++) {
        double v;
        int64_t w;
        memcpy(&v, acc + 8 * i, 8);
        memcpy(&w, acc + 8 * i, 8);
        part[i] = ints ? (float)w : (float)v;
    }
    base_free(acc);
    *ws_host = part;
    *ws_len = (size_t)n_out * sizeof *part;
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    *cube = false;
    *flops = (double)sim_view_elems(&op->in[0]);
}

const struct sim_family sim_family_reduce = {compute, cost};
