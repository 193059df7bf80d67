/*
 * nnmeta.c - the objects of the aclnn API (CANN's nnopbase,
 * aclnn/acl_meta.h and aclnn/aclnn_base.h): tensors, scalars, arrays and
 * lists with their create, destroy and getter calls, the executors that
 * the operators' GetWorkspaceSize calls plan (nn/) and
 * aclSetAclOpExecutorRepeatable / aclDestroyAclOpExecutor, aclnnInit and
 * aclnnFinalize.
 *
 * Checks and codes as CANN's (hicann/opbase at aa3cd74,
 * src/nnopbase/common/api/acl_op_api.cpp): a create with NULL dims and a
 * non-zero count, or a NULL scalar value, returns NULL (L34-56); a destroy
 * of NULL succeeds (L92-97); getters refuse NULL arguments with
 * ACLNN_ERR_PARAM_NULLPTR (L186-300); aclSetAclOpExecutorRepeatable and
 * aclDestroyAclOpExecutor refuse a NULL executor with
 * ACLNN_ERR_INNER_NULLPTR and one they do not know with ACLNN_ERR_INNER
 * (L476-505). Destroying a list destroys its elements (L160-185).
 * The arrays the shape getters hand out are the caller's to free() (CANN's
 * come from new[]).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "op.h"

#define EXECUTOR_MAGIC UINT64_C(0x61636c73696d6e6e) /* "aclsimnn" */
#define EXECUTOR_CLAIMED UINT64_C(0x61636c73696d6e43) /* a single-use one's launch has it */

struct aclIntArray {
    uint64_t n;
    int64_t v[];
};
struct aclFloatArray {
    uint64_t n;
    float v[];
};
struct aclBoolArray {
    uint64_t n;
    bool v[];
};
struct aclTensorList {
    uint64_t n;
    const aclTensor *v[];
};
struct aclScalarList {
    uint64_t n;
    const aclScalar *v[];
};

aclnnStatus api_nn_fail(aclnnStatus rc, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int first = rc;
    while (first >= 10)
        first /= 10;
    api_report(first == 1 ? API_MSG_EZ1001 : first == 3 ? API_MSG_EZ9903 : API_MSG_EZ9999, "%s",
               text);
    return rc;
}

/* ---- Tensors ---- */

static bool tensor_init(aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum,
                        aclDataType dataType, const int64_t *stride, int64_t offset,
                        aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                        void *data)
{
    if (viewDimsNum > API_NN_MAX_DIMS || storageDimsNum > API_NN_MAX_DIMS)
        return false;
    t->dtype = dataType;
    t->format = format;
    t->ndims = viewDimsNum;
    t->n_storage = storageDimsNum;
    t->offset = offset;
    t->data = data;
    int64_t s = 1;
    for (uint64_t i = viewDimsNum; i-- > 0;) {
        t->dims[i] = viewDims[i];
        t->strides[i] = stride ? stride[i] : s; /* no strides: contiguous */
        /* a hostile shape saturates: its launch refuses it (nnop.c) */
        if (__builtin_mul_overflow(s, viewDims[i] > 0 ? viewDims[i] : 1, &s))
            s = INT64_MAX;
    }
    for (uint64_t i = 0; i < storageDimsNum; i++)
        t->storage[i] = storageDims[i];
    return true;
}

aclTensor *api_impl_aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                    aclDataType dataType, const int64_t *stride, int64_t offset,
                                    aclFormat format, const int64_t *storageDims,
                                    uint64_t storageDimsNum, void *tensorData)
{
    API_FORWARD(aclCreateTensor, (viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorData));
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0))
        return NULL;
    if (viewDimsNum > API_NN_MAX_DIMS || storageDimsNum > API_NN_MAX_DIMS) {
        api_nn_fail(ACLNN_ERR_INNER, "aclCreateTensor error: a tensor has at most %d dims, got "
                    "%llu view and %llu storage dims", API_NN_MAX_DIMS,
                    (unsigned long long)viewDimsNum, (unsigned long long)storageDimsNum);
        return NULL;
    }
    aclTensor *t = base_calloc(1, sizeof *t);
    if (!t) {
        api_nn_fail(ACLNN_ERR_INNER, "aclCreateTensor error.");
        return NULL;
    }
    tensor_init(t, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                storageDimsNum, tensorData);
    return t;
}

aclnnStatus api_impl_aclInitTensor(aclTensor *tensor, const int64_t *viewDims,
                                   uint64_t viewDimsNum, aclDataType dataType,
                                   const int64_t *stride, int64_t offset, aclFormat format,
                                   const int64_t *storageDims, uint64_t storageDimsNum,
                                   void *tensorDataAddr)
{
    API_FORWARD(aclInitTensor, (tensor, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorDataAddr));
    if (tensor == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0))
        return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: dims are NULL with a non-zero "
                           "count");
    if (!tensor_init(tensor, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                     storageDimsNum, tensorDataAddr))
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "aclInitTensor: a tensor has at most %d dims",
                           API_NN_MAX_DIMS);
    return OK;
}

aclnnStatus api_impl_aclDestroyTensor(const aclTensor *tensor)
{
    API_FORWARD(aclDestroyTensor, (tensor));
    base_free((void *)tensor);
    return OK;
}

/* A copy of n dims for the caller, who frees it with free() (base_malloc's
 * memory is posix_memalign's), or ACLNN_ERR_INNER_NULLPTR as CANN's. */
static aclnnStatus hand_out(const int64_t *v, uint64_t n, int64_t **out, uint64_t *num)
{
    *num = n;
    *out = base_malloc(n ? n * sizeof *v : 1);
    if (!*out)
        return ACLNN_ERR_INNER_NULLPTR;
    if (n)
        memcpy(*out, v, n * sizeof *v);
    return OK;
}

aclnnStatus api_impl_aclGetViewShape(const aclTensor *tensor, int64_t **viewDims,
                                     uint64_t *viewDimsNum)
{
    API_FORWARD(aclGetViewShape, (tensor, viewDims, viewDimsNum));
    if (tensor == NULL || viewDims == NULL || viewDimsNum == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    return hand_out(tensor->dims, tensor->ndims, viewDims, viewDimsNum);
}

aclnnStatus api_impl_aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                        uint64_t *storageDimsNum)
{
    API_FORWARD(aclGetStorageShape, (tensor, storageDims, storageDimsNum));
    if (tensor == NULL || storageDims == NULL || storageDimsNum == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    return hand_out(tensor->storage, tensor->n_storage, storageDims, storageDimsNum);
}

aclnnStatus api_impl_aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                       uint64_t *stridesNum)
{
    API_FORWARD(aclGetViewStrides, (tensor, stridesValue, stridesNum));
    if (tensor == NULL || stridesValue == NULL || stridesNum == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    return hand_out(tensor->strides, tensor->ndims, stridesValue, stridesNum);
}

aclnnStatus api_impl_aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    API_FORWARD(aclGetViewOffset, (tensor, offset));
    if (tensor == NULL || offset == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    *offset = tensor->offset;
    return OK;
}

aclnnStatus api_impl_aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    API_FORWARD(aclGetFormat, (tensor, format));
    if (tensor == NULL || format == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    *format = tensor->format;
    return OK;
}

aclnnStatus api_impl_aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    API_FORWARD(aclGetDataType, (tensor, dataType));
    if (tensor == NULL || dataType == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    *dataType = tensor->dtype;
    return OK;
}

aclnnStatus api_impl_aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    API_FORWARD(aclSetRawTensorAddr, (tensor, addr));
    if (tensor == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    tensor->data = addr;
    return OK;
}

aclnnStatus api_impl_aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    API_FORWARD(aclGetRawTensorAddr, (tensor, addr));
    if (tensor == NULL || addr == NULL)
        return ACLNN_ERR_PARAM_NULLPTR;
    *addr = tensor->data;
    return OK;
}

/* ---- Scalars ---- */

aclScalar *api_impl_aclCreateScalar(void *value, aclDataType dataType)
{
    API_FORWARD(aclCreateScalar, (value, dataType));
    if (value == NULL)
        return NULL;
    size_t n = api_impl_aclDataTypeSize(dataType);
    if (n == 0 || n > 8) {
        api_nn_fail(ACLNN_ERR_INNER, "aclCreateScalar error: data type %d is no scalar type",
                    (int)dataType);
        return NULL;
    }
    aclScalar *s = base_calloc(1, sizeof *s);
    if (!s) {
        api_nn_fail(ACLNN_ERR_INNER, "aclCreateScalar error.");
        return NULL;
    }
    s->dtype = dataType;
    memcpy(&s->v, value, n);
    return s;
}

aclnnStatus api_impl_aclDestroyScalar(const aclScalar *scalar)
{
    API_FORWARD(aclDestroyScalar, (scalar));
    base_free((void *)scalar);
    return OK;
}

static double half_value(uint16_t h, bool bf16)
{
    uint32_t bits;
    if (bf16) {
        bits = (uint32_t)h << 16;
    } else {
        uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
        if (exp == 0x1f)
            bits = sign | 0x7f800000u | (man << 13);
        else if (exp)
            bits = sign | ((exp + 112) << 23) | (man << 13);
        else { /* zero or subnormal: man * 2^-24 */
            float f = (float)man / 16777216.0f;
            return sign ? -f : f;
        }
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

double api_nn_scalar_value(const aclScalar *s)
{
    switch ((int)s->dtype) {
    case ACL_DOUBLE:
        return s->v.f64;
    case ACL_FLOAT:
        return s->v.f32;
    case ACL_FLOAT16:
        return half_value(s->v.h16, false);
    case ACL_BF16:
        return half_value(s->v.h16, true);
    case ACL_INT64:
        return (double)s->v.i64;
    case ACL_UINT64:
        return (double)s->v.bits;
    case ACL_INT32:
        return s->v.i32;
    case ACL_UINT32:
        return (uint32_t)s->v.i32;
    case ACL_INT16:
        return s->v.i16;
    case ACL_UINT16:
        return s->v.h16;
    case ACL_INT8:
        return s->v.i8;
    default: /* UINT8, BOOL */
        return s->v.u8;
    }
}

/* ---- Arrays and lists ---- */

/* aclCreate<Type> (`name`): a copy of size values; NULL for NULL values
 * with a non-zero size. */
#define ARRAY_CREATE(name, Type, elem)                                                      \
    Type *api_impl_##name(const elem *value, uint64_t size)                                 \
    {                                                                                       \
        API_FORWARD(name, (value, size));                                                   \
        if (value == NULL && size > 0)                                                      \
            return NULL;                                                                    \
        Type *a = size > (SIZE_MAX - sizeof *a) / sizeof a->v[0]                            \
                      ? NULL                                                                \
                      : base_malloc(sizeof *a + (size_t)size * sizeof a->v[0]);             \
        if (!a) {                                                                           \
            api_nn_fail(ACLNN_ERR_INNER, #name " error.");                                  \
            return NULL;                                                                    \
        }                                                                                   \
        a->n = size;                                                                        \
        if (size)                                                                           \
            memcpy(a->v, value, (size_t)size * sizeof a->v[0]);                             \
        return a;                                                                           \
    }
/* aclGet<Type>Size (`name`). */
#define ARRAY_SIZE(name, Type)                                                              \
    aclnnStatus api_impl_##name(const Type *array, uint64_t *size)                          \
    {                                                                                       \
        API_FORWARD(name, (array, size));                                                   \
        if (array == NULL || size == NULL)                                                  \
            return ACLNN_ERR_PARAM_NULLPTR;                                                 \
        *size = array->n;                                                                   \
        return OK;                                                                          \
    }

ARRAY_CREATE(aclCreateIntArray, aclIntArray, int64_t)
ARRAY_SIZE(aclGetIntArraySize, aclIntArray)
ARRAY_CREATE(aclCreateFloatArray, aclFloatArray, float)
ARRAY_SIZE(aclGetFloatArraySize, aclFloatArray)
ARRAY_CREATE(aclCreateBoolArray, aclBoolArray, bool)
ARRAY_SIZE(aclGetBoolArraySize, aclBoolArray)
ARRAY_CREATE(aclCreateTensorList, aclTensorList, aclTensor *const)
ARRAY_SIZE(aclGetTensorListSize, aclTensorList)
ARRAY_CREATE(aclCreateScalarList, aclScalarList, aclScalar *const)
ARRAY_SIZE(aclGetScalarListSize, aclScalarList)

const aclTensor *api_nn_tensor_list_at(const aclTensorList *l, uint64_t i)
{
    return i < l->n ? l->v[i] : NULL;
}

void api_nn_int_array(const aclIntArray *a, int64_t *v)
{
    if (a->n)
        memcpy(v, a->v, (size_t)a->n * sizeof *v);
}

aclnnStatus api_impl_aclDestroyIntArray(const aclIntArray *array)
{
    API_FORWARD(aclDestroyIntArray, (array));
    base_free((void *)array);
    return OK;
}

aclnnStatus api_impl_aclDestroyFloatArray(const aclFloatArray *array)
{
    API_FORWARD(aclDestroyFloatArray, (array));
    base_free((void *)array);
    return OK;
}

aclnnStatus api_impl_aclDestroyBoolArray(const aclBoolArray *array)
{
    API_FORWARD(aclDestroyBoolArray, (array));
    base_free((void *)array);
    return OK;
}

aclnnStatus api_impl_aclDestroyTensorList(const aclTensorList *array)
{
    API_FORWARD(aclDestroyTensorList, (array));
    if (array)
        for (uint64_t i = 0; i < array->n; i++)
            api_impl_aclDestroyTensor(array->v[i]);
    base_free((void *)array);
    return OK;
}

aclnnStatus api_impl_aclDestroyScalarList(const aclScalarList *array)
{
    API_FORWARD(aclDestroyScalarList, (array));
    if (array)
        for (uint64_t i = 0; i < array->n; i++)
            api_impl_aclDestroyScalar(array->v[i]);
    base_free((void *)array);
    return OK;
}

/* ---- Executors ----
 *
 * Executors come from slabs of SLAB that are never given back before the
 * library unloads: a freed one keeps its memory with its magic cleared, so
 * telling a live executor from a consumed or destroyed one reads only
 * aclsim's own memory (a pointer into no slab is no executor at all), and
 * planning an operator allocates nothing once the slabs are warm (scons
 * bench: aclnn_vs_aclop). */

#define SLAB 64u
#define MAX_SLABS 4096u /* 262144 executors live at once */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* making slabs */
static aclOpExecutor *slabs[MAX_SLABS];                  /* each SLAB executors */
static _Atomic size_t n_slabs;
/* Free executors, per thread (one freed on another thread joins that
 * thread's list): planning and launching take no lock. A freed executor
 * first waits in a small ring of the last QUARANTINE freed ones, and only
 * then goes back to the list (last in, first out, so the few in use stay
 * in cache): a stale handle - a single-use executor launched again - is
 * still recognised as not live after the next QUARANTINE plans. */
#define QUARANTINE 16u
static _Thread_local aclOpExecutor *free_list;
static _Thread_local aclOpExecutor *ring[QUARANTINE];
static _Thread_local unsigned ring_at;

static void put_free(aclOpExecutor *e)
{
    aclOpExecutor *out = ring[ring_at];
    ring[ring_at] = e;
    ring_at = (ring_at + 1) % QUARANTINE;
    if (out) {
        out->next_free = free_list;
        free_list = out;
    }
}

/* A new slab's executors onto this thread's free list. */
static bool grow(void)
{
    aclOpExecutor *slab = base_calloc(SLAB, sizeof *slab);
    if (!slab)
        return false;
    pthread_mutex_lock(&lock);
    size_t n = atomic_load(&n_slabs);
    bool room = n < MAX_SLABS;
    if (room) {
        slabs[n] = slab;
        atomic_store(&n_slabs, n + 1);
    }
    pthread_mutex_unlock(&lock);
    if (!room) {
        base_free(slab);
        return false;
    }
    for (unsigned i = SLAB; i-- > 0;) {
        slab[i].next_free = free_list;
        free_list = &slab[i];
    }
    return true;
}

aclOpExecutor *api_nn_executor_new(const char *launch)
{
    if (!free_list && !grow()) {
        api_nn_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: failed to create the executor (host "
                    "memory).", launch);
        return NULL;
    }
    aclOpExecutor *e = free_list;
    free_list = e->next_free;
    e->launch = launch;
    e->repeatable = false;
    e->ws_bytes = 0;
    atomic_store_explicit(&e->magic, EXECUTOR_MAGIC, memory_order_release);
    return e;
}

/* Whether e points at an executor of a slab (slabs are never moved). */
static bool in_slabs(const aclOpExecutor *e)
{
    size_t n = atomic_load_explicit(&n_slabs, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        uintptr_t at = (uintptr_t)e, lo = (uintptr_t)slabs[i];
        if (at >= lo && at < lo + SLAB * sizeof *e)
            return (at - lo) % sizeof *e == 0;
    }
    return false;
}

bool api_nn_executor_live(const aclOpExecutor *e)
{
    return in_slabs(e) &&
           atomic_load_explicit(&e->magic, memory_order_acquire) == EXECUTOR_MAGIC;
}

bool api_nn_executor_claim(aclOpExecutor *e)
{
    if (!in_slabs(e))
        return false;
    if (e->repeatable)
        return api_nn_executor_live(e);
    uint64_t live = EXECUTOR_MAGIC; /* one launch wins; the others find it gone */
    return atomic_compare_exchange_strong(&e->magic, &live, EXECUTOR_CLAIMED);
}

void api_nn_executor_free(aclOpExecutor *e)
{
    /* claimed first: the launch path's (one exchange), then a live one's */
    uint64_t live = EXECUTOR_MAGIC, claimed = EXECUTOR_CLAIMED;
    if (in_slabs(e) && (atomic_compare_exchange_strong(&e->magic, &claimed, 0) ||
                        atomic_compare_exchange_strong(&e->magic, &live, 0)))
        put_free(e);
}

void api_nn_executor_each(void (*fn)(const aclOpExecutor *e, void *user), void *user)
{
    pthread_mutex_lock(&lock);
    size_t n = atomic_load(&n_slabs);
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < SLAB; k++)
            if (atomic_load_explicit(&slabs[i][k].magic, memory_order_acquire) == EXECUTOR_MAGIC)
                fn(&slabs[i][k], user);
}

__attribute__((destructor)) static void nnmeta_unload(void)
{
    for (size_t i = 0; i < n_slabs; i++)
        base_free(slabs[i]);
}

aclnnStatus api_impl_aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    API_FORWARD(aclSetAclOpExecutorRepeatable, (executor));
    if (executor == NULL)
        return api_nn_fail(ACLNN_ERR_INNER_NULLPTR, "executor is nullptr.");
    if (!api_nn_executor_live(executor))
        return api_nn_fail(ACLNN_ERR_INNER, "aclSetAclOpExecutorRepeatable: %p is no live "
                           "executor (already run once, destroyed, or never made by a "
                           "GetWorkspaceSize call)", (void *)executor);
    executor->repeatable = true;
    return OK;
}

aclnnStatus api_impl_aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    API_FORWARD(aclDestroyAclOpExecutor, (executor));
    if (executor == NULL)
        return api_nn_fail(ACLNN_ERR_INNER_NULLPTR, "executor is nullptr.");
    if (!api_nn_executor_live(executor))
        return api_nn_fail(ACLNN_ERR_INNER, "aclDestroyAclOpExecutor: %p is no live executor "
                           "(a single-use executor is destroyed by its launch)",
                           (void *)executor);
    api_nn_executor_free(executor);
    return OK;
}

/* Rebinding a tensor's address in a repeatable executor: aclsim's plans
 * keep device addresses, so the tensor and the plan's input or output
 * `index` both take addr. */
static aclnnStatus set_addr(const char *fn, aclOpExecutor *executor, size_t index,
                            aclTensor *tensor, void *addr, bool output)
{
    if (tensor == NULL)
        return api_nn_fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensor is nullptr.", fn);
    tensor->data = addr;
    if (executor == NULL)
        return api_nn_fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is nullptr.", fn);
    if (!api_nn_executor_live(executor))
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is no live executor", fn,
                           (void *)executor);
    /* the plan's views keep their offsets: the storage moves */
    struct be_op *op = &executor->plan.op;
    if (output) {
        if (index >= (size_t)op->n_out)
            return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: output index %zu is out of range "
                               "(%d outputs)", fn, index, op->n_out);
        op->out[index].data = addr;
        return OK;
    }
    bool found = false; /* one input may be several views (a gated operator's halves) */
    for (int i = 0; i < op->n_in; i++)
        if (executor->plan.in_index[i] == (int)index && op->in[i].dev) {
            op->in[i].data = addr;
            found = true;
        }
    if (found)
        return OK;
    return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: input index %zu is out of range (%d "
                       "inputs)", fn, index, op->n_in);
}

aclnnStatus api_impl_aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
                                           aclTensor *tensor, void *addr)
{
    API_FORWARD(aclSetInputTensorAddr, (executor, index, tensor, addr));
    return set_addr("aclSetInputTensorAddr", executor, index, tensor, addr, false);
}

aclnnStatus api_impl_aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                            aclTensor *tensor, void *addr)
{
    API_FORWARD(aclSetOutputTensorAddr, (executor, index, tensor, addr));
    return set_addr("aclSetOutputTensorAddr", executor, index, tensor, addr, true);
}

/* ---- Process setup ---- */

/* CANN's aclnnInit reads an optional configuration file and registers the
 * op library (src/nnopbase/common/api/aclnn_init.cpp L76); aclsim's
 * operators are built in: both succeed. */
aclnnStatus api_impl_aclnnInit(const char *configPath)
{
    API_FORWARD(aclnnInit, (configPath));
    (void)configPath;
    return OK;
}

aclnnStatus api_impl_aclnnFinalize(void)
{
    API_FORWARD(aclnnFinalize, ());
    return OK;
}
