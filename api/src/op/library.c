/*
 * library.c - the built-in operator library as the ACL layer sees it: which
 * operator types exist (CANN's names), what inputs, outputs, attributes,
 * data types and formats each takes, the output shape it produces, and
 * what memory it asks the stream's allocator for. The arithmetic itself is
 * the simulator's (sim/ops/, reached through be_ops.op_run).
 *
 * Operators (CANN's op prototypes; attribute names as CANN's protos name
 * them):
 *   Add AddV2 Sub Mul Div RealDiv Maximum Minimum   x1, x2 -> y (broadcast)
 *   Relu Sigmoid Tanh Gelu Exp Abs Neg Sqrt          x -> y
 *   Cast                   x -> y, attr dst_type (required, = y's type)
 *   MatMul MatMulV2        x1, x2[, bias] -> y, attrs transpose_x1/_x2
 *   BatchMatMul(V2)        x1, x2[, bias] -> y, attrs adj_x1/adj_x2
 *   GEMM                   a, b, c, alpha, beta -> c (aclblasGemmEx's),
 *                          attrs transpose_a/transpose_b
 *   ReduceSum              x, axes (const or host tensor) -> y, keep_dims
 *   ReduceSumD             x -> y, attrs axes, keep_dims
 *   Transpose              x, perm (const or host tensor) -> y
 *   TransposeD             x -> y, attr perm
 *   ZerosLike OnesLike     x -> y of x's shape and type, every element 0 / 1
 * Formats: the plain layouts (ND, NCHW, NHWC, NC, NCL, NCDHW, NDHWC, HWCN)
 * with no different storage format. Shapes must be static (no -1/-2)
 * except unknown output dims in the V2 calls, which are planned here and
 * written back (CANN's ACL_OP_EXECUTE_V2 refresh).
 *
 * Memory each operator asks for (the workspace rule), through the stream's
 * allocator, as CANN's runtime v2 rounds it (hicann/ge at ffdcbc9f:
 * graph_metadef/exe_graph/lowering/shape_utils.cc L20-47 for outputs and
 * intermediates, tiling.h L26 for AI Core workspaces):
 *   every operator      one intermediate for its 32-byte tiling record:
 *                       RoundUp(32, 32) + 32 = 64 bytes
 *   MatMul, BatchMatMul, GEMM   also a workspace for the fp32 accumulators:
 *                       RoundUp(batch * m * n * 4, 512)
 *   ReduceSum(D)        also a workspace for the fp32 partial sums:
 *                       RoundUp(elements of y * 4, 512)
 * (the sizes are aclsim's model of what such kernels need; CANN's real
 * kernels ask for what their tiling functions say.)
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "op.h"

_Thread_local const char *api_op_caller;

enum cls { BINARY, UNARY, CAST, MATMUL, BATCHMATMUL, GEMM, REDUCE, REDUCE_D, TRANSPOSE, TRANSPOSE_D, FILL };

/* Data type sets. */
#define T_F32 (1u << 0)
#define T_F16 (1u << 1)
#define T_BF16 (1u << 2)
#define T_I32 (1u << 3)
#define T_I8 (1u << 4)
#define T_U8 (1u << 5)
#define T_I64 (1u << 6)
#define T_FLOAT (T_F32 | T_F16 | T_BF16)
#define T_NUMBER (T_FLOAT | T_I32)
#define T_CAST (T_FLOAT | T_I32 | T_I8 | T_U8 | T_I64)

struct opdef {
    const char *type;
    enum be_op_kind kind;
    enum cls cls;
    unsigned types;
};

static const struct opdef defs[] = {
    {"Add", BE_OP_ADD, BINARY, T_NUMBER},
    {"AddV2", BE_OP_ADD, BINARY, T_NUMBER},
    {"Sub", BE_OP_SUB, BINARY, T_NUMBER},
    {"Mul", BE_OP_MUL, BINARY, T_NUMBER},
    {"Div", BE_OP_DIV, BINARY, T_NUMBER},
    {"RealDiv", BE_OP_DIV, BINARY, T_FLOAT},
    {"Maximum", BE_OP_MAXIMUM, BINARY, T_NUMBER},
    {"Minimum", BE_OP_MINIMUM, BINARY, T_NUMBER},
    {"Relu", BE_OP_RELU, UNARY, T_NUMBER},
    {"Sigmoid", BE_OP_SIGMOID, UNARY, T_FLOAT},
    {"Tanh", BE_OP_TANH, UNARY, T_FLOAT},
    {"Gelu", BE_OP_GELU, UNARY, T_FLOAT},
    {"Exp", BE_OP_EXP, UNARY, T_FLOAT},
    {"Abs", BE_OP_ABS, UNARY, T_NUMBER},
    {"Neg", BE_OP_NEG, UNARY, T_NUMBER},
    {"Sqrt", BE_OP_SQRT, UNARY, T_FLOAT},
    {"Cast", BE_OP_CAST, CAST, T_CAST},
    {"MatMul", BE_OP_MATMUL, MATMUL, T_FLOAT},
    {"MatMulV2", BE_OP_MATMUL, MATMUL, T_FLOAT},
    {"BatchMatMul", BE_OP_MATMUL, BATCHMATMUL, T_FLOAT},
    {"BatchMatMulV2", BE_OP_MATMUL, BATCHMATMUL, T_FLOAT},
    {"GEMM", BE_OP_GEMM, GEMM, T_F16 | T_I8},
    {"ReduceSum", BE_OP_REDUCE_SUM, REDUCE, T_NUMBER},
    {"ReduceSumD", BE_OP_REDUCE_SUM, REDUCE_D, T_NUMBER},
    {"Transpose", BE_OP_CAST, TRANSPOSE, T_CAST},
    {"TransposeD", BE_OP_CAST, TRANSPOSE_D, T_CAST},
    {"ZerosLike", BE_OP_FILL, FILL, T_CAST},
    {"OnesLike", BE_OP_FILL, FILL, T_CAST},
};

static const struct opdef *find(const char *type)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strcmp(defs[i].type, type) == 0)
            return &defs[i];
    return NULL;
}

bool api_op_known(const char *type)
{
    return find(type) != NULL;
}

static unsigned type_bit(aclDataType t)
{
    switch ((int)t) {
    case ACL_FLOAT:
        return T_F32;
    case ACL_FLOAT16:
        return T_F16;
    case ACL_BF16:
        return T_BF16;
    case ACL_INT32:
        return T_I32;
    case ACL_INT8:
        return T_I8;
    case ACL_UINT8:
        return T_U8;
    case ACL_INT64:
        return T_I64;
    default:
        return 0;
    }
}

static const char *type_name(aclDataType t)
{
    switch ((int)t) {
    case ACL_FLOAT:
        return "float32";
    case ACL_FLOAT16:
        return "float16";
    case ACL_BF16:
        return "bfloat16";
    case ACL_INT32:
        return "int32";
    case ACL_INT8:
        return "int8";
    case ACL_UINT8:
        return "uint8";
    case ACL_INT64:
        return "int64";
    case ACL_DT_UNDEFINED:
        return "undefined";
    default:
        return "an unsupported type";
    }
}

static bool plain_format(aclFormat f)
{
    switch ((int)f) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_HWCN:
        return true;
    default:
        return false;
    }
}

static bool optional_absent(const aclTensorDesc *d)
{
    return d->dtype == ACL_DT_UNDEFINED && d->format == ACL_FORMAT_UNDEFINED && d->ndims == 0;
}

/* The planning context: the call and where to say what is wrong. */
struct ctx {
    const char *type;
    const aclTensorDesc *const *in_desc;
    const aclDataBuffer *const *in;
    const aclTensorDesc *const *out_desc;
    const aclopAttr *attr;
    bool refresh;
    char *why;
    size_t len;
};

__attribute__((format(printf, 3, 4))) static enum api_op_mismatch no(struct ctx *c,
                                                                       enum api_op_mismatch m,
                                                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->len, fmt, ap);
    va_end(ap);
    return m;
}

/* Format and placement of a tensor; copies its shape into t. */
static enum api_op_mismatch take(struct ctx *c, const char *role, int i, const aclTensorDesc *d,
                                 bool output, struct be_view *t)
{
    if (!plain_format(d->format) ||
        (d->storage_format != ACL_FORMAT_UNDEFINED && d->storage_format != d->format))
        return no(c, API_OPM_FORMAT, "%s %s[%d] has format %d (storage format %d): the built-in "
                  "%s takes plain layouts (ND, NCHW, NHWC, ...) only", c->type, role, i,
                  (int)d->format, (int)d->storage_format, c->type);
    if (d->ndims > BE_OP_MAX_DIMS)
        return no(c, output ? API_OPM_OUTPUT : API_OPM_INPUT, "%s %s[%d] has %zu dims, at most "
                  "%d are supported", c->type, role, i, d->ndims, BE_OP_MAX_DIMS);
    for (size_t k = 0; k < d->ndims; k++)
        if (d->dims[k] < 0 && !(output && c->refresh))
            return no(c, output ? API_OPM_OUTPUT : API_OPM_INPUT, "%s %s[%d] has dim %zu = %lld: "
                      "TensorDesc must be static when executing", c->type, role, i, k,
                      (long long)d->dims[k]);
    /* a desc is a contiguous view of its buffer */
    api_view_init(t, NULL, true, d->dtype, (int)d->ndims, d->dims);
    return API_OPM_OK;
}

/* An input the operator reads: from its data buffer on the device, or,
 * for a const desc or a host placement, from host memory. */
static enum api_op_mismatch take_input(struct ctx *c, struct api_op_plan *p, int i, int slot)
{
    const aclTensorDesc *d = c->in_desc[i];
    struct be_view *t = &p->op.in[slot];
    enum api_op_mismatch m = take(c, "input", i, d, false, t);
    if (m)
        return m;
    p->in_index[slot] = i;
    size_t bytes = api_shape_elements(d->dims, d->ndims) * api_impl_aclDataTypeSize(d->dtype);
    if (d->is_const) {
        if (d->const_len < bytes)
            return no(c, API_OPM_INPUT, "%s input[%d] is const with %zu bytes, its shape needs %zu",
                      c->type, i, d->const_len, bytes);
        t->data = d->const_data;
        t->dev = false;
    } else if (d->memtype != ACL_MEMTYPE_DEVICE) {
        if (!c->in[i]->data || c->in[i]->length < bytes)
            return no(c, API_OPM_INPUT, "%s input[%d] is placed in host memory but its buffer "
                      "holds %zu bytes, its shape needs %zu", c->type, i, c->in[i]->length, bytes);
        t->data = c->in[i]->data;
        t->dev = false;
    } else {
        t->data = c->in[i]->data;
    }
    p->op.n_in = slot + 1;
    return API_OPM_OK;
}

static bool same_dims(const struct be_view *a, const int64_t *dims, int n)
{
    if (a->ndims != n)
        return false;
    for (int i = 0; i < n; i++)
        if (a->dims[i] != dims[i])
            return false;
    return true;
}

/* The output must have `dims` (or unknown dims to refresh, with refresh)
 * and type `dt`. */
static enum api_op_mismatch check_output(struct ctx *c, struct api_op_plan *p,
                                         const int64_t *dims, int n, aclDataType dt)
{
    struct be_view *o = &p->op.out[0];
    if (o->dtype != dt)
        return no(c, API_OPM_DTYPE, "%s output[0] is %s, the operator gives %s here", c->type,
                  type_name(o->dtype), type_name(dt));
    bool unknown = false;
    for (int i = 0; i < o->ndims; i++)
        unknown |= o->dims[i] < 0;
    if (unknown && c->refresh) {
        api_view_init(o, o->data, true, o->dtype, n, dims);
        p->refresh = true;
    } else if (!same_dims(o, dims, n)) {
        char want[160], got[160];
        api_dims_text(dims, n, want, sizeof want);
        api_dims_text(o->dims, o->ndims, got, sizeof got);
        return no(c, API_OPM_OUTPUT, "%s output[0] has shape %s, the operator gives %s", c->type,
                  got, want);
    }
    return API_OPM_OK;
}

static bool attr_bool(const aclopAttr *attr, const char *name)
{
    const struct api_attr *a = api_attr_find(attr, name);
    return a && (a->kind == API_ATTR_BOOL || a->kind == API_ATTR_INT) && a->n == 1 && a->ints[0];
}

static enum api_op_mismatch check_type(struct ctx *c, const struct opdef *def, int i,
                                       aclDataType t)
{
    if (!(type_bit(t) & def->types))
        return no(c, API_OPM_DTYPE, "%s does not take %s (input[%d])", c->type, type_name(t), i);
    return API_OPM_OK;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* ---- Per class ---- */

static enum api_op_mismatch plan_binary(struct ctx *c, const struct opdef *def,
                                        struct api_op_plan *p)
{
    const struct be_view *a = &p->op.in[0], *b = &p->op.in[1];
    enum api_op_mismatch m = check_type(c, def, 0, a->dtype);
    if (m)
        return m;
    if (b->dtype != a->dtype)
        return no(c, API_OPM_DTYPE, "%s inputs differ in type: %s and %s", c->type,
                  type_name(a->dtype), type_name(b->dtype));
    int64_t dims[BE_OP_MAX_DIMS];
    int n = api_broadcast(a->dims, a->ndims, b->dims, b->ndims, dims);
    if (n < 0) {
        char sa[160], sb[160];
        api_dims_text(a->dims, a->ndims, sa, sizeof sa);
        api_dims_text(b->dims, b->ndims, sb, sizeof sb);
        return no(c, API_OPM_INPUT, "%s input shapes %s and %s do not broadcast", c->type, sa, sb);
    }
    p->op.calc = a->dtype;
    p->op.alpha = 1; /* aclop's Add and Sub take no factor */
    return check_output(c, p, dims, n, a->dtype);
}

static enum api_op_mismatch plan_unary(struct ctx *c, const struct opdef *def,
                                       struct api_op_plan *p)
{
    const struct be_view *x = &p->op.in[0];
    enum api_op_mismatch m = check_type(c, def, 0, x->dtype);
    p->op.calc = x->dtype;
    return m ? m : check_output(c, p, x->dims, x->ndims, x->dtype);
}

static enum api_op_mismatch plan_cast(struct ctx *c, const struct opdef *def,
                                      struct api_op_plan *p)
{
    const struct be_view *x = &p->op.in[0];
    enum api_op_mismatch m = check_type(c, def, 0, x->dtype);
    if (m)
        return m;
    const struct api_attr *a = api_attr_find(c->attr, "dst_type");
    if (!a || a->n != 1 || !a->ints)
        return no(c, API_OPM_ATTR, "Cast needs its required attribute dst_type");
    aclDataType dst = (aclDataType)a->ints[0];
    if (!(type_bit(dst) & def->types))
        return no(c, API_OPM_DTYPE, "Cast does not produce %s (dst_type %d)", type_name(dst),
                  (int)dst);
    p->op.calc = dst;
    return check_output(c, p, x->dims, x->ndims, dst);
}

static enum api_op_mismatch plan_matmul(struct ctx *c, const struct opdef *def,
                                        struct api_op_plan *p)
{
    const struct be_view *x1 = &p->op.in[0], *x2 = &p->op.in[1];
    enum api_op_mismatch m = check_type(c, def, 0, x1->dtype);
    if (m)
        return m;
    if (x2->dtype != x1->dtype)
        return no(c, API_OPM_DTYPE, "%s inputs differ in type: %s and %s", c->type,
                  type_name(x1->dtype), type_name(x2->dtype));
    bool batch = def->cls == BATCHMATMUL;
    p->op.calc = x1->dtype;
    p->op.trans_a = attr_bool(c->attr, batch ? "adj_x1" : "transpose_x1");
    p->op.trans_b = attr_bool(c->attr, batch ? "adj_x2" : "transpose_x2");
    if (batch ? (x1->ndims < 2 || x2->ndims < 2) : (x1->ndims != 2 || x2->ndims != 2))
        return no(c, API_OPM_INPUT, "%s takes %s inputs, got %d-D and %d-D", c->type,
                  batch ? "at least 2-D" : "2-D", x1->ndims, x2->ndims);
    int64_t m1 = x1->dims[x1->ndims - 2], k1 = x1->dims[x1->ndims - 1];
    int64_t k2 = x2->dims[x2->ndims - 2], n2 = x2->dims[x2->ndims - 1];
    int64_t rows = p->op.trans_a ? k1 : m1, k = p->op.trans_a ? m1 : k1;
    int64_t kk = p->op.trans_b ? n2 : k2, cols = p->op.trans_b ? k2 : n2;
    if (k != kk)
        return no(c, API_OPM_INPUT, "%s inner dims differ: x1 gives k = %lld, x2 gives %lld "
                  "(transpose/adj attributes applied)", c->type, (long long)k, (long long)kk);
    /* Output: broadcast batch dims, then rows x cols. */
    int nb1 = x1->ndims - 2, nb2 = x2->ndims - 2, nb = nb1 > nb2 ? nb1 : nb2;
    int64_t dims[BE_OP_MAX_DIMS];
    size_t batches = 1;
    for (int i = nb - 1, i1 = nb1 - 1, i2 = nb2 - 1; i >= 0; i--, i1--, i2--) {
        int64_t d1 = i1 >= 0 ? x1->dims[i1] : 1, d2 = i2 >= 0 ? x2->dims[i2] : 1;
        if (d1 != d2 && d1 != 1 && d2 != 1)
            return no(c, API_OPM_INPUT, "%s batch dims %lld and %lld do not broadcast", c->type,
                      (long long)d1, (long long)d2);
        dims[i] = d1 == 1 ? d2 : d1;
        batches *= (size_t)dims[i];
    }
    dims[nb] = rows;
    dims[nb + 1] = cols;
    if (p->op.n_in == 3) {
        const struct be_view *bias = &p->op.in[2];
        if (bias->ndims != 1 || bias->dims[0] != cols)
            return no(c, API_OPM_INPUT, "%s bias must be 1-D of %lld elements", c->type,
                      (long long)cols);
        if (bias->dtype != x1->dtype && bias->dtype != ACL_FLOAT)
            return no(c, API_OPM_DTYPE, "%s bias is %s", c->type, type_name(bias->dtype));
    }
    m = check_output(c, p, dims, nb + 2, x1->dtype);
    if (m)
        return m;
    p->req[p->n_req++] = (struct api_op_req){round_up(batches * (size_t)(rows * cols) * 4, 512),
                                             true};
    return API_OPM_OK;
}

/* GEMM, as aclblasGemmEx plans it: a, b, c, alpha, beta; c is the output. */
static enum api_op_mismatch plan_gemm(struct ctx *c, struct api_op_plan *p)
{
    const struct be_view *a = &p->op.in[0], *b = &p->op.in[1], *cc = &p->op.in[2];
    p->op.trans_a = attr_bool(c->attr, "transpose_a");
    p->op.trans_b = attr_bool(c->attr, "transpose_b");
    bool ok = a->dtype == b->dtype &&
              ((a->dtype == ACL_FLOAT16 && (cc->dtype == ACL_FLOAT16 || cc->dtype == ACL_FLOAT)) ||
               (a->dtype == ACL_INT8 && (cc->dtype == ACL_FLOAT || cc->dtype == ACL_INT32)));
    if (!ok)
        return no(c, API_OPM_DTYPE, "GEMM does not take A %s, B %s, C %s (supported: fp16 fp16 "
                  "fp16|fp32, int8 int8 fp32|int32)", type_name(a->dtype), type_name(b->dtype),
                  type_name(cc->dtype));
    if (a->ndims != 2 || b->ndims != 2 || cc->ndims != 2)
        return no(c, API_OPM_INPUT, "GEMM takes 2-D (ND) matrices");
    int64_t m = p->op.trans_a ? a->dims[1] : a->dims[0], k = p->op.trans_a ? a->dims[0] : a->dims[1];
    int64_t kb = p->op.trans_b ? b->dims[1] : b->dims[0], n = p->op.trans_b ? b->dims[0] : b->dims[1];
    if (k != kb || cc->dims[0] != m || cc->dims[1] != n)
        return no(c, API_OPM_INPUT, "GEMM shapes do not agree: A gives %lldx%lld, B %lldx%lld, C "
                  "is %lldx%lld", (long long)m, (long long)k, (long long)kb, (long long)n,
                  (long long)cc->dims[0], (long long)cc->dims[1]);
    for (int i = 3; i < 5; i++)
        if (p->op.in[i].ndims != 0 || p->op.in[i].dtype != cc->dtype)
            return no(c, API_OPM_INPUT, "GEMM alpha and beta are scalars of C's type");
    enum api_op_mismatch mm = check_output(c, p, cc->dims, 2, cc->dtype);
    if (mm)
        return mm;
    p->req[p->n_req++] = (struct api_op_req){round_up((size_t)(m * n) * 4, 512), true};
    return API_OPM_OK;
}

/* Integer values of a const or host input (axes, perm), at most max. */
static enum api_op_mismatch int_values(struct ctx *c, struct api_op_plan *p, int slot,
                                       const char *what, int64_t *v, int *n, int max)
{
    const struct be_view *t = &p->op.in[slot];
    if (t->dev)
        return no(c, API_OPM_INPUT, "%s %s must be a const tensor (aclSetTensorConst) or placed "
                  "in host memory (aclSetTensorPlaceMent), as CANN requires of constant inputs",
                  c->type, what);
    if (t->dtype != ACL_INT32 && t->dtype != ACL_INT64)
        return no(c, API_OPM_DTYPE, "%s %s must be int32 or int64", c->type, what);
    size_t count = api_shape_elements(t->dims, (size_t)t->ndims);
    if (count > (size_t)max)
        return no(c, API_OPM_INPUT, "%s has %zu %s values, at most %d", c->type, count, what, max);
    for (size_t i = 0; i < count; i++)
        v[i] = t->dtype == ACL_INT32 ? ((const int32_t *)t->data)[i]
                                     : ((const int64_t *)t->data)[i];
    *n = (int)count;
    p->op.n_in = slot; /* the kernel reads values, not the tensor */
    return API_OPM_OK;
}

static enum api_op_mismatch attr_ints(struct ctx *c, const char *name, int64_t *v, int *n,
                                      int max)
{
    const struct api_attr *a = api_attr_find(c->attr, name);
    if (!a || a->kind != API_ATTR_LIST_INT)
        return no(c, API_OPM_ATTR, "%s needs its required attribute %s (a list of ints)", c->type,
                  name);
    if (a->n > (size_t)max)
        return no(c, API_OPM_ATTR, "%s attribute %s has %zu values, at most %d", c->type, name,
                  a->n, max);
    memcpy(v, a->ints, a->n * sizeof *v);
    *n = (int)a->n;
    return API_OPM_OK;
}

static enum api_op_mismatch plan_reduce(struct ctx *c, const struct opdef *def,
                                        struct api_op_plan *p)
{
    const struct be_view *x = &p->op.in[0];
    enum api_op_mismatch m = check_type(c, def, 0, x->dtype);
    if (m)
        return m;
    int64_t axes[BE_OP_MAX_DIMS];
    int n = 0;
    m = def->cls == REDUCE ? int_values(c, p, 1, "axes", axes, &n, BE_OP_MAX_DIMS)
                           : attr_ints(c, "axes", axes, &n, BE_OP_MAX_DIMS);
    if (m)
        return m;
    p->op.keep_dims = attr_bool(c->attr, "keep_dims");
    p->op.calc = x->dtype;
    bool reduced[BE_OP_MAX_DIMS] = {false};
    if (n == 0) /* no axes: every axis, as CANN's ReduceSum */
        for (int i = 0; i < x->ndims; i++)
            reduced[i] = true;
    for (int i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + x->ndims : axes[i];
        if (a < 0 || a >= x->ndims)
            return no(c, API_OPM_ATTR, "%s axis %lld is out of range for a %d-D input", c->type,
                      (long long)axes[i], x->ndims);
        reduced[a] = true;
    }
    int64_t dims[BE_OP_MAX_DIMS];
    int nd = 0;
    p->op.n_axes = 0;
    for (int i = 0; i < x->ndims; i++) {
        if (reduced[i])
            p->op.axes[p->op.n_axes++] = i;
        if (!reduced[i])
            dims[nd++] = x->dims[i];
        else if (p->op.keep_dims)
            dims[nd++] = 1;
    }
    m = check_output(c, p, dims, nd, x->dtype);
    if (m)
        return m;
    p->req[p->n_req++] =
        (struct api_op_req){round_up(api_shape_elements(dims, (size_t)nd) * 4, 512), true};
    return API_OPM_OK;
}

static enum api_op_mismatch plan_transpose(struct ctx *c, const struct opdef *def,
                                           struct api_op_plan *p)
{
    const struct be_view *x = &p->op.in[0];
    enum api_op_mismatch m = check_type(c, def, 0, x->dtype);
    if (m)
        return m;
    int64_t perm[BE_OP_MAX_DIMS];
    int n = 0;
    m = def->cls == TRANSPOSE ? int_values(c, p, 1, "perm", perm, &n, BE_OP_MAX_DIMS)
                              : attr_ints(c, "perm", perm, &n, BE_OP_MAX_DIMS);
    if (m)
        return m;
    bool seen[BE_OP_MAX_DIMS] = {false};
    if (n != x->ndims)
        return no(c, API_OPM_ATTR, "%s perm has %d values for a %d-D input", c->type, n, x->ndims);
    /* the output is a copy of the input's permuted view */
    struct be_view v = *x;
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            return no(c, API_OPM_ATTR, "%s perm is not a permutation of 0..%d", c->type, n - 1);
        seen[perm[i]] = true;
        v.dims[i] = x->dims[perm[i]];
        v.strides[i] = x->strides[perm[i]];
    }
    p->op.in[0] = v;
    p->op.calc = x->dtype;
    return check_output(c, p, v.dims, n, x->dtype);
}

/* Inputs each class takes: [min, max]. */
static void input_counts(enum cls cls, int *lo, int *hi)
{
    switch (cls) {
    case BINARY:
        *lo = *hi = 2;
        break;
    case MATMUL:
    case BATCHMATMUL:
        *lo = 2, *hi = 3;
        break;
    case GEMM:
        *lo = *hi = 5;
        break;
    case REDUCE:
    case TRANSPOSE:
        *lo = *hi = 2;
        break;
    default:
        *lo = *hi = 1;
    }
}

enum api_op_mismatch api_op_plan(const struct api_op_args *a, bool refresh,
                                 struct api_op_plan *plan, char *why, size_t len)
{
    const char *type = a->type;
    const aclTensorDesc *const *in_desc = a->in_desc, *const *out_desc = a->out_desc;
    int n_in = a->n_in, n_out = a->n_out;
    struct ctx c = {type, in_desc, a->in, out_desc, a->attr, refresh, why, len};
    memset(plan, 0, sizeof *plan);
    why[0] = '\0';
    const struct opdef *def = find(type);
    if (!def)
        return no(&c, API_OPM_TYPE, "%s is not an operator of aclsim's built-in library "
                  "(docs/operators.md)", type);
    plan->op.kind = def->kind;
    plan->op.type = def->type;
    plan->op.api = api_op_caller;
    int lo, hi;
    input_counts(def->cls, &lo, &hi);
    /* An absent optional input (MatMul's bias) may be passed as CANN's
     * placeholder: undefined type and format, no dims. */
    int given = n_in;
    if (given == hi && hi > lo && optional_absent(in_desc[hi - 1]))
        given--;
    if (given < lo || given > hi)
    {
        if (lo == hi)
            return no(&c, API_OPM_INPUT, "%s takes %d inputs, got %d", type, lo, n_in);
        return no(&c, API_OPM_INPUT, "%s takes %d to %d inputs, got %d", type, lo, hi, n_in);
    }
    if (n_out != 1)
        return no(&c, API_OPM_OUTPUT, "%s has 1 output, got %d", type, n_out);
    for (int i = 0; i < given; i++) {
        enum api_op_mismatch m = take_input(&c, plan, i, i);
        if (m)
            return m;
    }
    plan->op.n_out = 1;
    enum api_op_mismatch m = take(&c, "output", 0, out_desc[0], true, &plan->op.out[0]);
    if (m)
        return m;
    if (out_desc[0]->memtype != ACL_MEMTYPE_DEVICE || out_desc[0]->is_const)
        return no(&c, API_OPM_OUTPUT, "%s output[0] must be placed in device memory", type);
    plan->op.out[0].data = a->out[0]->data;
    plan->n_req = 1;
    plan->req[0] = (struct api_op_req){32 + 32, false}; /* the tiling record */
    switch (def->cls) {
    case BINARY:
        return plan_binary(&c, def, plan);
    case UNARY:
        return plan_unary(&c, def, plan);
    case CAST:
        return plan_cast(&c, def, plan);
    case MATMUL:
    case BATCHMATMUL:
        return plan_matmul(&c, def, plan);
    case GEMM:
        return plan_gemm(&c, plan);
    case REDUCE:
    case REDUCE_D:
        return plan_reduce(&c, def, plan);
    case FILL:
        plan->op.alpha = strcmp(def->type, "OnesLike") == 0 ? 1 : 0;
        return plan_unary(&c, def, plan);
    default:
        return plan_transpose(&c, def, plan);
    }
}
