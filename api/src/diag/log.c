/*
 * log.c - aclAppLog, the application log of CANN (acl_base_rt.h).
 *
 * CANN writes these lines to its log files, or to stdout when
 * ASCEND_SLOG_PRINT_TO_STDOUT=1, keeping those at or above
 * ASCEND_GLOBAL_LOG_LEVEL (default 3, errors). aclsim keeps no log files:
 * it prints on stdout under the same two switches and drops the line
 * otherwise. The export is hand-written (the call is variadic: an OWN line
 * of api/abi/calls.def).
 */
#include <stdarg.h>
#include <stdio.h>
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

API_EXPORT void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                          const char *fmt, ...)
{
    if (!opt_bool(OPT_SLOG_PRINT_TO_STDOUT) || (uint64_t)logLevel < opt_uint(OPT_GLOBAL_LOG_LEVEL) ||
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
