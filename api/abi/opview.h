/*
 * opview.h - the arithmetic of a tensor view that the ACL layer (which
 * checks and reports the bytes an operator touches) and the simulator
 * (which reaches them) both need: which elements of its storage a view
 * (dims, strides and offset, in elements) reaches. Part of the operator
 * vocabulary every layer may include, like opkinds.def.
 */
#ifndef ACLSIM_API_ABI_OPVIEW_H_
#define ACLSIM_API_ABI_OPVIEW_H_

#include <stdbool.h>
#include <stdint.h>

/* The lowest and highest storage element a view reaches (*lo, *hi, from
 * the storage's start); false for a view of no elements (a dim of 0). */
static inline bool opview_extent(int ndims, const int64_t *dims, const int64_t *strides,
                                 int64_t offset, int64_t *lo, int64_t *hi)
{
    *lo = *hi = offset;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] == 0)
            return false;
        int64_t step = strides[i] * (dims[i] - 1);
        if (step < 0)
            *lo += step;
        else
            *hi += step;
    }
    return true;
}

/* ---- CANN's FRACTAL_NZ layout of matrices ----
 *
 * What aclnnTransMatmulWeight writes and the matrix products read from a
 * FRACTAL_NZ weight: an ND matrix [R, C] cut into fractals of 16 rows and
 * c0 columns (c0: 32 bytes of the type), R and C rounded up to them, the
 * fractals of one column block stored one after another down the rows, the
 * column blocks one after another: shape [C / c0, R / 16, 16, c0]
 * (hicann/ops-math conversion/trans_data/op_api/aclnn_trans_matmul_weight.cpp:
 * the sizes of CalculateMatmulWeightSize, L129-153). */

/* Elements one NZ matrix of R x C takes. */
static inline int64_t opview_nz_matrix(int64_t r, int64_t c, int c0)
{
    return (r + 15) / 16 * 16 * ((c + c0 - 1) / c0 * c0);
}

/* The NZ storage element of (r, c) of a matrix of `rows` rows. */
static inline int64_t opview_nz_index(int64_t r, int64_t c, int64_t rows, int c0)
{
    return ((c / c0) * ((rows + 15) / 16) + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0;
}

/* The storage elements an NZ view reaches from its offset: a whole NZ
 * matrix for each index of its leading dims; its last two dims are the
 * stored matrix (transposed: t); 0 for no elements. */
static inline int64_t opview_nz_elems(int ndims, const int64_t *dims, int c0, bool t)
{
    if (ndims < 2)
        return 0;
    int64_t r = dims[ndims - 2], c = dims[ndims - 1];
    int64_t n = t ? opview_nz_matrix(c, r, c0) : opview_nz_matrix(r, c, c0);
    for (int i = 0; i < ndims - 2; i++)
        n *= dims[i];
    return r && c ? n : 0;
}

/* The storage elements [*first, *first + *count) a view reaches, an NZ
 * one (nz_c0 > 0) its whole NZ matrices from its offset; *count 0 (and
 * *first 0) for a view of no elements. */
static inline void opview_span(int ndims, const int64_t *dims, const int64_t *strides,
                               int64_t offset, int nz_c0, bool nz_t, int64_t *first,
                               int64_t *count)
{
    int64_t lo, hi;
    if (nz_c0) {
        *count = opview_nz_elems(ndims, dims, nz_c0, nz_t);
        *first = *count ? offset : 0;
    } else if (opview_extent(ndims, dims, strides, offset, &lo, &hi)) {
        *first = lo;
        *count = hi - lo + 1;
    } else {
        *first = *count = 0;
    }
}

#endif /* ACLSIM_API_ABI_OPVIEW_H_ */
