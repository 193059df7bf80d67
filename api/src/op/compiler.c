/*
 * compiler.c - the operator compiler (the OPCOMPILER family of
 * api/abi/calls.def, acl_op_compiler.h): aclopCompile and
 * aclopCompileAndExecute(V2) over the built-in operator library.
 *
 * Check order and messages are those of CANN's GE ACL layer (hicann/ge
 * api/acl/acl_op_compiler/single_op/op_compiler.cpp: CheckInput,
 * ConstructAclOp): counts non-negative (no message), the compile type
 * (EH0006, ACL_ERROR_API_NOT_SUPPORT), opType, the descriptor arrays, the
 * data buffer arrays, then all-empty outputs succeed at once, then opPath
 * for ACL_COMPILE_UNREGISTERED. "Compiling" a built-in operator is
 * matching it against the library (library.c): nothing is built or cached,
 * and a mismatch is named by the ACL op code for what did not match
 * (CANN's compiler answers with GE's codes instead). Custom operators
 * (ACL_COMPILE_UNREGISTERED with an opPath) cannot be compiled here.
 */
#include <stdio.h>
#include "op.h"

static aclError check_input(int numInputs, const aclTensorDesc *const inputDesc[],
                            const aclDataBuffer *const inputs[], int numOutputs,
                            const aclTensorDesc *const outputDesc[],
                            const aclDataBuffer *const outputs[], aclopCompileType compileFlag,
                            const char *opType, bool with_buffers)
{
    if (numInputs < 0 || numOutputs < 0)
        return ACL_ERROR_INVALID_PARAM; /* CANN gives no message here */
    if (compileFlag != ACL_COMPILE_SYS && compileFlag != ACL_COMPILE_UNREGISTERED) {
        api_report(API_MSG_EH0006, "compile type is not supported. Reason: must be equal to "
                   "ACL_COMPILE_SYS or ACL_COMPILE_UNREGISTERED.");
        return ACL_ERROR_API_NOT_SUPPORT;
    }
    if (!opType)
        return api_err_arg_null("opType");
    aclError rc = api_op_check_descs(numInputs, inputDesc, numOutputs, outputDesc);
    if (rc == ACL_SUCCESS && with_buffers)
        rc = api_op_check_buffers(numInputs, inputs);
    if (rc == ACL_SUCCESS && with_buffers)
        rc = api_op_check_buffers(numOutputs, outputs);
    return rc;
}

static aclError check_op_path(aclopCompileType compileFlag, const char *opPath)
{
    if (compileFlag != ACL_COMPILE_UNREGISTERED)
        return ACL_SUCCESS;
    if (!opPath)
        return api_err_arg_null("opPath");
    api_report(API_MSG_EH0006, "compiling an unregistered operator from %s is not supported. "
               "Reason: aclsim runs only its built-in operators (docs/operators.md).", opPath);
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError compile_and_execute(const char *fn, bool refresh, const char *opType,
                                    int numInputs, const aclTensorDesc *const inputDesc[],
                                    const aclDataBuffer *const inputs[], int numOutputs,
                                    const aclTensorDesc *const outputDesc[],
                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                    aclopCompileType compileFlag, const char *opPath,
                                    aclrtStream stream)
{
    aclError rc = check_input(numInputs, inputDesc, inputs, numOutputs, outputDesc,
                              (const aclDataBuffer *const *)outputs, compileFlag, opType, true);
    if (rc != ACL_SUCCESS)
        return rc;
    if (api_op_all_outputs_empty(numOutputs, outputDesc))
        return ACL_SUCCESS;
    if ((rc = check_op_path(compileFlag, opPath)) != ACL_SUCCESS)
        return rc;
    const struct api_op_args a = {opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                                  outputs, attr};
    return api_op_call(fn, API_OP_COMPILED | (refresh ? API_OP_REFRESH : 0u), &a, stream);
}

aclError api_impl_aclopCompileAndExecute(const char *opType, int numInputs,
                                         const aclTensorDesc *const inputDesc[],
                                         const aclDataBuffer *const inputs[], int numOutputs,
                                         const aclTensorDesc *const outputDesc[],
                                         aclDataBuffer *const outputs[], const aclopAttr *attr,
                                         aclopEngineType engineType, aclopCompileType compileFlag,
                                         const char *opPath, aclrtStream stream)
{
    API_FORWARD(aclopCompileAndExecute, (opType, numInputs, inputDesc, inputs, numOutputs,
                                         outputDesc, outputs, attr, engineType, compileFlag,
                                         opPath, stream));
    (void)engineType; /* every built-in operator runs wherever the engine says */
    return compile_and_execute("aclopCompileAndExecute", false, opType, numInputs, inputDesc,
                               inputs, numOutputs, outputDesc, outputs, attr, compileFlag, opPath,
                               stream);
}

aclError api_impl_aclopCompileAndExecuteV2(const char *opType, int numInputs,
                                           aclTensorDesc *inputDesc[], aclDataBuffer *inputs[],
                                           int numOutputs, aclTensorDesc *outputDesc[],
                                           aclDataBuffer *outputs[], aclopAttr *attr,
                                           aclopEngineType engineType,
                                           aclopCompileType compileFlag, const char *opPath,
                                           aclrtStream stream)
{
    API_FORWARD(aclopCompileAndExecuteV2, (opType, numInputs, inputDesc, inputs, numOutputs,
                                           outputDesc, outputs, attr, engineType, compileFlag,
                                           opPath, stream));
    (void)engineType;
    return compile_and_execute("aclopCompileAndExecuteV2", true, opType, numInputs,
                               (const aclTensorDesc *const *)inputDesc,
                               (const aclDataBuffer *const *)inputs, numOutputs,
                               (const aclTensorDesc *const *)outputDesc, outputs, attr,
                               compileFlag, opPath, stream);
}

aclError api_impl_aclopCompile(const char *opType, int numInputs,
                               const aclTensorDesc *const inputDesc[], int numOutputs,
                               const aclTensorDesc *const outputDesc[], const aclopAttr *attr,
                               aclopEngineType engineType, aclopCompileType compileFlag,
                               const char *opPath)
{
    API_FORWARD(aclopCompile, (opType, numInputs, inputDesc, numOutputs, outputDesc, attr,
                               engineType, compileFlag, opPath));
    (void)engineType;
    if (numInputs < 0 || numOutputs < 0)
        return ACL_ERROR_INVALID_PARAM;
    if (compileFlag != ACL_COMPILE_SYS && compileFlag != ACL_COMPILE_UNREGISTERED) {
        char v[24];
        snprintf(v, sizeof v, "%d", (int)compileFlag);
        api_err_arg_value("compile type", v, "not in range");
        return ACL_ERROR_API_NOT_SUPPORT;
    }
    aclError rc = check_input(numInputs, inputDesc, NULL, numOutputs, outputDesc, NULL,
                              compileFlag, opType, false);
    for (int i = 0; rc == ACL_SUCCESS && i < numInputs + numOutputs; i++) {
        const aclTensorDesc *d = i < numInputs ? inputDesc[i] : outputDesc[i - numInputs];
        if (!d->is_const && d->memtype != ACL_MEMTYPE_DEVICE) {
            /* CANN: IsHostMemTensorDesc, an inner error */
            api_report(API_MSG_EH9999, "[Check][TensorDesc]aclopCompile ACL_MEMTYPE_HOST or "
                       "ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT placeMent in %s not support",
                       i < numInputs ? "inputDesc" : "outputDesc");
            rc = ACL_ERROR_API_NOT_SUPPORT;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = check_op_path(compileFlag, opPath);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Matching needs buffers only for host-placed inputs (their values);
     * compile-time matching gives them none, as CANN compiles from descs. */
    aclDataBuffer none = {NULL, 0};
    const aclDataBuffer *in[BE_OP_MAX_IN + 1] = {NULL};
    aclDataBuffer *out[2] = {&none, &none};
    for (int i = 0; i <= BE_OP_MAX_IN; i++)
        in[i] = &none;
    struct api_op_plan plan;
    char why[320];
    int n_in = numInputs > BE_OP_MAX_IN + 1 ? BE_OP_MAX_IN + 1 : numInputs;
    const struct api_op_args a = {opType, n_in, inputDesc, in, numOutputs > 2 ? 2 : numOutputs,
                                  outputDesc, out, attr};
    enum api_op_mismatch m = api_op_plan(&a, true, &plan, why, sizeof why);
    if (m == API_OPM_OK)
        return ACL_SUCCESS;
    api_report(API_MSG_EH9999, "aclopCompile failed: %s.", why);
    static const aclError codes[] = {ACL_SUCCESS, ACL_ERROR_OP_TYPE_NOT_MATCH,
                                     ACL_ERROR_OP_INPUT_NOT_MATCH, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                                     ACL_ERROR_OP_ATTR_NOT_MATCH, ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                                     ACL_ERROR_FORMAT_NOT_MATCH};
    return codes[m];
}
