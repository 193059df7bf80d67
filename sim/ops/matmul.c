/*
 * matmul.c - the matrix products (api/abi/ops/matmul.def): MatMul and
 * BatchMatMul (leading dims broadcast, optional bias) and GEMM. The
 * operands are gathered through the engine from their views (transposed,
 * strided or broadcast alike) into row-major doubles, multiplied with
 * double accumulation, and the result scattered into the output's view in
 * its type; the workspace keeps the fp32 accumulators.
 */
#include "base/mem.h"
#include "ops.h"

/* Matrix strides (in matrices) of a batch of `nb` leading dims of v against
 * the output's batch dims od: 0 where v broadcasts. */
static void batch_strides(const struct sim_view *v, const int64_t *od, int nb, int64_t *st)
{
    int vb = v->ndims - 2;
    int64_t s = 1;
    for (int j = nb - 1, k = vb - 1; j >= 0; j--, k--) {
        st[j] = k < 0 || v->dims[k] == 1 || v->dims[k] != od[j] ? 0 : s;
        if (k >= 0)
            s *= v->dims[k];
    }
}

/* Offset (in matrices) of batch bi with strides st over dims od. */
static int64_t batch_offset(int64_t bi, const int64_t *od, int nb, const int64_t *st)
{
    int64_t off = 0;
    for (int j = nb - 1; j >= 0; j--) {
        off += (bi % od[j]) * st[j];
        bi /= od[j];
    }
    return off;
}

static double *gathered(const struct sim_op *op, struct sim_access *x, int i)
{
    int64_t n = sim_view_elems(&op->in[i]);
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    if (d)
        sim_gather_f64(&op->in[i], sim_access_in(x, op, i), d);
    return d;
}

static enum sim_rc compute(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len)
{
    const struct sim_view *x1 = &op->in[0], *x2 = &op->in[1], *o = &op->out[0];
    bool gemm = op->kind == SIM_OP_GEMM, bias = !gemm && op->n_in >= 3;
    int64_t m = o->dims[o->ndims - 2], n = o->dims[o->ndims - 1];
    int64_t k = op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1];
    int nb = o->ndims - 2;
    int64_t batches = 1;
    for (int i = 0; i < nb; i++)
        batches *= o->dims[i];
    int64_t total = batches * m * n;
    double *a = gathered(op, x, 0), *b = gathered(op, x, 1);
    double *c = bias || gemm ? gathered(op, x, 2) : NULL;
    double *res = base_malloc((size_t)(total ? total : 1) * sizeof *res);
    float *acc = base_malloc((size_t)(total ? total : 1) * sizeof *acc);
    if (!a || !b || ((bias || gemm) && !c) || !res || !acc) {
        base_free(a), base_free(b), base_free(c), base_free(res), base_free(acc);
        return SIM_EHOSTMEM;
    }
    int64_t s1[SIM_OP_MAX_DIMS] = {0}, s2[SIM_OP_MAX_DIMS] = {0};
    batch_strides(x1, o->dims, nb, s1);
    batch_strides(x2, o->dims, nb, s2);
    double alpha = 1, beta = 0;
    if (gemm) { /* 0-d tensors, on the device (aclblas) or the host (aclnnGemm) */
        alpha = sim_dt_load(op->in[3].dt, sim_access_in(x, op, 3));
        beta = sim_dt_load(op->in[4].dt, sim_access_in(x, op, 4));
    }
    for (int64_t bi = 0; bi < batches; bi++) {
        const double *pa = a + batch_offset(bi, o->dims, nb, s1) * m * k;
        const double *pb = b + batch_offset(bi, o->dims, nb, s2) * k * n;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double sum = 0;
                for (int64_t p = 0; p < k; p++)
                    sum += pa[op->trans_a ? p * m + i : i * k + p] *
                           pb[op->trans_b ? j * k + p : p * n + j];
                int64_t io = bi * m * n + i * n + j;
                if (bias)
                    sum += c[j];
                if (gemm)
                    sum = alpha * sum + beta * c[io];
                acc[io] = (float)sum;
                res[io] = sim_dt_is_float(o->dt) ? (double)acc[io] : sum;
            }
    }
    sim_scatter_f64(o, sim_access_out(x, 0), res);
    base_free(a), base_free(b), base_free(c), base_free(res);
    *ws_host = acc;
    *ws_len = (size_t)total * sizeof *acc;
    return SIM_OK;
}

static void cost(const struct sim_op *op, double *flops, bool *cube)
{
    const struct sim_view *x1 = &op->in[0];
    double k = (double)(op->trans_a ? x1->dims[x1->ndims - 2] : x1->dims[x1->ndims - 1]);
    *flops = 2 * (double)sim_view_elems(&op->out[0]) * k;
    *cube = true;
}

const struct sim_family sim_family_matmul = {compute, cost};
