/*
 * init.c - init and finalize callbacks: aclInitCallbackRegister,
 * aclInitCallbackUnRegister, aclFinalizeCallbackRegister,
 * aclFinalizeCallbackUnRegister, and running them from aclInit and
 * aclFinalize (device.c) as CANN does.
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
#include <string.h>
#include "api.h"
#include "base/mem.h"

struct entry {
    struct entry *next;
    aclRegisterCallbackType type;
    aclInitCallbackFunc init;     /* one of init, fini is set */
    aclFinalizeCallbackFunc fini;
    void *user;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *inits, *finis; /* registration order */
static bool initialised;
static char *config; /* the config file's contents while initialised */
static size_t config_len;

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

aclError api_init_callbacks(const char *configPath)
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

aclError api_fini_callbacks(const char *where)
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
