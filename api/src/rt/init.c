/*
 * init.c - init and finalize (the INIT family of api/abi/calls.def):
 * aclInit, aclFinalize and aclFinalizeReference with CANN's reference
 * count (hicann/runtime src/acl/aclrt_impl/acl.cpp), and the callbacks
 * they run (aclInitCallbackRegister, aclInitCallbackUnRegister,
 * aclFinalizeCallbackRegister, aclFinalizeCallbackUnRegister) as CANN
 * runs them.
 *
 * CANN's aclFinalizeInternal (src/acl/aclrt_impl/acl.cpp:547-628) ends
 * logging, profiling, dump and the modules' callbacks and resets no device:
 * a program may destroy its streams and contexts, free its memory and
 * reset its devices after aclFinalize (HiCR's examples do). So aclFinalize
 * here runs the callbacks and, when no device is open, ends the runtime:
 * the watchers told (rt.h), the backend ended, its trace written. When a
 * device is still open it stays open with all it holds (the leak report
 * warns of it: api_tell_finalized), and the end comes when the last device
 * closes (api_end_if_idle, after a reset or a context's destruction), or at
 * exit, which closes what is still open, with the leak report; an aclInit
 * meanwhile takes the runtime as it finds it. A program that exits with
 * the runtime still up gets the same end at exit, without the callbacks.
 *
 * CANN keeps one registry per kind, a multimap from aclRegisterCallbackType
 * to (callback, userData): a type other than ACL_REG_TYPE_OTHER holds one
 * entry (a second registration is ACL_ERROR_INTERNAL_ERROR, whatever the
 * callback), ACL_REG_TYPE_OTHER any number, run in registration order;
 * any type value is accepted. A NULL callback is ACL_ERROR_INVALID_PARAM;
 * unregistering a type with no entry, or a callback not registered under
 * it, is ACL_ERROR_INTERNAL_ERROR. None of these report a message.
 *
 * aclInit runs the init callbacks of ACL_REG_TYPE_ACL_MODEL, then (only
 * with a config file) ACL_REG_TYPE_ACL_OP_EXECUTOR, then ACL_REG_TYPE_ACL_DVPP
 * and ACL_REG_TYPE_OTHER, each with the config file's contents ("" and 0
 * without one) and its userData; the first failure ends aclInit with that
 * code and the runtime stays uninitialised. An init callback registered
 * while the runtime is initialised runs at once, its result ignored.
 * The real finalize (the last reference) runs the finalize callbacks of
 * ACL_REG_TYPE_ACL_OP_COMPILER, ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_DVPP
 * and ACL_REG_TYPE_OTHER, before anything is released; the first failure
 * ends aclFinalize with that code and the runtime stays initialised.
 * Callbacks run with no aclsim lock held (CANN holds its init mutex, which
 * is recursive); a callback must not call aclInit or aclFinalize.
 * The registries are the ACL layer's on every backend: a real runtime
 * below is never asked to run them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "base/mem.h"
#include "base/options.h"
#include "backends/be.h"

struct entry {
    struct entry *next;
    aclRegisterCallbackType type;
    aclInitCallbackFunc init;     /* one of init, fini is set */
    aclFinalizeCallbackFunc fini;
    void *user;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the registries */
static struct entry *inits, *finis; /* registration order */
static bool initialised;
static char *config; /* the config file's contents while initialised */
static size_t config_len;

/* The runtime's reference count (aclInit, aclFinalize). A start or end in
 * progress is BUSY: the thread doing it works without the lock, and
 * others wait for it to settle. */
static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t life_settled = PTHREAD_COND_INITIALIZER;
static int init_refs;
static bool init_busy;
static bool end_pending; /* aclFinalize returned; the end (end_runtime) is still to come */

static aclError reg(struct entry **list, aclRegisterCallbackType type, aclInitCallbackFunc ifn,
                    aclFinalizeCallbackFunc ffn, void *user, const char *func)
{
    API_FAULT(ACL_INIT_CALLBACK, func);
    if (!ifn && !ffn)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&lock);
    struct entry **p = list;
    for (; *p; p = &(*p)->next)
        if (type != ACL_REG_TYPE_OTHER && (*p)->type == type) {
            pthread_mutex_unlock(&lock);
            return ACL_ERROR_INTERNAL_ERROR;
        }
    struct entry *e = base_malloc(sizeof *e);
    if (!e) {
        pthread_mutex_unlock(&lock);
        return api_err_runtime(func, ACL_ERROR_BAD_ALLOC);
    }
    *e = (struct entry){NULL, type, ifn, ffn, user};
    *p = e;
    /* Initialised already: the new init callback runs now, on a copy of
     * the config, outside the lock. */
    char *cfg = NULL;
    size_t len = 0;
    bool run = ifn && initialised;
    if (run && config_len > 0) {
        cfg = base_malloc(config_len + 1);
        if (cfg) {
            memcpy(cfg, config, config_len + 1);
            len = config_len;
        }
    }
    pthread_mutex_unlock(&lock);
    if (run)
        (void)ifn(cfg ? cfg : "", len, user);
    base_free(cfg);
    return ACL_SUCCESS;
}

static aclError unreg(struct entry **list, aclRegisterCallbackType type, aclInitCallbackFunc ifn,
                      aclFinalizeCallbackFunc ffn)
{
    if (!ifn && !ffn)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&lock);
    for (struct entry **p = list; *p; p = &(*p)->next)
        if ((*p)->type == type && (ifn ? (*p)->init == ifn : (*p)->fini == ffn)) {
            struct entry *gone = *p;
            *p = gone->next;
            base_free(gone);
            pthread_mutex_unlock(&lock);
            return ACL_SUCCESS;
        }
    pthread_mutex_unlock(&lock);
    /* A type with no entry and a callback not under it are the same code. */
    return ACL_ERROR_INTERNAL_ERROR;
}

aclError api_impl_aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                          void *userData)
{
    return reg(&inits, type, cbFunc, NULL, userData, "aclInitCallbackRegister");
}

aclError api_impl_aclInitCallbackUnRegister(aclRegisterCallbackType type,
                                            aclInitCallbackFunc cbFunc)
{
    return unreg(&inits, type, cbFunc, NULL);
}

aclError api_impl_aclFinalizeCallbackRegister(aclRegisterCallbackType type,
                                              aclFinalizeCallbackFunc cbFunc, void *userData)
{
    return reg(&finis, type, NULL, cbFunc, userData, "aclFinalizeCallbackRegister");
}

aclError api_impl_aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                                aclFinalizeCallbackFunc cbFunc)
{
    return unreg(&finis, type, NULL, cbFunc);
}

/* ---- Running them ---- */

/* The entries of `type` in *list, copied (so that a callback may register
 * or unregister): *n of them in a base_malloc'd array, or NULL. */
static struct entry *snapshot(struct entry **list, aclRegisterCallbackType type, size_t *n)
{
    pthread_mutex_lock(&lock);
    size_t count = 0;
    for (struct entry *e = *list; e; e = e->next)
        count += e->type == type;
    struct entry *out = count ? base_malloc(count * sizeof *out) : NULL;
    *n = 0;
    if (out)
        for (struct entry *e = *list; e; e = e->next)
            if (e->type == type)
                out[(*n)++] = *e;
    pthread_mutex_unlock(&lock);
    return out;
}

/* Run the callbacks of one type; the first failure is returned, reported
 * with CANN's text for that type (`what`; NULL: CANN reports nothing). */
static aclError run(struct entry **list, aclRegisterCallbackType type, const char *what,
                    const char *cfg, size_t len)
{
    size_t n;
    struct entry *es = snapshot(list, type, &n);
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++)
        rc = es[i].init ? es[i].init(cfg, len, es[i].user) : es[i].fini(es[i].user);
    base_free(es);
    if (rc != ACL_SUCCESS && what)
        api_report(API_MSG_EH9999, what, rc);
    return rc;
}

/* The contents of a config file (already known to be readable), or NULL
 * when host memory or the file fails us. */
static char *read_config(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = base_malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *more = base_realloc(buf, 2 * cap + 1);
        if (!more) {
            base_free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static aclError init_callbacks(const char *configPath)
{
    bool with_file = configPath && configPath[0];
    char *cfg = NULL;
    size_t len = 0;
    if (with_file && !(cfg = read_config(configPath, &len)))
        return api_err_runtime("aclInit", ACL_ERROR_BAD_ALLOC);
    const char *c = cfg ? cfg : "";
    aclError rc = run(&inits, ACL_REG_TYPE_ACL_MODEL, "call acl_model init callback failed, ret:%d",
                      c, len);
    if (rc == ACL_SUCCESS && with_file)
        rc = run(&inits, ACL_REG_TYPE_ACL_OP_EXECUTOR,
                 "call acl_op_executor init callback failed, ret:%d.", c, len);
    if (rc == ACL_SUCCESS)
        rc = run(&inits, ACL_REG_TYPE_ACL_DVPP, "call acl_dvpp init callback failed, ret:%d", c,
                 len);
    if (rc == ACL_SUCCESS)
        rc = run(&inits, ACL_REG_TYPE_OTHER, NULL, c, len);
    pthread_mutex_lock(&lock);
    if (rc == ACL_SUCCESS) {
        initialised = true;
        base_free(config);
        config = cfg;
        config_len = len;
        cfg = NULL;
    }
    pthread_mutex_unlock(&lock);
    base_free(cfg);
    return rc;
}

static aclError fini_callbacks(const char *where)
{
    (void)where;
    aclError rc = run(&finis, ACL_REG_TYPE_ACL_OP_COMPILER,
                      "call acl_op_compiler finalize callback failed, ret:%d", NULL, 0);
    if (rc == ACL_SUCCESS)
        rc = run(&finis, ACL_REG_TYPE_ACL_MODEL, "call acl_model finalize callback failed, ret:%d",
                 NULL, 0);
    if (rc == ACL_SUCCESS)
        rc = run(&finis, ACL_REG_TYPE_ACL_DVPP, "call acl_dvpp finalize callback failed, ret:%d",
                 NULL, 0);
    if (rc == ACL_SUCCESS)
        rc = run(&finis, ACL_REG_TYPE_OTHER, NULL, NULL, 0);
    if (rc != ACL_SUCCESS) {
        api_report(API_MSG_EH9999, "[Finalize][Acl]finalize internal failed, errorCode = %d", rc);
        return rc;
    }
    pthread_mutex_lock(&lock);
    initialised = false;
    base_free(config);
    config = NULL;
    config_len = 0;
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* The registries live as long as the library, as CANN's singleton does. */
__attribute__((destructor)) static void init_unload(void)
{
    struct entry **lists[] = {&inits, &finis};
    for (size_t i = 0; i < 2; i++)
        while (*lists[i]) {
            struct entry *e = *lists[i];
            *lists[i] = e->next;
            base_free(e);
        }
    base_free(config);
    config = NULL;
}

/* The real end of the runtime (`where` names the call that ends it):
 * every device closed, the watchers told, the backend ended, and the
 * start or end others wait for settled. pre: init_busy set, no lock held. */
static void end_runtime(const char *where)
{
    api_devices_close_all(where);
    api_tell_finalizing(where);
    be_get()->fini();
    pthread_mutex_lock(&life_lock);
    end_pending = false;
    init_busy = false;
    pthread_cond_broadcast(&life_settled);
    pthread_mutex_unlock(&life_lock);
}

/* ---- the end of a program that never calls aclFinalize ---- */

static pid_t init_pid; /* the process that started the runtime */

/* At exit with the runtime still up (main returned, or exit() was called,
 * before aclFinalize): end it as aclFinalize does but without the finalize
 * callbacks (the program is gone), so that the leak check runs, as
 * LeakSanitizer's does at exit, and the trace is written. Only in the
 * process that started the runtime: a forked child's exit leaves it be. */
static void finalize_at_exit(void)
{
    if (getpid() != init_pid)
        return;
    pthread_mutex_lock(&life_lock);
    bool up = init_refs > 0 && !init_busy, after = end_pending && !init_busy;
    if (up || after) {
        init_refs = 0;
        init_busy = true;
    }
    pthread_mutex_unlock(&life_lock);
    if (up)
        end_runtime("exit (the program never called aclFinalize)");
    else if (after)
        end_runtime("exit, after aclFinalize");
}

/* Registered once, at the first start of the runtime: after the leak
 * check's and the sanitizer's exit handlers (registered as the library
 * loads), so it runs before them. A copy loaded by another (the loopback)
 * is ended by that one. */
static void watch_exit(void)
{
    static bool registered;
    init_pid = getpid();
    if (!registered && !opt_nested())
        registered = atexit(finalize_at_exit) == 0;
}

/* ---- aclInit, aclFinalize ---- */

aclError api_impl_aclInit(const char *configPath)
{
    API_FAULT(ACL_INIT, "aclInit");
    if (configPath && configPath[0]) {
        FILE *f = fopen(configPath, "r");
        /* A directory opens for reading but cannot be read. */
        if (f && (fgetc(f), ferror(f))) {
            fclose(f);
            f = NULL;
        }
        if (!f) {
            api_report(API_MSG_EH9999, "aclInit failed: config file %s cannot be read.",
                       configPath);
            return ACL_ERROR_INVALID_FILE;
        }
        fclose(f);
    }
    pthread_mutex_lock(&life_lock);
    while (init_busy)
        pthread_cond_wait(&life_settled, &life_lock);
    if (init_refs > 0) {
        init_refs++;
        pthread_mutex_unlock(&life_lock);
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    init_busy = true;
    pthread_mutex_unlock(&life_lock);
    const char *why = "";
    aclError rc = ACL_SUCCESS;
    /* The options are read again for every start of the runtime. */
    if (opt_reload() != 0 || opt_error()) {
        why = opt_error();
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (api_rep_configure(&why) != 0) {
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (rc == ACL_SUCCESS)
        rc = be_get()->init(&why);
    bool by_callback = false; /* a module's init callback failed (init_callbacks) */
    if (rc == ACL_SUCCESS && (rc = init_callbacks(configPath)) != ACL_SUCCESS) {
        be_get()->fini();
        by_callback = true;
    }
    pthread_mutex_lock(&life_lock);
    if (rc == ACL_SUCCESS) {
        init_refs = 1;
        watch_exit();
    }
    init_busy = false;
    pthread_cond_broadcast(&life_settled);
    pthread_mutex_unlock(&life_lock);
    /* Which backend is live is never a guess (GPGPU-Sim's lesson); a copy
     * loaded as another copy's real runtime (the loopback) stays quiet. */
    if (rc == ACL_SUCCESS && !opt_nested() && opt_bool(OPT_BANNER)) {
        char line[256];
        be_get()->describe(line, sizeof line);
        fprintf(stderr, "aclsim: backend %s\n", line);
    }
    if (rc != ACL_SUCCESS && !by_callback) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: aclInit failed: %s.", why);
        /* Also where a program that prints only return codes shows it. */
        if (why && why[0])
            fprintf(stderr, "aclsim: aclInit failed: %s\n", why);
    }
    return rc;
}

static aclError finalize(int all, uint64_t *left)
{
    const char *where = all ? "aclFinalize" : "aclFinalizeReference";
    pthread_mutex_lock(&life_lock);
    while (init_busy)
        pthread_cond_wait(&life_settled, &life_lock);
    if (init_refs == 0) {
        pthread_mutex_unlock(&life_lock);
        return ACL_ERROR_REPEAT_FINALIZE;
    }
    if (!all && init_refs > 1) {
        init_refs--;
        if (left)
            *left = (uint64_t)init_refs;
        pthread_mutex_unlock(&life_lock);
        return ACL_SUCCESS;
    }
    /* The real end: the finalize callbacks first; when one fails the
     * runtime stays initialised. */
    init_busy = true;
    pthread_mutex_unlock(&life_lock);
    aclError rc = fini_callbacks(where);
    pthread_mutex_lock(&life_lock);
    if (rc != ACL_SUCCESS) {
        init_busy = false;
        pthread_cond_broadcast(&life_settled);
        if (left)
            *left = (uint64_t)init_refs;
        pthread_mutex_unlock(&life_lock);
        return rc;
    }
    init_refs = 0;
    if (left)
        *left = 0;
    pthread_mutex_unlock(&life_lock);
    if (!api_devices_any_open()) {
        end_runtime(where);
        return ACL_SUCCESS;
    }
    api_tell_finalized(where);
    pthread_mutex_lock(&life_lock);
    end_pending = true;
    init_busy = false;
    pthread_cond_broadcast(&life_settled);
    pthread_mutex_unlock(&life_lock);
    return ACL_SUCCESS;
}

void api_end_if_idle(void)
{
    pthread_mutex_lock(&life_lock);
    bool end = end_pending && !init_busy && init_refs == 0 && !api_devices_any_open();
    if (end)
        init_busy = true;
    pthread_mutex_unlock(&life_lock);
    if (end)
        end_runtime("the last device's close after aclFinalize");
}

aclError api_impl_aclFinalize(void)
{
    API_FAULT(ACL_FINALIZE, "aclFinalize");
    return finalize(1, NULL);
}

aclError api_impl_aclFinalizeReference(uint64_t *refCount)
{
    API_FAULT(ACL_FINALIZE, "aclFinalizeReference");
    return finalize(0, refCount);
}
