/*
 * rows.c - the row helpers of rows.h.
 */
#include "base/mem.h"
#include "rows.h"

double *sim_rows_load(const struct sim_view *v, const char *elem0)
{
    int64_t n = sim_view_elems(v);
    double *d = base_malloc((size_t)(n ? n : 1) * sizeof *d);
    if (d)
        sim_gather_f64(v, elem0, d);
    return d;
}

struct sim_view sim_view_axis_last(const struct sim_view *v, int d)
{
    struct sim_view r = *v;
    if (v->ndims == 0)
        return r;
    for (int i = d; i < v->ndims - 1; i++) {
        r.dims[i] = v->dims[i + 1];
        r.strides[i] = v->strides[i + 1];
    }
    r.dims[v->ndims - 1] = v->dims[d];
    r.strides[v->ndims - 1] = v->strides[d];
    return r;
}
