/*
 * kernels.c - the work of the built-in operators: real results on the device
 * bytes, and their roofline time (roofline.c). stream.c puts an operator
 * in its stream's queue and task.c runs it when the stream reaches it
 * (sim_op_run in sim.h); this file only computes.
 *
 * A kernel reads its inputs through the host view of device memory into
 * host scratch (sim_mem_copy), computes in double precision (int64 for
 * integer results that must stay exact), rounds to the output type (fp16
 * and bf16 round to nearest even, float to int truncates toward zero and
 * saturates) and writes the output back, all when the operator runs, as
 * every simulated task moves its bytes when it runs. Operators that the ACL
 * layer gives allocator memory really use it: each writes its tiling record
 * into its tiling block, and MatMul/GEMM and ReduceSum keep their fp32
 * accumulators in their workspace. The ACL layer has validated shapes,
 * types and buffers (oplib.c); nothing here checks them again, except
 * that the device memory of an operator that waited in a queue is still
 * live (sim_op_live).
 */
#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "internal.h"
#include "queue.h"

/* ---- Element types ---- */

static size_t dt_size(enum sim_dtype dt)
{
    switch (dt) {
    case SIM_DT_F16:
    case SIM_DT_BF16:
        return 2;
    case SIM_DT_I8:
    case SIM_DT_U8:
        return 1;
    case SIM_DT_I64:
        return 8;
    default:
        return 4;
    }
}

static bool is_float(enum sim_dtype dt)
{
    return dt == SIM_DT_F32 || dt == SIM_DT_F16 || dt == SIM_DT_BF16;
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        unsigned shift = (unsigned)(14 - e);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = (uint32_t)e << 10 | man >> 13, rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent: still right */
    return (uint16_t)(sign | half);
}

static float bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static double load(const void *p, enum sim_dtype dt, size_t i)
{
    switch (dt) {
    case SIM_DT_F32:
        return ((const float *)p)[i];
    case SIM_DT_F16:
        return f16_to_f32(((const uint16_t *)p)[i]);
    case SIM_DT_BF16:
        return bf16_to_f32(((const uint16_t *)p)[i]);
    case SIM_DT_I32:
        return ((const int32_t *)p)[i];
    case SIM_DT_I8:
        return ((const int8_t *)p)[i];
    case SIM_DT_U8:
        return ((const uint8_t *)p)[i];
    case SIM_DT_I64:
        return (double)((const int64_t *)p)[i];
    }
    return 0;
}

static double clamp_int(double v, double lo, double hi)
{
    if (v != v)
        return 0; /* NaN */
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static void store(void *p, enum sim_dtype dt, size_t i, double v)
{
    switch (dt) {
    case SIM_DT_F32:
        ((float *)p)[i] = (float)v;
        break;
    case SIM_DT_F16:
        ((uint16_t *)p)[i] = f32_to_f16((float)v);
        break;
    case SIM_DT_BF16:
        ((uint16_t *)p)[i] = f32_to_bf16((float)v);
        break;
    case SIM_DT_I32:
        ((int32_t *)p)[i] = (int32_t)clamp_int(v, INT32_MIN, INT32_MAX);
        break;
    case SIM_DT_I8:
        ((int8_t *)p)[i] = (int8_t)clamp_int(v, INT8_MIN, INT8_MAX);
        break;
    case SIM_DT_U8:
        ((uint8_t *)p)[i] = (uint8_t)clamp_int(v, 0, UINT8_MAX);
        break;
    case SIM_DT_I64:
        ((int64_t *)p)[i] = (int64_t)clamp_int(v, -9.2e18, 9.2e18);
        break;
    }
}

/* ---- Tensors in host scratch ---- */

static size_t elems(const struct sim_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->ndims; i++)
        n *= (size_t)t->dims[i];
    return n;
}

static size_t bytes_of(const struct sim_tensor *t)
{
    return elems(t) * dt_size(t->dt);
}

/* A host copy of t's bytes (at least one byte allocated). */
static enum sim_rc fetch(const struct sim_tensor *t, void **out)
{
    size_t n = bytes_of(t);
    void *h = base_malloc(n ? n : 1);
    if (!h)
        return SIM_EHOSTMEM;
    enum sim_rc rc = SIM_OK;
    if (n && t->dev)
        rc = sim_mem_copy(h, false, t->data, true, n);
    else if (n)
        memcpy(h, t->data, n);
    if (rc != SIM_OK) {
        base_free(h);
        return rc;
    }
    *out = h;
    return SIM_OK;
}

/* Strides of `t` against output dims `od` (nd of them), right-aligned,
 * 0 where t broadcasts. */
static void bcast_strides(const struct sim_tensor *t, const int64_t *od, int nd, int64_t *st)
{
    int64_t s = 1;
    for (int j = nd - 1, k = t->ndims - 1; j >= 0; j--, k--) {
        if (k < 0 || t->dims[k] == 1 || (od[j] != t->dims[k])) {
            st[j] = 0;
        } else {
            st[j] = s;
        }
        if (k >= 0)
            s *= t->dims[k];
    }
}

/* Offset of output element i in a tensor with strides st. */
static size_t offset_of(size_t i, const int64_t *od, int nd, const int64_t *st)
{
    size_t off = 0;
    for (int j = nd - 1; j >= 0; j--) {
        size_t idx = i % (size_t)od[j];
        i /= (size_t)od[j];
        off += idx * (size_t)st[j];
    }
    return off;
}

/* ---- Kernels: each fills `out` (host scratch of the output) ---- */

static double unary(enum sim_opkind k, double x)
{
    switch (k) {
    case SIM_OP_RELU:
        return x > 0 ? x : 0;
    case SIM_OP_SIGMOID:
        return 1 / (1 + exp(-x));
    case SIM_OP_TANH:
        return tanh(x);
    case SIM_OP_GELU: /* the tanh approximation, as CANN's Gelu */
        return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case SIM_OP_EXP:
        return exp(x);
    case SIM_OP_ABS:
        return fabs(x);
    case SIM_OP_NEG:
        return -x;
    case SIM_OP_SQRT:
        return sqrt(x);
    default: /* CAST */
        return x;
    }
}

static double binary(enum sim_opkind k, double a, double b, bool ints)
{
    switch (k) {
    case SIM_OP_ADD:
        return a + b;
    case SIM_OP_SUB:
        return a - b;
    case SIM_OP_MUL:
        return a * b;
    case SIM_OP_DIV:
        if (ints) /* integer division truncates; by zero gives 0 (no trap on a device) */
            return b == 0 ? 0 : trunc(a / b);
        return a / b;
    case SIM_OP_MAXIMUM:
        return a > b ? a : b;
    default:
        return a < b ? a : b;
    }
}

static void k_elementwise(const struct sim_op *op, void *const *in, void *out)
{
    /* The loops read op's fields through locals: stores to `out` could
     * alias them for all the compiler knows. */
    const struct sim_tensor *o = &op->out;
    const enum sim_opkind kind = op->kind;
    const enum sim_dtype odt = o->dt, adt = op->in[0].dt;
    size_t n = elems(o);
    if (op->n_in == 1) {
        for (size_t i = 0; i < n; i++)
            store(out, odt, i, unary(kind, load(in[0], adt, i)));
        return;
    }
    bool ints = !is_float(odt);
    const struct sim_tensor *a = &op->in[0], *b = &op->in[1];
    const enum sim_dtype bdt = b->dt;
    /* aclnn's Add and Sub scale the second operand: self +- alpha * other */
    const double alpha = op->scaled ? op->alpha : 1;
    if (elems(a) == n && elems(b) == n) {
        for (size_t i = 0; i < n; i++)
            store(out, odt, i, binary(kind, load(in[0], adt, i), alpha * load(in[1], bdt, i), ints));
        return;
    }
    int64_t sa[SIM_OP_MAX_DIMS], sb[SIM_OP_MAX_DIMS];
    bcast_strides(a, o->dims, o->ndims, sa);
    bcast_strides(b, o->dims, o->ndims, sb);
    for (size_t i = 0; i < n; i++) {
        double x = load(in[0], adt, offset_of(i, o->dims, o->ndims, sa));
        double y = alpha * load(in[1], bdt, offset_of(i, o->dims, o->ndims, sb));
        store(out, odt, i, binary(kind, x, y, ints));
    }
}

/* MatMul/BatchMatMul (with optional bias) and GEMM. acc receives the fp32
 * accumulators (batch*m*n). */
static void k_matmul(const struct sim_op *op, void *const *in, void *out, float *acc)
{
    const struct sim_tensor *x1 = &op->in[0], *x2 = &op->in[1], *o = &op->out;
    int64_t m = o->dims[o->ndims - 2], n = o->dims[o->ndims - 1];
    int64_t k = op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1];
    int bnd = o->ndims - 2;
    size_t batches = 1;
    for (int i = 0; i < bnd; i++)
        batches *= (size_t)o->dims[i];
    /* Batch strides (in matrices) of x1 and x2 against the output's. */
    struct sim_tensor b1 = *x1, b2 = *x2;
    b1.ndims -= 2;
    b2.ndims -= 2;
    int64_t s1[SIM_OP_MAX_DIMS] = {0}, s2[SIM_OP_MAX_DIMS] = {0};
    if (bnd > 0) {
        bcast_strides(&b1, o->dims, bnd, s1);
        bcast_strides(&b2, o->dims, bnd, s2);
    }
    bool gemm = op->kind == SIM_OP_GEMM;
    bool bias = !gemm && op->n_in >= 3;
    double alpha = gemm ? load(in[3], op->in[3].dt, 0) : 1, beta = gemm ? load(in[4], op->in[4].dt, 0) : 0;
    for (size_t bi = 0; bi < batches; bi++) {
        size_t o1 = bnd ? offset_of(bi, o->dims, bnd, s1) * (size_t)(m * k) : 0;
        size_t o2 = bnd ? offset_of(bi, o->dims, bnd, s2) * (size_t)(k * n) : 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double sum = 0;
                for (int64_t p = 0; p < k; p++) {
                    size_t ia = o1 + (size_t)(op->trans_a ? p * m + i : i * k + p);
                    size_t ib = o2 + (size_t)(op->trans_b ? j * k + p : p * n + j);
                    sum += load(in[0], x1->dt, ia) * load(in[1], x2->dt, ib);
                }
                size_t io = bi * (size_t)(m * n) + (size_t)(i * n + j);
                if (bias)
                    sum += load(in[2], op->in[2].dt, (size_t)j);
                if (gemm)
                    sum = alpha * sum + beta * load(in[2], op->in[2].dt, io);
                acc[io] = (float)sum;
                store(out, o->dt, io, is_float(o->dt) ? (double)acc[io] : sum);
            }
    }
}

static void k_reduce_sum(const struct sim_op *op, void *const *in, void *out, float *acc)
{
    const struct sim_tensor *x = &op->in[0], *o = &op->out;
    size_t n = elems(x), no = elems(o);
    bool reduced[SIM_OP_MAX_DIMS] = {false};
    for (int i = 0; i < op->n_axes; i++)
        reduced[op->axes[i]] = true;
    double *sum = (double *)out; /* caller gives no*8 bytes of scratch here */
    for (size_t i = 0; i < no; i++)
        sum[i] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t rest = i, oi = 0, mul = 1;
        for (int d = x->ndims - 1; d >= 0; d--) {
            size_t idx = rest % (size_t)x->dims[d];
            rest /= (size_t)x->dims[d];
            if (!reduced[d]) {
                oi += idx * mul;
                mul *= (size_t)x->dims[d];
            }
        }
        sum[oi] += load(in[0], x->dt, i);
    }
    for (size_t i = 0; i < no; i++)
        acc[i] = (float)sum[i];
}

static void k_transpose(const struct sim_op *op, void *const *in, void *out)
{
    const struct sim_tensor *x = &op->in[0], *o = &op->out;
    int nd = x->ndims;
    int64_t xs[SIM_OP_MAX_DIMS], st[SIM_OP_MAX_DIMS];
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        xs[d] = s;
        s *= x->dims[d];
    }
    for (int j = 0; j < nd; j++)
        st[j] = xs[op->axes[j]];
    size_t n = elems(o), w = dt_size(o->dt);
    for (size_t i = 0; i < n; i++)
        memcpy((char *)out + i * w, (const char *)in[0] + offset_of(i, o->dims, nd, st) * w, w);
}

/* ---- Cost ---- */

static void cost(const struct sim_op *op, double *flops, double *bytes, bool *cube)
{
    *bytes = (double)bytes_of(&op->out);
    for (int i = 0; i < op->n_in; i++)
        *bytes += (double)bytes_of(&op->in[i]);
    double n = (double)elems(&op->out);
    *cube = false;
    switch (op->kind) {
    case SIM_OP_MATMUL:
    case SIM_OP_GEMM: {
        const struct sim_tensor *x1 = &op->in[0];
        double k = (double)(op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1]);
        *flops = 2 * n * k;
        *cube = true;
        break;
    }
    case SIM_OP_SIGMOID:
    case SIM_OP_TANH:
    case SIM_OP_GELU:
    case SIM_OP_EXP:
        *flops = 8 * n; /* a few vector instructions per element (assumption) */
        break;
    case SIM_OP_REDUCE_SUM:
        *flops = (double)elems(&op->in[0]);
        break;
    case SIM_OP_TRANSPOSE:
        *flops = 0;
        break;
    default:
        *flops = n;
    }
}

/* A small record of what the kernel runs with, as tiling data is. */
struct tiling {
    uint32_t kind, n_in;
    uint64_t out_elems;
    uint64_t dims[2];
};

/* Compute op's results into host scratch and write them to the device:
 * its output, its tiling record and, for operators that accumulate, its
 * workspace. */
static enum sim_rc compute(const struct sim_op *op)
{
    void *in[SIM_OP_MAX_IN] = {NULL}, *out = NULL;
    float *acc = NULL;
    enum sim_rc rc = SIM_OK;
    for (int i = 0; i < op->n_in && rc == SIM_OK; i++)
        rc = fetch(&op->in[i], &in[i]);
    size_t no = elems(&op->out), ob = bytes_of(&op->out);
    bool accumulates = op->kind == SIM_OP_MATMUL || op->kind == SIM_OP_GEMM ||
                       op->kind == SIM_OP_REDUCE_SUM;
    if (rc == SIM_OK) {
        size_t scratch = op->kind == SIM_OP_REDUCE_SUM ? no * sizeof(double) : ob;
        out = base_malloc(scratch > ob ? scratch : ob ? ob : 1);
        if (accumulates)
            acc = base_malloc(no ? no * sizeof *acc : 1);
        if (!out || (accumulates && !acc))
            rc = SIM_EHOSTMEM;
    }
    if (rc == SIM_OK) {
        switch (op->kind) {
        case SIM_OP_MATMUL:
        case SIM_OP_GEMM:
            k_matmul(op, in, out, acc);
            break;
        case SIM_OP_REDUCE_SUM:
            k_reduce_sum(op, in, out, acc);
            for (size_t i = 0; i < no; i++) /* the sums, rounded to the output type */
                store(out, op->out.dt, i, ((double *)out)[i]);
            break;
        case SIM_OP_TRANSPOSE:
            k_transpose(op, in, out);
            break;
        case SIM_OP_FILL:
            for (size_t i = 0; i < no; i++)
                store(out, op->out.dt, i, op->alpha);
            break;
        default:
            k_elementwise(op, in, out);
        }
        if (op->tiling) {
            struct tiling t = {(uint32_t)op->kind, (uint32_t)op->n_in, no,
                               {(uint64_t)(op->out.ndims ? op->out.dims[0] : 1),
                                (uint64_t)(op->out.ndims > 1 ? op->out.dims[1] : 1)}};
            size_t n = op->tiling_bytes < sizeof t ? op->tiling_bytes : sizeof t;
            rc = sim_mem_copy(op->tiling, true, &t, false, n);
        }
        if (rc == SIM_OK && op->ws && accumulates) {
            size_t n = no * sizeof *acc;
            rc = sim_mem_copy(op->ws, true, acc, false, n < op->ws_bytes ? n : op->ws_bytes);
        }
        if (rc == SIM_OK && ob)
            rc = sim_mem_copy((void *)op->out.data, true, out, false, ob);
    }
    for (int i = 0; i < op->n_in; i++)
        base_free(in[i]);
    base_free(out);
    base_free(acc);
    return rc;
}

enum sim_rc sim_op_compute(int32_t dev, const struct sim_op *op, uint64_t *ps)
{
    enum sim_rc rc = compute(op);
    if (rc != SIM_OK)
        return rc;
    double flops, bytes;
    bool cube;
    cost(op, &flops, &bytes, &cube);
    const struct sim_profile *p = sim_device_profile(dev);
    enum sim_dtype dt = op->kind == SIM_OP_CAST ? op->out.dt : op->in[0].dt;
    *ps = sim_roofline_ps(p, sim_device_soc(dev), cube, dt, flops, bytes);
    return SIM_OK;
}

/* ---- Operators that wait in a stream's queue ---- */

struct sim_op *sim_op_copy(const struct sim_op *op)
{
    size_t name = op->name ? strlen(op->name) + 1 : 0, total = sizeof *op + name;
    for (int i = 0; i < op->n_in; i++)
        if (!op->in[i].dev)
            total += bytes_of(&op->in[i]);
    struct sim_op *c = base_malloc(total);
    if (!c)
        return NULL;
    *c = *op;
    char *at = (char *)(c + 1);
    if (op->name) {
        memcpy(at, op->name, name);
        c->name = at;
        at += name;
    }
    /* Host inputs are taken now, as the host source of a queued copy is. */
    for (int i = 0; i < op->n_in; i++)
        if (!op->in[i].dev) {
            size_t n = bytes_of(&op->in[i]);
            if (n)
                memcpy(at, op->in[i].data, n);
            c->in[i].data = at;
            at += n;
        }
    return c;
}

/* Whether [p, p+n) is live device memory (nothing to check when n is 0). */
static bool holds(const void *p, size_t n)
{
    return n == 0 || sim_mem_holds(p, n);
}

bool sim_op_live(const struct sim_op *op)
{
    for (int i = 0; i < op->n_in; i++)
        if (op->in[i].dev && !holds(op->in[i].data, bytes_of(&op->in[i])))
            return false;
    return holds(op->out.data, bytes_of(&op->out)) && (!op->ws || holds(op->ws, op->ws_bytes)) &&
           (!op->tiling || holds(op->tiling, op->tiling_bytes));
}
