/*
 * log.c - aclAppLog, the application log of CANN (acl_base_rt.h).
 *
 * CANN writes these lines to its log files, or to stdout when
 * ASCEND_SLOG_PRINT_TO_STDOUT=1, keeping those at or above
 * ASCEND_GLOBAL_LOG_LEVEL (default 3, errors; a value that is not a number
 * from 0 to 4 is the default, never an error: hicann/runtime
 * src/dfx/log/liblog/slog/dlog_level_env.c, DlogInitGlobalLogLevelByEnv,
 * with LogStrToInt's strtol). aclsim keeps no log files:
 * it prints on stdout under the same two switches and drops the line
 * otherwise. The export is hand-written (the call is variadic: an OWN line
 * of api/abi/calls.def).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "diag.h"
#include "base/options.h"

static const char *level_name(aclLogLevel level)
{
    switch (level) {
    case ACL_DEBUG:
        return "DEBUG";
    case ACL_INFO:
        return "INFO";
    case ACL_WARNING:
        return "WARNING";
    default:
        return "ERROR";
    }
}

/* ASCEND_GLOBAL_LOG_LEVEL as CANN reads it: all of the text a base-10
 * number (strtol: leading blanks and a sign allowed) from 0 to 4, else 3. */
static long global_level(void)
{
    const char *s = opt_str(OPT_GLOBAL_LOG_LEVEL);
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 3;
    if (!s || end == s || *end != '\0' || errno == ERANGE || v < 0 || v > 4)
        return 3;
    return v;
}

API_EXPORT void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                          const char *fmt, ...)
{
    if (!opt_bool(OPT_SLOG_PRINT_TO_STDOUT) || (long)logLevel < global_level() ||
        logLevel > ACL_ERROR || !fmt)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    struct timeval now;
    struct tm tm;
    gettimeofday(&now, NULL);
    time_t secs = now.tv_sec;
    localtime_r(&secs, &tm);
    printf("[%s] APP(%d):%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld [%s:%u]%s: %s\n",
           level_name(logLevel), (int)getpid(), tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
           tm.tm_hour, tm.tm_min, tm.tm_sec, (long)now.tv_usec / 1000, (long)now.tv_usec % 1000,
           file ? file : "", line, func ? func : "", text);
}
