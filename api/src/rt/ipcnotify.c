/*
 * ipcnotify.c - notifies shared between processes (the IPCNOTIFY family):
 * a notify made by aclrtCreateNotify is exported (aclrtNotifyGetExportKey),
 * the pids allowed to import it listed (aclrtNotifySetImportPid, and
 * aclrtNotifySetImportPidInterServer for one simulated server), and
 * imported in another process (aclrtNotifyImportByKey) as a notify of its
 * current device: a record through any of them sets the one state, which a
 * wait through any consumes, so a record in one process releases a wait
 * in another (the simulator keeps the state in shared memory,
 * sim/ipcnotify.c, as it does for IPC events and memory).
 *
 * The checks are CANN's, in its order: the ACL layer's NULL checks
 * (hicann/runtime src/acl/aclrt_impl/notify.cpp L94-142: notify and key,
 * notify and pid, EH0008; none for the InterServer call), which casts len
 * to uint32_t (L101) and num to int32_t (L127); then the runtime's
 * (src/runtime/api/impl/api_error.cc: IpcSetNotifyName L4464-4486, len not
 * 0, flags 0 or 2; SetIpcNotifyPid L3797-3807, num in (0, INT32_MAX];
 * IpcOpenNotify L4488-4498, flags at most 3; api_c_standard_soc.cc
 * rtNotifySetImportPidInterServer L1357-1375: NULLs, num not 0, each
 * entry's pid not NULL and num 1), EE1003/EE1004, 107000; then a current
 * context (api_impl.cc L4760-4772, L4988-4995). What the driver refuses (a
 * key of no live export, an importer off the whitelist, a dead exporter)
 * the backend says why, reported as "The argument is invalid. Reason: <call>
 * failed, <why>." The key buffer holds 65 bytes, as for IPC memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"

static aclError live_notify(const char *fn, aclrtNotify h, struct api_obj **out)
{
    *out = api_obj_get(h, API_OBJ_NOTIFY);
    if (*out)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, notify %p is not a live "
               "notify.", fn, h);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_impl_aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len,
                                          uint64_t flags)
{
    static const char fn[] = "aclrtNotifyGetExportKey";
    static const char what[] = "Setting a Notify as an IPC Notify";
    API_FAULT(ACL_RT_IPC_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (!key)
        return api_err_null(fn, "key");
    uint32_t n = (uint32_t)len; /* notify.cpp L101 */
    char v[32];
    if (n == 0)
        return api_rt_value(what, "0", "len", "not equal to 0");
    if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT &&
        flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
        snprintf(v, sizeof v, "%" PRIu64, flags);
        return api_rt_value(what, v, "flag", "0 or 2");
    }
    if (n < BE_IPC_KEY_MAX) {
        snprintf(v, sizeof v, "%" PRIu32, n);
        return api_rt_value(what, v, "len", "65 (the size of a key with its NUL)");
    }
    struct api_obj *o;
    aclError rc = live_notify(fn, notify, &o);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    char out[BE_IPC_KEY_MAX] = {0};
    rc = be_get()->notify_export(notify, flags, out, &why);
    rc = api_err_refused(fn, rc, why);
    if (rc == ACL_SUCCESS)
        memcpy(key, out, sizeof out);
    api_obj_put(o);
    return rc;
}

/* List n pids for notify (held), as the driver's SetIpcNotifyPid. */
static aclError list_pids(const char *fn, aclrtNotify notify, int32_t *pid, size_t n)
{
    struct api_obj *o;
    aclError rc = live_notify(fn, notify, &o);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    rc = be_get()->notify_set_pids(notify, pid, n, &why);
    rc = api_err_refused(fn, rc, why);
    api_obj_put(o);
    return rc;
}

aclError api_impl_aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    static const char fn[] = "aclrtNotifySetImportPid";
    API_FAULT(ACL_RT_IPC_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (!pid)
        return api_err_null(fn, "pid");
    int32_t n = (int32_t)num; /* notify.cpp L127 */
    if (n <= 0) {
        char v[32];
        snprintf(v, sizeof v, "%" PRId32, n);
        return api_rt_value("Setting the trustlist of processes that can share a Notify object",
                            v, "num", "(0, 2147483647]");
    }
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    return list_pids(fn, notify, pid, (size_t)n);
}

aclError api_impl_aclrtNotifySetImportPidInterServer(aclrtNotify notify,
                                                     aclrtServerPid *serverPids, size_t num)
{
    static const char fn[] = "aclrtNotifySetImportPidInterServer";
    static const char rt[] = "rtNotifySetImportPidInterServer";
    API_FAULT(ACL_RT_IPC_NOTIFY, fn);
    if (!notify)
        return api_rt_null(rt, "notify");
    if (!serverPids)
        return api_rt_null(rt, "serverPids");
    char v[64], p[64];
    if (num == 0)
        return api_rt_value(rt, "0", "num", "not equal to 0");
    for (size_t i = 0; i < num; i++) {
        snprintf(p, sizeof p, "serverPids[%zu].pid", i);
        if (!serverPids[i].pid)
            return api_rt_null(rt, p);
        if (serverPids[i].num != 1) {
            snprintf(p, sizeof p, "serverPids[%zu].num", i);
            snprintf(v, sizeof v, "%zu", serverPids[i].num);
            return api_rt_value(rt, v, p, "1");
        }
    }
    /* One simulated server: every entry's pid is a process of this one. */
    for (size_t i = 0; i < num; i++) {
        aclError rc = list_pids(fn, notify, serverPids[i].pid, 1);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    static const char fn[] = "aclrtNotifyImportByKey";
    API_FAULT(ACL_RT_IPC_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (!key)
        return api_err_null(fn, "key");
    uint32_t f = (uint32_t)flags; /* api_c_event.cc rtsNotifyImportByKey: flag & MAX_UINT32 */
    if (f > 3u) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu32, f);
        return api_rt_value("Enabling IPC Notify", v, "flag", "[0, 3]");
    }
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (f & 1u) { /* RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV: for MC2's coprocessor (a warning only) */
        api_stream_put(&ctx);
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    const char *why = NULL;
    void *n = NULL;
    rc = be_get()->notify_import(ctx.ctx->device, key, flags, &n, &why);
    if (rc != ACL_SUCCESS) {
        api_stream_put(&ctx);
        return why ? api_err_refused(fn, rc, why)
                   : api_err_create(fn, rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "notify");
    }
    rc = api_obj_publish(rc, n, API_OBJ_NOTIFY, ctx.ctx, api_notify_release,
                         be_get()->notify_destroy);
    api_stream_put(&ctx);
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "notify") == ACL_SUCCESS)
        *notify = n;
    return rc;
}
