/*
 * data.c - data types and data buffers (the DATA family of api/calls.def).
 *
 * Pure host-side bookkeeping: nothing here reaches a backend.
 */
#include "api.h"
#include "base/mem.h"

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

/* ---- Data buffers ----
 * A data buffer is a host object holding a pointer and a length; nothing is
 * checked against the memory it names (CANN's runtime: data_buffer.cpp).
 * Written here for the operator families; NULL checks give EH0008 with the
 * public name, as the runtime's ACL layer reports them. */

aclDataBuffer *api_impl_aclCreateDataBuffer(void *data, size_t size)
{
    API_FORWARD(aclCreateDataBuffer, (data, size));
    aclDataBuffer *b = base_malloc(sizeof *b);
    if (!b) {
        api_report(API_MSG_EH0010, "Failed to allocate %zu bytes of host memory via new to ACL.",
                   sizeof *b);
        return NULL;
    }
    *b = (aclDataBuffer){data, size};
    return b;
}

aclError api_impl_aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    API_FORWARD(aclDestroyDataBuffer, (dataBuffer));
    if (!dataBuffer)
        return api_err_null("aclDestroyDataBuffer", "dataBuffer");
    base_free((void *)dataBuffer);
    return ACL_SUCCESS;
}

aclError api_impl_aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    API_FORWARD(aclUpdateDataBuffer, (dataBuffer, data, size));
    if (!dataBuffer)
        return api_err_null("aclUpdateDataBuffer", "dataBuffer");
    *dataBuffer = (aclDataBuffer){data, size};
    return ACL_SUCCESS;
}

void *api_impl_aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    API_FORWARD(aclGetDataBufferAddr, (dataBuffer));
    return dataBuffer ? dataBuffer->data : NULL;
}

uint32_t api_impl_aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    API_FORWARD(aclGetDataBufferSize, (dataBuffer));
    return dataBuffer ? (uint32_t)dataBuffer->length : 0; /* truncated, as CANN's */
}

size_t api_impl_aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    API_FORWARD(aclGetDataBufferSizeV2, (dataBuffer));
    return dataBuffer ? dataBuffer->length : 0;
}
