/*
 * test_ipcnotify.c - notifies shared between processes: CANN's checks,
 * codes and texts (hicann/runtime src/acl/aclrt_impl/notify.cpp L94-142,
 * whose casts of len to uint32_t (L101) and of num to int32_t (L127) decide
 * what a huge argument means; src/runtime/api/impl/api_error.cc
 * IpcSetNotifyName L4464-4486, SetIpcNotifyPid L3797-3807, IpcOpenNotify
 * L4488-4498; api_c_standard_soc.cc rtNotifySetImportPidInterServer
 * L1357-1375; notify.cc CreateIpcNotify L383-387: a notify is exported
 * once), and one state seen through every handle of it: a record in
 * another process (forked) releases a wait here; the pid whitelist decides
 * who may import; a key whose exporter died is refused.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"

static void env(void)
{
    setenv("ACLSIM_DEVICE_COUNT", "1", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    setenv("ACLSIM_WAIT_GRACE_MS", "5000", 1);
}

static void up(void)
{
    env();
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static void down(void)
{
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void xread(int fd, void *p, size_t n)
{
    assert_int_equal(read(fd, p, n), (ssize_t)n);
}

static void xwrite(int fd, const void *p, size_t n)
{
    assert_int_equal(write(fd, p, n), (ssize_t)n);
}

static int reaped(pid_t pid)
{
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/* The importer: sends its pid, reads the key, imports it; records it
 * (`record`) and reports the import's code through a pipe, then waits to
 * be told to go. */
static int importer(int in, int out, bool record)
{
    char key[65];
    int32_t me = 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtDeviceGetBareTgid(&me) != ACL_SUCCESS)
        return 10;
    if (write(out, &me, sizeof me) != (ssize_t)sizeof me ||
        read(in, key, sizeof key) != (ssize_t)sizeof key)
        return 11;
    aclrtNotify n = NULL;
    aclrtStream s;
    if (aclrtCreateStream(&s) != ACL_SUCCESS)
        return 12;
    aclError rc = aclrtNotifyImportByKey(&n, key, 0);
    int rc32 = (int)rc;
    if (rc == ACL_SUCCESS && record &&
        (aclrtRecordNotify(n, s) != ACL_SUCCESS || aclrtSynchronizeStream(s) != ACL_SUCCESS))
        return 13;
    if (write(out, &rc32, sizeof rc32) != (ssize_t)sizeof rc32)
        return 14;
    char go;
    if (read(in, &go, 1) != 1)
        return 15;
    if ((n && aclrtDestroyNotify(n) != ACL_SUCCESS) || aclrtDestroyStream(s) != ACL_SUCCESS ||
        aclrtResetDevice(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS)
        return 16;
    return 0;
}

struct peer {
    pid_t pid;
    int to, from;
    int32_t tgid;
};

static void spawn(struct peer *p, bool record)
{
    int down_[2], up_[2];
    env();
    assert_int_equal(pipe(down_), 0);
    assert_int_equal(pipe(up_), 0);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        close(down_[1]);
        close(up_[0]);
        _exit(importer(down_[0], up_[1], record));
    }
    close(down_[0]);
    close(up_[1]);
    p->to = down_[1];
    p->from = up_[0];
    xread(p->from, &p->tgid, sizeof p->tgid);
}

/* Send the key, read the import's code, let the peer finish. */
static int finish(struct peer *p, const char key[65])
{
    int rc = -1;
    xwrite(p->to, key, 65);
    xread(p->from, &rc, sizeof rc);
    xwrite(p->to, "g", 1);
    assert_int_equal(reaped(p->pid), 0);
    close(p->to);
    close(p->from);
    return rc;
}

static void test_record_in_another_process_releases_the_wait(void **state)
{
    (void)state;
    struct peer p;
    spawn(&p, true);
    up();
    aclrtStream s;
    aclrtNotify n;
    void *d;
    char key[65] = {0}, host[64] = {0};
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d, 64, 0, 64), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtNotifyGetExportKey(n, key, sizeof key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtNotifySetImportPid(n, &p.tgid, 1), ACL_SUCCESS);
    /* The wait holds the stream: the fill behind it waits for the record. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 64, 7, 64, s), ACL_SUCCESS);
    int done = 0;
    assert_int_equal(aclrtStreamQuery(s, (aclrtStreamStatus *)&done), ACL_SUCCESS);
    assert_int_equal(done, ACL_STREAM_STATUS_NOT_READY);
    assert_int_equal(finish(&p, key), ACL_SUCCESS); /* the peer recorded */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(host, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(host[0], 7);
    assert_int_equal(host[63], 7);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    down();
}

static void test_whitelist_decides_who_imports(void **state)
{
    (void)state;
    aclrtNotify n, m;
    char key[65] = {0}, open_key[65] = {0};
    struct peer p, q;
    spawn(&p, false);
    spawn(&q, false);
    up();
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&m, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtNotifyGetExportKey(n, key, sizeof key, 0), ACL_SUCCESS);
    /* not listed: refused */
    assert_int_equal(finish(&p, key), ACL_ERROR_RT_NO_PERMISSION);
    /* no pid validation: anyone may */
    assert_int_equal(aclrtNotifyGetExportKey(m, open_key, sizeof open_key,
                                             ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION),
                     ACL_SUCCESS);
    assert_int_equal(finish(&q, open_key), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(m), ACL_SUCCESS);
    /* the exporter's destroy: its key names nothing any more */
    aclrtNotify x = NULL;
    assert_int_equal(aclrtNotifyImportByKey(&x, key, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtNotifyImportByKey failed, the key names no live exported notify (never "
               "exported, or its notify was destroyed).");
    down();
}

/* An exporter that dies with its notify exported: its key, read through a
 * pipe, is refused afterwards. */
static void test_dead_exporters_key_is_refused(void **state)
{
    (void)state;
    int fd[2];
    char key[65] = {0};
    env();
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        aclrtNotify n;
        if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
            aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT) != ACL_SUCCESS ||
            aclrtNotifyGetExportKey(n, key, sizeof key,
                                    ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION) != ACL_SUCCESS)
            _exit(1);
        if (write(fd[1], key, sizeof key) != (ssize_t)sizeof key)
            _exit(2);
        raise(SIGKILL); /* dies holding it */
    }
    close(fd[1]);
    xread(fd[0], key, sizeof key);
    close(fd[0]);
    assert_int_equal(reaped(pid), 100 + SIGKILL);
    up();
    aclrtNotify x = NULL;
    assert_int_equal(aclrtNotifyImportByKey(&x, key, 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_null(x);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtNotifyImportByKey failed, the process that exported the notify has exited: "
               "its key died with it.");
    down();
}

static void test_one_state_in_one_process(void **state)
{
    (void)state;
    up();
    aclrtStream s, t;
    aclrtNotify n, imp = NULL;
    char key[65];
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&t), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtNotifyGetExportKey(n, key, sizeof key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtNotifyImportByKey(&imp, key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(imp, t), ACL_SUCCESS); /* through the other handle */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* consumed: the next wait waits again, and times out */
    assert_int_equal(aclrtWaitAndResetNotify(imp, s, 1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtRecordNotify(n, t), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(imp), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(t), ACL_SUCCESS);
    down();
}

static void test_bad_input(void **state)
{
    (void)state;
    up();
    aclrtNotify n, x = NULL;
    char key[65];
    int32_t me = (int32_t)getpid();
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    /* export: the ACL layer's NULLs, then the runtime's checks */
    assert_int_equal(aclrtNotifyGetExportKey(NULL, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifyGetExportKey", "notify");
    assert_int_equal(aclrtNotifyGetExportKey(n, NULL, 65, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifyGetExportKey", "key");
    assert_int_equal(aclrtNotifyGetExportKey(n, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting a Notify as an IPC Notify failed because "
               "value 0 for parameter len is invalid. Expected value: not equal to 0.");
    /* len is cast to 32 bits (notify.cpp L101): 2^32 is 0 to the runtime */
    assert_int_equal(aclrtNotifyGetExportKey(n, key, (size_t)1 << 32, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting a Notify as an IPC Notify failed because "
               "value 0 for parameter len is invalid. Expected value: not equal to 0.");
    assert_int_equal(aclrtNotifyGetExportKey(n, key, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting a Notify as an IPC Notify failed because "
               "value 1 for parameter flag is invalid. Expected value: 0 or 2.");
    FAILS(aclrtNotifyGetExportKey(n, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
    /* listing pids of a notify not exported yet */
    assert_int_equal(aclrtNotifySetImportPid(n, &me, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtNotifySetImportPid failed, the notify was not exported "
               "(aclrtNotifyGetExportKey).");
    assert_int_equal(aclrtNotifyGetExportKey(n, key, ((size_t)1 << 32) + 65, 0), ACL_SUCCESS);
    /* once only (notify.cc CreateIpcNotify: RT_ERROR_NOTIFY_TYPE) */
    FAILS(aclrtNotifyGetExportKey(n, key, 65, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    /* the whitelist: num is cast to int32_t (notify.cpp L127) */
    assert_int_equal(aclrtNotifySetImportPid(NULL, &me, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifySetImportPid", "notify");
    assert_int_equal(aclrtNotifySetImportPid(n, NULL, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifySetImportPid", "pid");
    assert_int_equal(aclrtNotifySetImportPid(n, &me, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the trustlist of processes that can share a "
               "Notify object failed because value 0 for parameter num is invalid. Expected "
               "value: (0, 2147483647].");
    assert_int_equal(aclrtNotifySetImportPid(n, &me, (size_t)1 << 31),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the trustlist of processes that can share a "
               "Notify object failed because value -2147483648 for parameter num is invalid. "
               "Expected value: (0, 2147483647].");
    assert_int_equal(aclrtNotifySetImportPid(n, &me, ((size_t)1 << 32) + 1), ACL_SUCCESS);
    /* other servers' pids: the runtime's own checks, no ACL layer's */
    aclrtServerPid sp = {0, &me, 1}, bad = {0, NULL, 1}, two = {0, &me, 2};
    assert_int_equal(aclrtNotifySetImportPidInterServer(NULL, &sp, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)",
               "rtNotifySetImportPidInterServer failed because notify cannot be a NULL pointer.");
    assert_int_equal(aclrtNotifySetImportPidInterServer(n, &sp, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtNotifySetImportPidInterServer failed because value "
               "0 for parameter num is invalid. Expected value: not equal to 0.");
    assert_int_equal(aclrtNotifySetImportPidInterServer(n, &bad, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "rtNotifySetImportPidInterServer failed "
               "because serverPids[0].pid cannot be a NULL pointer.");
    assert_int_equal(aclrtNotifySetImportPidInterServer(n, &two, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtNotifySetImportPidInterServer failed because value "
               "2 for parameter serverPids[0].num is invalid. Expected value: 1.");
    assert_int_equal(aclrtNotifySetImportPidInterServer(n, &sp, 1), ACL_SUCCESS);
    /* import */
    assert_int_equal(aclrtNotifyImportByKey(NULL, key, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifyImportByKey", "notify");
    assert_int_equal(aclrtNotifyImportByKey(&x, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtNotifyImportByKey", "key");
    assert_int_equal(aclrtNotifyImportByKey(&x, key, 4), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Enabling IPC Notify failed because value 4 for "
               "parameter flag is invalid. Expected value: [0, 3].");
    /* RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV is MC2's: not supported, a warning only */
    assert_int_equal(aclrtNotifyImportByKey(&x, key, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    FAILS(aclrtNotifyImportByKey(&x, "aclsim-nt-nothing", 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_null(x);
    assert_int_equal(aclrtNotifyImportByKey(&x, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS),
                     ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(x), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    down();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_in_another_process_releases_the_wait),
        cmocka_unit_test(test_whitelist_decides_who_imports),
        cmocka_unit_test(test_dead_exporters_key_is_refused),
        cmocka_unit_test(test_one_state_in_one_process),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
