/*
 * sysopt.c - the state of a device's default context, the system options
 * of the process and of each context, and the compute groups (the SYSOPT
 * family of api/abi/calls.def).
 *
 * System options (aclSysParamOpt): the process's live in the runtime
 * (api_c.cc:3490-3520, rtSetSysParamOpt, rtGetSysParamOpt: 0 until set),
 * a context's in the context (context.cc:3396-3412: 107021 until set). The
 * ACL layer checks the option first (context.cpp:90-148), the runtime the
 * value: [0, 4) for the deterministic level, [0, 2) for a switch.
 *
 * Compute groups belong to parts that have them (RT_FEATURE_DEVICE_GROUP);
 * no simulated part does (hicann/runtime src/runtime/config/910_B_93 and
 * 950 list no such feature), so every group call answers as the runtime
 * does there (api_impl_standard_soc.cc:445-480): 207000 with EE1005.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

/* ---- The default context's state ---- */

aclError api_impl_aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    static const char fn[] = "aclrtGetPrimaryCtxState";
    API_FAULT(ACL_RT_CURRENT_CONTEXT, fn);
    /* context.cpp:218-234: active first, then flags, a reserved parameter
     * that must be NULL. */
    if (!active)
        return api_err_null(fn, "active");
    if (flags) {
        api_report(API_MSG_EH0012, "%s failed. Parameter flags is invalid. Reason: flags is a "
                   "reserved parameter and must be nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    API_FORWARD_RT(fn, aclrtGetPrimaryCtxState, (deviceId, flags, active));
    /* api_error.cc:6681-6706: the device id against the count. */
    aclError rc = api_device_id_check("Obtaining the status of the default context",
                                      "realDeviceId", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    /* runtime.cc, GetPrimaryCtxState: 1 while the default context is held
     * (the device set and not reset). */
    *active = api_primary_ctx_held(deviceId) ? 1 : 0;
    return ACL_SUCCESS;
}

/* ---- System options ---- */

#define OPT_COUNT 4 /* SYS_OPT_RESERVED: pkg_inc/runtime/rt_external_base.h:125 */

static _Atomic int64_t process_opt[OPT_COUNT];

static const char *opt_text(aclSysParamOpt opt, char *buf, size_t n)
{
    static const char *const names[OPT_COUNT] = {
        "OPT_DETERMINISTIC(0)", "OPT_ENABLE_DEBUG_KERNEL(1)", "OPT_STRONG_CONSISTENCY(2)",
        "ACL_OPT_ENABLE_KERNEL_EARLY_START(3)"};
    if ((unsigned)opt < OPT_COUNT)
        return names[opt];
    snprintf(buf, n, "UNKNOWN(%d)", (int)opt);
    return buf;
}

/* The ACL layer's option check: a context has the first three options, the
 * process all four. */
static aclError check_opt(aclSysParamOpt opt, bool ctx, const char *what)
{
    if ((unsigned)opt < (ctx ? 3u : 4u))
        return ACL_SUCCESS;
    char buf[32];
    return api_err_value(what, opt_text(opt, buf, sizeof buf), "opt",
                         ctx ? "ACL_OPT_DETERMINISTIC(0) or ACL_OPT_ENABLE_DEBUG_KERNEL(1) or "
                               "ACL_OPT_STRONG_CONSISTENCY(2)"
                             : "ACL_OPT_DETERMINISTIC(0) or ACL_OPT_ENABLE_DEBUG_KERNEL(1) or "
                               "ACL_OPT_STRONG_CONSISTENCY(2) or "
                               "ACL_OPT_ENABLE_KERNEL_EARLY_START(3)");
}

/* The runtime's value check: [0, 4) for the deterministic level, [0, 2)
 * for the others (api_c.cc:3492-3500, api_error.cc:6159-6172). */
static aclError check_value(aclSysParamOpt opt, int64_t value, const char *what)
{
    int64_t max = opt == ACL_OPT_DETERMINISTIC ? 4 : 2;
    if (value >= 0 && value < max)
        return ACL_SUCCESS;
    char v[24], range[16];
    snprintf(v, sizeof v, "%" PRId64, value);
    snprintf(range, sizeof range, "[0, %" PRId64 ")", max);
    return api_rt_bad_value("", what, v, "configVal", range);
}

static const char get_what[] = "Obtaining system parameter values from the current context";
static const char set_what[] = "Setting system parameter values in the current context";

aclError api_impl_aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    API_FAULT(ACL_RT_STREAM_ATTR, "aclrtGetSysParamOpt");
    if (!value)
        return api_err_null(get_what, "value");
    aclError rc = check_opt(opt, false, get_what);
    if (rc != ACL_SUCCESS)
        return rc;
    API_FORWARD_RT("aclrtGetSysParamOpt", aclrtGetSysParamOpt, (opt, value));
    *value = process_opt[opt];
    return rc;
}

aclError api_impl_aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    API_FAULT(ACL_RT_STREAM_ATTR, "aclrtSetSysParamOpt");
    aclError rc = check_opt(opt, false, set_what);
    if (rc != ACL_SUCCESS)
        return rc;
    API_FORWARD_RT("aclrtSetSysParamOpt", aclrtSetSysParamOpt, (opt, value));
    rc = check_value(opt, value, "rtSetSysParamOpt");
    if (rc == ACL_SUCCESS)
        process_opt[opt] = value;
    return rc;
}

aclError api_impl_aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    static const char fn[] = "aclrtCtxGetSysParamOpt";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!value)
        return api_err_null(get_what, "value");
    aclError rc = check_opt(opt, true, get_what);
    if (rc != ACL_SUCCESS)
        return rc;
    API_FORWARD_RT(fn, aclrtCtxGetSysParamOpt, (opt, value));
    struct api_ctx *c;
    rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!api_ctx_sysopt(c, (int)opt, false, value))
        return ACL_ERROR_RT_SYSPARAMOPT_NOT_SET; /* a warning only, as CANN logs it */
    return ACL_SUCCESS;
}

aclError api_impl_aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    static const char fn[] = "aclrtCtxSetSysParamOpt";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    aclError rc = check_opt(opt, true, set_what);
    if (rc != ACL_SUCCESS)
        return rc;
    API_FORWARD_RT(fn, aclrtCtxSetSysParamOpt, (opt, value));
    rc = check_value(opt, value, set_what);
    struct api_ctx *c;
    if (rc == ACL_SUCCESS)
        rc = api_current_ctx(fn, &c);
    if (rc == ACL_SUCCESS)
        (void)api_ctx_sysopt(c, (int)opt, true, &value);
    return rc;
}

/* ---- Compute groups ---- */

static aclError no_groups(const char *what)
{
    api_report(API_MSG_EE1005, "The current system or device does not support %s.", what);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static aclError group_count(const char *fn, uint32_t *count)
{
    struct api_ctx *c;
    (void)count;
    aclError rc = api_current_ctx(fn, &c);
    return rc != ACL_SUCCESS ? rc : no_groups("obtaining the number of available computing power "
                                              "groups");
}

aclError api_impl_aclrtSetGroup(int32_t groupId)
{
    static const char fn[] = "aclrtSetGroup";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    API_FORWARD_RT(fn, aclrtSetGroup, (groupId));
    return no_groups("specifying the group used for the current operation");
}

aclError api_impl_aclrtGetGroupCount(uint32_t *count)
{
    static const char fn[] = "aclrtGetGroupCount";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!count) /* group.cpp:77-86 */
        return api_err_null(fn, "count");
    API_FORWARD_RT(fn, aclrtGetGroupCount, (count));
    return group_count(fn, count);
}

aclrtGroupInfo *api_impl_aclrtCreateGroupInfo(void)
{
    static const char fn[] = "aclrtCreateGroupInfo";
    if (FLT_HIT(ACL_RT_STREAM_ATTR)) {
        api_fault(FLT_ACL_RT_STREAM_ATTR, fn);
        return NULL;
    }
    API_FORWARD(aclrtCreateGroupInfo, ());
    /* group.cpp:88-109: no group count, no info. */
    uint32_t n = 0;
    (void)group_count(fn, &n);
    return NULL;
}

aclError api_impl_aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    static const char fn[] = "aclrtDestroyGroupInfo";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    /* group.cpp:111-121: anything aclrtCreateGroupInfo made is deleted;
     * here it never makes one. */
    if (!groupInfo)
        return api_err_null(fn, "groupInfo");
    API_FORWARD_RT(fn, aclrtDestroyGroupInfo, (groupInfo));
    api_report(API_MSG_EH0012, "%s failed. Parameter groupInfo is invalid. Reason: it was not "
               "created by aclrtCreateGroupInfo.", fn);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_impl_aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    static const char fn[] = "aclrtGetAllGroupInfo";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!groupInfo) /* group.cpp:123-137 */
        return api_err_null(fn, "groupInfo");
    API_FORWARD_RT(fn, aclrtGetAllGroupInfo, (groupInfo));
    uint32_t n;
    return group_count(fn, &n);
}

aclError api_impl_aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                          aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                          size_t *paramRetSize)
{
    static const char fn[] = "aclrtGetGroupInfoDetail";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    (void)groupIndex, (void)attr, (void)valueLen;
    /* group.cpp:139-160: the pointers, then the group count. */
    if (!groupInfo)
        return api_err_null(fn, "groupInfo");
    if (!attrValue)
        return api_err_null(fn, "attrValue");
    if (!paramRetSize)
        return api_err_null(fn, "paramRetSize");
    API_FORWARD_RT(fn, aclrtGetGroupInfoDetail,
                   (groupInfo, groupIndex, attr, attrValue, valueLen, paramRetSize));
    uint32_t n;
    return group_count(fn, &n);
}
