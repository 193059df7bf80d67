/*
 * matmul.c - the matrix products (api/abi/ops/matmul.def): MatMul and
 * BatchMatMul (leading dims broadcast, optional bias), GEMM and the
 * weight-quantised product, through the BLAS (OpenBLAS's cblas, installed
 * by ci/setup), never through loops of our own. An operand whose view BLAS
 * can read as it is (fp32, rows or columns of unit stride) is passed in
 * place with its leading dimension and batch strides; any other (fp16,
 * bf16, int8, strided both ways, broadcast inside a matrix) is gathered
 * through the engine into fp32 first: fp16 and bf16 products accumulate in
 * fp32, as the cube unit does. The weight-quantised product dequantises its
 * int8 or int4 weight in x's type first, then multiplies the same way. Integer products (GEMM of int8) go through
 * dgemm on doubles, exact as the cube's int32 accumulation. The fp32
 * accumulators are what the workspace keeps; they reach the output's view
 * in its type through the engine. A FRACTAL_NZ operand (a weight laid out
 * by aclnnTransMatmulWeight, TRANS_NZ in nz.c) is gathered from its NZ
 * fractals first.
 */
#include <cblas.h>
#include <string.h>
#include "base/mem.h"
#include "ops.h"

/* An operand as BLAS reads it: batch b's matrix starts at p + boff(b)
 * elements (bst: strides over the output's batch dims, 0 where it
 * broadcasts), rows of ld elements; flip: stored transposed. */
struct mat {
    char *p;
    void *own; /* a gathered copy to free, or NULL */
    int64_t ld;
    bool flip;
    int64_t bst[SIM_OP_MAX_DIMS];
};

/* ---- Gathering and scattering in the BLAS's element type ---- */

struct conv {
    enum sim_dtype dt;
    bool dbl; /* the BLAS side holds doubles, else floats */
};

static float load_f32(enum sim_dtype dt, const char *v)
{
    uint16_t h;
    switch (dt) {
    case SIM_DT_F32: {
        float f;
        memcpy(&f, v, sizeof f);
        return f;
    }
    case SIM_DT_F16:
        memcpy(&h, v, sizeof h);
        return sim_f16_to_f32(h);
    case SIM_DT_BF16:
        memcpy(&h, v, sizeof h);
        return sim_bf16_to_f32(h);
    default:
        return (float)sim_dt_load(dt, v);
    }
}

static void gather_strip(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct conv *c = ctx;
    char *d = p[0];
    const char *v = p[1];
    if (!c->dbl && c->dt == SIM_DT_F32 && s[0] == 4 && s[1] == 4) {
        memcpy(d, v, (size_t)n * 4);
        return;
    }
    for (int64_t i = 0; i < n; i++, d += s[0], v += s[1]) {
        if (c->dbl) {
            double x = sim_dt_load(c->dt, v);
            memcpy(d, &x, sizeof x);
        } else {
            float x = load_f32(c->dt, v);
            memcpy(d, &x, sizeof x);
        }
    }
}

static void scatter_strip(void *ctx, char *const *p, const int64_t *s, int64_t n)
{
    const struct conv *c = ctx;
    char *v = p[0];
    const char *d = p[1];
    if (!c->dbl && c->dt == SIM_DT_F32 && s[0] == 4 && s[1] == 4) {
        memcpy(v, d, (size_t)n * 4);
        return;
    }
    for (int64_t i = 0; i < n; i++, v += s[0], d += s[1]) {
        if (c->dbl) {
            double x;
            memcpy(&x, d, sizeof x);
            sim_dt_store(c->dt, v, x);
        } else {
            float x;
            memcpy(&x, d, sizeof x);
            sim_dt_store(c->dt, v, (double)x);
        }
    }
}

/* Row-major strides (elements) of the view's shape. */
static void dense_strides(int nd, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
}

/* Walk view v (element 0 at elem0), broadcast to the nd dims `dims` (v's
 * own when NULL), against the row-major array a of that shape: into a, or
 * (to_view) from a into the view. */
static void walk_dims(const struct sim_view *v, char *elem0, void *a, bool dbl, bool to_view,
                      int nd, const int64_t *dims)
{
    struct sim_iter it;
    int64_t st[SIM_OP_MAX_DIMS];
    if (!dims)
        nd = v->ndims, dims = v->dims;
    dense_strides(nd, dims, st);
    sim_iter_init(&it, nd, dims);
    if (to_view)
        sim_iter_add_view(&it, elem0, v);
    sim_iter_add(&it, a, nd, dims, st, dbl ? sizeof(double) : sizeof(float));
    if (!to_view)
        sim_iter_add_view(&it, elem0, v);
    sim_iter_coalesce(&it, 0);
    struct conv c = {v->dt, dbl};
    sim_iter_run(&it, to_view ? scatter_strip : gather_strip, &c);
}

static void walk(const struct sim_view *v, char *elem0, void *a, bool dbl, bool to_view)
{
    walk_dims(v, elem0, a, dbl, to_view, 0, NULL);
}

/* ---- Operands ---- */

/* Operand v (element 0 at elem0) over the output's nb batch dims od. */
static enum sim_rc operand(const struct sim_view *v, const char *elem0, const int64_t *od,
                           int nb, bool dbl, struct mat *m)
{
    int nd = v->ndims, vb = nd - 2;
    int64_t r = v->dims[nd - 2], c = v->dims[nd - 1];
    int64_t rs = v->strides[nd - 2], cs = v->strides[nd - 1];
    const int64_t *st = v->strides;
    int64_t dense[SIM_OP_MAX_DIMS];
    memset(m, 0, sizeof *m);
    if (c <= 1)
        cs = 1;
    if (r <= 1)
        rs = c > 1 ? c : 1;
    m->p = (char *)(uintptr_t)elem0;
    if (!dbl && v->dt == SIM_DT_F32 && cs == 1 && rs >= (c > 1 ? c : 1)) {
        m->ld = rs;
    } else if (!dbl && v->dt == SIM_DT_F32 && rs == 1 && cs >= (r > 1 ? r : 1)) {
        m->ld = cs, m->flip = true;
    } else {
        int64_t n = sim_view_elems(v);
        size_t es = dbl ? sizeof(double) : sizeof(float);
        if (!(m->own = base_malloc((size_t)(n ? n : 1) * es)))
            return SIM_EHOSTMEM;
        if (n && v->nz_c0)
            sim_nz_gather(v, elem0, m->own, dbl);
        else if (n)
            walk(v, (char *)(uintptr_t)elem0, m->own, dbl, false);
        m->p = m->own;
        m->ld = c > 1 ? c : 1;
        dense_strides(nd, v->dims, dense);
        st = dense;
    }
    for (int j = nb - 1, k = vb - 1; j >= 0; j--, k--)
        m->bst[j] = k < 0 || v->dims[k] == 1 || v->dims[k] != od[j] ? 0 : st[k];
    return SIM_OK;
}

static int64_t batch_offset(int64_t bi, const int64_t *od, int nb, const int64_t *bst)
{
    int64_t off = 0;
    for (int j = nb - 1; j >= 0; j--) {
        off += (bi % od[j]) * bst[j];
        bi /= od[j];
    }
    return off;
}

/* The input holding the bias row of out's last dim (-1: none). */
static int bias_input(const struct sim_op *op)
{
    if (op->kind == SIM_OP_WQBMM)
        return (int)op->iparam[3];
    return op->kind == SIM_OP_MATMUL && op->n_in >= 3 ? 2 : -1;
}

/* The result buffer before the product: zeros, the bias row or C (GEMM,
 * scaled by beta in the product). */
static void prefill(const struct sim_op *op, struct sim_access *x, bool dbl, int64_t total,
                    int64_t n, void *res)
{
    size_t es = dbl ? sizeof(double) : sizeof(float);
    int bi = bias_input(op);
    if (op->kind == SIM_OP_GEMM) {
        walk(&op->in[2], sim_access_in(x, op, 2), res, dbl, false);
    } else if (bi >= 0 && total) {
        struct sim_view row = op->in[bi];
        walk(&row, sim_access_in(x, op, bi), res, dbl, false);
        for (int64_t i = sim_view_elems(&row); i < total; i += n)
            memcpy((char *)res + (size_t)i * es, res, (size_t)n * es);
    } else {
        memset(res, 0, (size_t)total * es);
    }
}

/* ---- The weight-quantised product's weight ---- */

static double *gathered(const struct sim_op *op, struct sim_access *x, int i)
{
    int64_t n = sim_view_elems(&op->in[i]);
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    if (d)
        sim_gather_f64(&op->in[i], sim_access_in(x, op, i), d);
    return d;
}

/* Quantised element (i, j) of the weight from its bytes q (row-major over
 * the byte view, cols of them a row): int8 as it is, int4 from the nibble
 * of its packed axis p (the first element of a byte in the low nibble). */
static double quantised(const double *q, int64_t cols, int p, int64_t i, int64_t j)
{
    if (p < 0)
        return q[i * cols + j];
    int64_t bi = p == 0 ? i / 2 : i, bj = p == 1 ? j / 2 : j;
    int byte = (int)q[bi * cols + bj], high = (int)((p == 0 ? i : j) & 1);
    int u = (byte >> (4 * high)) & 0xf;
    return u >= 8 ? u - 16 : u;
}

/* (weight + offset) * scale as a row-major k x n fp32 matrix, each step in
 * x's type (in[0]'s, op->calc) as the kernel's vector unit does it. */
static float *dequantised(const struct sim_op *op, struct sim_access *x, int64_t k, int64_t n)
{
    const struct sim_view *s = &op->in[2];
    int p = (int)op->iparam[0], oi = (int)op->iparam[2];
    int64_t g = op->iparam[1], srows = s->ndims == 2 ? s->dims[0] : 1;
    int64_t scols = s->dims[s->ndims - 1];
    double *q = gathered(op, x, 1), *sc = gathered(op, x, 2);
    double *off = oi >= 0 ? gathered(op, x, oi) : NULL;
    int64_t cells = k * n;
    float *d = base_malloc((size_t)(cells ? cells : 1) * sizeof *d);
    if (q && sc && (oi < 0 || off) && d)
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < n; j++) {
                int64_t si = (srows > 1 ? i / g : 0) * scols + (scols > 1 ? j : 0);
                double v = quantised(q, op->in[1].dims[1], p, i, j);
                if (off)
                    v = sim_dt_round(op->calc, v + off[si]);
                d[i * n + j] = (float)sim_dt_round(op->calc, v * sc[si]);
            }
    else
        base_free(d), d = NULL;
    base_free(q), base_free(sc), base_free(off);
    return d;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    const struct sim_view *o = &op->out[0];
    bool gemm = op->kind == SIM_OP_GEMM, dbl = !sim_dt_is_float(o->dt);
    bool bias = bias_input(op) >= 0;
    int nb = o->ndims - 2;
    int64_t m = o->dims[nb], n = o->dims[nb + 1];
    const struct sim_view *x1 = &op->in[0];
    int64_t k = op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1];
    int64_t batches = 1;
    for (int i = 0; i < nb; i++)
        batches *= o->dims[i];
    int64_t total = batches * m * n;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    struct mat a, b;
    void *res = base_malloc((size_t)(total ? total : 1) * es);
    enum sim_rc rc = res ? operand(x1, sim_access_in(x, op, 0), o->dims, nb, dbl, &a)
                         : SIM_EHOSTMEM;
    if (rc == SIM_OK && op->kind == SIM_OP_WQBMM) {
        memset(&b, 0, sizeof b);
        b.own = dequantised(op, x, k, n);
        b.p = b.own;
        b.ld = n > 1 ? n : 1;
        if (!b.own)
            rc = SIM_EHOSTMEM, base_free(a.own);
    } else if (rc == SIM_OK && (rc = operand(&op->in[1], sim_access_in(x, op, 1), o->dims, nb,
                                             dbl, &b)) != SIM_OK) {
        base_free(a.own);
    }
    if (rc != SIM_OK) {
        base_free(res);
        return rc;
    }
    prefill(op, x, dbl, total, n, res);
    double alpha = 1, beta = bias ? 1 : 0;
    if (gemm) { /* 0-d tensors, on the device (aclblas) or the host (aclnnGemm) */
        alpha = sim_dt_load(op->in[3].dt, sim_access_in(x, op, 3));
        beta = sim_dt_load(op->in[4].dt, sim_access_in(x, op, 4));
    }
    enum CBLAS_TRANSPOSE ta = op->trans_a != a.flip ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = op->trans_b != b.flip ? CblasTrans : CblasNoTrans;
    for (int64_t bi = 0; m && n && bi < batches; bi++) {
        char *pa = a.p + batch_offset(bi, o->dims, nb, a.bst) * (dbl ? 8 : 4);
        char *pb = b.p + batch_offset(bi, o->dims, nb, b.bst) * (dbl ? 8 : 4);
        char *pc = (char *)res + (size_t)(bi * m * n) * es;
        if (dbl)
            cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, alpha, (double *)pa,
                        (int)a.ld, (double *)pb, (int)b.ld, beta, (double *)pc, (int)n);
        else
            cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (float)alpha,
                        (float *)pa, (int)a.ld, (float *)pb, (int)b.ld, (float)beta,
                        (float *)pc, (int)n);
    }
    base_free(a.own), base_free(b.own);
    if (total)
        walk(o, sim_access_out(x, 0), res, dbl, true);
    if (dbl) { /* the workspace keeps fp32 accumulators */
        float *f = (float *)res;
        for (int64_t i = 0; i < total; i++)
            f[i] = (float)((double *)res)[i];
    }
    *ws_host = res;
    *ws_len = (size_t)total * sizeof(float);
    return SIM_OK;
}

/* ---- The triangular solve ---- */

/* xOut = A \ self (A's upper or lower triangle, maybe transposed, maybe
 * with a unit diagonal), batch dims broadcast; mOut = A broadcast. Through
 * trsm, in float32 or double as the operator's type. */
static enum sim_rc solve(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *xo = &op->out[0];
    bool dbl = xo->dt == SIM_DT_F64;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    int nd = xo->ndims, nb = nd - 2;
    int64_t m = xo->dims[nb], n = xo->dims[nb + 1], batches = 1, ad[SIM_OP_MAX_DIMS];
    for (int i = 0; i < nb; i++)
        batches *= xo->dims[i], ad[i] = xo->dims[i];
    ad[nb] = ad[nb + 1] = m;
    if (!batches || !m || !n)
        return SIM_OK;
    char *b = base_malloc((size_t)(batches * m * n) * es);
    char *a = base_malloc((size_t)(batches * m * m) * es);
    if (!a || !b) {
        base_free(a), base_free(b);
        return SIM_EHOSTMEM;
    }
    walk_dims(&op->in[0], sim_access_in(x, op, 0), b, dbl, false, nd, xo->dims);
    walk_dims(&op->in[1], sim_access_in(x, op, 1), a, dbl, false, nd, ad);
    enum CBLAS_UPLO uplo = op->iparam[0] ? CblasUpper : CblasLower;
    enum CBLAS_TRANSPOSE tr = op->iparam[1] ? CblasTrans : CblasNoTrans;
    enum CBLAS_DIAG diag = op->iparam[2] ? CblasUnit : CblasNonUnit;
    for (int64_t bi = 0; bi < batches; bi++) {
        char *pa = a + (size_t)(bi * m * m) * es, *pb = b + (size_t)(bi * m * n) * es;
        if (dbl)
            cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, tr, diag, (int)m, (int)n, 1.0,
                        (double *)pa, (int)m, (double *)pb, (int)n);
        else
            cblas_strsm(CblasRowMajor, CblasLeft, uplo, tr, diag, (int)m, (int)n, 1.0f,
                        (float *)pa, (int)m, (float *)pb, (int)n);
    }
    walk(xo, sim_access_out(x, 0), b, dbl, true);
    if (op->n_out > 1)
        walk(&op->out[1], sim_access_out(x, 1), a, dbl, true);
    base_free(a), base_free(b);
    return SIM_OK;
}

static enum sim_rc compute_kind(const struct sim_op *op, struct sim_access *x, void **ws_host,
                                size_t *ws_len)
{
    if (op->kind == SIM_OP_TRSM)
        return solve(op, x);
    if (op->kind == SIM_OP_TRANS_NZ)
        return sim_nz_trans(op, x);
    return compute(op, x, ws_host, ws_len);
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    if (op->kind == SIM_OP_TRSM) { /* m * m * n multiply-adds a batch, on the vector unit */
        const struct sim_view *xo = &op->out[0];
        *flops = (double)sim_view_elems(xo) * (double)xo->dims[xo->ndims - 2];
        *cube = false;
        return;
    }
    if (op->kind == SIM_OP_TRANS_NZ) { /* a move, element by element */
        *flops = (double)sim_view_elems(&op->in[0]);
        *cube = false;
        return;
    }
    const struct sim_view *x1 = &op->in[0];
    double k = (double)(op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1]);
    *flops = 2 * (double)sim_view_elems(&op->out[0]) * k;
    *cube = true;
}

const struct sim_family sim_family_matmul = {compute_kind, cost};
