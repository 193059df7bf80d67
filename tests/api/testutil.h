/*
 * testutil.h - helpers shared by the API suites: checking the calling
 * thread's aclGetRecentErrMsg against CANN's exact wording, the current
 * device's free HBM, and the text of a report file.
 */
#ifndef ACLSIM_TESTS_TESTUTIL_H_
#define ACLSIM_TESTS_TESTUTIL_H_

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "acl/acl.h"

/* The first message of the pending report must be "<title>(<code>): <text>"
 * exactly (the "[PID: n] <time> " prefix is checked for shape only). */
static inline void expect_msg(const char *title_code, const char *text)
{
    const char *m = aclGetRecentErrMsg();
    if (m == NULL)
        fail_msg("no error message pending, wanted %s: %s", title_code, text);
    assert_true(strncmp(m, "[PID: ", 6) == 0);
    char want[1024];
    snprintf(want, sizeof want, "%s: %s", title_code, text);
    const char *at = strstr(m, want);
    if (at == NULL)
        fail_msg("message\n  %s\ndoes not contain\n  %s", m, want);
    /* The text ends the first line. */
    char end = at[strlen(want)];
    assert_true(end == '\0' || end == '\n');
}

static inline void expect_null_msg(const char *func, const char *param)
{
    char text[512];
    snprintf(text, sizeof text, "%s failed because %s cannot be a NULL pointer.", func, param);
    expect_msg("Invalid_Argument_Null_Pointer(EH0008)", text);
}

/* Around a deliberate misuse that aclsim rejects (an overrun, a use after
 * free): aclsim also tells memcheck, which is right for programs but not for
 * a test that misbehaves on purpose, so scons leakcheck stops counting
 * errors for the duration. No-ops outside Valgrind. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifdef VALGRIND_DISABLE_ERROR_REPORTING
#define MISUSE_BEGIN() VALGRIND_DISABLE_ERROR_REPORTING
#define MISUSE_END() VALGRIND_ENABLE_ERROR_REPORTING
#else
#define MISUSE_BEGIN() ((void)0)
#define MISUSE_END() ((void)0)
#endif

/* A test whose point memcheck adds nothing to and which it would make
 * slow (a race that needs threads to interleave, an operator big enough to
 * time): skipped under `scons leakcheck`, run in the plain and sanitizer
 * builds. */
#ifdef RUNNING_ON_VALGRIND
#define SKIP_UNDER_VALGRIND()                                                            \
    do {                                                                                 \
        if (RUNNING_ON_VALGRIND)                                                         \
            skip();                                                                      \
    } while (0)
#else
#define SKIP_UNDER_VALGRIND() ((void)0)
#endif

/* A call that fails with code, its message read (and dropped). */
#define FAILS(expr, code)                                                                \
    do {                                                                                 \
        assert_int_equal((expr), (code));                                                \
        (void)aclGetRecentErrMsg();                                                      \
    } while (0)

/* Nothing may be pending. */
static inline void expect_no_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    if (m != NULL)
        fail_msg("unexpected error message: %s", m);
}

/* The current device's free HBM bytes (aclrtGetMemInfo must succeed). */
static inline size_t hbm_free_bytes(void)
{
    size_t fr, total;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    return fr;
}

/* Read the report file at path into text (cap bytes, NUL-terminated) and
 * delete it. */
static inline void read_report(const char *path, char *text, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("no report at %s", path);
    size_t n = fread(text, 1, cap - 1, f);
    text[n] = 0;
    fclose(f);
    unlink(path);
}

#endif /* ACLSIM_TESTS_TESTUTIL_H_ */
