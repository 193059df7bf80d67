/*
 * test_devinfo.c - device queries (DEVICE family): aclrtGetDeviceInfo,
 * aclrtGetDeviceCapability, UUID, PCI bus id, the user/logical/physical id
 * maps, utilization and status. Bad input first, with CANN's codes and the
 * runtime's texts (api_error.cc, api_impl.cc, api_c_device.cc), then what a
 * simulated device answers from its SoC's platform file. None of these
 * calls needs aclInit or an open device, as in CANN.
 *
 * Figures of a SoC are pinned on the simulator only (two devices, set per
 * case); the rest runs on every backend.
 */
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/fault.h"

static bool on_sim(void)
{
    return strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0;
}

static void sim_only(void)
{
    if (!on_sim())
        skip();
}

static uint32_t count(void)
{
    uint32_t n = 0;
    assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    return n;
}

/* Configure the simulator (SoC, number of devices) for the calls after. */
static void use_sim(const char *soc, const char *devices)
{
    setenv("ACLSIM_SOC", soc, 1);
    setenv("ACLSIM_DEVICE_COUNT", devices, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static int reset_sim(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    unsetenv("ACLSIM_SOC");
    unsetenv("ACLSIM_DEVICE_COUNT");
    if (on_sim()) {
        assert_int_equal(aclInit(NULL), ACL_SUCCESS);
        assert_int_equal(aclFinalize(), ACL_SUCCESS);
    }
    return 0;
}

/* The runtime's text for a device id out of range (CheckDeviceIdIsValid). */
static void expect_bad_device(int32_t dev)
{
    char text[256];
    snprintf(text, sizeof text, "Verifying the device ID validity failed because value %d for "
             "parameter devId is invalid. Expected value: [0, %u).", (int)dev, count());
    expect_msg("Invalid_Argument(EE1003)", text);
}

static void expect_negative(const char *what, const char *param, int32_t v)
{
    char text[256];
    snprintf(text, sizeof text, "%s failed because value %d for parameter %s is invalid. "
             "Expected value: greater than or equal to 0.", what, (int)v, param);
    expect_msg("Invalid_Argument(EE1003)", text);
}

/* ---- aclrtGetDeviceInfo ---- */

static void test_device_info_bad_arguments(void **state)
{
    (void)state;
    int64_t v = -9;
    char text[512];
    assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDeviceInfo", "value");
    uint32_t n = count();
    assert_int_equal(aclrtGetDeviceInfo(n, ACL_DEV_ATTR_AICORE_CORE_NUM, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Querying device information based on the specified attribute "
             "failed because value %u for parameter realDeviceId is invalid. Expected value: "
             "[0, %u).", n, n);
    expect_msg("Invalid_Argument(EE1003)", text);
    assert_int_equal(aclrtGetDeviceInfo(0, (aclrtDevAttr)103, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)",
               "Getting the device attributes failed because value UNKNOWN(103) for parameter "
               "attr is invalid. Expected value: DEV_ATTR_CUBE_CORE_NUM(102), "
               "DEV_ATTR_WARP_SIZE(202), DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE(203), "
               "DEV_ATTR_UBUF_PER_VECTOR_CORE(204), DEV_ATTR_MAX_GRID_DIM_X(205), "
               "DEV_ATTR_MAX_GRID_DIM_Y(206), DEV_ATTR_MAX_GRID_DIM_Z(207), "
               "DEV_ATTR_MAX_BLOCK_PER_GRID(208), DEV_ATTR_MAX_THREADS_PER_BLOCK(209), "
               "DEV_ATTR_MAX_BLOCK_DIM_X(210), DEV_ATTR_MAX_BLOCK_DIM_Y(211), "
               "DEV_ATTR_MAX_BLOCK_DIM_Z(212), DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE(301), "
               "DEV_ATTR_L2_CACHE_SIZE(302), DEV_ATTR_NPU_ARCH(601), or "
               "DEV_ATTR_IS_VIRTUAL(501).");
    assert_int_equal(v, -9);
}

static void test_device_info_without_init_agrees_with_capability(void **state)
{
    (void)state;
    int64_t a = -1, b = -1;
    assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &a), ACL_SUCCESS);
    assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &b), ACL_SUCCESS);
    assert_true(a > 0);
    assert_int_equal(a, b);
    expect_no_msg();
}

/* [SoCInfo] of the platform files; SIMT limits of the runtime's 950
 * properties (0 elsewhere); the total of aclrtGetMemInfo. */
static void test_device_info_of_simulated_socs(void **state)
{
    (void)state;
    sim_only();
    static const struct {
        const char *soc;
        int64_t aicpu, aic, cube, vec, l2, arch, warp, ubuf, link;
    } want[] = {
        {"Ascend910B1", 6, 24, 24, 48, 201326592, 2201, 0, 0, ACL_HOST_DEVICE_CONNECT_TYPE_PCIE},
        {"Ascend910B4", 6, 20, 20, 40, 100663296, 2201, 0, 0, ACL_HOST_DEVICE_CONNECT_TYPE_PCIE},
        {"Ascend910_9391", 6, 24, 24, 48, 201326592, 2201, 0, 0,
         ACL_HOST_DEVICE_CONNECT_TYPE_HCCS},
        {"Ascend950PR_9599", 6, 36, 36, 72, 134217728, 3510, 32, 221184,
         ACL_HOST_DEVICE_CONNECT_TYPE_PCIE},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        use_sim(want[i].soc, "1");
        const struct {
            aclrtDevAttr attr;
            int64_t v;
        } q[] = {
            {ACL_DEV_ATTR_AICPU_CORE_NUM, want[i].aicpu},
            {ACL_DEV_ATTR_AICORE_CORE_NUM, want[i].aic},
            {ACL_DEV_ATTR_CUBE_CORE_NUM, want[i].cube},
            {ACL_DEV_ATTR_VECTOR_CORE_NUM, want[i].vec},
            {ACL_DEV_ATTR_L2_CACHE_SIZE, want[i].l2},
            {ACL_DEV_ATTR_NPU_ARCH, want[i].arch},
            {ACL_DEV_ATTR_WARP_SIZE, want[i].warp},
            {ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, want[i].ubuf},
            {ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE, want[i].warp ? 2048 : 0},
            {ACL_DEV_ATTR_MAX_GRID_DIM_X, want[i].warp ? 65535 : 0},
            {ACL_DEV_ATTR_MAX_BLOCK_DIM_Z, want[i].warp ? 2048 : 0},
            {ACL_DEV_ATTR_HD_CONNECT_TYPE, want[i].link},
            {ACL_DEV_ATTR_IS_VIRTUAL, 0},
            {ACL_DEV_ATTR_PHY_CHIP_ID, 0},
        };
        for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
            int64_t v = -1;
            assert_int_equal(aclrtGetDeviceInfo(0, q[k].attr, &v), ACL_SUCCESS);
            if (v != q[k].v)
                fail_msg("%s attr %d: %lld, want %lld", want[i].soc, (int)q[k].attr,
                         (long long)v, (long long)q[k].v);
        }
    }
}

/* Every simulated SoC has its platform facts (sim/profile.c's table). */
static void test_every_profile_has_platform_facts(void **state)
{
    (void)state;
    sim_only();
    static const char *socs[] = {"Ascend910B1", "Ascend910B2", "Ascend910B4", "Ascend910_9391",
                                 "Ascend910_9392", "Ascend950PR_9599", "Ascend950DT_9581"};
    for (size_t i = 0; i < sizeof socs / sizeof socs[0]; i++) {
        use_sim(socs[i], "1");
        int64_t arch = 0, cores = 0;
        int32_t ok = 0;
        assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, &arch), ACL_SUCCESS);
        assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &cores), ACL_SUCCESS);
        assert_true(arch == 2201 || arch == 3510);
        assert_true(cores >= 20);
        assert_int_equal(aclrtCheckArchCompatibility(socs[i], &ok), ACL_SUCCESS);
        assert_int_equal(ok, 1);
    }
}

static void test_device_info_total_memory_is_mem_info_total(void **state)
{
    (void)state;
    size_t fr, total;
    int64_t v = -1;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal((size_t)v, total);
    if (on_sim()) /* 64 GiB less the 3103 MiB a 64 GB A2 part keeps: 60.97 GiB */
        assert_int_equal(v, 64ll * 1024 * 1024 * 1024 - 3103ll * 1024 * 1024);
}

/* Machine facts the simulator does not model: 207000, and a message that
 * says which. */
static void test_device_info_unmodelled_machine_facts(void **state)
{
    (void)state;
    sim_only();
    static const aclrtDevAttr attrs[] = {ACL_DEV_ATTR_SMP_ID, ACL_DEV_ATTR_SUPER_POD_DEVICE_ID,
                                         ACL_DEV_ATTR_SUPER_POD_SERVER_ID,
                                         ACL_DEV_ATTR_SUPER_POD_ID, ACL_DEV_ATTR_CUST_OP_PRIVILEGE,
                                         ACL_DEV_ATTR_MAINBOARD_ID,
                                         ACL_DEV_ATTR_DEVICE_FORM_FACTOR};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int64_t v = -3;
        assert_int_equal(aclrtGetDeviceInfo(0, attrs[i], &v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        assert_int_equal(v, -3);
        const char *m = aclGetRecentErrMsg();
        assert_non_null(m);
        assert_non_null(strstr(m, "aclrtGetDeviceInfo failed: device 0 does not report DEV_ATTR_"));
    }
    int64_t v;
    assert_int_equal(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_SUPER_POD_ID, &v),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Inner_Error(EH9999)", "aclrtGetDeviceInfo failed: device 0 does not report "
               "DEV_ATTR_SUPER_POD_ID(405), runtime result = 207000.");
}

/* ---- aclrtGetDeviceCapability ---- */

static void test_device_capability_bad_arguments(void **state)
{
    (void)state;
    int32_t v = -4;
    assert_int_equal(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                                              NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDeviceCapability", "value");
    assert_int_equal(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)-1, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsDeviceGetCapability failed because value "
               "UNKNOWN(-1) for parameter devFeatureType is invalid. Expected value: [0, 20002).");
    assert_int_equal(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)20002, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsDeviceGetCapability failed because value "
               "UNKNOWN(20002) for parameter devFeatureType is invalid. Expected value: "
               "[0, 20002).");
    assert_int_equal(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)2, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtsDeviceGetCapability failed because value "
               "UNKNOWN(2) for parameter devFeatureType is invalid. Expected value: [1, 20002).");
    int32_t n = (int32_t)count();
    assert_int_equal(aclrtGetDeviceCapability(n, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
    assert_int_equal(aclrtGetDeviceCapability(-1, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(-1);
    assert_int_equal(v, -4);
}

/* The sample prints 1 for TSCPU task update on an A2 (910B and 950 chips
 * both have tiling-key sink); memory queues are not aclsim's. */
static void test_device_capability_answers(void **state)
{
    (void)state;
    sim_only();
    static const char *socs[] = {"Ascend910B1", "Ascend950DT_9581"};
    for (int s = 0; s < 2; s++) {
        use_sim(socs[s], "1");
        int32_t v = -1;
        assert_int_equal(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                                                  &v), ACL_SUCCESS);
        assert_int_equal(v, ACL_DEV_FEATURE_SUPPORT);
        assert_int_equal(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
                         ACL_SUCCESS);
        assert_int_equal(v, ACL_DEV_FEATURE_NOT_SUPPORT);
    }
    int32_t v;
    assert_int_equal(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)20001, &v),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Inner_Error(EH9999)", "aclrtGetDeviceCapability failed: device 0 does not report "
               "FEATURE_SYSTEM_TASKID_BIT_WIDTH(20001), runtime result = 207000.");
}

/* ---- UUID and PCI bus id ---- */

static void test_uuid_bad_arguments(void **state)
{
    (void)state;
    aclrtUuid u;
    int32_t n = (int32_t)count();
    assert_int_equal(aclrtDeviceGetUuid(-1, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetUuid", "uuid");
    assert_int_equal(aclrtDeviceGetUuid(-1, &u), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_negative("Obtaining the device UUID", "devId", -1);
    assert_int_equal(aclrtDeviceGetUuid(n, &u), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
}

static void test_uuid_stable_and_distinct_per_device(void **state)
{
    (void)state;
    sim_only();
    use_sim("Ascend910B1", "3");
    aclrtUuid u[3], again;
    for (int d = 0; d < 3; d++)
        assert_int_equal(aclrtDeviceGetUuid(d, &u[d]), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceGetUuid(1, &again), ACL_SUCCESS);
    assert_memory_equal(&again, &u[1], sizeof again);
    assert_memory_not_equal(&u[0], &u[1], sizeof u[0]);
    assert_memory_not_equal(&u[1], &u[2], sizeof u[0]);
    /* RFC 9562 version 8, variant 10 */
    assert_int_equal((unsigned char)u[0].bytes[6] >> 4, 8);
    assert_int_equal((unsigned char)u[0].bytes[8] >> 6, 2);
    /* another SoC is another device */
    use_sim("Ascend950PR_9599", "3");
    assert_int_equal(aclrtDeviceGetUuid(0, &again), ACL_SUCCESS);
    assert_memory_not_equal(&again, &u[0], sizeof again);
}

static void test_pci_bus_id_bad_arguments(void **state)
{
    (void)state;
    char bdf[16];
    int32_t n = (int32_t)count(), d;
    assert_int_equal(aclrtDeviceGetPCIBusId(0, NULL, 16), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetPCIBusId", "pciBusId");
    assert_int_equal(aclrtDeviceGetPCIBusId(-2, bdf, 16), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_negative("Obtaining the device PCI bus id", "devId", -2);
    assert_int_equal(aclrtDeviceGetPCIBusId(0, bdf, 12), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the device PCI bus id failed because value "
               "12 for parameter len is invalid. Expected value: greater than or equal to 13.");
    assert_int_equal(aclrtDeviceGetPCIBusId(n, bdf, 16), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
    assert_int_equal(aclrtDeviceGetByPCIBusId(NULL, &d), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetByPCIBusId", "pciBusId");
    assert_int_equal(aclrtDeviceGetByPCIBusId("0000:01:00.0", NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetByPCIBusId", "deviceId");
    /* no device there: CANN only logs it */
    d = -7;
    assert_int_equal(aclrtDeviceGetByPCIBusId("ffff:ff:1f.7", &d), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(d, -7);
    expect_no_msg();
}

/* Every device's address leads back to it. */
static void test_pci_bus_id_round_trip(void **state)
{
    (void)state;
    if (on_sim())
        use_sim("Ascend910B1", "4");
    uint32_t n = count();
    for (uint32_t d = 0; d < n; d++) {
        char bdf[13];
        int32_t back = -1;
        assert_int_equal(aclrtDeviceGetPCIBusId((int32_t)d, bdf, sizeof bdf), ACL_SUCCESS);
        assert_int_equal(strlen(bdf), 12);
        assert_true(bdf[4] == ':' && bdf[7] == ':' && bdf[10] == '.');
        assert_int_equal(aclrtDeviceGetByPCIBusId(bdf, &back), ACL_SUCCESS);
        assert_int_equal(back, (int32_t)d);
    }
    if (on_sim()) {
        char bdf[32];
        assert_int_equal(aclrtDeviceGetPCIBusId(3, bdf, sizeof bdf), ACL_SUCCESS);
        assert_string_equal(bdf, "0000:04:00.0");
    }
}

/* ---- Device ids ---- */

static void test_id_maps_null_and_negative(void **state)
{
    (void)state;
    int32_t v = 5;
    assert_int_equal(aclrtGetLogicDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetLogicDevIdByUserDevId", "logicDevId");
    assert_int_equal(aclrtGetUserDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetUserDevIdByLogicDevId", "userDevid");
    assert_int_equal(aclrtGetLogicDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetLogicDevIdByPhyDevId", "logicDevId");
    assert_int_equal(aclrtGetPhyDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetPhyDevIdByLogicDevId", "phyDevId");
    assert_int_equal(aclrtGetUserDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetUserDevIdByPhyDevId", "userDevId");
    assert_int_equal(aclrtGetPhyDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetPhyDevIdByUserDevId", "phyDevId");

    /* negative ids: the runtime's rts* entry checks, 107000; the calls by
     * user id go the same way as those by logical id, messages included */
    assert_int_equal(aclrtGetLogicDevIdByUserDevId(-1, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetLogicDevIdByUserDevId", "userDevId", -1);
    assert_int_equal(aclrtGetUserDevIdByLogicDevId(-1, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetUserDevIdByLogicDevId", "logicDevId", -1);
    assert_int_equal(aclrtGetLogicDevIdByPhyDevId(-1, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetLogicDevIdByPhyDevId", "phyDevId", -1);
    assert_int_equal(aclrtGetUserDevIdByPhyDevId(-2, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetLogicDevIdByPhyDevId", "phyDevId", -2);
    assert_int_equal(aclrtGetPhyDevIdByLogicDevId(-1, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetPhyDevIdByLogicDevId", "logicDevId", -1);
    assert_int_equal(aclrtGetPhyDevIdByUserDevId(-3, &v), ACL_ERROR_RT_PARAM_INVALID);
    expect_negative("rtsGetPhyDevIdByLogicDevId", "logicDevId", -3);
    assert_int_equal(v, 5);
}

static void test_id_maps_out_of_range(void **state)
{
    (void)state;
    int32_t v = 5, n = (int32_t)count();
    assert_int_equal(aclrtGetLogicDevIdByUserDevId(n, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
    assert_int_equal(aclrtGetUserDevIdByLogicDevId(n, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
    assert_int_equal(v, 5);
}

static void test_id_maps_out_of_range_physical(void **state)
{
    (void)state;
    sim_only();
    int32_t v = 5;
    assert_int_equal(aclrtGetLogicDevIdByPhyDevId(1, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtGetLogicDevIdByPhyDevId failed, no device has physical id 1.");
    assert_int_equal(aclrtGetPhyDevIdByUserDevId(1, &v), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtGetPhyDevIdByUserDevId failed, no device has logical id 1.");
    assert_int_equal(v, 5);
}

/* Every map agrees with its inverse on every device. */
static void test_id_maps_round_trip(void **state)
{
    (void)state;
    if (on_sim())
        use_sim("Ascend910B1", "3");
    uint32_t n = count();
    for (int32_t d = 0; d < (int32_t)n; d++) {
        int32_t logic = -1, user = -1, phy = -1, back = -1;
        assert_int_equal(aclrtGetLogicDevIdByUserDevId(d, &logic), ACL_SUCCESS);
        assert_int_equal(aclrtGetUserDevIdByLogicDevId(logic, &user), ACL_SUCCESS);
        assert_int_equal(user, d);
        assert_int_equal(aclrtGetPhyDevIdByUserDevId(d, &phy), ACL_SUCCESS);
        assert_int_equal(aclrtGetUserDevIdByPhyDevId(phy, &back), ACL_SUCCESS);
        assert_int_equal(back, d);
        assert_int_equal(aclrtGetPhyDevIdByLogicDevId(d, &phy), ACL_SUCCESS);
        assert_int_equal(aclrtGetLogicDevIdByPhyDevId(phy, &back), ACL_SUCCESS);
        assert_int_equal(back, d);
        if (on_sim()) /* nothing hidden, one chip per device */
            assert_true(logic == d && phy == d);
    }
    expect_no_msg();
}

/* ---- Utilization and status ---- */

static void test_utilization_bad_arguments(void **state)
{
    (void)state;
    aclrtUtilizationInfo u = {.utilizationExtend = (aclrtUtilizationExtendInfo *)&u};
    assert_int_equal(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDeviceUtilizationRate", "utilizationInfo");
    assert_int_equal(aclrtGetDeviceUtilizationRate(0, &u), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtGetDeviceUtilizationRate failed. Parameter "
               "utilizationInfo->utilizationExtend is invalid. Reason: utilizationExtend is a "
               "reserved parameter and must be nullptr.");
}

/* A device that cannot be asked reads -1 everywhere and the call still
 * succeeds; memory is always -1 (CANN does not report it). */
static void test_utilization_never_fails(void **state)
{
    (void)state;
    aclrtUtilizationInfo u = {5, 5, 5, 5, NULL};
    assert_int_equal(aclrtGetDeviceUtilizationRate(-1, &u), ACL_SUCCESS);
    assert_true(u.cubeUtilization == -1 && u.vectorUtilization == -1 &&
                u.aicpuUtilization == -1 && u.memoryUtilization == -1);
    expect_no_msg();
    u = (aclrtUtilizationInfo){5, 5, 5, 5, NULL};
    assert_int_equal(aclrtGetDeviceUtilizationRate(0, &u), ACL_SUCCESS);
    assert_int_equal(u.memoryUtilization, -1);
    assert_true(u.cubeUtilization >= -1 && u.cubeUtilization <= 100);
    if (on_sim()) /* no kernel ever runs on the simulator */
        assert_true(u.cubeUtilization == 0 && u.vectorUtilization == 0 &&
                    u.aicpuUtilization == 0);
}

static void test_device_status(void **state)
{
    (void)state;
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
    int32_t n = (int32_t)count();
    assert_int_equal(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtQueryDeviceStatus", "deviceStatus");
    assert_int_equal(aclrtQueryDeviceStatus(n, &st), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(n);
    assert_int_equal(aclrtQueryDeviceStatus(-1, &st), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_bad_device(-1);
    assert_int_equal(st, ACL_RT_DEVICE_STATUS_END);
    assert_int_equal(aclrtQueryDeviceStatus(0, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_RT_DEVICE_STATUS_NORMAL);
}

/* A fault in one query leaves the others, and the next call, alone. */
static void test_fault_point_fails_queries_then_clears(void **state)
{
    (void)state;
    sim_only();
    aclrtUuid u;
    aclrtUtilizationInfo info = {0, 0, 0, 0, NULL};
    assert_int_equal(aclsim_fault_enable("acl/rt/device_info"), 0);
    assert_int_equal(aclrtDeviceGetUuid(0, &u), ACL_ERROR_RT_DRV_INTERNAL_ERROR);
    expect_msg("Inner_Error(EH9999)", "aclrtDeviceGetUuid failed: the driver did not answer.");
    /* utilization has no failure CANN would report */
    assert_int_equal(aclrtGetDeviceUtilizationRate(0, &info), ACL_SUCCESS);
    aclsim_fault_disable_all();
    assert_int_equal(aclrtDeviceGetUuid(0, &u), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, reset_sim)
    const struct CMUnitTest tests[] = {
        T(test_device_info_bad_arguments),
        T(test_device_info_without_init_agrees_with_capability),
        T(test_device_info_of_simulated_socs),
        T(test_every_profile_has_platform_facts),
        T(test_device_info_total_memory_is_mem_info_total),
        T(test_device_info_unmodelled_machine_facts),
        T(test_device_capability_bad_arguments),
        T(test_device_capability_answers),
        T(test_uuid_bad_arguments),
        T(test_uuid_stable_and_distinct_per_device),
        T(test_pci_bus_id_bad_arguments),
        T(test_pci_bus_id_round_trip),
        T(test_id_maps_null_and_negative),
        T(test_id_maps_out_of_range),
        T(test_id_maps_out_of_range_physical),
        T(test_id_maps_round_trip),
        T(test_utilization_bad_arguments),
        T(test_utilization_never_fails),
        T(test_device_status),
        T(test_fault_point_fails_queries_then_clears),
    };
    return cmocka_run_group_tests_name("devinfo", tests, NULL, NULL);
}
