/*
 * devtask.c - device tasks (the DEVTASK family of api/abi/calls.def):
 * tasks a stream runs without a kernel. aclrtReduceAsync (an SDMA copy
 * with an inline reduction), aclrtRandomNumAsync (the DSA's random
 * numbers) and the overflow-status calls (aclrtGetOverflowStatus,
 * aclrtResetOverflowStatus and their aclrt*FloatOverflowStatus twins,
 * which CANN's runtime maps to the same functions).
 *
 * The checks are CANN's, in its order: the ACL layer's (aclrt_impl/
 * memory.cpp, kernel.cpp, device.cpp), then the runtime's
 * (api_c_standard_soc.cc, api_c_kernel.cc, api_c.cc, api_error.cc,
 * random_num_task.cc, memory_stars.cc), with their texts. aclsim adds the
 * checks the device would make: every device range a task touches must be
 * live memory of the stream's device (refused with EE1003, and a device
 * memory exception when it is freed memory or runs past its block, as for
 * copies). What the simulator computes is described in sim/devtask.c.
 */
#include <stdio.h>
#include <string.h>
#include "memory.h"
#include "backends/be.h"

/* A device range [p, p+n) a task of `stream` on device dev touches. */
static aclError task_range(const char *what, const char *param, const void *p, uint64_t n,
                           int32_t dev, void *stream)
{
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    size_t off = (size_t)((const char *)p - (const char *)in.start);
    bool fits = in.kind == BE_PTR_DEVICE && (in.size == 0 || (off <= in.size && n <= in.size - off));
    if (fits && in.device == dev)
        return ACL_SUCCESS;
    if (in.kind == BE_PTR_DEVICE && in.device != dev)
        api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. "
                   "Expected value: memory of the stream's device %d, not of device %d.", what,
                   p, param, (int)dev, (int)in.device);
    else
        api_report(API_MSG_EE1003, "%s failed because value %p for parameter %s is invalid. "
                   "Expected value: %llu bytes inside a live allocation of aclrtMalloc (is it "
                   "freed?).", what, p, param, (unsigned long long)n);
    if (in.kind == BE_PTR_DEVICE_FREE || (in.kind == BE_PTR_DEVICE && !fits)) {
        if (API_TOOL(audit))
            API_TOOL(audit)(p, (size_t)n);
        api_exception_task(stream); /* the device's memory error */
    }
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* ---- aclrtReduceAsync ---- */

static const char REDUCE[] = "Asynchronously performing the Reduce operation";

/* CANN's data-type names (GetDataTypeDesc), for the types it names. */
static const char *acl_type_name(aclDataType t, char *buf, size_t len)
{
    static const struct {
        aclDataType t;
        const char *name;
    } names[] = {
        {ACL_DT_UNDEFINED, "DT_UNDEFINED(-1)"}, {ACL_FLOAT, "FLOAT(0)"},
        {ACL_FLOAT16, "FLOAT16(1)"},   {ACL_INT8, "INT8(2)"},       {ACL_INT32, "INT32(3)"},
        {ACL_UINT8, "UINT8(4)"},       {ACL_INT16, "INT16(6)"},     {ACL_UINT16, "UINT16(7)"},
        {ACL_UINT32, "UINT32(8)"},     {ACL_INT64, "INT64(9)"},     {ACL_UINT64, "UINT64(10)"},
        {ACL_DOUBLE, "DOUBLE(11)"},    {ACL_BOOL, "BOOL(12)"},      {ACL_STRING, "STRING(13)"},
        {ACL_COMPLEX64, "COMPLEX64(16)"}, {ACL_COMPLEX128, "COMPLEX128(17)"},
        {ACL_BF16, "BF16(27)"},        {ACL_INT4, "INT4(29)"},      {ACL_UINT1, "UINT1(30)"},
        {ACL_COMPLEX32, "COMPLEX32(33)"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].t == t)
            return names[i].name;
    snprintf(buf, len, "UNKNOWN(%d)", (int)t);
    return buf;
}

/* The runtime's data type for a reduction (kMapDataType of memory.cpp),
 * its name (DataTypeToString) and element size; -1 for a type the ACL
 * layer does not pass on. */
static int reduce_type(aclDataType t, const char **name, size_t *size)
{
    static const struct {
        aclDataType acl;
        int rt;
        const char *name;
        size_t size;
    } map[] = {
        {ACL_FLOAT, 0, "DATA_TYPE_FP32(0)", 4},   {ACL_FLOAT16, 1, "DATA_TYPE_FP16(1)", 2},
        {ACL_INT16, 2, "DATA_TYPE_INT16(2)", 2},  {ACL_INT4, 3, "DATA_TYPE_INT4(3)", 1},
        {ACL_INT8, 4, "DATA_TYPE_INT8(4)", 1},    {ACL_INT32, 5, "DATA_TYPE_INT32(5)", 4},
        {ACL_BF16, 6, "DATA_TYPE_BFP16(6)", 2},   {ACL_UINT8, 8, "DATA_TYPE_UINT8(8)", 1},
        {ACL_UINT16, 9, "DATA_TYPE_UINT16(9)", 2}, {ACL_UINT32, 10, "DATA_TYPE_UINT32(10)", 4},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].acl == t) {
            *name = map[i].name;
            *size = map[i].size;
            return map[i].rt;
        }
    return -1;
}

aclError api_impl_aclrtReduceAsync(void *dst, const void *src, uint64_t count,
                                   aclrtReduceKind kind, aclDataType type, aclrtStream stream,
                                   void *reserve)
{
    static const char fn[] = "aclrtReduceAsync";
    API_FAULT(ACL_RT_BUILTIN_TASK, fn);
    if (!dst)
        return api_err_null(fn, "dst");
    if (!src)
        return api_err_null(fn, "src");
    if (reserve) {
        api_report(API_MSG_EH0012, "%s failed. Parameter reserve is invalid. Reason: reserve is "
                   "a reserved parameter and must be nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    const char *tname = NULL;
    size_t esize = 0;
    char buf[32];
    if (reduce_type(type, &tname, &esize) < 0) {
        api_report(API_MSG_EH0009, "%s failed. Value %s for parameter type is invalid. Reason: "
                   "The data type is currently not supported.", fn,
                   acl_type_name(type, buf, sizeof buf));
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (count == 0) {
        api_report(API_MSG_EE1003, "%s failed because value 0 for parameter cnt is invalid. "
                   "Expected value: not equal to 0.", REDUCE);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if ((int)kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM ||
               (int)kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
        api_report(API_MSG_EE1003, "%s failed because value %d for parameter kind is invalid. "
                   "Expected value: [10, 14).", REDUCE, (int)kind);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > (UINT64_C(4) << 30)) {
        api_report(API_MSG_EE1011, "%s failed. Value %llu for parameter cnt is invalid. Reason: "
                   "If parameter kind equals RT_MEMCPY_SDMA_AUTOMATIC_ADD(10), the range of "
                   "parameter cnt should be (0, %llu].", REDUCE, (unsigned long long)count,
                   (unsigned long long)(UINT64_C(4) << 30));
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (esize > 1 && ((uintptr_t)src % esize != 0 || (uintptr_t)dst % esize != 0)) {
        /* Context::CheckMemAlign: 2-byte types on 2 bytes, 4-byte on 4. */
        api_report(API_MSG_EH9999, "%s failed: memory address unaligned for %s, runtime result "
                   "= %d.", fn, tname, ACL_ERROR_RT_ADDR_UNALIGNED);
        rc = ACL_ERROR_RT_ADDR_UNALIGNED;
    }
    if (rc == ACL_SUCCESS)
        rc = task_range(REDUCE, "dst", dst, count, s.ctx->device, s.stream);
    if (rc == ACL_SUCCESS)
        rc = task_range(REDUCE, "src", src, count, s.ctx->device, s.stream);
    if (rc == ACL_SUCCESS) {
        struct be_task t = {.kind = BE_TASK_REDUCE, .dst = dst, .src = src, .count = count,
                            .reduce = kind, .type = type};
        rc = be_get()->device_task(s.stream, &t);
        /* The SoC's answer: a real runtime gives its own reason (appended
         * to the generic message); the simulator's is written here. */
        if (rc != ACL_ERROR_RT_FEATURE_NOT_SUPPORT || API_BRIDGE(real))
            api_err_runtime(fn, rc);
        else if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
            api_report(API_MSG_EH9999, "%s failed: ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not "
                       "simulated by aclsim: CANN does not document what it computes.", fn);
        else
            api_report(API_MSG_EE1006, "Checking the availability of Reduce on the current device "
                       "failed. Parameter type value %s is not supported. Reason: The current SoC "
                       "does not support the reduction operation of this data type.", tname);
    }
    api_stream_put(&s);
    return rc;
}

/* ---- aclrtRandomNumAsync ---- */

static const char CHECK_TYPE[] = "Verifying the validity of the random number generation type";
static const char CHECK_INFO[] = "Checking the validity of random number generation task "
                                 "parameters";
static const char CHECK_PARAM[] = "Verifying the parameters for generating a random number";

/* The runtime's random data type for an ACL type (kMapDataType of
 * kernel.cpp), -1 for none; its element size. */
static int random_type(aclDataType t, size_t *size)
{
    static const struct {
        aclDataType acl;
        size_t size;
    } map[] = {{ACL_INT32, 4}, {ACL_INT64, 8}, {ACL_UINT32, 4}, {ACL_UINT64, 8},
               {ACL_BF16, 2},  {ACL_FLOAT16, 2}, {ACL_FLOAT, 4}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].acl == t) {
            *size = map[i].size;
            return (int)i;
        }
    return -1;
}

static const char *const random_type_names[] = {
    "RANDOM_NUM_DATATYPE_INT32(0)", "RANDOM_NUM_DATATYPE_INT64(1)",
    "RANDOM_NUM_DATATYPE_UINT32(2)", "RANDOM_NUM_DATATYPE_UINT64(3)",
    "RANDOM_NUM_DATATYPE_BF16(4)", "RANDOM_NUM_DATATYPE_FP16(5)", "RANDOM_NUM_DATATYPE_FP32(6)"};

/* A parameter's checks (CheckRandomParam): isAddr 0 or 1, size in
 * [1, max] where max is 8 for an address. */
static aclError random_param(const aclrtRandomParaInfo *p, size_t max)
{
    if (p->isAddr > 1) {
        api_report(API_MSG_EE1003, "%s failed because value %u for parameter paramInfo.isAddr is "
                   "invalid. Expected value: 0 or 1.", CHECK_PARAM, (unsigned)p->isAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (p->isAddr)
        max = 8;
    if (p->size == 0 || p->size > max) {
        api_report(API_MSG_EE1003, "%s failed because value %u for parameter paramInfo.size is "
                   "invalid. Expected value: [1, %zu].", CHECK_PARAM, (unsigned)p->size, max);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* Where a checked parameter's value lives (an address the device reads
 * `n` bytes from must be live device memory). */
static aclError random_param_addr(const aclrtRandomParaInfo *p, const char *name, size_t n,
                                  int32_t dev, void *stream)
{
    if (!p->isAddr)
        return ACL_SUCCESS;
    void *at = NULL;
    memcpy(&at, p->valueOrAddr, p->size < sizeof at ? p->size : sizeof at);
    return task_range(CHECK_INFO, name, at, n, dev, stream);
}

/* The runtime's checks of the task info (CheckRandomNumTaskInfo); rt is
 * the runtime's data type. */
static aclError random_info(const aclrtRandomNumTaskInfo *ti, int rt, size_t esize)
{
    int f = (int)ti->randomNumFuncParaInfo.funcType;
    char buf[40];
    if (f < 0 || f > 3) {
        if (f == 4)
            snprintf(buf, sizeof buf, "RANDOM_NUM_FUNC_TYPE_MAX(4)");
        else
            snprintf(buf, sizeof buf, "UNKNOWN(%d)", f);
        api_report(API_MSG_EE1003, "%s failed because value %s for parameter funcType is "
                   "invalid. Expected value: [0, 4).", CHECK_TYPE, buf);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* Dropout and normal values come in floats only (rt 4..6). */
    if (f != ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS && rt < 4) {
        api_report(API_MSG_EE1003, "%s failed because value %s for parameter dataType is "
                   "invalid. Expected value: bf16,fp16,fp32.", CHECK_TYPE, random_type_names[rt]);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!ti->randomCounterAddr) {
        api_report(API_MSG_EE1004, "%s failed because taskInfo->randomCounterAddr cannot be a "
                   "NULL pointer.", CHECK_INFO);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!ti->randomResultAddr) {
        api_report(API_MSG_EE1004, "%s failed because taskInfo->randomResultAddr cannot be a "
                   "NULL pointer.", CHECK_INFO);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError rc = random_param(&ti->randomSeed, 8);
    if (rc == ACL_SUCCESS)
        rc = random_param(&ti->randomNum, 8);
    const aclrtRandomNumFuncParaInfo *pi = &ti->randomNumFuncParaInfo;
    if (rc != ACL_SUCCESS)
        return rc;
    if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
        return random_param(&pi->paramInfo.dropoutBitmaskInfo.dropoutRation, esize);
    if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
        rc = random_param(&pi->paramInfo.uniformDisInfo.min, esize);
        return rc != ACL_SUCCESS ? rc : random_param(&pi->paramInfo.uniformDisInfo.max, esize);
    }
    rc = random_param(&pi->paramInfo.normalDisInfo.mean, esize);
    return rc != ACL_SUCCESS ? rc : random_param(&pi->paramInfo.normalDisInfo.stddev, esize);
}

aclError api_impl_aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
                                      const aclrtStream stream, void *reserve)
{
    static const char fn[] = "aclrtRandomNumAsync";
    API_FAULT(ACL_RT_BUILTIN_TASK, fn);
    if (!taskInfo)
        return api_err_null(fn, "taskInfo");
    size_t esize = 0;
    int rt = random_type(taskInfo->dataType, &esize);
    char buf[32];
    if (rt < 0) {
        api_report(API_MSG_EH0009, "%s failed. Value %s for parameter taskInfo->dataType is "
                   "invalid. Reason: The data type is currently not supported.", fn,
                   acl_type_name(taskInfo->dataType, buf, sizeof buf));
        return ACL_ERROR_INVALID_PARAM;
    }
    /* The runtime's chip check comes first, and says nothing: only the
     * Atlas A2 and A3 SoCs (NPU arch 2201) have the generator. */
    int64_t arch = 0;
    if (be_get()->device_info(0, ACL_DEV_ATTR_NPU_ARCH, &arch) == ACL_SUCCESS && arch != 2201)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (reserve) {
        api_report(API_MSG_EE1003, "Starting the random number generation task failed because "
                   "value %p for parameter reserve is invalid. Expected value: nullptr.", reserve);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    }
    if (rc == ACL_SUCCESS)
        rc = random_info(taskInfo, rt, esize);
    /* The device ranges: counter, parameters read from device memory, the
     * parameter block the runtime writes, and the results when their
     * number is known here. */
    int32_t dev = s.ctx->device;
    const aclrtRandomNumFuncParaInfo *pi = &taskInfo->randomNumFuncParaInfo;
    int f = (int)pi->funcType;
    if (rc == ACL_SUCCESS)
        rc = task_range(CHECK_INFO, "taskInfo->randomCounterAddr", taskInfo->randomCounterAddr,
                        16, dev, s.stream);
    if (rc == ACL_SUCCESS && taskInfo->randomParaAddr)
        rc = task_range(CHECK_INFO, "taskInfo->randomParaAddr", taskInfo->randomParaAddr, 16, dev,
                        s.stream);
    if (rc == ACL_SUCCESS)
        rc = random_param_addr(&taskInfo->randomSeed, "taskInfo->randomSeed", 8, dev, s.stream);
    if (rc == ACL_SUCCESS)
        rc = random_param_addr(&taskInfo->randomNum, "taskInfo->randomNum", 8, dev, s.stream);
    if (rc == ACL_SUCCESS)
        rc = random_param_addr(&pi->paramInfo.normalDisInfo.mean, "taskInfo->"
                               "randomNumFuncParaInfo", esize, dev, s.stream);
    if (rc == ACL_SUCCESS && f != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
        rc = random_param_addr(&pi->paramInfo.normalDisInfo.stddev, "taskInfo->"
                               "randomNumFuncParaInfo", esize, dev, s.stream);
    if (rc == ACL_SUCCESS && !taskInfo->randomNum.isAddr) {
        uint64_t num = 0;
        memcpy(&num, taskInfo->randomNum.valueOrAddr, taskInfo->randomNum.size);
        uint64_t bytes = f == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ? num / 8 + (num % 8 != 0)
                         : num > UINT64_MAX / esize ? UINT64_MAX
                                                    : num * esize;
        rc = task_range(CHECK_INFO, "taskInfo->randomResultAddr", taskInfo->randomResultAddr,
                        bytes, dev, s.stream);
    }
    if (rc == ACL_SUCCESS) {
        struct be_task t = {.kind = BE_TASK_RANDOM, .random = taskInfo};
        rc = api_err_runtime(fn, be_get()->device_task(s.stream, &t));
    }
    api_stream_put(&s);
    return rc;
}

/* ---- overflow status ---- */

#define OVERFLOW_OUTPUT_SIZE 64u /* CANN's task_base.hpp: "keep consistent with GE" */

static aclError overflow_get(const char *fn, void *outputAddr, uint64_t outputSize,
                             aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!outputAddr) {
        api_report(API_MSG_EH9999, "%s failed: Check param failed, outputAddrPtr can not be "
                   "null, runtime result = %d.", fn, ACL_ERROR_RT_PARAM_INVALID);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (outputSize != OVERFLOW_OUTPUT_SIZE) {
        api_report(API_MSG_EH9999, "%s failed: Output size %llu is invalid. Only %u bytes are "
                   "supported, runtime result = %d.", fn, (unsigned long long)outputSize,
                   OVERFLOW_OUTPUT_SIZE, ACL_ERROR_RT_PARAM_INVALID);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        rc = task_range("Obtaining the overflow status of tasks in all streams on the current "
                        "device", "outputAddr", outputAddr, outputSize, s.ctx->device, s.stream);
    }
    if (rc == ACL_SUCCESS) {
        struct be_task t = {.kind = BE_TASK_OVERFLOW_GET, .dst = outputAddr,
                            .size = (size_t)outputSize};
        rc = api_err_runtime(fn, be_get()->device_task(s.stream, &t));
    }
    api_stream_put(&s);
    return rc;
}

static aclError overflow_reset(const char *fn, aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct be_task t = {.kind = BE_TASK_OVERFLOW_RESET};
    rc = api_err_runtime(fn, be_get()->device_task(s.stream, &t));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    static const char fn[] = "aclrtGetOverflowStatus";
    API_FAULT(ACL_RT_BUILTIN_TASK, fn);
    if (!outputAddr)
        return api_err_null(fn, "outputAddr");
    return overflow_get(fn, outputAddr, outputSize, stream);
}

aclError api_impl_aclrtResetOverflowStatus(aclrtStream stream)
{
    API_FAULT(ACL_RT_BUILTIN_TASK, "aclrtResetOverflowStatus");
    return overflow_reset("aclrtResetOverflowStatus", stream);
}

aclError api_impl_aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize,
                                              aclrtStream stream)
{
    static const char fn[] = "aclrtGetFloatOverflowStatus";
    API_FAULT(ACL_RT_BUILTIN_TASK, fn);
    return overflow_get(fn, outputAddr, outputSize, stream); /* no ACL-layer check here */
}

aclError api_impl_aclrtResetFloatOverflowStatus(aclrtStream stream)
{
    API_FAULT(ACL_RT_BUILTIN_TASK, "aclrtResetFloatOverflowStatus");
    return overflow_reset("aclrtResetFloatOverflowStatus", stream);
}
