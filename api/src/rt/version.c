/*
 * version.c - versions, SoC and capabilities (the VERSION family of
 * api/abi/calls.def).
 *
 * aclsim is one CANN package, "runtime" (what ACL_PKG_NAME_CANN and
 * ACL_PKG_NAME_RUNTIME name too), at ACLSIM_CANN_VERSION (aclsim/aclsim.h):
 * the version calls answer from it on every backend, as the headers a
 * program was built with are aclsim's, and read no file (CANN reads
 * $ASCEND_HOME_PATH/share/info/<package>/version.info). The other packages
 * (compiler, HCCL, toolkit, operators, driver) are not aclsim's: with a real
 * runtime loaded (hw=ascend) their versions are the real installation's,
 * otherwise they are not installed, which CANN answers with
 * ACL_ERROR_INVALID_FILE and no message.
 *
 * The SoC, its platform figures, the CANN attributes it supports and arch
 * compatibility come from the backend (the simulator's SoC table, or the
 * real runtime). None of these calls needs aclInit or a device, as in CANN.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"

/* The one package aclsim provides. */
static const char runtime_pkg[] = "runtime";

aclError api_impl_aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                    int32_t *patchVersion)
{
    API_FAULT(ACL_RT_GET_DEVICE, "aclrtGetVersion");
    if (!majorVersion)
        return api_err_null("aclrtGetVersion", "majorVersion");
    if (!minorVersion)
        return api_err_null("aclrtGetVersion", "minorVersion");
    if (!patchVersion)
        return api_err_null("aclrtGetVersion", "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

/* The SoC of the process: asked of the driver, so it answers before aclInit
 * and with no context, and NULL (without a message, as CANN) when it
 * cannot be told. */
const char *api_impl_aclrtGetSocName(void)
{
    if (FLT_HIT(ACL_RT_GET_DEVICE)) {
        api_fault(FLT_ACL_RT_GET_DEVICE, "aclrtGetSocName");
        return NULL;
    }
    return be_get()->soc_name(0);
}

/* ---- Package versions ---- */

/* A package that is not aclsim's: the real installation's answer when a
 * real runtime is loaded, else "not installed". */
static aclError other_cann_version(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    /* Spelled out: naming the deprecated declaration would warn. */
    aclError (*real)(aclCANNPackageName, aclCANNPackageVersion *) =
        (__typeof__(real))api_real(API_CALL_aclsysGetCANNVersion);
    return real ? real(name, version) : ACL_ERROR_INVALID_FILE;
}

aclError api_impl_aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    static const char fn[] = "aclsysGetCANNVersion";
    API_FAULT(ACL_SYS_VERSION_FILE, fn);
    if (!version)
        return api_err_null(fn, "version");
    switch (name) {
    case ACL_PKG_NAME_CANN:
    case ACL_PKG_NAME_RUNTIME:
        /* CANN splits "X.Y.Z" into major, minor, release and a patch part
         * that defaults to "0"; unused bytes are zero. */
        memset(version, 0, sizeof *version);
        snprintf(version->version, sizeof version->version, "%s", ACLSIM_CANN_VERSION);
        snprintf(version->majorVersion, sizeof version->majorVersion, "%d",
                 ACLSIM_CANN_VERSION_MAJOR);
        snprintf(version->minorVersion, sizeof version->minorVersion, "%d",
                 ACLSIM_CANN_VERSION_MINOR);
        snprintf(version->releaseVersion, sizeof version->releaseVersion, "%d",
                 ACLSIM_CANN_VERSION_PATCH);
        snprintf(version->patchVersion, sizeof version->patchVersion, "0");
        return ACL_SUCCESS;
    case ACL_PKG_NAME_COMPILER:
    case ACL_PKG_NAME_HCCL:
    case ACL_PKG_NAME_TOOLKIT:
    case ACL_PKG_NAME_OPP:
    case ACL_PKG_NAME_OPP_KERNEL:
    case ACL_PKG_NAME_DRIVER:
        return other_cann_version(name, version);
    default:
        return ACL_ERROR_INVALID_PARAM; /* CANN only logs it */
    }
}

aclError api_impl_aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    static const char fn[] = "aclsysGetVersionStr";
    API_FAULT(ACL_SYS_VERSION_FILE, fn);
    if (!versionStr)
        return api_err_null(fn, "versionStr");
    if (!pkgName)
        return api_err_null(fn, "pkgName");
    if (strcmp(pkgName, runtime_pkg) != 0) {
        __typeof__(&aclsysGetVersionStr) real = API_REAL(aclsysGetVersionStr);
        return real ? real(pkgName, versionStr) : ACL_ERROR_INVALID_FILE;
    }
    /* CANN copies into ACL_PKG_VERSION_MAX_SIZE bytes */
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", ACLSIM_CANN_VERSION);
    return ACL_SUCCESS;
}

aclError api_impl_aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    static const char fn[] = "aclsysGetVersionNum";
    API_FAULT(ACL_SYS_VERSION_FILE, fn);
    if (!versionNum)
        return api_err_null(fn, "versionNum");
    if (!pkgName)
        return api_err_null(fn, "pkgName");
    if (strcmp(pkgName, runtime_pkg) != 0) {
        __typeof__(&aclsysGetVersionNum) real = API_REAL(aclsysGetVersionNum);
        return real ? real(pkgName, versionNum) : ACL_ERROR_INVALID_FILE;
    }
    /* CANN's weights: major 10^7, minor 10^5, patch 10^3 (a pre-release
     * suffix would subtract from the last three digits; aclsim has none). */
    *versionNum = ACLSIM_CANN_VERSION_MAJOR * 10000000 + ACLSIM_CANN_VERSION_MINOR * 100000 +
                  ACLSIM_CANN_VERSION_PATCH * 1000;
    return ACL_SUCCESS;
}

/* ---- CANN attributes and SoC figures ---- */

static aclError cann_attrs(const aclCannAttr **list, size_t *n)
{
    aclError rc = be_get()->cann_attrs(list, n);
    if (rc != ACL_SUCCESS) {
        api_report(API_MSG_EH9999, "initialize CannInfoUtils failed, ret = %d", rc);
        return ACL_ERROR_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    static const char fn[] = "aclGetCannAttributeList";
    if (!cannAttrList)
        return api_err_null(fn, "cannAttrList");
    if (!num)
        return api_err_null(fn, "num");
    return cann_attrs(cannAttrList, num);
}

aclError api_impl_aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    if (!value)
        return api_err_null("aclGetCannAttribute", "value");
    const aclCannAttr *list;
    size_t n;
    aclError rc = cann_attrs(&list, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    if (cannAttr != ACL_CANN_ATTR_INF_NAN && cannAttr != ACL_CANN_ATTR_BF16 &&
        cannAttr != ACL_CANN_ATTR_JIT_COMPILE)
        return ACL_ERROR_INVALID_PARAM; /* CANN only logs a warning */
    *value = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i] == cannAttr)
            *value = 1;
    return ACL_SUCCESS;
}

/* CANN reads these from the SoC's platform file ("ai_core_cnt",
 * "vector_core_cnt", "l2_size"); the backend answers them as device
 * figures, which are the same numbers on every simulated device. */
aclError api_impl_aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
                                         int64_t *value)
{
    static const char fn[] = "aclGetDeviceCapability";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!value)
        return api_err_null(fn, "value");
    uint32_t count = 0;
    aclError rc = be_get()->device_count(&count);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    /* CANN's own arithmetic: with no device, any id passes. */
    if (deviceId > (uint32_t)((int32_t)count - 1)) {
        api_report(API_MSG_EH0009, "%s failed. Value %u for parameter deviceId is invalid. "
                   "Reason: deviceId %u greater than deviceNum %d.", fn, deviceId, deviceId,
                   (int)count);
        return ACL_ERROR_INVALID_PARAM;
    }
    aclrtDevAttr attr;
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
        attr = ACL_DEV_ATTR_AICORE_CORE_NUM;
        break;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        attr = ACL_DEV_ATTR_VECTOR_CORE_NUM;
        break;
    case ACL_DEVICE_INFO_L2_SIZE:
        attr = ACL_DEV_ATTR_L2_CACHE_SIZE;
        break;
    default:
        return ACL_ERROR_INVALID_PARAM; /* CANN only logs a warning */
    }
    if (be_get()->device_info((int32_t)deviceId, attr, value) != ACL_SUCCESS) {
        const char *soc = be_get()->soc_name(0);
        api_report(API_MSG_EH9999, "Failed to get platform info, SocVersion = %s.",
                   soc ? soc : "");
        return ACL_ERROR_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
}

/* All checks are the runtime's (EE texts, 107000). */
aclError api_impl_aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    static const char what[] =
        "Checking operator instruction compatibility based on the SoC version";
    if (!socVersion) {
        api_report(API_MSG_EE1004, "%s failed because omSocVersion cannot be a NULL pointer.",
                   what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!canCompatible) {
        api_report(API_MSG_EE1004, "%s failed because canCompatible cannot be a NULL pointer.",
                   what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!socVersion[0])
        return ACL_ERROR_RT_PARAM_INVALID; /* CANN only logs it */
    aclError rc = be_get()->arch_compatible(socVersion, canCompatible);
    if (rc == ACL_ERROR_RT_PARAM_INVALID) {
        api_report(API_MSG_EE1011, "%s failed. Value %s for parameter omSocVersion is invalid. "
                   "Reason: SoC version %s is invalid.", what, socVersion, socVersion);
        return rc;
    }
    return api_err_runtime("aclrtCheckArchCompatibility", rc);
}
