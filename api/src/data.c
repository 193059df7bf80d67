/*
 * data.c - data types and data buffers (the DATA family of api/calls.def).
 *
 * Pure host-side bookkeeping: nothing here reaches a backend.
 */
#include "api.h"

size_t api_impl_aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4: /* sub-byte types still take a byte each, as CANN says */
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        /* INT64, UINT64, DOUBLE, COMPLEX64, and (as in CANN's runtime) any
         * other value, the 4-bit float types included. */
        return 8;
    }
}
