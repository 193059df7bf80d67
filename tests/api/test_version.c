/*
 * test_version.c - versions, SoC and capabilities (VERSION family): CANN's
 * checks, codes and messages (acl.cpp, acl_rt_impl_base.cpp, device.cpp and
 * the runtime's CheckArchCompatibility), the version aclsim reports (CANN
 * 9.1.0, the package of its headers) and the answers for the simulated SoC.
 * Nothing here needs aclInit unless a test says so, as in CANN.
 *
 * Values that depend on the SoC are pinned on the simulator only; on
 * hw=ascend those cases are skipped and the others run over the real
 * runtime.
 */
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

/* CANN's header marks aclsysGetCANNVersion deprecated; it is still served. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void sim_only(void)
{
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") != 0)
        skip();
}

/* Open the simulator with profile `soc` for one aclInit cycle, so that the
 * calls after it see that SoC. */
static void use_soc(const char *soc)
{
    setenv("ACLSIM_SOC", soc, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static int reset_soc(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    unsetenv("ACLSIM_SOC");
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0) {
        assert_int_equal(aclInit(NULL), ACL_SUCCESS);
        assert_int_equal(aclFinalize(), ACL_SUCCESS);
    }
    return 0;
}

/* ---- aclrtGetSocName ---- */

static void test_soc_name_before_init_and_without_context(void **state)
{
    (void)state;
    const char *soc = aclrtGetSocName();
    assert_non_null(soc);
    expect_no_msg();
    int32_t dev;
    assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL); /* really no context */
    (void)aclGetRecentErrMsg();
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0)
        assert_string_equal(soc, "Ascend910B1");
}

static void test_soc_name_is_the_configured_profile(void **state)
{
    (void)state;
    sim_only();
    use_soc("Ascend950DT_9581");
    assert_string_equal(aclrtGetSocName(), "Ascend950DT_9581");
    use_soc("Ascend910_9392");
    assert_string_equal(aclrtGetSocName(), "Ascend910_9392");
}

/* ---- Package versions ---- */

static void test_version_str_null_arguments_versionStr_first(void **state)
{
    (void)state;
    char pkg[] = "runtime", out[ACL_PKG_VERSION_MAX_SIZE];
    assert_int_equal(aclsysGetVersionStr(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionStr", "versionStr");
    assert_int_equal(aclsysGetVersionStr(NULL, out), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionStr", "pkgName");
    assert_int_equal(aclsysGetVersionStr(pkg, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionStr", "versionStr");
}

static void test_version_num_null_arguments_versionNum_first(void **state)
{
    (void)state;
    char pkg[] = "runtime";
    int32_t n;
    assert_int_equal(aclsysGetVersionNum(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionNum", "versionNum");
    assert_int_equal(aclsysGetVersionNum(NULL, &n), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionNum", "pkgName");
    assert_int_equal(aclsysGetVersionNum(pkg, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetVersionNum", "versionNum");
}

/* CANN's runtime_compatibility sample prints "version string: 9.1.0" and
 * "version number: 90100000" for package runtime. */
static void test_runtime_package_is_cann_9_1_0(void **state)
{
    (void)state;
    char pkg[] = "runtime", out[ACL_PKG_VERSION_MAX_SIZE];
    memset(out, 'x', sizeof out);
    int32_t n = 0;
    assert_int_equal(aclsysGetVersionStr(pkg, out), ACL_SUCCESS);
    assert_string_equal(out, "9.1.0");
    assert_int_equal(aclsysGetVersionNum(pkg, &n), ACL_SUCCESS);
    assert_int_equal(n, 90100000);
    expect_no_msg();
    /* the macros the install tree's version files come from agree */
    assert_string_equal(ACLSIM_CANN_VERSION, "9.1.0");
}

static void test_cann_version_struct_for_cann_and_runtime(void **state)
{
    (void)state;
    static const aclCANNPackageName names[] = {ACL_PKG_NAME_CANN, ACL_PKG_NAME_RUNTIME};
    for (int i = 0; i < 2; i++) {
        aclCANNPackageVersion v;
        memset(&v, 'x', sizeof v);
        assert_int_equal(aclsysGetCANNVersion(names[i], &v), ACL_SUCCESS);
        assert_string_equal(v.version, "9.1.0");
        assert_string_equal(v.majorVersion, "9");
        assert_string_equal(v.minorVersion, "1");
        assert_string_equal(v.releaseVersion, "0");
        assert_string_equal(v.patchVersion, "0"); /* CANN pads to four parts */
        assert_int_equal(v.reserved[0], 0);       /* and zeroes the rest */
        assert_int_equal(v.version[ACL_PKG_VERSION_MAX_SIZE - 1], 0);
    }
    expect_no_msg();
}

static void test_cann_version_bad_arguments(void **state)
{
    (void)state;
    aclCANNPackageVersion v;
    assert_int_equal(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclsysGetCANNVersion", "version");
    /* an unknown package enum: CANN only logs it */
    assert_int_equal(aclsysGetCANNVersion((aclCANNPackageName)8, &v), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclsysGetCANNVersion((aclCANNPackageName)-1, &v), ACL_ERROR_INVALID_PARAM);
    expect_no_msg();
}

/* Packages that are not aclsim's are not installed on the simulator: CANN
 * answers a missing version file with 100003 and only a log line. */
static void test_other_packages_are_not_installed(void **state)
{
    (void)state;
    sim_only();
    char hccl[] = "hccl", cann[] = "cann", none[] = "no-such-package", out[8] = "";
    int32_t n = -1;
    aclCANNPackageVersion v;
    assert_int_equal(aclsysGetVersionStr(hccl, out), ACL_ERROR_INVALID_FILE);
    assert_int_equal(aclsysGetVersionStr(cann, out), ACL_ERROR_INVALID_FILE);
    assert_int_equal(aclsysGetVersionNum(none, &n), ACL_ERROR_INVALID_FILE);
    assert_string_equal(out, "");
    assert_int_equal(n, -1);
    assert_int_equal(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v), ACL_ERROR_INVALID_FILE);
    assert_int_equal(aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &v), ACL_ERROR_INVALID_FILE);
    expect_no_msg();
}

/* ---- CANN attributes ---- */

static void test_cann_attribute_null_arguments(void **state)
{
    (void)state;
    const aclCannAttr *list;
    size_t n;
    assert_int_equal(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclGetCannAttributeList", "cannAttrList");
    assert_int_equal(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclGetCannAttributeList", "num");
    assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclGetCannAttribute", "value");
}

static void test_cann_attribute_unknown_is_invalid_without_message(void **state)
{
    (void)state;
    int32_t v = 7;
    assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclGetCannAttribute((aclCannAttr)3, &v), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(v, 7);
    expect_no_msg();
}

/* The list and the single queries agree on every backend. */
static void test_cann_attribute_list_matches_single_queries(void **state)
{
    (void)state;
    const aclCannAttr *list = NULL;
    size_t n = 99;
    assert_int_equal(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
    assert_true(n <= 3);
    static const aclCannAttr known[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16,
                                        ACL_CANN_ATTR_JIT_COMPILE};
    for (size_t k = 0; k < 3; k++) {
        int32_t v = -1, listed = 0;
        assert_int_equal(aclGetCannAttribute(known[k], &v), ACL_SUCCESS);
        for (size_t i = 0; i < n; i++)
            listed |= list[i] == known[k];
        assert_int_equal(v, listed);
    }
}

/* The sample's output on an A2: three attributes, each supported; 910B
 * and 950 platform files both say support_bf16=1, support_inf_nan=1. */
static void test_cann_attributes_of_the_simulated_socs(void **state)
{
    (void)state;
    sim_only();
    static const char *socs[] = {"Ascend910B1", "Ascend950PR_9599"};
    for (int s = 0; s < 2; s++) {
        use_soc(socs[s]);
        const aclCannAttr *list;
        size_t n;
        assert_int_equal(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
        assert_int_equal(n, 3);
        assert_int_equal(list[0], ACL_CANN_ATTR_INF_NAN);
        assert_int_equal(list[1], ACL_CANN_ATTR_BF16);
        assert_int_equal(list[2], ACL_CANN_ATTR_JIT_COMPILE);
    }
}

/* ---- aclGetDeviceCapability ---- */

static void test_device_capability_bad_arguments(void **state)
{
    (void)state;
    int64_t v = -5;
    uint32_t count;
    assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclGetDeviceCapability", "value");
    assert_int_equal(aclrtGetDeviceCount(&count), ACL_SUCCESS);
    assert_int_equal(aclGetDeviceCapability(count, ACL_DEVICE_INFO_AI_CORE_NUM, &v),
                     ACL_ERROR_INVALID_PARAM);
    char text[256];
    snprintf(text, sizeof text, "aclGetDeviceCapability failed. Value %u for parameter deviceId "
             "is invalid. Reason: deviceId %u greater than deviceNum %u.", count, count, count);
    expect_msg("Invalid_Argument(EH0009)", text);
    /* an unknown info type: CANN only logs a warning */
    assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &v),
                     ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclGetDeviceCapability(0, (aclDeviceInfo)3, &v), ACL_ERROR_INVALID_PARAM);
    expect_no_msg();
    assert_int_equal(v, -5);
}

/* ai_core_cnt, vector_core_cnt and l2_size of the SoC's platform file. */
static void test_device_capability_is_the_socs_platform_figures(void **state)
{
    (void)state;
    sim_only();
    static const struct {
        const char *soc;
        int64_t aic, vec, l2;
    } want[] = {
        {"Ascend910B1", 24, 48, 201326592},
        {"Ascend910B4", 20, 40, 100663296},
        {"Ascend950PR_9599", 36, 72, 134217728},
        {"Ascend950DT_9581", 32, 64, 134217728},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        use_soc(want[i].soc);
        int64_t v;
        assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v), ACL_SUCCESS);
        assert_int_equal(v, want[i].aic);
        assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &v),
                         ACL_SUCCESS);
        assert_int_equal(v, want[i].vec);
        assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &v), ACL_SUCCESS);
        assert_int_equal(v, want[i].l2);
    }
}

/* ---- aclrtCheckArchCompatibility ---- */

static const char arch_what[] = "Checking operator instruction compatibility based on the SoC "
                                "version";

static void test_arch_compatibility_bad_arguments(void **state)
{
    (void)state;
    int32_t ok = 7;
    char text[256];
    assert_int_equal(aclrtCheckArchCompatibility(NULL, &ok), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "%s failed because omSocVersion cannot be a NULL pointer.",
             arch_what);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", text);
    assert_int_equal(aclrtCheckArchCompatibility("Ascend910B1", NULL), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "%s failed because canCompatible cannot be a NULL pointer.",
             arch_what);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", text);
    /* an empty name: the runtime only logs it */
    assert_int_equal(aclrtCheckArchCompatibility("", &ok), ACL_ERROR_RT_PARAM_INVALID);
    expect_no_msg();
    assert_int_equal(aclrtCheckArchCompatibility("Ascend999", &ok), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "%s failed. Value Ascend999 for parameter omSocVersion is "
             "invalid. Reason: SoC version Ascend999 is invalid.", arch_what);
    expect_msg("Invalid_Argument(EE1011)", text);
    assert_int_equal(ok, 7);
}

static void test_arch_compatible_with_itself(void **state)
{
    (void)state;
    int32_t ok = -1;
    assert_int_equal(aclrtCheckArchCompatibility(aclrtGetSocName(), &ok), ACL_SUCCESS);
    assert_int_equal(ok, 1);
}

/* NpuArch of the platform files: 910B and A3 are 2201, 950 is 3510, 310P
 * 2002, 910A 1001. The sample reports 1 for Ascend910B3 on an A2. */
static void test_arch_compatibility_by_npu_arch(void **state)
{
    (void)state;
    sim_only();
    static const struct {
        const char *soc, *other;
        int32_t ok;
    } want[] = {
        {"Ascend910B1", "Ascend910B3", 1},      {"Ascend910B1", "Ascend910_9391", 1},
        {"Ascend910B1", "Ascend910B4-1", 1},    {"Ascend910B1", "Ascend950PR_9599", 0},
        {"Ascend910B1", "Ascend310P3", 0},      {"Ascend910B1", "Ascend910A", 0},
        {"Ascend950PR_9599", "Ascend950DT_9581", 1}, {"Ascend950PR_9599", "Ascend910B1", 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        use_soc(want[i].soc);
        int32_t ok = -1;
        assert_int_equal(aclrtCheckArchCompatibility(want[i].other, &ok), ACL_SUCCESS);
        if (ok != want[i].ok)
            fail_msg("%s on %s: %d, want %d", want[i].other, want[i].soc, ok, want[i].ok);
    }
}

/* CANN's example/0_quickstart/3_cross_version/0_runtime_compatibility, as
 * a program runs it. */
static void test_runtime_compatibility_sample_flow(void **state)
{
    (void)state;
    char pkg[] = "runtime", ver[ACL_PKG_VERSION_MAX_SIZE] = "";
    int32_t num = 0, ok = -1, cap = -1;
    const aclCannAttr *list = NULL;
    size_t n = 0;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclsysGetVersionStr(pkg, ver), ACL_SUCCESS);
    assert_int_equal(aclsysGetVersionNum(pkg, &num), ACL_SUCCESS);
    assert_int_equal(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
    for (size_t i = 0; i < n && i < 3; i++) {
        int32_t v = -1;
        assert_int_equal(aclGetCannAttribute(list[i], &v), ACL_SUCCESS);
        assert_int_equal(v, 1);
    }
    const char *soc = aclrtGetSocName();
    assert_non_null(soc);
    assert_int_equal(aclrtCheckArchCompatibility(soc, &ok), ACL_SUCCESS);
    assert_int_equal(ok, 1);
    assert_int_equal(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                                              &cap), ACL_SUCCESS);
    assert_true(cap == ACL_DEV_FEATURE_SUPPORT || cap == ACL_DEV_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_string_equal(ver, "9.1.0");
    assert_int_equal(num, 90100000);
    expect_no_msg();
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, reset_soc)
    const struct CMUnitTest tests[] = {
        T(test_soc_name_before_init_and_without_context),
        T(test_soc_name_is_the_configured_profile),
        T(test_version_str_null_arguments_versionStr_first),
        T(test_version_num_null_arguments_versionNum_first),
        T(test_runtime_package_is_cann_9_1_0),
        T(test_cann_version_struct_for_cann_and_runtime),
        T(test_cann_version_bad_arguments),
        T(test_other_packages_are_not_installed),
        T(test_cann_attribute_null_arguments),
        T(test_cann_attribute_unknown_is_invalid_without_message),
        T(test_cann_attribute_list_matches_single_queries),
        T(test_cann_attributes_of_the_simulated_socs),
        T(test_device_capability_bad_arguments),
        T(test_device_capability_is_the_socs_platform_figures),
        T(test_arch_compatibility_bad_arguments),
        T(test_arch_compatible_with_itself),
        T(test_arch_compatibility_by_npu_arch),
        T(test_runtime_compatibility_sample_flow),
    };
    return cmocka_run_group_tests_name("version", tests, NULL, NULL);
}
