/*
 * test_reports.c - where the sanitizer's and the leak check's reports go:
 * ACLSIM_REPORT (JSON a parser reads, stacks symbolized to this file's
 * functions and lines), ACLSIM_SUPPRESS (a rule silences exactly the
 * reports it names; a bad file fails aclInit naming the line),
 * ACLSIM_REPORT_LIMIT (reports past it are counted, not printed), and the
 * leak check of a program that exits without aclFinalize.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl_op.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

/* One free list for every stream: the mistake every report here is of. */
static void *slots[8];
static int n_slots;
static void *s_alloc(aclrtAllocator a, size_t n)
{
    (void)a, (void)n;
    return n_slots ? slots[--n_slots] : NULL;
}
static void s_free(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a, slots[n_slots++] = b; }
static void *s_addr(aclrtAllocatorBlock b) { return b; }

static int objs[2];
static aclrtStream S[2];
static aclrtAllocatorDesc D[2];
static void *chunk, *dx;
static char dir[] = "/tmp/aclsim-reports-XXXXXX", json[64], supp[64];

static void up(void)
{
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&chunk, 8 * 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&dx, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (n_slots = 0; n_slots < 8; n_slots++)
        slots[n_slots] = (char *)chunk + (7 - n_slots) * 4096;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(aclrtCreateStream(&S[i]), ACL_SUCCESS);
        D[i] = aclrtAllocatorCreateDesc();
        aclrtAllocatorSetObjToDesc(D[i], &objs[i]);
        aclrtAllocatorSetAllocFuncToDesc(D[i], s_alloc);
        aclrtAllocatorSetFreeFuncToDesc(D[i], s_free);
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc(D[i], s_addr);
        assert_int_equal(aclrtAllocatorRegister(S[i], D[i]), ACL_SUCCESS);
    }
}

static void down(void)
{
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    for (int i = 0; i < 2; i++) {
        aclrtAllocatorUnregister(S[i]);
        aclrtAllocatorDestroyDesc(D[i]);
        aclrtDestroyStream(S[i]);
    }
    aclrtFree(dx);
    aclrtFree(chunk);
    aclrtResetDevice(0);
    aclFinalize();
    unsetenv("ACLSIM_REPORT");
    unsetenv("ACLSIM_SUPPRESS");
    unsetenv("ACLSIM_REPORT_LIMIT");
    unsetenv("ACLSIM_TRACK");
}

static __attribute__((noipa)) void add(aclrtStream s)
{
    int64_t dims[1] = {256};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    aclDataBuffer *x = aclCreateDataBuffer(dx, 1024), *y = aclCreateDataBuffer(dx, 1024);
    aclTensorDesc *in[2] = {td, td};
    aclDataBuffer *ib[2] = {x, x};
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &td, &y, NULL, s), ACL_SUCCESS);
    aclDestroyTensorDesc(td);
    aclDestroyDataBuffer(x);
    aclDestroyDataBuffer(y);
}

/* Two ways into the same cross-stream reuse, told apart by their stacks. */
static __attribute__((noipa)) void reuse_from_here(void)
{
    add(S[0]);
    add(S[1]);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
}
static __attribute__((noipa)) void reuse_from_there(void)
{
    add(S[0]);
    add(S[1]);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

/* Run python3 on the JSON report with `check` (a Python expression over
 * `reps`, the list of reports): its exit status. */
static int json_check(const char *check)
{
    char py[64], cmd[256];
    snprintf(py, sizeof py, "%s/check.py", dir);
    FILE *f = fopen(py, "w");
    assert_non_null(f);
    fprintf(f, "import json, sys\nreps = json.load(open(sys.argv[1]))['reports']\n"
            "sys.exit(0 if (%s) else 1)\n", check);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 %s %s", py, json);
    return system(cmd);
}

/* The file is the process's: a second aclInit with the same name goes on
 * writing to it. */
static void test_report_is_json_with_symbolized_stacks(void **state)
{
    (void)state;
    setenv("ACLSIM_REPORT", json, 1);
    setenv("ACLSIM_TRACK", "1", 1);
    up();
    assert_int_equal(json_check("reps == []"), 0); /* whole before any report */
    unsigned long before = aclsim_alloc_check_reports("cross-stream-reuse");
    reuse_from_here();
    assert_int_equal(aclsim_alloc_check_reports("cross-stream-reuse"), before + 1);
    assert_int_equal(json_check("len(reps) == 1 and reps[0]['kind'] == 'cross-stream-reuse'"), 0);
    assert_int_equal(json_check("reps[0]['operator']['type'] == 'Add' and "
                                "len(reps[0]['streams']) == 2 and reps[0]['range']['bytes'] > 0 "
                                "and reps[0]['earlier_operator']['type'] == 'Add' "
                                /* simulated times: illustration, not the reason */
                                "and set(reps[0]['times_us']) == {'at', 'earlier_at'}"),
                     0);
    /* The stacks start at this file's function, with its line. */
    assert_int_equal(json_check("all(s['frames'][0]['function'] == 'add' and "
                                "s['frames'][1]['function'] == 'reuse_from_here' and "
                                "s['frames'][0]['file'].endswith('test_reports.c') and "
                                "s['frames'][0]['line'] > 0 for s in reps[0]['stacks'])"),
                     0);
    assert_int_equal(json_check("[a['allocFunc']['function'] for a in reps[0]['allocators']] "
                                "== ['s_alloc', 's_alloc'] and "
                                "reps[0]['allocators'][0]['freeFunc']['function'] == 's_free'"),
                     0);
    down();
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_suppression_silences_exactly_the_report_it_names(void **state)
{
    (void)state;
    write_file(supp, "# the path through reuse_from_there is known\n"
                     "\n"
                     "cross-stream-reuse  add  reuse_from_there\n"
                     "leak  ...  never_called_anywhere\n");
    snprintf(json, sizeof json, "%s/suppressed.json", dir); /* a file of its own */
    setenv("ACLSIM_REPORT", json, 1);
    setenv("ACLSIM_SUPPRESS", supp, 1);
    setenv("ACLSIM_TRACK", "1", 1);
    up();
    unsigned long before = aclsim_alloc_check_reports(NULL);
    reuse_from_there(); /* silenced: not counted, not written */
    assert_int_equal(aclsim_alloc_check_reports(NULL), before);
    assert_int_equal(json_check("reps == []"), 0);
    reuse_from_here(); /* the same mistake elsewhere stands */
    assert_int_equal(aclsim_alloc_check_reports(NULL), before + 1);
    assert_int_equal(json_check("len(reps) == 1 and reps[0]['stacks'][0]['frames'][1]"
                                "['function'] == 'reuse_from_here'"), 0);
    down();
    /* A rule of the kind alone silences every report of it. */
    write_file(supp, "cross-*\n");
    setenv("ACLSIM_SUPPRESS", supp, 1);
    up();
    reuse_from_here();
    assert_int_equal(aclsim_alloc_check_reports(NULL), before + 1);
    down();
}

static void expect_init_fails(const char *var, const char *value, const char *why)
{
    setenv(var, value, 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    const char *m = aclGetRecentErrMsg();
    char want[512];
    snprintf(want, sizeof want, "%s=%s is invalid: %s", var, value, why);
    if (!m || !strstr(m, want))
        fail_msg("message\n  %s\ndoes not contain\n  %s", m ? m : "(none)", want);
    unsetenv(var);
}

static void test_bad_settings_fail_init_naming_them(void **state)
{
    (void)state;
    write_file(supp, "leak\ncross-stream-reuse add\nno-such-kind main\n");
    expect_init_fails("ACLSIM_SUPPRESS", supp, "line 3: unknown report kind 'no-such-kind' "
                      "(kinds: host-memory, freed-memory, out-of-bounds, cross-stream-reuse");
    expect_init_fails("ACLSIM_SUPPRESS", "/nonexistent/supp", "the file cannot be read "
                      "(No such file or directory)");
    expect_init_fails("ACLSIM_REPORT", "/nonexistent/r.json", "the file cannot be created");
    expect_init_fails("ACLSIM_REPORT_LIMIT", "-1", "expected a decimal number from 0 to");
}

static void test_report_limit_counts_but_stops_printing(void **state)
{
    (void)state;
    char err[64];
    snprintf(err, sizeof err, "%s/stderr", dir);
    setenv("ACLSIM_REPORT_LIMIT", "1", 1);
    up();
    unsigned long before = aclsim_alloc_check_reports(NULL);
    fflush(stderr);
    int saved = dup(STDERR_FILENO), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDERR_FILENO);
    reuse_from_here();
    reuse_from_here();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(fd);
    close(saved);
    assert_int_equal(aclsim_alloc_check_reports(NULL), before + 2);
    down();
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    char line[4096];
    int heads = 0, limit = 0;
    while (fgets(line, sizeof line, f)) {
        heads += strncmp(line, "aclsim: allocator check (", 25) == 0;
        limit += strstr(line, "reports printed (ACLSIM_REPORT_LIMIT)") != NULL;
    }
    fclose(f);
    assert_int_equal(heads, 1);
    assert_int_equal(limit, 1);
}

static int make_dir(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(supp, sizeof supp, "%s/supp", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_json_with_symbolized_stacks),
        cmocka_unit_test(test_suppression_silences_exactly_the_report_it_names),
        cmocka_unit_test(test_bad_settings_fail_init_naming_them),
        cmocka_unit_test(test_report_limit_counts_but_stops_printing),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
