/*
 * tensor.c - tensor descriptions (the TENSOR family of api/abi/calls.def,
 * acl_base_mdl.h): what an operator's inputs and outputs look like.
 *
 * Semantics are those of CANN's GE ACL layer (hicann/ge
 * api/acl/acl_model/types/tensor_desc_internal_om2.cpp), including its
 * quirks: aclSetTensorFormat and aclSetTensorShape set the *storage* format
 * and shape (the ones the device uses), aclSetTensorOriginFormat/Shape the
 * origin ones; a NULL desc is reported with EH0002 "Argument desc must not
 * be null." and the getters answer a neutral value (UNDEFINED, 0, -1, "");
 * aclGetTensorDescByIndex indexes the desc as an array; aclSetTensorStorage
 * Format/aclSetTensorFormat/aclSetTensorOriginFormat ignore a NULL desc;
 * aclSetTensorPlaceMent rejects it without a message; aclTransTensorDescFormat
 * gives the new desc the source's format. Where CANN would dereference a
 * NULL array (dimsRange, valueRange) aclsim reports EH0002 instead.
 * Pure host bookkeeping, forwarded on a real runtime (API_FORWARD).
 */
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "base/mem.h"

#define UNKNOWN_DIM (-1)
#define UNKNOWN_RANK (-2)

size_t api_shape_elements(const int64_t *dims, size_t ndims)
{
    size_t count = 1;
    for (size_t i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return 0;
        if (__builtin_mul_overflow(count, (size_t)dims[i], &count))
            return 0;
    }
    return count;
}

/* A copy of n dims (NULL for none); *ok false when memory ran out. */
static int64_t *dims_copy(const int64_t *dims, size_t n, bool *ok)
{
    *ok = true;
    if (n == 0)
        return NULL;
    int64_t *d = base_malloc(n * sizeof *d);
    if (!d) {
        *ok = false;
        return NULL;
    }
    memcpy(d, dims, n * sizeof *d);
    return d;
}

static void desc_clear(aclTensorDesc *d)
{
    base_free(d->dims);
    base_free(d->storage_dims);
    base_free(d->range);
    base_free(d->vrange);
    base_free(d->name);
    base_free(d->dyn_name);
    base_free(d->const_data);
}

aclTensorDesc *api_impl_aclCreateTensorDesc(aclDataType dataType, int numDims,
                                             const int64_t *dims, aclFormat format)
{
    API_FORWARD(aclCreateTensorDesc, (dataType, numDims, dims, format));
    char v[24];
    snprintf(v, sizeof v, "%d", numDims);
    if (numDims < 0) {
        api_err_arg_value("numDims", v, "can't smaller than 0");
        return NULL;
    }
    if (numDims > 0 && !dims) {
        api_err_arg_value("numDims", v, "dims is null while numDims > 0");
        return NULL;
    }
    aclTensorDesc *d = base_calloc(1, sizeof *d);
    bool ok1 = d != NULL, ok2 = true;
    if (d) {
        *d = (aclTensorDesc){.dtype = dataType, .format = format,
                             .storage_format = ACL_FORMAT_UNDEFINED,
                             .memtype = ACL_MEMTYPE_DEVICE};
        d->ndims = d->n_storage = (size_t)numDims;
        d->dims = dims_copy(dims, d->ndims, &ok1);
        /* Runtime v2 (the single-op executor) starts storage = origin. */
        d->storage_dims = dims_copy(dims, d->ndims, &ok2);
    }
    if (!d || !ok1 || !ok2) {
        if (d)
            desc_clear(d);
        base_free(d);
        api_err_host_alloc(sizeof *d);
        return NULL;
    }
    return d;
}

void api_impl_aclDestroyTensorDesc(const aclTensorDesc *desc)
{
    API_FORWARD_VOID(aclDestroyTensorDesc, (desc));
    if (!desc)
        return;
    desc_clear((aclTensorDesc *)desc);
    base_free((void *)desc);
}

/* The shape-range and value-range setters differ only in their field. */
static aclError set_ranges(aclTensorDesc *desc, const char *param, size_t count,
                           int64_t ranges[][2], int64_t (**field)[2], size_t *n)
{
    if (!desc)
        return api_err_arg_null("desc");
    if (count > 0 && !ranges)
        return api_err_arg_null(param);
    int64_t(*copy)[2] = NULL;
    if (count > 0) {
        if (count > SIZE_MAX / sizeof *copy || !(copy = base_malloc(count * sizeof *copy)))
            return api_err_host_alloc(count * sizeof *copy);
        memcpy(copy, ranges, count * sizeof *copy);
    }
    base_free(*field);
    *field = copy;
    *n = count;
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
                                         int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM])
{
    API_FORWARD(aclSetTensorShapeRange, (desc, dimsCount, dimsRange));
    return set_ranges(desc, "dimsRange", dimsCount, dimsRange, desc ? &desc->range : NULL,
                      desc ? &desc->n_range : NULL);
}

aclError api_impl_aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
                                         int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM])
{
    API_FORWARD(aclSetTensorValueRange, (desc, valueCount, valueRange));
    return set_ranges(desc, "valueRange", valueCount, valueRange, desc ? &desc->vrange : NULL,
                      desc ? &desc->n_vrange : NULL);
}

aclDataType api_impl_aclGetTensorDescType(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescType, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return ACL_DT_UNDEFINED;
    }
    return desc->dtype;
}

aclFormat api_impl_aclGetTensorDescFormat(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescFormat, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return ACL_FORMAT_UNDEFINED;
    }
    return desc->format;
}

size_t api_impl_aclGetTensorDescElementCount(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescElementCount, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return 0;
    }
    for (size_t i = 0; i < desc->ndims; i++)
        if (desc->dims[i] < 0) {
            api_report(API_MSG_EH9999, "[Check][Dim]invalid dim value %lld",
                       (long long)desc->dims[i]);
            return 0;
        }
    return api_shape_elements(desc->dims, desc->ndims);
}

size_t api_impl_aclGetTensorDescSize(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescSize, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return 0;
    }
    size_t size;
    if (__builtin_mul_overflow(api_impl_aclGetTensorDescElementCount(desc),
                               api_impl_aclDataTypeSize(desc->dtype), &size))
        return 0;
    return size;
}

size_t api_impl_aclGetTensorDescNumDims(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescNumDims, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return 0;
    }
    if (desc->ndims > 0 && desc->dims[0] == UNKNOWN_RANK)
        return (size_t)ACL_UNKNOWN_RANK;
    return desc->ndims;
}

static aclError bad_index(size_t index, size_t n)
{
    char v[24], why[64];
    snprintf(v, sizeof v, "%zu", index);
    snprintf(why, sizeof why, "index out of range. numDims = %zu", n);
    return api_err_arg_value("index", v, why);
}

aclError api_impl_aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index,
                                           size_t dimRangeNum, int64_t *dimRange)
{
    API_FORWARD(aclGetTensorDescDimRange, (desc, index, dimRangeNum, dimRange));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dimRange)
        return api_err_arg_null("dimRange");
    if (index >= desc->n_range)
        return bad_index(index, desc->n_range);
    if (dimRangeNum < ACL_TENSOR_SHAPE_RANGE_NUM) {
        char v[24];
        snprintf(v, sizeof v, "%zu", dimRangeNum);
        return api_err_arg_value("dimRangeNum", v, "cannot be less than 2");
    }
    dimRange[0] = desc->range[index][0];
    dimRange[1] = desc->range[index][1];
    return ACL_SUCCESS;
}

int64_t api_impl_aclGetTensorDescDim(const aclTensorDesc *desc, size_t index)
{
    API_FORWARD(aclGetTensorDescDim, (desc, index));
    if (!desc) {
        api_err_arg_null("desc");
        return -1;
    }
    if (index >= desc->ndims) {
        bad_index(index, desc->ndims);
        return -1;
    }
    return desc->dims[index];
}

aclError api_impl_aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize)
{
    API_FORWARD(aclGetTensorDescDimV2, (desc, index, dimSize));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dimSize)
        return api_err_arg_null("dimSize");
    if (index >= desc->ndims)
        return bad_index(index, desc->ndims);
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
}

/* Replace *field by a copy of s (NULL: ""). */
static aclError set_string(char **field, const char *s)
{
    char *copy = NULL;
    if (s && s[0] && !(copy = base_strdup(s)))
        return api_err_host_alloc(strlen(s) + 1);
    base_free(*field);
    *field = copy;
    return ACL_SUCCESS;
}

void api_impl_aclSetTensorDescName(aclTensorDesc *desc, const char *name)
{
    API_FORWARD_VOID(aclSetTensorDescName, (desc, name));
    if (!desc) {
        api_err_arg_null("desc");
        return;
    }
    (void)set_string(&desc->name, name);
}

const char *api_impl_aclGetTensorDescName(aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescName, (desc));
    return desc && desc->name ? desc->name : "";
}

/* The shape of `src` in format `to`, as GE's format utilities give it for
 * the formats the built-in operators use: the same format, the 4-D
 * layouts NCHW/NHWC/HWCN among themselves, and ND (or any 2-D-ending
 * layout) to FRACTAL_NZ ([..., m, n] -> [..., ceil(n/16), ceil(m/16), 16,
 * 16], 32 instead of 16 for 1-byte types). 0 and the count in *n, or -1. */
static int trans_shape(const aclTensorDesc *src, aclFormat to, int64_t *out, size_t *n)
{
    aclFormat from = src->format;
    const int64_t *d = src->dims;
    *n = src->ndims;
    if (from == to) {
        memcpy(out, d, *n * sizeof *d);
        return 0;
    }
    static const char *const layouts[] = {"NCHW", "NHWC", "HWCN"};
    int fi = from == ACL_FORMAT_NCHW ? 0 : from == ACL_FORMAT_NHWC ? 1 : from == ACL_FORMAT_HWCN ? 2 : -1;
    int ti = to == ACL_FORMAT_NCHW ? 0 : to == ACL_FORMAT_NHWC ? 1 : to == ACL_FORMAT_HWCN ? 2 : -1;
    if (fi >= 0 && ti >= 0 && *n == 4) {
        for (int i = 0; i < 4; i++)
            out[i] = d[strchr(layouts[fi], layouts[ti][i]) - layouts[fi]];
        return 0;
    }
    if (to == ACL_FORMAT_FRACTAL_NZ && *n >= 1 && *n + 2 <= 32) {
        int64_t m = *n >= 2 ? d[*n - 2] : 1, k = d[*n - 1];
        int64_t c0 = api_impl_aclDataTypeSize(src->dtype) == 1 ? 32 : 16;
        if (m < 0 || k < 0)
            return -1;
        size_t lead = *n >= 2 ? *n - 2 : 0;
        memcpy(out, d, lead * sizeof *d);
        out[lead] = (k + c0 - 1) / c0;
        out[lead + 1] = (m + 15) / 16;
        out[lead + 2] = 16;
        out[lead + 3] = c0;
        *n = lead + 4;
        return 0;
    }
    return -1;
}

aclError api_impl_aclTransTensorDescFormat(const aclTensorDesc *srcDesc, aclFormat dstFormat,
                                           aclTensorDesc **dstDesc)
{
    API_FORWARD(aclTransTensorDescFormat, (srcDesc, dstFormat, dstDesc));
    if (!srcDesc)
        return api_err_arg_null("srcDesc");
    if (!dstDesc)
        return api_err_arg_null("dstDesc");
    int64_t shape[32];
    size_t n;
    if (srcDesc->ndims > 28 || trans_shape(srcDesc, dstFormat, shape, &n) != 0) {
        api_report(API_MSG_EH9999, "[Call][TransShape]invoke TransShape failed. ge result = %u",
                   ACL_ERROR_GE_FORMAT_INVALID);
        return (aclError)ACL_ERROR_GE_FORMAT_INVALID;
    }
    /* As CANN's: the new desc keeps the source's format. */
    *dstDesc = api_impl_aclCreateTensorDesc(srcDesc->dtype, (int)n, shape, srcDesc->format);
    return *dstDesc ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}

/* Replace *field (with *n dims) by a copy of numDims dims. */
static aclError set_dims(int64_t **field, size_t *n, int numDims, const int64_t *dims)
{
    size_t count = numDims > 0 ? (size_t)numDims : 0;
    bool ok;
    int64_t *copy = dims_copy(dims, count, &ok);
    if (!ok)
        return api_err_host_alloc(count * sizeof *copy);
    base_free(*field);
    *field = copy;
    *n = count;
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format)
{
    API_FORWARD(aclSetTensorStorageFormat, (desc, format));
    if (desc)
        desc->storage_format = format;
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    API_FORWARD(aclSetTensorStorageShape, (desc, numDims, dims));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dims)
        return api_err_arg_null("dims");
    return set_dims(&desc->storage_dims, &desc->n_storage, numDims, dims);
}

aclError api_impl_aclSetTensorFormat(aclTensorDesc *desc, aclFormat format)
{
    API_FORWARD(aclSetTensorFormat, (desc, format));
    if (desc)
        desc->storage_format = format; /* the runtime format, as CANN's */
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    API_FORWARD(aclSetTensorShape, (desc, numDims, dims));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dims)
        return api_err_arg_null("dims");
    return set_dims(&desc->storage_dims, &desc->n_storage, numDims, dims);
}

aclError api_impl_aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format)
{
    API_FORWARD(aclSetTensorOriginFormat, (desc, format));
    if (desc)
        desc->format = format;
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    API_FORWARD(aclSetTensorOriginShape, (desc, numDims, dims));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dims)
        return api_err_arg_null("dims");
    return set_dims(&desc->dims, &desc->ndims, numDims, dims);
}

aclTensorDesc *api_impl_aclGetTensorDescByIndex(aclTensorDesc *desc, size_t index)
{
    API_FORWARD(aclGetTensorDescByIndex, (desc, index));
    if (!desc) {
        api_err_arg_null("desc");
        return NULL;
    }
    /* CANN's descs are arrays; one made by aclCreateTensorDesc has one
     * element, so only index 0 names a desc. */
    return (aclTensorDesc *)((char *)desc + index * sizeof *desc);
}

void *api_impl_aclGetTensorDescAddress(const aclTensorDesc *desc)
{
    API_FORWARD(aclGetTensorDescAddress, (desc));
    if (!desc) {
        api_err_arg_null("desc");
        return NULL;
    }
    return desc->address;
}

aclError api_impl_aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName)
{
    API_FORWARD(aclSetTensorDynamicInput, (desc, dynamicInputName));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dynamicInputName)
        return api_err_arg_null("dynamicInputName");
    return set_string(&desc->dyn_name, dynamicInputName);
}

aclError api_impl_aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length)
{
    API_FORWARD(aclSetTensorConst, (desc, dataBuffer, length));
    if (!desc)
        return api_err_arg_null("desc");
    if (!dataBuffer)
        return api_err_arg_null("dataBuffer");
    if (length == 0)
        return api_err_arg_null("desc"); /* CANN reports a zero length so */
    void *copy = base_malloc(length);
    if (!copy)
        return api_err_host_alloc(length);
    memcpy(copy, dataBuffer, length);
    base_free(desc->const_data);
    desc->const_data = copy;
    desc->const_len = length;
    desc->is_const = true;
    return ACL_SUCCESS;
}

aclError api_impl_aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType)
{
    API_FORWARD(aclSetTensorPlaceMent, (desc, memType));
    if (!desc)
        return ACL_ERROR_INVALID_PARAM; /* CANN gives no message here */
    desc->memtype = memType;
    return ACL_SUCCESS;
}

aclTensorDesc *api_desc_clone(const aclTensorDesc *d)
{
    aclTensorDesc *c = base_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *d;
    c->dims = c->storage_dims = NULL;
    c->range = c->vrange = NULL;
    c->name = c->dyn_name = NULL;
    c->const_data = NULL;
    bool ok = true, ok2 = true;
    c->dims = dims_copy(d->dims, d->ndims, &ok);
    c->storage_dims = dims_copy(d->storage_dims, d->n_storage, &ok2);
    ok &= ok2;
    if (ok && d->n_range && (c->range = base_malloc(d->n_range * sizeof *c->range)))
        memcpy(c->range, d->range, d->n_range * sizeof *c->range);
    if (ok && d->n_vrange && (c->vrange = base_malloc(d->n_vrange * sizeof *c->vrange)))
        memcpy(c->vrange, d->vrange, d->n_vrange * sizeof *c->vrange);
    ok &= (!d->n_range || c->range) && (!d->n_vrange || c->vrange);
    if (ok && d->name)
        ok = (c->name = base_strdup(d->name)) != NULL;
    if (ok && d->dyn_name)
        ok = (c->dyn_name = base_strdup(d->dyn_name)) != NULL;
    if (ok && d->const_data && (c->const_data = base_malloc(d->const_len)))
        memcpy(c->const_data, d->const_data, d->const_len);
    ok &= !d->const_data || c->const_data;
    if (!ok) {
        desc_clear(c);
        base_free(c);
        return NULL;
    }
    return c;
}
