/*
 * op.h - the contract of api/src/op/, operators: tensor descriptions
 * (tensor.c), data types and data buffers (data.c), operator attributes
 * (attr.c), single operators and their handles (single.c), the operator
 * compiler (compiler.c), the cblas calls (cblas.c), the built-in operator
 * library of the aclop calls (library.c: what each operator accepts and
 * what memory it asks for), the one view type of a tensor (view.c) and
 * CANN's data type rules (dtype.c) that every operator shares, the aclnn
 * objects (nnmeta.c; the aclnn operators are nn/, whose nn.h is that
 * folder's own) and the single-op executor (executor.c), the one consumer
 * of registered allocators, as CANN's is.
 *
 * op/ may include every family folder below it (diag/, rt/, alloc/, mem/);
 * none of them includes this header.
 */
#ifndef ACLSIM_API_OP_OP_H_
#define ACLSIM_API_OP_OP_H_

#include "alloc/alloc.h"
#include "backends/be.h"
#include "mem/memory.h"
#include "rt/rt.h"
#include "aclnn/opdev/op_errno.h"

/* ---- tensor.c: tensor descriptions (struct aclTensorDesc of acl_base_mdl.h) ---- */

/* A tensor description, as CANN's GE ACL layer keeps one. Fixed size: CANN
 * hands descs out as arrays (aclGetTensorDescByIndex indexes them). */
struct aclTensorDesc {
    aclDataType dtype;
    aclFormat format;         /* origin format (aclSetTensorOriginFormat) */
    aclFormat storage_format; /* aclSetTensorFormat/StorageFormat; UNDEFINED: unset */
    size_t ndims, n_storage, n_range, n_vrange;
    int64_t *dims;            /* origin shape; -1 unknown dim, {-2} unknown rank */
    int64_t *storage_dims;    /* aclSetTensorShape/StorageShape (a copy of dims at create) */
    int64_t (*range)[2];      /* aclSetTensorShapeRange */
    int64_t (*vrange)[2];     /* aclSetTensorValueRange */
    char *name, *dyn_name;    /* NULL reads as "" */
    void *const_data;         /* aclSetTensorConst: a copy */
    size_t const_len;
    bool is_const;
    aclMemType memtype;
    void *address;
};

/* A deep copy of a desc (operator handles keep one), or NULL. */
aclTensorDesc *api_desc_clone(const aclTensorDesc *d);

/* Element count of a shape as aclGetTensorDescElementCount counts it: 1 for
 * a scalar, 0 for a negative dim or on overflow. */
size_t api_shape_elements(const int64_t *dims, size_t ndims);

/* ---- data.c: data buffers ---- */

/* What aclCreateDataBuffer hands out: a plain host object naming memory it
 * does not own (the operator calls read it). */
struct aclDataBuffer {
    void *data;
    uint64_t length;
};

/* ---- attr.c: operator attributes (struct aclopAttr of acl_op.h) ----
 *
 * An attribute set maps names to typed values, a later Set of a name
 * replacing the earlier one (CANN keeps a std::map). Values are stored in
 * three shapes: integers (bool, int, data type and their lists, and list of
 * lists, flattened with per-list lengths), floats, strings. */

enum api_attr_kind {
    API_ATTR_BOOL, API_ATTR_INT, API_ATTR_FLOAT, API_ATTR_STRING, API_ATTR_DTYPE,
    API_ATTR_LIST_BOOL, API_ATTR_LIST_INT, API_ATTR_LIST_FLOAT, API_ATTR_LIST_STRING,
    API_ATTR_LIST_DTYPE, API_ATTR_LIST_LIST_INT
};

struct api_attr {
    char *name;
    enum api_attr_kind kind;
    size_t n;       /* values (lists: elements; list of lists: all ints) */
    int64_t *ints;  /* integer kinds */
    float *floats;  /* float kinds */
    char **strs;    /* string kinds */
    size_t nlists;  /* list of lists: number of lists */
    int *lens;      /* list of lists: length of each */
};

struct aclopAttr {
    struct api_attr *v;
    size_t n, cap;
};

/* The attribute named `name`, or NULL. attr may be NULL (no attributes). */
const struct api_attr *api_attr_find(const aclopAttr *attr, const char *name);

/* A deep copy of attr (NULL: none, and *ok true); *ok false when host
 * memory ran out (an operator handle keeps its own copy). */
aclopAttr *api_attr_clone(const aclopAttr *attr, bool *ok);

/* ---- view.c: the one view type of a tensor (struct be_view) ---- */

/* A contiguous view of ndims dims at data (offset 0, row-major strides). */
void api_view_init(struct be_view *v, const void *data, bool dev, aclDataType dtype, int ndims,
                   const int64_t *dims);
/* The bytes v touches: from *lo, *bytes of them (0 for an empty view). */
void api_view_span(const struct be_view *v, const void **lo, size_t *bytes);
/* Whether v's strides are row-major over its dims (dims of 1 ignored). */
bool api_view_contiguous(const struct be_view *v);
/* Elements of a shape (1 for no dims). */
int64_t api_dims_elements(const int64_t *dims, int n);
/* The broadcast of shapes a and b (numpy's rule): its rank, and its dims
 * in out; -1 when they do not broadcast. */
int api_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out);
/* A shape as CANN's logs write one ("[2, 3]"; hicann/opbase
 * src/nnopbase/common/utils/shape_utils.cpp ToString). */
void api_dims_text(const int64_t *dims, int n, char *buf, size_t len);

/* ---- dtype.c: CANN's data type rules (one place for every operator) ---- */

/* A set of data types: bit t for aclDataType t. */
typedef uint64_t api_types;
#define API_T(t) (UINT64_C(1) << (unsigned)(t))
/* CANN's name of a type (ge's DataTypeToSerialString: "DT_FLOAT"). */
const char *api_dtype_name(aclDataType t);
/* A set as CANN's logs write one ("[DT_FLOAT,DT_INT32,]"). */
void api_types_text(api_types set, char *buf, size_t len);
/* Whether t is in set (an out-of-range t is in none). */
bool api_type_in(aclDataType t, api_types set);
/* op::PromoteType, op::CanCast, IsFloatingType, IsIntegralType (with or
 * without bool), IsComplexType: hicann/opbase
 * include/nnopbase/opdev/data_type_utils.h. */
aclDataType api_promote(aclDataType a, aclDataType b);
bool api_can_cast(aclDataType from, aclDataType to);
bool api_is_floating(aclDataType t);
bool api_is_integral(aclDataType t, bool with_bool);
bool api_is_complex(aclDataType t);

/* ---- library.c: the built-in operator library ---- */

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

/* An operator call, matched against the library (aclop) or planned by an
 * aclnn GetWorkspaceSize call: the operator, and the blocks the executor
 * asks the stream's allocator for. The bytes each tensor reads or writes
 * are its view's span (api_view_span), worked out at launch, when the
 * addresses are final. */
struct api_op_plan {
    struct be_op op;
    int n_req;
    struct api_op_req req[2];
    int in_index[BE_OP_MAX_IN]; /* the caller's input behind op.in[i] */
    bool refresh;               /* output dims to write back (V2 calls) */
};

/* An operator call as the aclop* calls receive it: the type, the inputs'
 * and outputs' descs and buffers, the attributes (NULL: none). */
struct api_op_args {
    const char *type;
    int n_in;
    const aclTensorDesc *const *in_desc;
    const aclDataBuffer *const *in;
    int n_out;
    const aclTensorDesc *const *out_desc;
    aclDataBuffer *const *out;
    const aclopAttr *attr;
};

/* Match a call against the built-in library and plan it: API_OPM_OK and
 * *plan, or why not (and a sentence in why). With `refresh`, unknown
 * output dims (-1, -2) are allowed and planned from the inputs (the V2
 * calls write them back). Data buffers are not checked here. */
enum api_op_mismatch api_op_plan(const struct api_op_args *a, bool refresh,
                                 struct api_op_plan *plan, char *why, size_t len);

/* Whether `type` names a built-in operator. */
bool api_op_known(const char *type);

/* ---- single.c: the checks and driver every execute call shares ---- */

/* CANN's data-buffer array check (CheckDataBufferArry) and descriptor
 * array checks (CheckPtrArray); ACL_SUCCESS or the reported error. */
aclError api_op_check_buffers(int n, const aclDataBuffer *const *arr);
aclError api_op_check_descs(int n_in, const aclTensorDesc *const *in, int n_out,
                            const aclTensorDesc *const *out);
/* Whether every output has a 0 dim (then CANN returns success at once). */
bool api_op_all_outputs_empty(int n, const aclTensorDesc *const *out);

/* How api_op_call runs a call: API_OP_COMPILED, the aclopCompileAndExecute
 * path (a mismatch is named by its ACL op code) rather than the execute
 * path (ACL_ERROR_OP_NOT_FOUND, as CANN's model matching); API_OP_REFRESH,
 * write planned output dims back (the V2 calls). */
enum { API_OP_COMPILED = 1, API_OP_REFRESH = 2 };

/* Plan and execute a call whose arguments passed the call's own checks
 * (`how`: API_OP_* flags; `fn` names the call for messages). */
aclError api_op_call(const char *fn, unsigned how, const struct api_op_args *a,
                     aclrtStream stream);

/* ---- executor.c: the single-op executor ---- */

/* Run a planned operator on `stream` (the user's handle; NULL: the
 * current context's default stream) the way CANN's single-op executor
 * does: the stream's allocator (registered, or the executor's fallback one),
 * blocks for the plan's requests, launch, blocks freed right after the
 * launch. `fn` names the call for messages. */
aclError api_op_execute(const char *fn, struct api_op_plan *plan, aclrtStream stream);

/* Run a planned aclnn operator on `stream` with the workspace its caller
 * allocated (ws, ws_bytes; NULL, 0: none): the buffers and the stream are
 * checked as api_op_execute checks them, the workspace is shown to the
 * allocator sanitizer as an executor's block is (address, bounds, pending
 * use by other streams, graph memory) and the kernel writes it. The plan's
 * own requests are not drawn from any allocator. */
aclError api_op_execute_ws(const char *fn, struct api_op_plan *plan, aclrtStream stream,
                           void *ws, size_t ws_bytes);

/* ---- executor.c, as a watcher (api/src/watchers.c) ---- */

/* A stream's backend object is released: its executor state and the
 * executor's own allocator of it go with it. */
void api_op_stream_released(void *stream);
/* Device dev is closing: release the executor's own allocators of its
 * streams (before the leak report, which must not count them). */
void api_op_device_closing(int32_t dev, const char *where);

/* ---- nnmeta.c: the aclnn objects (CANN's nnopbase, aclnn/acl_meta.h) ---- */

/* What aclCreateTensor hands out: a view (shape, strides and offset in
 * elements) of storage at `data`, which it does not own. The three arrays
 * are sized for API_NN_MAX_DIMS each, so aclInitTensor can change them in
 * place: as many as CANN's shapes hold (hicann/opbase
 * include/nnopbase/opdev/common_types.h L45, MAX_DIM_NUM = 25); an
 * operator takes at most BE_OP_MAX_DIMS (8) and refuses more with
 * ACLNN_ERR_PARAM_INVALID, as CANN's OP_CHECK_MAX_DIM does. */
#define API_NN_MAX_DIMS 25
struct aclTensor {
    aclDataType dtype;
    aclFormat format;
    uint64_t ndims, n_storage;
    int64_t offset;
    void *data;
    int64_t dims[API_NN_MAX_DIMS], strides[API_NN_MAX_DIMS], storage[API_NN_MAX_DIMS];
};

/* A host scalar: its type and its value, copied at create. */
struct aclScalar {
    aclDataType dtype;
    union {
        double f64;
        float f32;
        uint16_t h16;
        int64_t i64;
        int32_t i32;
        int16_t i16;
        int8_t i8;
        uint8_t u8;
        uint64_t bits;
    } v;
};

/* The scalar's value as a double (fp16/bf16 widened, integers converted). */
double api_nn_scalar_value(const aclScalar *s);

/* Copy an int array's values into v (as many as aclGetIntArraySize says). */
void api_nn_int_array(const aclIntArray *a, int64_t *v);
/* Tensor i of a tensor list (NULL past its end, or where the list holds
 * NULL). */
const aclTensor *api_nn_tensor_list_at(const aclTensorList *l, uint64_t i);

/* An operator planned by an aclnn GetWorkspaceSize call: what its launch
 * runs. Single-use unless made repeatable (CANN's rule): a launch of a
 * single-use executor destroys it. */
struct aclOpExecutor {
    _Atomic uint64_t magic; /* nnmeta.c's: set while live */
    const char *launch;     /* the launch call it belongs to ("aclnnAdd") */
    struct api_op_plan plan;
    uint64_t ws_bytes;      /* the workspace it planned */
    bool repeatable;
    uint64_t host_vals[BE_OP_MAX_IN]; /* host scalar inputs (a scalar operand, Gemm's alpha), kept */
    struct aclOpExecutor *next_free;  /* nnmeta.c's free list */
};

/* A new executor for the launch call `launch`, live until freed; NULL
 * when host memory runs out (reported). */
aclOpExecutor *api_nn_executor_new(const char *launch);
/* Whether e is a live executor (made and not yet run once or destroyed). */
bool api_nn_executor_live(const aclOpExecutor *e);
/* A launch takes e: a single-use executor only once, however many
 * threads launch it at the same time (the others find it not live); a
 * repeatable one while it is live. */
bool api_nn_executor_claim(aclOpExecutor *e);
/* Unregister and free a live (or claimed) executor. */
void api_nn_executor_free(aclOpExecutor *e);
/* fn for each live executor (made and not yet run once or destroyed). */
void api_nn_executor_each(void (*fn)(const aclOpExecutor *e, void *user), void *user);

/* Report an aclnn failure as CANN's op layer does (hicann/opbase
 * include/nnopbase/opdev/op_log.h L48-60: the code's first digit picks
 * EZ1001, EZ9903 or EZ9999) and return it. */
aclnnStatus api_nn_fail(aclnnStatus rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The call planning an aclop operator on this thread when it is not
 * aclopExecute itself (cblas.c sets "aclblasGemmEx" around its GEMM):
 * the trace names the operator by it. NULL: aclop's own, named by type. */
extern _Thread_local const char *api_op_caller;

#endif /* ACLSIM_API_OP_OP_H_ */
