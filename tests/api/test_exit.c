/*
 * test_exit.c - a program that exits without aclFinalize still gets the
 * end aclFinalize gives: the leak check runs at exit (ACLSIM_LEAK_CHECK=
 * error turns leaks into exit status 23, as LeakSanitizer does) and the
 * Chrome trace is written, with each stream's operators as slices on the
 * stream's own track; what an aclFinalize left open is the program's to
 * release after it, and a leak at exit if it does not. Each case runs in a
 * forked child that calls exit().
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl_op.h"

static char dir[] = "/tmp/aclsim-exit-XXXXXX", trace[64];

/* Two streams, an Add in place on each, the second ordered after the
 * first by an event (both write x: unordered, they would race), and out
 * without aclFinalize. */
static void child(int status, bool leak, bool finalize)
{
    void *x = NULL;
    aclrtStream s[2];
    int64_t dims[1] = {256};
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtMalloc(&x, 1024, ACL_MEM_MALLOC_HUGE_FIRST))
        _exit(90);
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    aclDataBuffer *b = aclCreateDataBuffer(x, 1024);
    aclTensorDesc *in[2] = {td, td};
    aclDataBuffer *ib[2] = {b, b};
    aclrtEvent e;
    if (aclrtCreateEvent(&e))
        _exit(91);
    for (int i = 0; i < 2; i++)
        if (aclrtCreateStream(&s[i]) || (i && aclrtStreamWaitEvent(s[i], e)) ||
            aclopExecuteV2("Add", 2, in, ib, 1, &td, &b, NULL, s[i]) ||
            (!i && aclrtRecordEvent(e, s[i])))
            _exit(91);
    aclrtSynchronizeDevice();
    if (!leak)
        aclrtDestroyEvent(e);
    aclDestroyTensorDesc(td);
    aclDestroyDataBuffer(b);
    if (!leak) {
        aclrtDestroyStream(s[0]);
        aclrtDestroyStream(s[1]);
        aclrtFree(x);
    }
    if (finalize) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    exit(status);
}

static int run(int status, bool leak, bool finalize)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(status, leak, finalize);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_leaks_at_exit_without_finalize_exit_23(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND(); /* the child's own exit would be memcheck's too */
    setenv("ACLSIM_LEAK_CHECK", "error", 1);
    assert_int_equal(run(0, true, false), 23);
    assert_int_equal(run(0, false, false), 0); /* nothing left: no leak */
    assert_int_equal(run(0, true, true), 23);  /* aclFinalize's own check, as before */
    setenv("ACLSIM_LEAK_CHECK", "off", 1);
    assert_int_equal(run(0, true, false), 0);
    unsetenv("ACLSIM_LEAK_CHECK");
}

static void test_trace_written_at_exit_with_a_track_per_stream(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND();
    setenv("ACLSIM_TRACE", trace, 1);
    assert_int_equal(run(3, false, false), 3); /* the program's own status stands */
    unsetenv("ACLSIM_TRACE");
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; "
             "ops=[e for e in ev if e['name']=='Add' and e['ph']=='X' and e['dur']>0]; "
             "names={(e['pid'],e['tid']):e['args']['name'] for e in ev if e['name']=='thread_name'}; "
             /* tracks named as reports name streams: "stream N (0x...)", N its id */
             "import re; ok=all(re.fullmatch(r'stream %%d \\(0x[0-9a-f]+\\)' %% (e['tid']-100), "
             "names[(e['pid'],e['tid'])]) for e in ops); "
             "sys.exit(0 if ok and len(ops)==2 and len({(e['pid'],e['tid']) for e in ops})==2 else 1)\" %s",
             trace);
    assert_int_equal(system(cmd), 0);
}

static int make_dir(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A trace that cannot be written says so on stderr (the child's, read
 * back from a file). */
static void test_trace_that_cannot_be_written_says_so(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND();
    char err[96];
    snprintf(err, sizeof err, "%s/stderr", dir);
    setenv("ACLSIM_TRACE", "/dev/full", 1);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(err, "w", stderr))
            _exit(92);
        child(0, false, true);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    unsetenv("ACLSIM_TRACE");
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    char text[512] = {0};
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    remove(err);
    assert_true(n > 0);
    assert_non_null(strstr(text, "aclsim: ACLSIM_TRACE=/dev/full: the trace could not be written "
                                 "in full"));
}

/* CANN's aclFinalize resets no device (hicann/runtime
 * src/acl/aclrt_impl/acl.cpp:547-628, aclFinalizeInternal): a program may
 * release what it holds after it, in HiCR's order; what it never releases
 * is a leak at exit. The child's stderr goes to a file, returned in text. */
static int run_after_finalize(bool release, char *text, size_t n)
{
    char err[96];
    snprintf(err, sizeof err, "%s/stderr", dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        void *x;
        aclrtContext c;
        aclrtStream st;
        if (!freopen(err, "w", stderr) || aclInit(NULL) || aclrtSetDevice(0) ||
            aclrtCreateContext(&c, 0) || aclrtCreateStream(&st) ||
            aclrtMalloc(&x, 1024, ACL_MEM_MALLOC_HUGE_FIRST) || aclFinalize())
            _exit(90);
        if (release && (aclrtFree(x) || aclrtDestroyStream(st) || aclrtDestroyContext(c) ||
                        aclrtResetDevice(0)))
            _exit(91);
        exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    size_t k = fread(text, 1, n - 1, f);
    text[k] = 0;
    fclose(f);
    remove(err);
    return WEXITSTATUS(st);
}

static void test_what_aclfinalize_leaves_is_the_programs_to_release(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND();
    char text[4096];
    setenv("ACLSIM_LEAK_CHECK", "error", 1);
    assert_int_equal(run_after_finalize(true, text, sizeof text), 0);
    assert_non_null(strstr(text, "aclsim: after aclFinalize, device 0 still holds 1 device block "
                                 "(1024 bytes), 1 stream, 1 context: CANN's aclFinalize resets no "
                                 "device"));
    assert_null(strstr(text, "leak report"));
    assert_int_equal(run_after_finalize(false, text, sizeof text), 23);
    assert_non_null(strstr(text, "aclsim: leak report at exit, after aclFinalize:"));
    assert_non_null(strstr(text, "device memory: 1024 bytes at "));
    unsetenv("ACLSIM_LEAK_CHECK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaks_at_exit_without_finalize_exit_23),
        cmocka_unit_test(test_trace_written_at_exit_with_a_track_per_stream),
        cmocka_unit_test(test_trace_that_cannot_be_written_says_so),
        cmocka_unit_test(test_what_aclfinalize_leaves_is_the_programs_to_release),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
