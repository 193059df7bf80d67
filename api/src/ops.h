/*
 * ops.h - the operator machinery of the ACL layer, shared by op.c,
 * opcompiler.c and cblas.c (the families' calls), oplib.c (the built-in
 * operator library: what each operator accepts and what memory it asks
 * for), opexec.c (the single-op executor and its allocators) and
 * alloccheck.c (the allocator sanitizer).
 */
#ifndef ACLSIM_API_OPS_H_
#define ACLSIM_API_OPS_H_

#include "api.h"
#include "backends/be.h"
#include "opattr.h"

/* ---- oplib.c ---- */

/* Why an operator call matches no built-in operator. */
enum api_op_mismatch {
    API_OPM_OK = 0,
    API_OPM_TYPE,   /* no operator of that type */
    API_OPM_INPUT,  /* inputs: count, shapes, placement */
    API_OPM_OUTPUT, /* outputs: count, shapes */
    API_OPM_ATTR,   /* a required attribute missing or wrong */
    API_OPM_DTYPE,  /* a data type the operator does not take */
    API_OPM_FORMAT  /* a format the operator does not take */
};

/* One block the executor asks the stream's allocator for. */
struct api_op_req {
    size_t bytes;    /* as asked: workspace rounded up to 512, intermediates to 32 plus 32 */
    bool workspace;  /* workspace (else an intermediate: the tiling record) */
};

/* An operator call, matched against the library. */
struct api_op_plan {
    struct be_op op;
    int n_req;
    struct api_op_req req[2];
    size_t in_bytes[BE_OP_MAX_IN], out_bytes; /* bytes each device tensor occupies */
    int in_index[BE_OP_MAX_IN];               /* the caller's input behind op.in[i] */
    bool refresh;                             /* output dims to write back (V2 calls) */
};

/* Match a call against the built-in library and plan it: API_OPM_OK and
 * *plan, or why not (and a sentence in why). With `refresh`, unknown
 * output dims (-1, -2) are allowed and planned from the inputs (the V2
 * calls write them back). Data buffers are not checked here. */
enum api_op_mismatch api_op_plan(const char *type, int n_in,
                                 const aclTensorDesc *const in_desc[],
                                 const aclDataBuffer *const in[], int n_out,
                                 const aclTensorDesc *const out_desc[],
                                 aclDataBuffer *const out[], const aclopAttr *attr, bool refresh,
                                 struct api_op_plan *plan, char *why, size_t len);

/* Whether `type` names a built-in operator. */
bool api_op_known(const char *type);

/* ---- op.c: the checks and driver every execute call shares ---- */

/* CANN's data-buffer array check (CheckDataBufferArry) and descriptor
 * array checks (CheckPtrArray); ACL_SUCCESS or the reported error. */
aclError api_op_check_buffers(int n, const aclDataBuffer *const *arr);
aclError api_op_check_descs(int n_in, const aclTensorDesc *const *in, int n_out,
                            const aclTensorDesc *const *out);
/* Whether every output has a 0 dim (then CANN returns success at once). */
bool api_op_all_outputs_empty(int n, const aclTensorDesc *const *out);

/* Plan and execute a call whose arguments passed the call's own checks.
 * `compiled`: the aclopCompileAndExecute path (a mismatch is named by its
 * ACL op code) rather than the execute path (ACL_ERROR_OP_NOT_FOUND, as
 * CANN's model matching). `refresh`: write planned output dims back. */
aclError api_op_call(const char *fn, bool compiled, bool refresh, const char *opType, int numInputs,
                     const aclTensorDesc *const inputDesc[], const aclDataBuffer *const inputs[],
                     int numOutputs, const aclTensorDesc *const outputDesc[],
                     aclDataBuffer *const outputs[], const aclopAttr *attr, aclrtStream stream);

/* ---- opexec.c ---- */

/* Run a planned operator on `stream` (the user's handle; NULL: the
 * current context's default stream) the way CANN's single-op executor
 * does: the stream's allocator (registered, or the stream's built-in one),
 * blocks for the plan's requests, launch, blocks freed right after the
 * launch. `fn` names the call for messages. */
aclError api_op_execute(const char *fn, struct api_op_plan *plan, aclrtStream stream);

/* ---- alloccheck.c: the allocator sanitizer (ACLSIM_ALLOC_CHECK) ---- */

enum api_check_mode { API_CHECK_OFF, API_CHECK_WARN, API_CHECK_ERROR };
enum api_check_mode api_check_mode(void);

/* An operator being executed, as the sanitizer reports it. */
struct api_check_op {
    uint64_t seq;         /* operators executed so far, this one included */
    const char *type;
    const void *stream;   /* backend handle */
    const void *obj;      /* allocator object (NULL: the built-in allocator) */
    const void *desc;     /* desc it was registered with */
    uint64_t start, end;  /* simulated interval, once launched */
};

/* Start / finish the record of an operator (stack with ACLSIM_TRACK=1). */
void api_check_op_begin(struct api_check_op *op, const char *type, const void *stream,
                        const void *obj, const void *desc);

/* A block the executor got for `op`: the address must be live device
 * memory and [addr, addr+bytes) inside one allocation. Returns whether the
 * kernel may use the block. */
bool api_check_block(const struct api_check_op *op, const void *block, const void *addr,
                     size_t bytes, bool workspace);

/* After the launch: the operator's blocks and buffers against pending
 * work of other streams, and its allocator against other streams it
 * serves; then the blocks become pending on the operator's stream until
 * it ends. */
void api_check_launched(struct api_check_op *op, const void *const *addr, const size_t *bytes,
                        int n_blocks, const void *const *bufs, const size_t *buf_bytes,
                        int n_bufs);

/* Around the allocator's free callback: an aclrtFree inside it is the
 * allocator returning the block in the stream's order. */
void api_check_free_begin(const void *stream);
void api_check_free_end(void);

#endif /* ACLSIM_API_OPS_H_ */
