/*
 * npu_smi.c - npu-smi for aclsim's CANN-layout tree (bin/npu-smi): the
 * commands of Huawei's npu-smi that build scripts and tools run to find out
 * which NPUs a machine has, answered for the simulated devices, in
 * npu-smi's own layout so that scripts that cut its output by line and
 * field read the same values (ggml's CANN CMake takes field 3 of line 7 of
 * `npu-smi info` as the chip name: ggml/src/ggml-cann/CMakeLists.txt).
 *
 *   npu-smi info                       the device table (one block per NPU)
 *   npu-smi info -l                    the NPU count and each NPU's chips
 *   npu-smi info -t board -i ID [-c C] one NPU's board (and chip) facts
 *
 * Layouts: the 910B table of npu-smi 23.0 as printed on Atlas A2 machines
 * (98 columns, NPU and chip rows, HBM-Usage(MB) "used / total"), and the
 * "Name : value" lists of -l and -t board, names padded to 31 columns.
 * The values are the simulator's: the SoC name without "Ascend" (the
 * device's profile, ACLSIM_SOC), the device count, the bus id
 * (aclrtDeviceGetPCIBusId), HBM used and total (aclrtGetMemInfo, of this
 * process: a simulated device's memory is each process's own), the CANN
 * version (aclsysGetVersionStr). What the simulator has no value for
 * (power, temperature, serial numbers, firmware) reads NA, as npu-smi
 * writes it. Any other command or option says it is not modelled and
 * exits 2; a bad NPU ID exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"

#define RULE "+---------------------------+---------------+----------------------------------------------------+"
#define DOUBLE_RULE "+===========================+===============+====================================================+"

struct npu {
    char chip[64];  /* the SoC name without "Ascend" */
    char bus[64];   /* PCIe bus id */
    size_t used_mb, total_mb;
};

static char soc[64], version[64];
static uint32_t count;

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: npu-smi info [-l | -t board -i ID [-c CHIP]]\n"
               "aclsim's npu-smi describes the simulated NPUs of build/sim/cann (ACLSIM_SOC,\n"
               "ACLSIM_DEVICE_COUNT); other npu-smi commands are not modelled.\n");
    return rc;
}

static int not_modelled(int argc, char **argv)
{
    fprintf(stderr, "npu-smi:");
    for (int i = 1; i < argc; i++)
        fprintf(stderr, " %s", argv[i]);
    fprintf(stderr, ": not modelled by aclsim's npu-smi, which answers `npu-smi info`, "
                    "`npu-smi info -l` and `npu-smi info -t board -i ID [-c CHIP]` for the "
                    "simulated NPUs\n");
    return 2;
}

/* The runtime and the facts every command prints. */
static int start(void)
{
    const char *s = aclrtGetSocName();
    snprintf(soc, sizeof soc, "%s", s ? s : "NA");
    if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
        fprintf(stderr, "npu-smi: the simulator does not start: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    if (aclsysGetVersionStr((char *)"runtime", version) != ACL_SUCCESS)
        snprintf(version, sizeof version, "NA");
    return 0;
}

static void stop(void)
{
    aclFinalize();
}

static int query(int32_t id, struct npu *n)
{
    const char *chip = strncmp(soc, "Ascend", 6) == 0 ? soc + 6 : soc;
    snprintf(n->chip, sizeof n->chip, "%s", chip);
    size_t free_b = 0, total_b = 0;
    if (aclrtSetDevice(id) != ACL_SUCCESS ||
        aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b) != ACL_SUCCESS) {
        fprintf(stderr, "npu-smi: NPU %d does not open: %s\n", id, aclGetRecentErrMsg());
        return 1;
    }
    if (aclrtDeviceGetPCIBusId(id, n->bus, sizeof n->bus) != ACL_SUCCESS)
        snprintf(n->bus, sizeof n->bus, "NA");
    n->used_mb = (total_b - free_b) >> 20;
    n->total_mb = total_b >> 20;
    aclrtResetDevice(id);
    return 0;
}

static int table(void)
{
    printf("+------------------------------------------------------------------------------------------------+\n");
    printf("| npu-smi %-24s Version: %-53s|\n", version, version);
    printf("%s\n", RULE);
    printf("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n");
    printf("| Chip                      | Bus-Id        | AICore(%%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n");
    printf("%s\n", DOUBLE_RULE);
    for (uint32_t i = 0; i < count; i++) {
        struct npu n;
        if (query((int32_t)i, &n))
            return 1;
        char used[32], total[32];
        snprintf(used, sizeof used, "%zu", n.used_mb);
        snprintf(total, sizeof total, "%zu", n.total_mb);
        printf("| %-5u %-19s | %-13s | %-11s %-17s %-4s / %-14s|\n", i, n.chip, "OK", "NA", "NA",
               "0", "0");
        printf("| %-25s | %-13s | %-11s %-4s / %-10s %-4s / %-14s|\n", "0", n.bus, "0", "0", "0",
               used, total);
        printf("%s\n", DOUBLE_RULE);
    }
    printf("%s\n", RULE);
    printf("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n");
    printf("%s\n", DOUBLE_RULE);
    for (uint32_t i = 0; i < count; i++) {
        char text[96];
        snprintf(text, sizeof text, "No running processes found in NPU %u", i);
        printf("| %-95s|\n", text);
        printf("%s\n", DOUBLE_RULE);
    }
    return 0;
}

static void field(const char *name, const char *value)
{
    printf("\t%-31s: %s\n", name, value);
}

static int list(void)
{
    char v[32];
    snprintf(v, sizeof v, "%u", count);
    field("Total Count", v);
    for (uint32_t i = 0; i < count; i++) {
        printf("\n");
        snprintf(v, sizeof v, "%u", i);
        field("NPU ID", v);
        field("Chip Count", "1");
    }
    return 0;
}

static int board(long id, long chip)
{
    if (id < 0 || (uint32_t)id >= count) {
        fprintf(stderr, "npu-smi: NPU ID %ld is not a simulated NPU (there %s %u: 0 to %u)\n", id,
                count == 1 ? "is" : "are", count, count ? count - 1 : 0);
        return 1;
    }
    if (chip > 0) {
        fprintf(stderr, "npu-smi: NPU %ld has one chip (chip ID 0)\n", id);
        return 1;
    }
    struct npu n;
    if (query((int32_t)id, &n))
        return 1;
    char v[64];
    snprintf(v, sizeof v, "%ld", id);
    field("NPU ID", v);
    if (chip == 0) { /* one chip's facts: CANN's SoC name is <Chip Name>[_<NPU Name>] */
        char name[64];
        snprintf(name, sizeof name, "%s", n.chip);
        char *under = strchr(name, '_');
        if (under)
            *under = '\0';
        field("Chip ID", "0");
        field("Chip Type", "Ascend");
        field("Chip Name", name);
        field("NPU Name", under ? under + 1 : "NA");
        field("Chip Version", "V1");
        return 0;
    }
    field("Product Name", "aclsim simulated NPU");
    field("Model", "NA");
    field("Manufacturer", "NA");
    field("Serial Number", "NA");
    field("Software Version", version);
    field("Firmware Version", "NA");
    field("Compatibility", "OK");
    field("Board ID", "NA");
    field("PCB ID", "NA");
    field("BOM ID", "NA");
    field("PCIe Bus Info", n.bus);
    field("Slot ID", v);
    field("Class ID", "NA");
    field("PCI Vendor ID", "NA");
    field("PCI Device ID", "NA");
    field("Subsystem Vendor ID", "NA");
    field("Subsystem Device ID", "NA");
    field("Chip Count", "1");
    return 0;
}

/* A number option's value, or -1. */
static long number(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end ? v : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr, 2);
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return usage(stdout, 0);
    if (strcmp(argv[1], "info") != 0)
        return not_modelled(argc, argv);
    bool l = false;
    const char *type = NULL;
    long id = -1, chip = -1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-l") == 0)
            l = true;
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            type = argv[++i];
        else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
            id = number(argv[++i]);
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            chip = number(argv[++i]);
        else
            return not_modelled(argc, argv);
    }
    if ((l && (type || id >= 0 || chip >= 0)) || (type && strcmp(type, "board") != 0) ||
        (!type && (id >= 0 || chip >= 0)) || (type && id < 0))
        return not_modelled(argc, argv);
    if (start())
        return 1;
    int rc = l ? list() : type ? board(id, chip) : table();
    stop();
    return rc;
}
