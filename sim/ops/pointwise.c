/*
 * pointwise.c - the pointwise family (api/abi/ops/pointwise.def): unary
 * and binary arithmetic, comparisons and activations over the engine. Each
 * input is read in its own type, converted to the operator's calc type
 * (CANN's promoted type), the function computed there (in double, each
 * step's result rounded to the calc type; an integer calc type in int64,
 * wrapped to it) and the result converted to the output's type. GLU is the
 * gated form: an activation of one input times the other (the two halves
 * of one tensor, as views).
 * A new pointwise kind: its line in pointwise.def and its case below.
 */
#include <math.h>
#include <string.h>
#include "ops.h"

struct pw {
    enum sim_opkind kind;
    enum sim_dtype calc, o, a, b;
    double alpha;
    int64_t alpha_i;
    bool scaled;            /* alpha != 1 */
    const double *fp;       /* the operator's fparam */
    const int64_t *ip;      /* and iparam */
};

static double gelu_tanh(double x)
{
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static double silu(double x)
{
    return x / (1 + exp(-x));
}

static double gelu_erf(double x)
{
    return 0.5 * x * (1 + erf(x * 0.7071067811865476));
}

static double unary(const struct pw *w, double x)
{
    const double *f = w->fp;
    switch (w->kind) {
    case SIM_OP_RELU:
        return x > 0 ? x : 0;
    case SIM_OP_SIGMOID:
        return 1 / (1 + exp(-x));
    case SIM_OP_TANH:
        return tanh(x);
    case SIM_OP_GELU: /* the tanh approximation, as CANN's Gelu
                       * (hicann/ops-nn activation/gelu/docs/aclnnGelu.md) */
        return gelu_tanh(x);
    case SIM_OP_EXP:
        return exp(x);
    case SIM_OP_ABS:
        return fabs(x);
    case SIM_OP_NEG:
        return -x;
    case SIM_OP_SQRT:
        return sqrt(x);
    case SIM_OP_COS:
        return cos(x);
    case SIM_OP_SIN:
        return sin(x);
    case SIM_OP_LOG:
        return log(x);
    case SIM_OP_SIGN:
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case SIM_OP_SILU:
        return silu(x);
    case SIM_OP_GELU_ERF:
        return gelu_erf(x);
    case SIM_OP_ELU:
        return f[1] * (x > 0 ? x : f[0] * expm1(f[2] * x));
    case SIM_OP_LEAKY_RELU:
        return x > 0 ? x : f[0] * x;
    case SIM_OP_SOFTPLUS:
        return f[0] * x > f[1] ? x : log1p(exp(f[0] * x)) / f[0];
    case SIM_OP_HARDSIGMOID:
        return fmin(fmax(x / 6 + 0.5, 0), 1);
    case SIM_OP_HARDSWISH:
        return x * fmin(fmax(x + 3, 0), 6) / 6;
    case SIM_OP_CLAMP: /* ClipByValueV2: the upper bound wins over the lower */
        return isnan(x) ? x : fmin(fmax(x, f[0]), f[1]);
    case SIM_OP_THRESHOLD:
        return x > f[0] ? x : f[1];
    default:
        return x;
    }
}

static int64_t unary_i(const struct pw *w, int64_t x)
{
    const int64_t *ip = w->ip;
    switch (w->kind) {
    case SIM_OP_RELU:
        return x > 0 ? x : 0;
    case SIM_OP_ABS:
        return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    case SIM_OP_NEG:
        return (int64_t)(0 - (uint64_t)x);
    case SIM_OP_SIGN:
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case SIM_OP_HARDSIGMOID: /* (x + 3) / 6 in [0, 1], truncated */
        return x >= 3 ? 1 : 0;
    case SIM_OP_CLAMP: {
        int64_t m = x < ip[0] ? ip[0] : x;
        return m > ip[1] ? ip[1] : m;
    }
    case SIM_OP_THRESHOLD:
        return (double)x > w->fp[0] ? x : ip[1];
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
    case SIM_OP_GT:
        return a > b;
    case SIM_OP_EQ:
        return a == b;
    case SIM_OP_POW:
        return pow(a, b);
    default:
        return a < b || isnan(a) ? a : b;
    }
}

/* a to the power b in integers (wrapping); a negative b gives what
 * 1 / a^-b truncates to */
static int64_t pow_i(int64_t a, int64_t b)
{
    if (b < 0)
        return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    for (; b; b >>= 1, x *= x)
        if (b & 1)
            r *= x;
    return (int64_t)r;
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
    case SIM_OP_GT:
        return a > b;
    case SIM_OP_EQ:
        return a == b;
    case SIM_OP_POW:
        return pow_i(a, b);
    default:
        return a < b ? a : b;
    }
}

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
            r = (float)unary(w, x);
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
            r = unary(w, x);
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
            r = unary_i(w, x);
        }
        sim_dt_store_i(w->o, o, sim_dt_wrap(w->calc, r));
    }
}

/* GLU: p[0] out, p[1] a, p[2] b, p[3] the activation's own output (NULL:
 * none) */
static void strip_glu(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct sim_op *op = ctx;
    enum sim_dtype c = op->calc;
    char *o = p[0], *g = p[3];
    const char *a = p[1], *b = p[2];
    for (int64_t i = 0; i < n; i++, o += s[0], a += s[1], b += s[2]) {
        double x = sim_dt_round(c, sim_dt_load(op->in[0].dt, a));
        double y = sim_dt_round(c, sim_dt_load(op->in[1].dt, b));
        double act = sim_dt_round(c, op->iparam[0] == 0   ? silu(x)
                                     : op->iparam[0] == 1 ? gelu_erf(x)
                                                          : gelu_tanh(x));
        sim_dt_store(op->out[0].dt, o, sim_dt_round(c, act * y));
        if (g) {
            sim_dt_store(op->out[1].dt, g, act);
            g += s[3];
        }
    }
}

static enum sim_rc glu(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *o = &op->out[0];
    struct sim_iter it;
    sim_iter_init(&it, o->ndims, o->dims);
    sim_iter_add_view(&it, sim_access_out(x, 0), o);
    sim_iter_add_view(&it, sim_access_in(x, op, 0), &op->in[0]);
    sim_iter_add_view(&it, sim_access_in(x, op, 1), &op->in[1]);
    if (op->n_out > 1)
        sim_iter_add_view(&it, sim_access_out(x, 1), &op->out[1]);
    sim_iter_coalesce(&it, 0);
    if (op->n_out < 2) { /* the loop tests p[3] for the second output */
        it.base[3] = NULL;
        for (int j = 0; j < it.ndim; j++)
            it.strides[3][j] = 0;
        it.nops = 4;
    }
    sim_iter_run(&it, strip_glu, (void *)op);
    return SIM_OK;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    (void)ws_host, (void)ws_len;
    if (op->kind == SIM_OP_GLU)
        return glu(op, x);
    const struct sim_view *o = &op->out[0];
    struct pw w = {op->kind, op->calc, o->dt, op->in[0].dt, op->n_in > 1 ? op->in[1].dt : o->dt,
                   op->alpha, (int64_t)op->alpha, false, op->fparam, op->iparam};
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
    case SIM_OP_COS:
    case SIM_OP_SIN:
    case SIM_OP_LOG:
    case SIM_OP_SILU:
    case SIM_OP_GELU_ERF:
    case SIM_OP_ELU:
    case SIM_OP_SOFTPLUS:
    case SIM_OP_POW:
    case SIM_OP_GLU:
        *flops = 8 * n; /* a few vector instructions per element (assumption) */
        break;
    default:
        *flops = n;
    }
}

const struct sim_family sim_family_pointwise = {compute, cost};
