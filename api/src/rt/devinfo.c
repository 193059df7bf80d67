/*
 * devinfo.c - device queries (the DEVINFO family of api/abi/calls.def):
 * device attributes and capabilities, UUID and PCI address, the maps
 * between user, logical and physical device ids, utilization and status.
 * (Opening and closing devices is device.c's.)
 *
 * The checks are CANN's, in its order: the ACL layer's NULL checks
 * (EH0008, 100000), then the runtime's (EE1003 with the runtime's own
 * function description, 107000 for a bad value, 107001 for a bad device).
 * The answers are the backend's: the simulated SoC's figures, or the real
 * runtime's. As in CANN, none of these calls needs aclInit or an open
 * device. A device whose ids are not translated (no ASCEND_RT_VISIBLE_DEVICES
 * on the simulator) has the same user, logical and physical id.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"

/* ---- Checks shared by the queries ---- */

/* The runtime's check that dev names a device (CheckDeviceIdIsValid):
 * 107001 with its EE1003 text; device_count failures pass through. */
static aclError valid_device(const char *func, int32_t dev)
{
    uint32_t n = 0;
    aclError rc = be_get()->device_count(&n);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(func, rc);
    if (dev < 0 || ((uint32_t)dev >= n && n != 0)) {
        api_report(API_MSG_EE1003, "Verifying the device ID validity failed because value %d for "
                   "parameter devId is invalid. Expected value: [0, %u).", (int)dev, n);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

/* The runtime's check of an id that must not be negative: `what` is its
 * description of the call, `code` what it returns. */
static aclError not_negative(const char *what, const char *param, int32_t id, aclError code)
{
    api_report(API_MSG_EE1003, "%s failed because value %d for parameter %s is invalid. "
               "Expected value: greater than or equal to 0.", what, (int)id, param);
    return code;
}

/* A backend failure: 207000 says which figure the device does not give. */
static aclError query_failed(const char *func, int32_t dev, const char *what, aclError rc)
{
    if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        api_report(API_MSG_EH9999, "%s failed: device %d does not report %s, runtime result = %d.",
                   func, (int)dev, what, rc);
        return rc;
    }
    return api_err_runtime(func, rc);
}

/* ---- Attributes and capabilities ---- */

static const struct {
    aclrtDevAttr attr;
    const char *name;
} attrs[] = {
    {ACL_DEV_ATTR_AICPU_CORE_NUM, "DEV_ATTR_AICPU_CORE_NUM(1)"},
    {ACL_DEV_ATTR_AICORE_CORE_NUM, "DEV_ATTR_AICORE_CORE_NUM(101)"},
    {ACL_DEV_ATTR_CUBE_CORE_NUM, "DEV_ATTR_CUBE_CORE_NUM(102)"},
    {ACL_DEV_ATTR_VECTOR_CORE_NUM, "DEV_ATTR_VECTOR_CORE_NUM(201)"},
    {ACL_DEV_ATTR_WARP_SIZE, "DEV_ATTR_WARP_SIZE(202)"},
    {ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE, "DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE(203)"},
    {ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, "DEV_ATTR_UBUF_PER_VECTOR_CORE(204)"},
    {ACL_DEV_ATTR_MAX_GRID_DIM_X, "DEV_ATTR_MAX_GRID_DIM_X(205)"},
    {ACL_DEV_ATTR_MAX_GRID_DIM_Y, "DEV_ATTR_MAX_GRID_DIM_Y(206)"},
    {ACL_DEV_ATTR_MAX_GRID_DIM_Z, "DEV_ATTR_MAX_GRID_DIM_Z(207)"},
    {ACL_DEV_ATTR_MAX_BLOCK_PER_GRID, "DEV_ATTR_MAX_BLOCK_PER_GRID(208)"},
    {ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK, "DEV_ATTR_MAX_THREADS_PER_BLOCK(209)"},
    {ACL_DEV_ATTR_MAX_BLOCK_DIM_X, "DEV_ATTR_MAX_BLOCK_DIM_X(210)"},
    {ACL_DEV_ATTR_MAX_BLOCK_DIM_Y, "DEV_ATTR_MAX_BLOCK_DIM_Y(211)"},
    {ACL_DEV_ATTR_MAX_BLOCK_DIM_Z, "DEV_ATTR_MAX_BLOCK_DIM_Z(212)"},
    {ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, "DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE(301)"},
    {ACL_DEV_ATTR_L2_CACHE_SIZE, "DEV_ATTR_L2_CACHE_SIZE(302)"},
    {ACL_DEV_ATTR_SMP_ID, "DEV_ATTR_SMP_ID(401)"},
    {ACL_DEV_ATTR_PHY_CHIP_ID, "DEV_ATTR_PHY_CHIP_ID(402)"},
    {ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, "DEV_ATTR_SUPER_POD_DEVICE_ID(403)"},
    {ACL_DEV_ATTR_SUPER_POD_SERVER_ID, "DEV_ATTR_SUPER_POD_SERVER_ID(404)"},
    {ACL_DEV_ATTR_SUPER_POD_ID, "DEV_ATTR_SUPER_POD_ID(405)"},
    {ACL_DEV_ATTR_CUST_OP_PRIVILEGE, "DEV_ATTR_CUST_OP_PRIVILEGE(406)"},
    {ACL_DEV_ATTR_MAINBOARD_ID, "DEV_ATTR_MAINBOARD_ID(407)"},
    {ACL_DEV_ATTR_HD_CONNECT_TYPE, "DEV_ATTR_HD_CONNECT_TYPE(408)"},
    {ACL_DEV_ATTR_DEVICE_FORM_FACTOR, "DEV_ATTR_DEVICE_FORM_FACTOR(409)"},
    {ACL_DEV_ATTR_IS_VIRTUAL, "DEV_ATTR_IS_VIRTUAL(501)"},
    {ACL_DEV_ATTR_NPU_ARCH, "DEV_ATTR_NPU_ARCH(601)"},
};

/* CANN's name of an attribute, NULL for a value the runtime does not know. */
static const char *attr_name(aclrtDevAttr attr)
{
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (attrs[i].attr == attr)
            return attrs[i].name;
    return NULL;
}

aclError api_impl_aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    static const char fn[] = "aclrtGetDeviceInfo";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!value)
        return api_err_null(fn, "value");
    uint32_t n = 0;
    aclError rc = be_get()->device_count(&n);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    if (deviceId >= n) {
        api_report(API_MSG_EE1003, "Querying device information based on the specified attribute "
                   "failed because value %u for parameter realDeviceId is invalid. Expected "
                   "value: [0, %u).", deviceId, n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    const char *name = attr_name(attr);
    if (!name) {
        api_report(API_MSG_EE1003, "Getting the device attributes failed because value UNKNOWN(%d) "
                   "for parameter attr is invalid. Expected value: DEV_ATTR_CUBE_CORE_NUM(102), "
                   "DEV_ATTR_WARP_SIZE(202), DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE(203), "
                   "DEV_ATTR_UBUF_PER_VECTOR_CORE(204), DEV_ATTR_MAX_GRID_DIM_X(205), "
                   "DEV_ATTR_MAX_GRID_DIM_Y(206), DEV_ATTR_MAX_GRID_DIM_Z(207), "
                   "DEV_ATTR_MAX_BLOCK_PER_GRID(208), DEV_ATTR_MAX_THREADS_PER_BLOCK(209), "
                   "DEV_ATTR_MAX_BLOCK_DIM_X(210), DEV_ATTR_MAX_BLOCK_DIM_Y(211), "
                   "DEV_ATTR_MAX_BLOCK_DIM_Z(212), DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE(301), "
                   "DEV_ATTR_L2_CACHE_SIZE(302), DEV_ATTR_NPU_ARCH(601), or "
                   "DEV_ATTR_IS_VIRTUAL(501).", (int)attr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    rc = be_get()->device_info((int32_t)deviceId, attr, value);
    return rc == ACL_SUCCESS ? rc : query_failed(fn, (int32_t)deviceId, name, rc);
}

/* The feature types the runtime accepts (rtDevFeatureType): the two the
 * header names and two internal ones; the runtime's limit is 20002. */
enum { FEATURE_AICPU_SCHEDULE_TYPE = 10001, FEATURE_TASKID_BIT_WIDTH = 20001,
       FEATURE_MAX = 20002 };

static const char *feature_name(int32_t f, char *buf, size_t len)
{
    switch (f) {
    case ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV:
        return "FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV(1)";
    case ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV:
        return "FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV(21)";
    case FEATURE_AICPU_SCHEDULE_TYPE:
        return "FEATURE_AICPU_SCHEDULE_TYPE(10001)";
    case FEATURE_TASKID_BIT_WIDTH:
        return "FEATURE_SYSTEM_TASKID_BIT_WIDTH(20001)";
    default:
        snprintf(buf, len, "UNKNOWN(%d)", (int)f);
        return buf;
    }
}

aclError api_impl_aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                           int32_t *value)
{
    static const char fn[] = "aclrtGetDeviceCapability";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!value)
        return api_err_null(fn, "value");
    int32_t f = (int32_t)devFeatureType;
    char buf[32];
    const char *name = feature_name(f, buf, sizeof buf);
    if (f < 0 || f >= FEATURE_MAX) {
        api_report(API_MSG_EE1003, "rtsDeviceGetCapability failed because value %s for parameter "
                   "devFeatureType is invalid. Expected value: [0, %d).", name, FEATURE_MAX);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (f != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        f != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV && f != FEATURE_AICPU_SCHEDULE_TYPE &&
        f != FEATURE_TASKID_BIT_WIDTH) {
        api_report(API_MSG_EE1003, "rtsDeviceGetCapability failed because value %s for parameter "
                   "devFeatureType is invalid. Expected value: [%d, %d).", name,
                   ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, FEATURE_MAX);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError rc = valid_device(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_feature(deviceId, f, value);
    return rc == ACL_SUCCESS ? rc : query_failed(fn, deviceId, name, rc);
}

/* ---- Identity: UUID and PCI address ---- */

aclError api_impl_aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    static const char fn[] = "aclrtDeviceGetUuid";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!uuid)
        return api_err_null(fn, "uuid");
    if (deviceId < 0)
        return not_negative("Obtaining the device UUID", "devId", deviceId,
                            ACL_ERROR_RT_INVALID_DEVICEID);
    aclError rc = valid_device(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_uuid(deviceId, uuid);
    return rc == ACL_SUCCESS ? rc : query_failed(fn, deviceId, "its UUID", rc);
}

/* "dddd:bb:dd.f" and its NUL */
enum { BUS_ID_LEN = 13 };

aclError api_impl_aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
    static const char fn[] = "aclrtDeviceGetPCIBusId";
    static const char what[] = "Obtaining the device PCI bus id";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!pciBusId)
        return api_err_null(fn, "pciBusId");
    if (deviceId < 0)
        return not_negative(what, "devId", deviceId, ACL_ERROR_RT_INVALID_DEVICEID);
    if (len < BUS_ID_LEN) {
        api_report(API_MSG_EE1003, "%s failed because value %d for parameter len is invalid. "
                   "Expected value: greater than or equal to %d.", what, (int)len, BUS_ID_LEN);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError rc = valid_device(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_bus_id(deviceId, pciBusId, len);
    return rc == ACL_SUCCESS ? rc : query_failed(fn, deviceId, "its PCI bus id", rc);
}

/* As CANN: every device's address is compared with the one asked for;
 * none matching is 107000 with nothing but a log line. */
aclError api_impl_aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
    static const char fn[] = "aclrtDeviceGetByPCIBusId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!pciBusId)
        return api_err_null(fn, "pciBusId");
    if (!deviceId)
        return api_err_null(fn, "deviceId");
    uint32_t n = 0;
    aclError rc = be_get()->device_count(&n);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    for (uint32_t d = 0; d < n; d++) {
        char bdf[BUS_ID_LEN] = "";
        if (be_get()->device_bus_id((int32_t)d, bdf, BUS_ID_LEN) == ACL_SUCCESS &&
            strcmp(bdf, pciBusId) == 0) {
            *deviceId = (int32_t)d;
            return ACL_SUCCESS;
        }
    }
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* ---- Device ids: user (what the program passes), logical, physical ----
 *
 * CANN's "by user" and "by logic" calls to and from physical ids share one
 * runtime path each, messages included: a physical id maps to the id the
 * program uses, and back. */

/* phy -> logical (= user) id: rtsGetLogicDevIdByPhyDevId's checks. */
static aclError from_phy(const char *fn, int32_t phy, int32_t *out)
{
    if (phy < 0)
        return not_negative("rtsGetLogicDevIdByPhyDevId", "phyDevId", phy,
                            ACL_ERROR_RT_PARAM_INVALID);
    aclError rc = be_get()->device_id_map(BE_ID_PHY_TO_LOGIC, phy, out);
    if (rc == ACL_ERROR_RT_INVALID_DEVICEID)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, no device has "
                   "physical id %d.", fn, (int)phy);
    else if (rc != ACL_SUCCESS)
        api_err_runtime(fn, rc);
    return rc;
}

/* logical (= user) -> phy id: rtsGetPhyDevIdByLogicDevId's checks. */
static aclError to_phy(const char *fn, int32_t logic, int32_t *out)
{
    if (logic < 0)
        return not_negative("rtsGetPhyDevIdByLogicDevId", "logicDevId", logic,
                            ACL_ERROR_RT_PARAM_INVALID);
    aclError rc = be_get()->device_id_map(BE_ID_LOGIC_TO_PHY, logic, out);
    if (rc == ACL_ERROR_RT_INVALID_DEVICEID)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, no device has "
                   "logical id %d.", fn, (int)logic);
    else if (rc != ACL_SUCCESS)
        api_err_runtime(fn, rc);
    return rc;
}

aclError api_impl_aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    static const char fn[] = "aclrtGetLogicDevIdByUserDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!logicDevId)
        return api_err_null(fn, "logicDevId");
    if (userDevid < 0)
        return not_negative("rtsGetLogicDevIdByUserDevId", "userDevId", userDevid,
                            ACL_ERROR_RT_PARAM_INVALID);
    aclError rc = valid_device(fn, userDevid);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_id_map(BE_ID_USER_TO_LOGIC, userDevid, logicDevId);
    return rc == ACL_SUCCESS ? rc : api_err_runtime(fn, rc);
}

aclError api_impl_aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    static const char fn[] = "aclrtGetUserDevIdByLogicDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!userDevid)
        return api_err_null(fn, "userDevid");
    if (logicDevId < 0)
        return not_negative("rtsGetUserDevIdByLogicDevId", "logicDevId", logicDevId,
                            ACL_ERROR_RT_PARAM_INVALID);
    aclError rc = valid_device(fn, logicDevId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_id_map(BE_ID_LOGIC_TO_USER, logicDevId, userDevid);
    return rc == ACL_SUCCESS ? rc : api_err_runtime(fn, rc);
}

aclError api_impl_aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    static const char fn[] = "aclrtGetLogicDevIdByPhyDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!logicDevId)
        return api_err_null(fn, "logicDevId");
    return from_phy(fn, phyDevId, logicDevId);
}

aclError api_impl_aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    static const char fn[] = "aclrtGetPhyDevIdByLogicDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!phyDevId)
        return api_err_null(fn, "phyDevId");
    return to_phy(fn, logicDevId, phyDevId);
}

aclError api_impl_aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
    static const char fn[] = "aclrtGetUserDevIdByPhyDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!userDevId)
        return api_err_null(fn, "userDevId");
    return from_phy(fn, phyDevId, userDevId);
}

aclError api_impl_aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
    static const char fn[] = "aclrtGetPhyDevIdByUserDevId";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!phyDevId)
        return api_err_null(fn, "phyDevId");
    return to_phy(fn, userDevId, phyDevId);
}

/* ---- Utilization and status ---- */

/* Never fails past its argument checks: a figure the device cannot give,
 * or a device that cannot be asked, reads -1, and memory always does. */
aclError api_impl_aclrtGetDeviceUtilizationRate(int32_t deviceId,
                                                aclrtUtilizationInfo *utilizationInfo)
{
    static const char fn[] = "aclrtGetDeviceUtilizationRate";
    if (!utilizationInfo)
        return api_err_null(fn, "utilizationInfo");
    if (utilizationInfo->utilizationExtend) {
        api_report(API_MSG_EH0012, "%s failed. Parameter utilizationInfo->utilizationExtend is "
                   "invalid. Reason: utilizationExtend is a reserved parameter and must be "
                   "nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    be_get()->device_utilization(deviceId, utilizationInfo);
    utilizationInfo->memoryUtilization = -1;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    static const char fn[] = "aclrtQueryDeviceStatus";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    if (!deviceStatus)
        return api_err_null(fn, "deviceStatus");
    aclError rc = valid_device(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->device_status(deviceId, deviceStatus);
    return rc == ACL_SUCCESS ? rc : query_failed(fn, deviceId, "its status", rc);
}
