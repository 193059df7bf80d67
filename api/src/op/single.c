/*
 * single.c - single operators (the OP family of api/abi/calls.def,
 * acl_op.h): execution of the built-in operator library, operator handles,
 * aclopCast. (Their attributes are attr.c's.)
 *
 * Semantics and check order are those of CANN's GE ACL layer (hicann/ge
 * api/acl/acl_op_executor: single_op/op.cpp, types/op_attr.cpp,
 * utils/array_utils.h): NULL pointers give EH0002 "Argument <p> must not be
 * null.", a negative count EH0001 (or no message where CANN gives none),
 * all of them ACL_ERROR_INVALID_PARAM. Execution (executor.c) runs the
 * built-in operators of library.c without any operator model: see the
 * "Operators" section of docs/operators.md for how that differs from CANN.
 * Forwarded whole to a real runtime when one is loaded (API_FORWARD).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "op.h"

/* ---- Execution ---- */

/* CANN's array checks (utils/array_utils): the array, then each element. */
static aclError check_ptr_array(int n, const void *const *arr)
{
    if (n <= 0)
        return ACL_SUCCESS;
    if (!arr)
        return api_err_arg_null("arr");
    for (int i = 0; i < n; i++)
        if (!arr[i])
            return api_err_arg_null("arr[i]");
    return ACL_SUCCESS;
}

aclError api_op_check_buffers(int n, const aclDataBuffer *const *arr)
{
    if (n <= 0)
        return ACL_SUCCESS;
    if (!arr)
        return api_err_arg_null("arr");
    for (int i = 0; i < n; i++) {
        if (!arr[i])
            return api_err_arg_null("arr[idx]");
        if (!arr[i]->data && arr[i]->length > 0) {
            char why[96];
            /* CANN's text, missing space included */
            snprintf(why, sizeof why, "data of element at index[%d]while size is larger than 0", i);
            return api_err_arg_value("data", "nullptr", why);
        }
    }
    return ACL_SUCCESS;
}

aclError api_op_check_descs(int n_in, const aclTensorDesc *const *in, int n_out,
                            const aclTensorDesc *const *out)
{
    aclError rc = check_ptr_array(n_in, (const void *const *)in);
    return rc != ACL_SUCCESS ? rc : check_ptr_array(n_out, (const void *const *)out);
}

bool api_op_all_outputs_empty(int n, const aclTensorDesc *const *out)
{
    if (n == 0)
        return false;
    for (int i = 0; i < n; i++) {
        bool zero = false;
        for (size_t k = 0; k < out[i]->ndims; k++)
            zero |= out[i]->dims[k] == 0;
        if (!zero)
            return false;
    }
    return true;
}

static const aclError mismatch_code[] = {
    [API_OPM_OK] = ACL_SUCCESS,
    [API_OPM_TYPE] = ACL_ERROR_OP_TYPE_NOT_MATCH,
    [API_OPM_INPUT] = ACL_ERROR_OP_INPUT_NOT_MATCH,
    [API_OPM_OUTPUT] = ACL_ERROR_OP_OUTPUT_NOT_MATCH,
    [API_OPM_ATTR] = ACL_ERROR_OP_ATTR_NOT_MATCH,
    [API_OPM_DTYPE] = ACL_ERROR_UNSUPPORTED_DATA_TYPE,
    [API_OPM_FORMAT] = ACL_ERROR_FORMAT_NOT_MATCH,
};

/* Write planned output dims back into the desc (the V2 calls). */
static aclError refresh_output(aclTensorDesc *d, const struct be_view *t)
{
    int64_t *dims = d->dims;
    if ((size_t)t->ndims != d->ndims) {
        dims = t->ndims ? base_malloc((size_t)t->ndims * sizeof *dims) : NULL;
        if (t->ndims && !dims)
            return api_err_host_alloc((size_t)t->ndims * sizeof *dims);
        base_free(d->dims);
        d->dims = dims;
        d->ndims = (size_t)t->ndims;
    }
    memcpy(d->dims, t->dims, (size_t)t->ndims * sizeof *dims);
    return ACL_SUCCESS;
}

aclError api_op_call(const char *fn, unsigned how, const struct api_op_args *a,
                     aclrtStream stream)
{
    struct api_op_plan plan;
    char why[320];
    enum api_op_mismatch m = api_op_plan(a, how & API_OP_REFRESH, &plan, why, sizeof why);
    if (m != API_OPM_OK) {
        if (how & API_OP_COMPILED) {
            /* aclsim's compiler names what does not match (CANN's gives GE's codes). */
            api_report(API_MSG_EH9999, "%s failed: %s.", fn, why);
            api_report(API_MSG_EH9999, "build op model failed, result = %d", mismatch_code[m]);
            return mismatch_code[m];
        }
        /* Without a compile step, CANN's executor finds no matching model. */
        api_report(API_MSG_EH9999, "[Match][OpModel]MatchOpModel opName = %s fail from static map "
                   "or dynamic map. Please make sure the op executed and the op compiled is "
                   "matched, you can check the op type, op inputs number, outputs number, input "
                   "format, origin format, datatype, memtype, attr, dim range, and so on.", a->type);
        api_report(API_MSG_EH9999, "%s: %s.", fn, why);
        return ACL_ERROR_OP_NOT_FOUND;
    }
    aclError rc = api_op_execute(fn, &plan, stream);
    if (rc == ACL_SUCCESS && plan.refresh)
        rc = refresh_output((aclTensorDesc *)a->out_desc[0], &plan.op.out[0]);
    return rc;
}

aclError api_impl_aclopExecute(const char *opType, int numInputs,
                               const aclTensorDesc *const inputDesc[],
                               const aclDataBuffer *const inputs[], int numOutputs,
                               const aclTensorDesc *const outputDesc[],
                               aclDataBuffer *const outputs[], const aclopAttr *attr,
                               aclrtStream stream)
{
    API_FORWARD(aclopExecute, (opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                               outputs, attr, stream));
    if (!opType)
        return api_err_arg_null("opType");
    char v[24];
    if (numInputs < 0) {
        snprintf(v, sizeof v, "%d", numInputs);
        return api_err_arg_value("numInputs", v, "must be non-negative");
    }
    if (numOutputs < 0) {
        snprintf(v, sizeof v, "%d", numOutputs);
        return api_err_arg_value("numOutputs", v, "must be non-negative");
    }
    aclError rc = api_op_check_descs(numInputs, inputDesc, numOutputs, outputDesc);
    if (rc != ACL_SUCCESS)
        return rc;
    if (api_op_all_outputs_empty(numOutputs, outputDesc))
        return ACL_SUCCESS;
    if ((rc = check_ptr_array(numInputs, (const void *const *)inputs)) != ACL_SUCCESS ||
        (rc = check_ptr_array(numOutputs, (const void *const *)outputs)) != ACL_SUCCESS)
        return rc;
    const struct api_op_args a = {opType, numInputs, inputDesc, inputs,
                                  numOutputs, outputDesc, outputs, attr};
    return api_op_call("aclopExecute", 0, &a, stream);
}

aclError api_impl_aclopExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                 aclDataBuffer *inputs[], int numOutputs,
                                 aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                 aclopAttr *attr, aclrtStream stream)
{
    API_FORWARD(aclopExecuteV2, (opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                                 outputs, attr, stream));
    if (!opType)
        return api_err_arg_null("opType");
    if (numInputs < 0 || numOutputs < 0)
        return ACL_ERROR_INVALID_PARAM; /* CANN gives no message here */
    const aclTensorDesc *const *in_desc = (const aclTensorDesc *const *)inputDesc;
    const aclTensorDesc *const *out_desc = (const aclTensorDesc *const *)outputDesc;
    aclError rc = api_op_check_descs(numInputs, in_desc, numOutputs, out_desc);
    if (rc != ACL_SUCCESS)
        return rc;
    if (api_op_all_outputs_empty(numOutputs, out_desc))
        return ACL_SUCCESS;
    if ((rc = api_op_check_buffers(numInputs, (const aclDataBuffer *const *)inputs)) !=
            ACL_SUCCESS ||
        (rc = api_op_check_buffers(numOutputs, (const aclDataBuffer *const *)outputs)) !=
            ACL_SUCCESS)
        return rc;
    const struct api_op_args a = {opType, numInputs, in_desc, (const aclDataBuffer *const *)inputs,
                                  numOutputs, out_desc, outputs, attr};
    return api_op_call("aclopExecuteV2", API_OP_REFRESH, &a, stream);
}

/* ---- aclopCast ---- */

aclError api_impl_aclopCast(const aclTensorDesc *srcDesc, const aclDataBuffer *srcBuffer,
                            const aclTensorDesc *dstDesc, aclDataBuffer *dstBuffer,
                            uint8_t truncate, aclrtStream stream)
{
    API_FORWARD(aclopCast, (srcDesc, srcBuffer, dstDesc, dstBuffer, truncate, stream));
    (void)truncate; /* CANN sets it only for Cast kernels that have it; ours truncates */
    if (!dstDesc)
        return api_err_arg_null("dstDesc");
    int64_t dst = dstDesc->dtype;
    struct api_attr a = {.name = (char *)"dst_type", .kind = API_ATTR_INT, .n = 1, .ints = &dst};
    aclopAttr attr = {&a, 1, 1};
    aclTensorDesc *in[1] = {(aclTensorDesc *)srcDesc}, *out[1] = {(aclTensorDesc *)dstDesc};
    aclDataBuffer *ib[1] = {(aclDataBuffer *)srcBuffer}, *ob[1] = {dstBuffer};
    return api_impl_aclopExecuteV2("Cast", 1, in, ib, 1, out, ob, &attr, stream);
}

/* ---- Operator handles: an operator matched once, executed many times ---- */

struct aclopHandle {
    char *type;
    int n_in, n_out;
    aclTensorDesc **in, **out; /* copies */
    aclopAttr *attr;           /* a copy */
};

static void handle_free(aclopHandle *h)
{
    for (int i = 0; h->in && i < h->n_in; i++)
        api_impl_aclDestroyTensorDesc(h->in[i]);
    for (int i = 0; h->out && i < h->n_out; i++)
        api_impl_aclDestroyTensorDesc(h->out[i]);
    base_free(h->in);
    base_free(h->out);
    api_impl_aclopDestroyAttr(h->attr);
    base_free(h->type);
    base_free(h);
}

aclError api_impl_aclopCreateHandle(const char *opType, int numInputs,
                                    const aclTensorDesc *const inputDesc[], int numOutputs,
                                    const aclTensorDesc *const outputDesc[],
                                    const aclopAttr *opAttr, aclopHandle **handle)
{
    API_FORWARD(aclopCreateHandle, (opType, numInputs, inputDesc, numOutputs, outputDesc, opAttr,
                                    handle));
    if (!opType)
        return api_err_arg_null("opType");
    if (!handle)
        return api_err_arg_null("handle");
    if (numInputs < 0 || numOutputs < 0)
        return ACL_ERROR_INVALID_PARAM;
    aclError rc = api_op_check_descs(numInputs, inputDesc, numOutputs, outputDesc);
    if (rc != ACL_SUCCESS)
        return rc;
    for (int i = 0; i < numInputs + numOutputs; i++) {
        const aclTensorDesc *d = i < numInputs ? inputDesc[i] : outputDesc[i - numInputs];
        if (!d->is_const && d->memtype != ACL_MEMTYPE_DEVICE) {
            api_report(API_MSG_EH9999, "[Check][HostMemTensorDesc]aclopCreateHandle or "
                       "ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT placeMent in %s not support",
                       i < numInputs ? "inputDesc" : "outputDesc");
            return ACL_ERROR_API_NOT_SUPPORT;
        }
    }
    /* Match now (CANN: CreateOpHandle matches the operator's model). */
    aclDataBuffer none = {NULL, 0};
    const aclDataBuffer *ib[BE_OP_MAX_IN + 1];
    aclDataBuffer *ob[2] = {&none, &none};
    for (int i = 0; i <= BE_OP_MAX_IN; i++)
        ib[i] = &none;
    struct api_op_plan plan;
    char why[320];
    const struct api_op_args a = {opType, numInputs, inputDesc, ib, numOutputs, outputDesc, ob,
                                  opAttr};
    if (numInputs <= BE_OP_MAX_IN && numOutputs <= 1 &&
        api_op_plan(&a, false, &plan, why, sizeof why) != API_OPM_OK) {
        api_report(API_MSG_EH9999, "[Match][OpModel]MatchOpModel opName = %s fail from static "
                   "map or dynamic map. Please make sure the op executed and the op compiled is "
                   "matched, you can check the op type, op inputs number, outputs number, input "
                   "format, origin format, datatype, memtype, attr, dim range, and so on.", opType);
        api_report(API_MSG_EH9999, "aclopCreateHandle: %s.", why);
        return ACL_ERROR_OP_NOT_FOUND;
    }
    aclopHandle *h = base_calloc(1, sizeof *h);
    bool ok = h != NULL;
    if (h) {
        h->n_in = numInputs;
        h->n_out = numOutputs;
        h->type = base_strdup(opType);
        h->in = base_calloc((size_t)numInputs + 1, sizeof *h->in);
        h->out = base_calloc((size_t)numOutputs + 1, sizeof *h->out);
        ok = h->type && h->in && h->out;
        for (int i = 0; ok && i < numInputs + numOutputs; i++) {
            const aclTensorDesc *d = i < numInputs ? inputDesc[i] : outputDesc[i - numInputs];
            aclTensorDesc *c = api_desc_clone(d);
            if (i < numInputs)
                h->in[i] = c;
            else
                h->out[i - numInputs] = c;
            ok = c != NULL;
        }
        if (ok)
            h->attr = api_attr_clone(opAttr, &ok);
    }
    if (!ok) {
        if (h)
            handle_free(h);
        return api_err_host_alloc(sizeof *h);
    }
    *handle = h;
    return ACL_SUCCESS;
}

void api_impl_aclopDestroyHandle(aclopHandle *handle)
{
    API_FORWARD_VOID(aclopDestroyHandle, (handle));
    if (handle)
        handle_free(handle);
}

aclError api_impl_aclopExecWithHandle(aclopHandle *handle, int numInputs,
                                      const aclDataBuffer *const inputs[], int numOutputs,
                                      aclDataBuffer *const outputs[], aclrtStream stream)
{
    API_FORWARD(aclopExecWithHandle, (handle, numInputs, inputs, numOutputs, outputs, stream));
    if (!handle)
        return api_err_arg_null("handle");
    char v[24], why[64];
    if (numInputs < 0 || numOutputs < 0) {
        snprintf(v, sizeof v, "%d", numInputs < 0 ? numInputs : numOutputs);
        return api_err_arg_value(numInputs < 0 ? "numInputs" : "numOutputs", v,
                                 "must be non-negative");
    }
    aclError rc = check_ptr_array(numInputs, (const void *const *)inputs);
    if (rc == ACL_SUCCESS)
        rc = check_ptr_array(numOutputs, (const void *const *)outputs);
    if (rc != ACL_SUCCESS)
        return rc;
    bool empty = numOutputs > 0;
    for (int i = 0; i < numOutputs; i++)
        empty &= outputs[i]->length == 0;
    if (empty)
        return ACL_SUCCESS;
    if (numInputs != handle->n_in) {
        snprintf(v, sizeof v, "%d", numInputs);
        snprintf(why, sizeof why, "input num mismatch: expect %d", handle->n_in);
        api_err_arg_value("input num", v, why);
        return ACL_ERROR_OP_INPUT_NOT_MATCH;
    }
    if (numOutputs != handle->n_out) {
        snprintf(v, sizeof v, "%d", numOutputs);
        /* CANN's text says "input" here too */
        snprintf(why, sizeof why, "input num mismatch: expect %d", handle->n_out);
        api_err_arg_value("output num", v, why);
        return ACL_ERROR_OP_OUTPUT_NOT_MATCH;
    }
    const struct api_op_args a = {handle->type, handle->n_in,
                                  (const aclTensorDesc *const *)handle->in, inputs, handle->n_out,
                                  (const aclTensorDesc *const *)handle->out, outputs, handle->attr};
    return api_op_call("aclopExecWithHandle", 0, &a, stream);
}

aclError api_impl_aclopCreateHandleForCast(aclTensorDesc *srcDesc, aclTensorDesc *dstDesc,
                                           uint8_t truncate, aclopHandle **handle)
{
    API_FORWARD(aclopCreateHandleForCast, (srcDesc, dstDesc, truncate, handle));
    (void)truncate;
    if (!dstDesc)
        return api_err_arg_null("dstDesc");
    int64_t dst = dstDesc->dtype;
    struct api_attr a = {.name = (char *)"dst_type", .kind = API_ATTR_INT, .n = 1, .ints = &dst};
    aclopAttr attr = {&a, 1, 1};
    const aclTensorDesc *in[1] = {srcDesc}, *out[1] = {dstDesc};
    return api_impl_aclopCreateHandle("Cast", 1, in, 1, out, &attr, handle);
}

/* ---- Other calls of the family with a meaning here ---- */

aclError api_impl_aclopSetModelDir(const char *modelDir)
{
    API_FORWARD(aclopSetModelDir, (modelDir));
    static atomic_bool set;
    if (!modelDir)
        return api_err_arg_null("modelDir");
    char real[4096];
    if (!realpath(modelDir, real)) {
        api_report(API_MSG_EH0003, "Path %s is invalid. Reason: cannot convert to realpath: %s.",
                   modelDir, strerror(errno));
        return ACL_ERROR_READ_MODEL_FAILURE;
    }
    if (atomic_exchange(&set, true)) {
        api_report(API_MSG_EH9999, "[Check][InitFlag]repeatedly set model dir.");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    /* The built-in operators need no models: the directory is not read. */
    return ACL_SUCCESS;
}

aclError api_impl_aclopSetMaxOpQueueNum(uint64_t maxOpNum)
{
    API_FORWARD(aclopSetMaxOpQueueNum, (maxOpNum));
    if (maxOpNum == 0)
        return api_err_arg_value("maxOpNum", "0", "must be positive");
    return ACL_SUCCESS; /* nothing is cached to age out */
}

aclError api_impl_aclopInferShape(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                  aclDataBuffer *inputs[], int numOutputs,
                                  aclTensorDesc *outputDesc[], aclopAttr *attr)
{
    API_FORWARD(aclopInferShape, (opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                                  attr));
    if (!opType)
        return api_err_arg_null("opType");
    if (numInputs < 0 || numOutputs < 0)
        return ACL_ERROR_INVALID_PARAM;
    aclError rc = api_op_check_descs(numInputs, (const aclTensorDesc *const *)inputDesc,
                                     numOutputs, (const aclTensorDesc *const *)outputDesc);
    if (rc == ACL_SUCCESS)
        rc = check_ptr_array(numInputs, (const void *const *)inputs);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The output shapes, as the V2 calls plan them (unknown dims allowed). */
    aclDataBuffer none = {NULL, 0};
    aclDataBuffer *ob[2] = {&none, &none};
    struct api_op_plan plan;
    char why[320];
    const struct api_op_args a = {opType, numInputs, (const aclTensorDesc *const *)inputDesc,
                                  (const aclDataBuffer *const *)inputs, numOutputs,
                                  (const aclTensorDesc *const *)outputDesc, ob, attr};
    if (numOutputs > 1 || numInputs > BE_OP_MAX_IN + 1 ||
        api_op_plan(&a, true, &plan, why, sizeof why) != API_OPM_OK) {
        api_report(API_MSG_EH9999, "aclopInferShape failed: %s.",
                   numOutputs > 1 ? "more than one output" : why);
        return ACL_ERROR_GE_FAILURE;
    }
    return refresh_output(outputDesc[0], &plan.op.out[0]);
}
