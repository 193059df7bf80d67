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

#endif /* ACLSIM_API_ABI_OPVIEW_H_ */
