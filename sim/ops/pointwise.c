/*
 * pointwise.c - the pointwise family (api/abi/ops/pointwise.def): unary
 * and binary arithmetic and activations over the engine. Each input is
 * read in its own type, converted to the operator's calc type (CANN's
 * promoted type), the function computed there (in double, each step's
 * result rounded to the calc type; an integer calc type in int64, wrapped
 * to it) and the result converted to the output's type.
 * A new pointwise kind: its line in pointwise.def and its case below.
 */
#include <math.h>
#include <string.h>
#include "ops.h"

static double unary(enum sim_opkind k, double x)
{
    switch (k) {
    case SIM_OP_RELU:
        return x > 0 ? x : 0;
    case SIM_OP_SIGMOID:
        return 1 / (1 + exp(-x));
    case SIM_OP_TANH:
        return tanh(x);
    case SIM_OP_GELU: /* the tanh approximation, as CANN's Gelu
                       * (hicann/ops-nn activation/gelu/docs/aclnnGelu.md) */
        return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case SIM_OP_EXP:
        return exp(x);
    case SIM_OP_ABS:
        return fabs(x);
    case SIM_OP_NEG:
        return -x;
    case SIM_OP_SQRT:
        return sqrt(x);
    default:
        return x;
    }
}

static int64_t unary_i(enum sim_opkind k, int64_t x)
{
    switch (k) {
    case SIM_OP_RELU:
        return x > 0 ? x : 0;
    case SIM_OP_ABS:
        return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    case SIM_OP_NEG:
        return (int64_t)(0 - (uint64_t)x);
    default: /* the others take a floating calc type (the ACL layer's rule) */
        return x;
    }
}

static double binary(enum sim_opkind k, double a, double b)
{
    switch (k) {
    case SIM_OP_ADD:
        return a + b;
    case SIM_OP_SUB:
        return a - b;
    case SIM_OP_MUL:
        return a * b;
    case SIM_OP_DIV:
        return a / b;
    case SIM_OP_MAXIMUM:
        return a > b || isnan(a) ? a : b;
    default:
        return a < b || isnan(a) ? a : b;
    }
}

static int64_t binary_i(enum sim_opkind k, int64_t a, int64_t b)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (k) {
    case SIM_OP_ADD:
        return (int64_t)(ua + ub);
    case SIM_OP_SUB:
        return (int64_t)(ua - ub);
    case SIM_OP_MUL:
        return (int64_t)(ua * ub);
    case SIM_OP_DIV: /* truncates; by zero gives 0 (no trap on a device) */
        return b == 0 ? 0 : b == -1 ? (int64_t)(0 - ua) : a / b;
    case SIM_OP_MAXIMUM:
        return a > b ? a : b;
    default:
        return a < b ? a : b;
    }
}

struct pw {
    enum sim_opkind kind;
    enum sim_dtype calc, o, a, b;
    double alpha;
    int64_t alpha_i;
    bool scaled; /* alpha != 1 */
};

/* float32 in, float32 out, float32 calc: the common case, without
 * conversions */
static void strip_f32(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct pw *w = ctx;
    char *o = p[0];
    const char *a = p[1], *b = p[2];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1]) {
        float x, y = 0, r;
        memcpy(&x, a, 4);
        if (b) {
            memcpy(&y, b, 4);
            b += s[2];
            if (w->scaled)
                y = (float)(w->alpha * y);
            r = (float)binary(w->kind, x, y);
        } else {
            r = (float)unary(w->kind, x);
        }
        memcpy(o, &r, 4);
    }
}

static void strip_float(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct pw *w = ctx;
    char *o = p[0];
    const char *a = p[1], *b = p[2];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1]) {
        double x = sim_dt_round(w->calc, sim_dt_load(w->a, a)), r;
        if (b) {
            double y = sim_dt_round(w->calc, sim_dt_load(w->b, b));
            b += s[2];
            if (w->scaled)
                y = sim_dt_round(w->calc, w->alpha * y);
            r = binary(w->kind, x, y);
        } else {
            r = unary(w->kind, x);
        }
        sim_dt_store(w->o, o, sim_dt_round(w->calc, r));
    }
}

static void strip_int(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct pw *w = ctx;
    char *o = p[0];
    const char *a = p[1], *b = p[2];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1]) {
        int64_t x = sim_dt_wrap(w->calc, sim_dt_load_i(w->a, a)), r;
        if (b) {
            int64_t y = sim_dt_wrap(w->calc, sim_dt_load_i(w->b, b));
            b += s[2];
            if (w->scaled)
                y = sim_dt_wrap(w->calc, (int64_t)((uint64_t)w->alpha_i * (uint64_t)y));
            r = binary_i(w->kind, x, y);
        } else {
            r = unary_i(w->kind, x);
        }
        sim_dt_store_i(w->o, o, sim_dt_wrap(w->calc, r));
    }
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    const struct sim_view *o = &op->out[0];
    struct pw w = {op->kind, op->calc, o->dt, op->in[0].dt, op->n_in > 1 ? op->in[1].dt : o->dt,
                   op->alpha, (int64_t)op->alpha, false};
    w.scaled = (op->kind == SIM_OP_ADD || op->kind == SIM_OP_SUB) && op->alpha != 1;
    struct sim_iter it;
    sim_iter_init(&it, o->ndims, o->dims);
    sim_iter_add_view(&it, sim_access_out(x, 0), o);
    for (int i = 0; i < op->n_in; i++)
        sim_iter_add_view(&it, sim_access_in(x, op, i), &op->in[i]);
    sim_iter_coalesce(&it, 0);
    if (op->n_in < 2) { /* the loops test p[2] for a second input */
        it.base[2] = NULL;
        for (int j = 0; j < it.ndim; j++)
            it.strides[2][j] = 0;
        it.nops = 3;
    }
    bool all_f32 = w.calc == SIM_DT_F32 && w.o == SIM_DT_F32 && w.a == SIM_DT_F32 &&
                   w.b == SIM_DT_F32;
    sim_iter_run(&it, all_f32                    ? strip_f32
                      : sim_dt_is_float(w.calc) ? strip_float
                                                : strip_int,
                 &w);
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    double n = (double)sim_view_elems(&op->out[0]);
    *cube = false;
    switch (op->kind) {
    case SIM_OP_SIGMOID:
    case SIM_OP_TANH:
    case SIM_OP_GELU:
    case SIM_OP_EXP:
        *flops = 8 * n; /* a few vector instructions per element (assumption) */
        break;
    default:
        *flops = n;
    }
}

const struct sim_family sim_family_pointwise = {compute, cost};
