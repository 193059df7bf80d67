/*
 * soc_table.h - reads the "SoC profiles" table of docs/timing.md, for the suites that
 * hold it against the simulator (tests/sim/test_profile.c, from the profile
 * structs; tests/api/test_policy.c, through the ACL API).
 *
 * A row looks like
 *   | `Ascend910_9391`, `Ascend910_9392` (Atlas A3 dies) | 64 GiB | 1600 | 32 | yes | 2796 MiB | 51.2 | yes |
 * : one or more profile names in backquotes, the HBM in GiB, the HBM
 * bandwidth in GB/s, aclrtMalloc's padding in bytes, whether 1 GB pages
 * exist, the driver's reserve in MiB (what aclrtGetMemInfo's total leaves
 * out), the host link's pinned bandwidth in GB/s, whether managed memory
 * (aclrtMemAllocManaged) exists.
 */
#ifndef ACLSIM_TESTS_SOC_TABLE_H_
#define ACLSIM_TESTS_SOC_TABLE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOC_TABLE_MAX_ROWS 32
#define SOC_TABLE_MAX_NAMES 8

struct soc_row {
    char names[SOC_TABLE_MAX_NAMES][48];
    int n_names;
    uint64_t hbm_bytes;
    double hbm_gbps;
    unsigned padding;
    bool huge1g;
    uint64_t reserve_bytes;
    double host_gbps;
    bool uvm;
    bool parsed;    /* false: the row is not in the form above */
    char line[384]; /* the row as written, for messages */
};

/* "yes" or "no" into *v; false for anything else. */
static inline bool soc_table_yes(const char *cell, bool *v)
{
    if (strcmp(cell, "yes") != 0 && strcmp(cell, "no") != 0)
        return false;
    *v = strcmp(cell, "yes") == 0;
    return true;
}

/* The next '|'-separated cell of *p, trimmed, into cell; false at the end. */
static inline bool soc_table_cell(const char **p, char *cell, size_t len)
{
    const char *s = *p, *e;
    if (*s == '|')
        s++;
    e = strchr(s, '|');
    if (!e)
        return false;
    while (s < e && *s == ' ')
        s++;
    size_t n = (size_t)(e - s);
    while (n > 0 && s[n - 1] == ' ')
        n--;
    snprintf(cell, len, "%.*s", (int)n, s);
    *p = e;
    return true;
}

/* Parse one table row; false when it is not in the form above. */
static inline bool soc_table_row(const char *line, struct soc_row *r)
{
    char cells[8][256];
    const char *p = line;
    memset(r, 0, sizeof *r);
    snprintf(r->line, sizeof r->line, "%.*s", (int)sizeof r->line - 1, line);
    for (int i = 0; i < 8; i++)
        if (!soc_table_cell(&p, cells[i], sizeof cells[i]))
            return false;
    for (const char *q = strchr(cells[0], '`'); q && r->n_names < SOC_TABLE_MAX_NAMES;) {
        const char *end = strchr(q + 1, '`');
        if (!end)
            return false;
        snprintf(r->names[r->n_names++], sizeof r->names[0], "%.*s", (int)(end - q - 1), q + 1);
        q = strchr(end + 1, '`');
    }
    char unit[16] = "";
    unsigned long long gib = 0;
    if (r->n_names == 0 || sscanf(cells[1], "%llu %15s", &gib, unit) != 2 ||
        strcmp(unit, "GiB") != 0)
        return false;
    r->hbm_bytes = (uint64_t)gib << 30;
    r->hbm_gbps = strtod(cells[2], NULL);
    r->padding = (unsigned)strtoul(cells[3], NULL, 10);
    if (!soc_table_yes(cells[4], &r->huge1g))
        return false;
    unsigned long long mib = 0;
    if (sscanf(cells[5], "%llu %15s", &mib, unit) != 2 || strcmp(unit, "MiB") != 0)
        return false;
    r->reserve_bytes = (uint64_t)mib << 20;
    r->host_gbps = strtod(cells[6], NULL);
    return soc_table_yes(cells[7], &r->uvm);
}

/* The rows of the page at path that start with a backquoted name (at most
 * max), each parsed or not: their number, or -1 when the file cannot be read
 * or has no "## SoC profiles" section. */
static inline int soc_table_read(const char *path, struct soc_row *rows, int max)
{
    FILE *f = fopen(path, "r");
    char line[640];
    int n = 0, in = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "## ", 3) == 0) {
            if (in)
                break;
            in = strcmp(line, "## SoC profiles") == 0;
            continue;
        }
        if (in && n < max && strncmp(line, "| `", 3) == 0) {
            rows[n].parsed = soc_table_row(line, &rows[n]);
            n++;
        }
    }
    fclose(f);
    return in || n ? n : -1;
}

#endif /* ACLSIM_TESTS_SOC_TABLE_H_ */
