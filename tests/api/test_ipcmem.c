/*
 * test_ipcmem.c - device memory shared between processes by key: CANN's
 * checks, codes and texts (src/acl/aclrt_impl/memory.cpp L1775-1895: the
 * NULL checks, EH0008; src/runtime/api/impl/api_error.cc L3747-3835: size,
 * len, flags, num, type and attr, EE1003 and 107000; the 65-byte key of
 * the API reference), what the driver refuses (a range off its pages, an
 * unknown key, a double close, a process not on the whitelist: 207006),
 * and real bytes shared both ways with a forked process, whose import
 * does not count as its allocation; then the order CANN documents
 * (importer closes, exporter closes, exporter frees), whose breaches the
 * allocator sanitizer reports (ipc-order).
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "aclsim/aclsim.h"
#include "testutil.h"
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif

#define MB2 (2u << 20)

static void env(void)
{
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
}

static void up(void)
{
    env();
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static void down(void)
{
    aclrtResetDeviceForce(1); /* whether or not it was set */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void expect_ee1003(const char *fn, const char *what, const char *value,
                          const char *param, const char *expected)
{
    char text[512];
    (void)fn; /* the runtime names what the call does (error_code.json, EE1003) */
    snprintf(text, sizeof text, "%s failed because value %s for parameter %s is invalid. "
             "Expected value: %s.", what, value, param, expected);
    expect_msg("Invalid_Argument(EE1003)", text);
}

static void expect_refused(const char *fn, const char *why)
{
    char text[512];
    snprintf(text, sizeof text, "The argument is invalid. Reason: %s failed, %s.", fn, why);
    expect_msg("Invalid_Argument(EE1001)", text);
}

static const char export_what[] = "Setting the memory to be shared between processes";
static const char no_key[] = "the key names no memory this process imported or exported (never, "
                             "or closed already)";

static void test_export_checks(void **state)
{
    (void)state;
    up();
    void *p;
    char key[65];
    static const char fn[] = "aclrtIpcMemGetExportKey";
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    /* the ACL layer (memory.cpp L1781-1782) */
    assert_int_equal(aclrtIpcMemGetExportKey(NULL, MB2, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(fn, "devPtr");
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, NULL, 65, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(fn, "key");
    /* the runtime (api_error.cc L3754-3761) */
    assert_int_equal(aclrtIpcMemGetExportKey(p, 0, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(fn, export_what, "0", "byteCount", "not equal to 0");
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(fn, export_what, "0", "len", "not equal to 0");
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 65, 2), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(fn, export_what, "2", "flags", "[0, 1]");
    /* the key is 65 bytes (API reference: len fixed at 65) */
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(fn, export_what, "64", "len", "65 (the size of a key with its NUL)");
    /* page alignment (the FAQ on IPC page-table alignment): a range 256
     * bytes into a huge page, and a small block that shares its page */
    static const char off_page[] = "the range does not start and end on a page boundary of its "
        "block (a small aclrtMalloc block shares its pages: allocate at least 4 KB, or with "
        "ACL_MEM_MALLOC_HUGE_FIRST or ACL_MEM_MALLOC_HUGE_ONLY)";
    assert_int_equal(aclrtIpcMemGetExportKey((char *)p + 256, 4096, key, 65, 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, off_page);
    void *small;
    assert_int_equal(aclrtMalloc(&small, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(small, 100, key, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, off_page);
    assert_int_equal(aclrtIpcMemGetExportKey(p, 2 * MB2 + 4096, key, 65, 1), /* 2 MB + padding: a 4 MB block */
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, "the range runs past the end of its block");
    /* the block ends with the program's bytes and the padding, as the
     * driver's allocation does (svm_ipc.c L313-317), not with the heap's
     * 4 MB of huge pages */
    assert_int_equal(aclrtIpcMemGetExportKey(p, 2 * MB2, key, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, "the range runs past the end of its block");
    /* len reaches the runtime as 32 bits (memory.cpp L1782): 2^32 is 0 */
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, (size_t)1 << 32, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(fn, export_what, "0", "len", "not equal to 0");
    int host;
    assert_int_equal(aclrtIpcMemGetExportKey(&host, 4096, key, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, "devPtr is not device memory of an open device");
    /* a whole huge page is exported; a key is a string shorter than 65 */
    memset(key, 'x', sizeof key);
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, ((size_t)1 << 32) + 65, 1), /* 65 */
                     ACL_SUCCESS);
    assert_true(memchr(key, '\0', sizeof key) != NULL);
    assert_true(strlen(key) > 0);
    char again[65];
    assert_int_equal(aclrtIpcMemGetExportKey(p, 4096, again, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(fn, "the range overlaps a range this process exported already (one key per "
                   "range)");
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
    /* double close (api_impl_standard_soc.cc IpcCloseMemoryByName: a name
     * not imported here goes to the driver's destroy, which fails) */
    assert_int_equal(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused("aclrtIpcMemClose", no_key);
    assert_int_equal(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtIpcMemClose", "key");
    assert_int_equal(aclrtFree(small), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    down();
}

static void test_import_and_pid_checks(void **state)
{
    (void)state;
    up();
    void *q = NULL;
    int32_t pid = 1;
    static const char imp[] = "aclrtIpcMemImportByKey", set[] = "aclrtIpcMemSetImportPid",
                      attr[] = "aclrtIpcMemSetAttr";
    assert_int_equal(aclrtIpcMemImportByKey(NULL, "k", 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(imp, "devPtr");
    assert_int_equal(aclrtIpcMemImportByKey(&q, NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(imp, "key");
    assert_int_equal(aclrtIpcMemImportByKey(&q, "k", 2), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(imp, "Opening the shared memory between processes", "2", "flags", "[0, 1]");
    assert_int_equal(aclrtIpcMemImportByKey(&q, "aclsim-mem-1-999999", 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(imp, "the key names no live export (never exported, closed by its exporter, "
                   "or its exporter died)");
    assert_null(q);
    /* SetImportPid (memory.cpp L1860-1861; api_error.cc L3811-3816) */
    assert_int_equal(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(set, "key");
    assert_int_equal(aclrtIpcMemSetImportPid("k", NULL, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(set, "pid");
    assert_int_equal(aclrtIpcMemSetImportPid("k", &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(set, "Setting the trustlist of processes that can share memory through IPC",
                  "0", "num", "(0, 2147483647]");
    assert_int_equal(aclrtIpcMemSetImportPid("k", &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(set, "the key names no memory this process exported (never exported here, "
                   "or closed)");
    /* num reaches the runtime as 32 bits (memory.cpp L1866): 2^31 is
     * negative, 2^32 + 1 is 1 and goes on to the key */
    assert_int_equal(aclrtIpcMemSetImportPid("k", &pid, (size_t)1 << 31),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(set, "Setting the trustlist of processes that can share memory through IPC",
                  "-2147483648", "num", "(0, 2147483647]");
    assert_int_equal(aclrtIpcMemSetImportPid("k", &pid, ((size_t)1 << 32) + 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(set, "the key names no memory this process exported (never exported here, "
                   "or closed)");
    /* SetAttr (api_error.cc L3770-3777) */
    assert_int_equal(aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg(attr, "key");
    assert_int_equal(aclrtIpcMemSetAttr("k", (aclrtIpcMemAttrType)1, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(attr, "Setting the attribute for IPC-based memory sharing", "1", "type",
                  "[0, 1)");
    assert_int_equal(aclrtIpcMemSetAttr("k", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_ee1003(attr, "Setting the attribute for IPC-based memory sharing", "4", "attr",
                  "[0, 4)");
    assert_int_equal(aclrtIpcMemSetAttr("k", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
                                        ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS), ACL_SUCCESS);
    /* InterServer: the entries' pids are listed */
    aclrtServerPid sp = {0, &pid, 1};
    assert_int_equal(aclrtIpcMemImportPidInterServer("k", NULL, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtIpcMemImportPidInterServer", "serverPids");
    assert_int_equal(aclrtIpcMemImportPidInterServer("k", &sp, 1), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    /* the pid to list (memory.cpp L1357) */
    int32_t me = 0;
    assert_int_equal(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetBareTgid", "pid");
    assert_int_equal(aclrtDeviceGetBareTgid(&me), ACL_SUCCESS);
    assert_int_equal(me, (int32_t)getpid());
    down();
}

/* In one process: the import is another address with the same bytes, not
 * an allocation; the exporter's own import needs no whitelist; another
 * device needs ENABLE_PEER_ACCESS; closes go import first, then export. */
static void test_same_process(void **state)
{
    (void)state;
    up();
    void *p, *q = NULL, *r = NULL;
    char key[65];
    static unsigned char buf[MB2];
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, MB2, 0x11, MB2), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 65, 0), ACL_SUCCESS);
    size_t free0 = 0, free1 = 0, total = 0;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
    assert_non_null(q);
    assert_ptr_not_equal(q, p);
    assert_int_equal((uintptr_t)q % MB2, 0);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total), ACL_SUCCESS);
    assert_int_equal(free1, free0); /* not this process's allocation */
    assert_int_equal(aclrtMemcpy(buf, MB2, q, MB2, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (size_t i = 0; i < MB2; i += 4093)
        assert_int_equal(buf[i], 0x11);
    assert_int_equal(aclrtMemset(q, 4096, 0x22, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(buf, 8192, p, 8192, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(buf[0], 0x22);
    assert_int_equal(buf[4095], 0x22);
    assert_int_equal(buf[4096], 0x11);
    /* an imported range is no block of aclrtMalloc, nor a reservation */
    assert_int_equal(aclrtFree(q), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtReleaseMemAddress(q), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    /* device 1 without ENABLE_PEER_ACCESS, then with it */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemImportByKey(&r, key, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_refused("aclrtIpcMemImportByKey", "the memory is on another device than the "
                   "importer's: import with ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS");
    assert_int_equal(aclrtIpcMemImportByKey(&r, key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(buf, 16, r, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(buf[0], 0x22);
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* an import */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* the other import */
    /* after its close an import is no device memory any more */
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy(buf, 16, q, 16, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    (void)aclGetRecentErrMsg();
    unsigned long before = aclsim_alloc_check_reports("ipc-order");
    assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS); /* the export */
    assert_int_equal(aclsim_alloc_check_reports("ipc-order"), before); /* in order */
    /* the block keeps its bytes after the export's close */
    assert_int_equal(aclrtMemcpy(buf, 8192, p, 8192, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(buf[0], 0x22);
    assert_int_equal(buf[4096], 0x11);
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    down();
}

/* aclrtFree of a block whose export is open: reported, and the export is
 * closed with it (its key is gone). */
static void test_free_before_close(void **state)
{
    (void)state;
    up();
    void *p, *q = NULL;
    char key[65];
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 65, 1), ACL_SUCCESS);
    unsigned long before = aclsim_alloc_check_reports("ipc-order");
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("ipc-order"), before + 1);
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused("aclrtIpcMemClose", no_key);
    down();
}

/* The leak report (ACLSIM_LEAK_CHECK) names the exported and imported
 * ranges never closed when their device closes; the keys go with it. */
static void test_leak_report(void **state)
{
    (void)state;
    char path[] = "/tmp/aclsim-ipcmem-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    setenv("ACLSIM_LEAK_CHECK", "warn", 1);
    setenv("ACLSIM_REPORT", path, 1);
    up();
    void *p, *q;
    char key[65];
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key, 65, 1), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS); /* (reported: ipc-order) */
    assert_int_equal(aclrtIpcMemGetExportKey(NULL, 0, key, 65, 1), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    char key2[65];
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, key2, 65, 1), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS); /* the report */
#ifdef VALGRIND_FREELIKE_BLOCK
    /* the block left allocated on purpose: memcheck would report it too */
    VALGRIND_FREELIKE_BLOCK(p, 0);
#endif
    unsetenv("ACLSIM_LEAK_CHECK");
    unsetenv("ACLSIM_REPORT");
    char text[16384] = "";
    read_report(path, text, sizeof text);
    char want[256];
    snprintf(want, sizeof want, "imported memory: 2097152 bytes at %p, IPC key %s, never closed "
             "(aclrtIpcMemImportByKey without aclrtIpcMemClose)", q, key);
    if (!strstr(text, want))
        fail_msg("the report\n%s\nlacks\n%s", text, want);
    snprintf(want, sizeof want, "exported memory: 2097152 bytes at %p, IPC key %s, never closed "
             "(aclrtIpcMemGetExportKey without aclrtIpcMemClose)", p, key2);
    if (!strstr(text, want))
        fail_msg("the report\n%s\nlacks\n%s", text, want);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    up(); /* the keys went with the device */
    assert_int_equal(aclrtIpcMemClose(key2), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtIpcMemImportByKey(&q, key2, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    down();
}

/* ---- two processes ---- */

/* The first 64 KB of a huge page are shared (a range on page boundaries
 * of its block: small enough to check byte by byte under memcheck). */
#define SHARED (64u << 10)

static int put(int fd, const void *p, size_t n)
{
    return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int get(int fd, void *p, size_t n)
{
    return read(fd, p, n) == (ssize_t)n ? 0 : -1;
}

/* The child: refused before the parent lists it, then imports, checks the
 * parent's bytes, writes its own, and (unless `hold`) closes before it
 * says so; with `hold` it waits for the parent's word to close. */
static int child(int in, int out, int hold)
{
    char key[65], go;
    static unsigned char buf[SHARED];
    void *q = NULL;
    if (get(in, key, sizeof key) || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0))
        return 10;
    aclError r = aclrtIpcMemImportByKey(&q, key, 0);
    if (r != ACL_ERROR_RT_NO_PERMISSION || q != NULL)
        return 11;
    (void)aclGetRecentErrMsg();
    if (put(out, "r", 1) || get(in, &go, 1))
        return 12;
    if (aclrtIpcMemImportByKey(&q, key, 0) != ACL_SUCCESS ||
        aclrtMemcpy(buf, SHARED, q, SHARED, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        return 13;
    for (size_t i = 0; i < SHARED; i++)
        if (buf[i] != (unsigned char)(i * 7))
            return 14;
    if (aclrtMemset((char *)q + 4096, 4096, 0xee, 4096) != ACL_SUCCESS)
        return 15;
    if (hold && (put(out, "i", 1) || get(in, &go, 1) ||
                 aclrtMemset((char *)q + 8192, 4096, 0xdd, 4096) != ACL_SUCCESS))
        return 16; /* written after the exporter closed: no longer its block's */
    if (aclrtIpcMemClose(key) != ACL_SUCCESS || put(out, "c", 1))
        return 17;
    return aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0 : 18;
}

static void two_processes(int hold)
{
    int down_p[2], up_p[2];
    env();
    assert_int_equal(pipe(down_p), 0);
    assert_int_equal(pipe(up_p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(down_p[1]);
        close(up_p[0]);
        /* exit, not _exit: the library's destructor unmaps the device
         * views, which memcheck's leak scan would otherwise read (1 GB) */
        exit(child(down_p[0], up_p[1], hold));
    }
    close(down_p[0]);
    close(up_p[1]);
    up();
    static unsigned char buf[SHARED];
    for (size_t i = 0; i < SHARED; i++)
        buf[i] = (unsigned char)(i * 7);
    void *p;
    char key[65], word = 0;
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(p, SHARED, buf, SHARED, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, SHARED, key, 65, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT),
                     ACL_SUCCESS);
    assert_int_equal(put(down_p[1], key, sizeof key), 0);
    assert_int_equal(get(up_p[0], &word, 1), 0); /* refused */
    assert_int_equal(word, 'r');
    int32_t child_pid = (int32_t)pid;
    assert_int_equal(aclrtIpcMemSetImportPid(key, &child_pid, 1), ACL_SUCCESS);
    assert_int_equal(put(down_p[1], "g", 1), 0);
    unsigned long before = aclsim_alloc_check_reports("ipc-order");
    assert_int_equal(get(up_p[0], &word, 1), 0);
    if (hold) {
        /* the child holds its import: closing now breaks the order */
        assert_int_equal(word, 'i');
        assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
        assert_int_equal(aclsim_alloc_check_reports("ipc-order"), before + 1);
        assert_int_equal(put(down_p[1], "g", 1), 0);
        assert_int_equal(get(up_p[0], &word, 1), 0);
    }
    assert_int_equal(word, 'c');
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* the child's bytes are the block's; what it wrote after the exporter
     * closed is not (the block kept the bytes of the moment it closed) */
    assert_int_equal(aclrtMemcpy(buf, 3 * 4096, p, 3 * 4096, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_int_equal(buf[4095], (unsigned char)(4095 * 7));
    assert_int_equal(buf[4096], 0xee);
    assert_int_equal(buf[8191], 0xee);
    assert_int_equal(buf[8192], (unsigned char)(8192 * 7));
    if (!hold) {
        assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
        assert_int_equal(aclsim_alloc_check_reports("ipc-order"), before);
    }
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    close(down_p[1]);
    close(up_p[0]);
    down();
}

static void test_two_processes(void **state)
{
    (void)state;
    two_processes(0);
}

static void test_exporter_closes_first(void **state)
{
    (void)state;
    two_processes(1);
}

/* An exporter killed with its memory exported: its key, read through a
 * pipe, is refused (the key names no live export), and the next export
 * anywhere sweeps its object away. */
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
        void *p;
        if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
            aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY) != ACL_SUCCESS ||
            aclrtIpcMemGetExportKey(p, MB2, key, sizeof key,
                                    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) !=
                ACL_SUCCESS)
            _exit(1);
        if (put(fd[1], key, sizeof key))
            _exit(2);
        raise(SIGKILL); /* dies holding it */
    }
    close(fd[1]);
    assert_int_equal(get(fd[0], key, sizeof key), 0);
    close(fd[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    up();
    char path[96];
    snprintf(path, sizeof path, "/dev/shm/%s", key);
    assert_int_equal(access(path, F_OK), 0); /* its object is still there */
    void *q = NULL;
    assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_null(q);
    expect_refused("aclrtIpcMemImportByKey", "the key names no live export (never exported, "
                   "closed by its exporter, or its exporter died)");
    void *p;
    char mine[65];
    assert_int_equal(aclrtMalloc(&p, MB2, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtIpcMemGetExportKey(p, MB2, mine, sizeof mine, 0), ACL_SUCCESS);
    assert_int_equal(access(path, F_OK), -1); /* swept */
    assert_int_equal(aclrtIpcMemClose(mine), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    down();
}

/* ---- shareable handles of physical memory ---- */

static aclrtPhysicalMemProp phys_prop(int32_t dev)
{
    aclrtPhysicalMemProp prop = {0};
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (uint32_t)dev;
    return prop;
}

/* The ACL layer's checks (memory.cpp L1215-1298) and the driver's rules
 * (API reference 11-04: one shareable handle per physical handle; no
 * import in the exporting process). */
static void test_shareable_checks(void **state)
{
    (void)state;
    up();
    aclrtPhysicalMemProp prop = phys_prop(0);
    aclrtDrvMemHandle h, got = NULL;
    uint64_t sh = 0, sh2 = 0;
    int32_t pid = 1;
    static const char ex[] = "aclrtMemExportToShareableHandle",
                      ex2[] = "aclrtMemExportToShareableHandleV2",
                      im[] = "aclrtMemImportFromShareableHandle",
                      im2[] = "aclrtMemImportFromShareableHandleV2",
                      sp[] = "aclrtMemSetPidToShareableHandle";
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &prop, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemExportToShareableHandle(NULL, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg(ex, "handle");
    assert_int_equal(aclrtMemExportToShareableHandle(h, (aclrtMemHandleType)1, 0, &sh),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemExportToShareableHandle failed because value "
               "1 for parameter handleType is invalid. Expected value: ACL_MEM_HANDLE_TYPE_NONE.");
    assert_int_equal(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg(ex, "shareableHandle");
    assert_int_equal(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
                                                       &sh), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
                                                       &sh2), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(ex2, "the handle was exported already (one shareable handle per physical "
                   "handle)");
    assert_int_equal(aclrtMemSetPidToShareableHandle(sh, NULL, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(sp, "pid");
    assert_int_equal(aclrtMemSetPidToShareableHandle(sh, &pid, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemSetPidToShareableHandle failed because value "
               "0 for parameter pidNum is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMemSetPidToShareableHandle(sh + 1, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_refused(sp, "the shareable handle was not exported by this process");
    assert_int_equal(aclrtMemSetPidToShareableHandle(sh, &pid, 1), ACL_SUCCESS);
    assert_int_equal(aclrtMemImportFromShareableHandle(sh, 0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(im, "handle");
    assert_int_equal(aclrtMemImportFromShareableHandle(sh, 0, &got),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_refused(im, "the shareable handle was exported by this process: import in the "
                   "exporting process is not supported");
    assert_null(got);
    assert_int_equal(aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
                                                         1, &got), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMemImportFromShareableHandleV2 failed. Value 1 "
               "for parameter flags is invalid. Reason: flags is a reserved parameter and must "
               "be 0.");
    assert_int_equal(aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
                                                         0, &got), ACL_ERROR_INVALID_PARAM);
    expect_null_msg(im2, "shareableHandle");
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    down();
}

/* Another process is refused, then listed, imports the parent's physical
 * memory (V2 calls), maps it and reads the parent's bytes; the parent
 * frees its handle and allocates and fills new physical memory of the
 * same size: the child's bytes stay (the memory goes only when every
 * process has freed its handle, API reference 11-04), and are not the
 * new memory's. */
static int check_pattern(void *va, unsigned char *buf)
{
    if (aclrtMemcpy(buf, SHARED, va, SHARED, ACL_MEMCPY_DEVICE_TO_HOST))
        return -1;
    for (size_t i = 0; i < SHARED; i++)
        if (buf[i] != (unsigned char)(i * 3))
            return -1;
    return 0;
}

static int handle_child(int in, int out)
{
    uint64_t sh;
    char go;
    static unsigned char buf[SHARED];
    if (get(in, &sh, sizeof sh) || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0))
        return 20;
    aclrtDrvMemHandle h = NULL;
    if (aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h) !=
        ACL_ERROR_RT_NO_PERMISSION)
        return 21;
    (void)aclGetRecentErrMsg();
    if (put(out, "r", 1) || get(in, &go, 1))
        return 22;
    void *va;
    if (aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h) ||
        aclrtReserveMemAddress(&va, MB2, 0, NULL, 0) || aclrtMapMem(va, MB2, 0, h, 0))
        return 23;
    if (check_pattern(va, buf) || put(out, "m", 1) || get(in, &go, 1))
        return 24;
    if (check_pattern(va, buf)) /* the parent freed its handle and filled new memory */
        return 25;
    if (aclrtUnmapMem(va) || aclrtReleaseMemAddress(va) || aclrtFreePhysical(h) ||
        put(out, "c", 1))
        return 26;
    return aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0 : 27;
}

static void test_shareable_two_processes(void **state)
{
    (void)state;
    int down_p[2], up_p[2];
    env();
    assert_int_equal(pipe(down_p), 0);
    assert_int_equal(pipe(up_p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(down_p[1]);
        close(up_p[0]);
        exit(handle_child(down_p[0], up_p[1])); /* exit: see two_processes */
    }
    close(down_p[0]);
    close(up_p[1]);
    up();
    size_t fr_start = 0, total_start = 0;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr_start, &total_start), ACL_SUCCESS);
    static unsigned char buf[SHARED];
    for (size_t i = 0; i < SHARED; i++)
        buf[i] = (unsigned char)(i * 3);
    aclrtPhysicalMemProp prop = phys_prop(0);
    aclrtDrvMemHandle h, h2;
    void *va;
    uint64_t sh = 0;
    char word = 0;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &prop, 0), ACL_SUCCESS);
    assert_int_equal(aclrtReserveMemAddress(&va, MB2, 0, NULL, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(va, SHARED, buf, SHARED, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
                                                       ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh),
                     ACL_SUCCESS);
    assert_int_equal(put(down_p[1], &sh, sizeof sh), 0);
    assert_int_equal(get(up_p[0], &word, 1), 0);
    assert_int_equal(word, 'r');
    int32_t child_pid = (int32_t)pid;
    assert_int_equal(aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
                                                       &child_pid, 1), ACL_SUCCESS);
    assert_int_equal(put(down_p[1], "g", 1), 0);
    assert_int_equal(get(up_p[0], &word, 1), 0);
    assert_int_equal(word, 'm');
    /* the parent lets go while the child maps it, then takes new memory */
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(aclrtMallocPhysical(&h2, MB2, &prop, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMapMem(va, MB2, 0, h2, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(va, MB2, 0x99, MB2), ACL_SUCCESS);
    assert_int_equal(put(down_p[1], "g", 1), 0);
    assert_int_equal(get(up_p[0], &word, 1), 0);
    assert_int_equal(word, 'c');
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(aclrtMemcpy(buf, 16, va, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(buf[0], 0x99);
    assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
    assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h2), ACL_SUCCESS);
    /* the first handle's memory went once the child freed its handle: all
     * the HBM is free again after the next allocation looked */
    size_t fr = 0, total = 0;
    assert_int_equal(aclrtMallocPhysical(&h2, MB2, &prop, 0), ACL_SUCCESS); /* sweeps */
    assert_int_equal(aclrtFreePhysical(h2), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(fr, fr_start);
    close(down_p[1]);
    close(up_p[0]);
    down();
}

/* The exporter freed its physical handle before anyone imported it: the
 * shareable handle names no live export any more (before, an import then
 * mapped whatever bytes had since reused that memory). */
static int late_importer(int in, int out)
{
    uint64_t sh;
    if (get(in, &sh, sizeof sh) || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0))
        return 30;
    aclrtDrvMemHandle h = NULL;
    aclError rc = aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0,
                                                      &h);
    (void)aclGetRecentErrMsg();
    if (rc == ACL_SUCCESS)
        return 31;
    if (put(out, "x", 1))
        return 32;
    return aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0 : 33;
}

static void test_shareable_after_the_exporter_freed_it(void **state)
{
    (void)state;
    int down_p[2], up_p[2];
    env();
    assert_int_equal(pipe(down_p), 0);
    assert_int_equal(pipe(up_p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(down_p[1]);
        close(up_p[0]);
        exit(late_importer(down_p[0], up_p[1]));
    }
    close(down_p[0]);
    close(up_p[1]);
    up();
    aclrtPhysicalMemProp prop = phys_prop(0);
    aclrtDrvMemHandle h;
    uint64_t sh = 0;
    char word = 0;
    assert_int_equal(aclrtMallocPhysical(&h, MB2, &prop, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                                       ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh),
                     ACL_SUCCESS);
    assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
    assert_int_equal(put(down_p[1], &sh, sizeof sh), 0);
    assert_int_equal(get(up_p[0], &word, 1), 0);
    assert_int_equal(word, 'x');
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    close(down_p[1]);
    close(up_p[0]);
    down();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_checks),
        cmocka_unit_test(test_import_and_pid_checks),
        cmocka_unit_test(test_same_process),
        cmocka_unit_test(test_free_before_close),
        cmocka_unit_test(test_leak_report),
        cmocka_unit_test(test_two_processes),
        cmocka_unit_test(test_exporter_closes_first),
        cmocka_unit_test(test_dead_exporters_key_is_refused),
        cmocka_unit_test(test_shareable_checks),
        cmocka_unit_test(test_shareable_two_processes),
        cmocka_unit_test(test_shareable_after_the_exporter_freed_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
