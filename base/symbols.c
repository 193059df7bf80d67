/*
 * symbols.c - return addresses to function, file and line with elfutils'
 * libdw (see symbols.h).
 *
 * One Dwfl session for the process, made at the first report that needs
 * it (the modules of /proc/self/maps; debug information from each object
 * or the local build-id tree, never from a debuginfod server) and made
 * again once when an address lies in no module it knows (a library
 * dlopened since). Reports are rare: a mutex serialises it all.
 */
#include "symbols.h"
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *session;
static char *debuginfo_path;

/* Debug information from the object itself or the local build-id tree
 * (/usr/lib/debug/.build-id): never debuginfod, which
 * dwfl_standard_find_debuginfo would dlopen (and with it libcurl, whose
 * start-up memory memcheck counts as lost) for an object without any. */
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* pre: lock held. */
static Dwfl *open_session(void)
{
    if (session)
        return session;
    Dwfl *d = dwfl_begin(&callbacks);
    if (!d)
        return NULL;
    dwfl_report_begin(d);
    if (dwfl_linux_proc_report(d, getpid()) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
        dwfl_end(d);
        return NULL;
    }
    return session = d;
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

/* pre: lock held. */
static int lookup(uintptr_t pc, struct base_frame *f)
{
    memset(f, 0, sizeof *f);
    f->pc = pc;
    Dwfl_Module *m = NULL;
    for (int again = 0; again < 2 && !m; again++) {
        if (again && session) {
            dwfl_end(session); /* a module loaded since the session began */
            session = NULL;
        }
        Dwfl *d = open_session();
        m = d ? dwfl_addrmodule(d, pc) : NULL;
    }
    if (!m)
        return -1;
    const char *path = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    const char *slash = path ? strrchr(path, '/') : NULL;
    copy(f->module, sizeof f->module, slash ? slash + 1 : path);
    copy(f->function, sizeof f->function, dwfl_module_addrname(m, pc));
    Dwfl_Line *l = dwfl_module_getsrc(m, pc);
    int line = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    copy(f->file, sizeof f->file, file);
    f->line = file ? line : 0;
    return 0;
}

/* The base name of the object that holds this file: aclsim's own. */
static const char anchor;
static const char *own_module(char *buf, size_t size)
{
    Dl_info info;
    const char *path = dladdr(&anchor, &info) && info.dli_fname ? info.dli_fname : "";
    const char *slash = strrchr(path, '/');
    copy(buf, size, slash ? slash + 1 : path);
    return buf;
}

int base_stack_user(void *const *pcs, int n, struct base_frame *out, int max)
{
    char own[128];
    own_module(own, sizeof own);
    int k = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && k < max; i++) {
        /* A return address points after its call: look up the call. */
        if (lookup((uintptr_t)pcs[i] - 1, &out[k]) != 0)
            continue;
        if (own[0] && strcmp(out[k].module, own) == 0)
            continue;
        /* a sanitizer build's interceptor of backtrace(3) is no user's */
        if (strncmp(out[k].function, "__interceptor_", 14) == 0 ||
            strstr(out[k].file, "/libsanitizer/") != NULL)
            continue;
        if (strcmp(out[k++].function, "main") == 0)
            break; /* below main: the C library's start-up */
    }
    pthread_mutex_unlock(&lock);
    return k;
}

int base_symbolize(const void *addr, struct base_frame *out)
{
    pthread_mutex_lock(&lock);
    int rc = lookup((uintptr_t)addr, out);
    pthread_mutex_unlock(&lock);
    return rc;
}

const char *base_frame_text(const struct base_frame *f, char *buf, int size)
{
    const char *fn = f->function[0] ? f->function : "??";
    if (f->file[0])
        snprintf(buf, (size_t)size, "%s %s:%d", fn, f->file, f->line);
    else
        snprintf(buf, (size_t)size, "%s (%s+0x%lx)", fn, f->module[0] ? f->module : "?",
                 (unsigned long)f->pc);
    return buf;
}

__attribute__((destructor)) static void symbols_unload(void)
{
    if (session)
        dwfl_end(session);
    session = NULL;
}
