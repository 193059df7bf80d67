/*
 * nz.c - CANN's FRACTAL_NZ matrix layout (api/abi/opview.h) in the
 * simulator: a matrix product reads a FRACTAL_NZ operand through
 * sim_nz_gather, and TRANS_NZ, the kernel of aclnnTransMatmulWeight, lays
 * an ND weight out in NZ in place (its padding zeros, as CANN's TransData
 * writes it).
 */
#include <string.h>
#include "api/abi/opview.h"
#include "base/mem.h"
#include "ops.h"

/* Storage element of view element (b, i, j): batch b's matrix, row i and
 * column j of the view (of the stored matrix's transpose when nz_t). */
static int64_t nz_at(const struct sim_view *v, int64_t b, int64_t i, int64_t j)
{
    int64_t r = v->dims[v->ndims - 2], c = v->dims[v->ndims - 1];
    if (v->nz_t) {
        int64_t t = i;
        i = j, j = t, t = r, r = c, c = t;
    }
    return b * opview_nz_matrix(r, c, v->nz_c0) + opview_nz_index(i, j, r, v->nz_c0);
}

void sim_nz_gather(const struct sim_view *v, const char *elem0, void *a, bool dbl)
{
    int64_t r = v->dims[v->ndims - 2], c = v->dims[v->ndims - 1], k = 0;
    int64_t batches = r && c ? sim_view_elems(v) / (r * c) : 0;
    size_t es = sim_dt_size(v->dt);
    for (int64_t b = 0; b < batches; b++)
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++, k++) {
                double x = sim_dt_load(v->dt, elem0 + nz_at(v, b, i, j) * (int64_t)es);
                if (dbl) {
                    ((double *)a)[k] = x;
                } else {
                    ((float *)a)[k] = (float)x;
                }
            }
}

enum sim_rc sim_nz_trans(const struct sim_op *op, struct sim_access *x)
{
    const struct sim_view *in = &op->in[0], *out = &op->out[0];
    int64_t n = sim_view_elems(in), r = in->dims[in->ndims - 2], c = in->dims[in->ndims - 1];
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    if (!d)
        return SIM_EHOSTMEM;
    sim_gather_f64(in, sim_access_in(x, op, 0), d);
    char *o = sim_access_out(x, 0);
    size_t es = sim_dt_size(out->dt);
    if (o && n) {
        memset(o, 0, (size_t)opview_nz_elems(out->ndims, out->dims, out->nz_c0, false) * es);
        for (int64_t k = 0; k < n; k++)
            sim_dt_store(out->dt, o + nz_at(out, k / (r * c), k / c % r, k % c) * (int64_t)es,
                         d[k]);
    }
    base_free(d);
    return SIM_OK;
}
