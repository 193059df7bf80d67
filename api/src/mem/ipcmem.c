/*
 * ipcmem.c - device memory shared between processes (the IPC family):
 * keys (aclrtIpcMemGetExportKey, aclrtIpcMemImportByKey, aclrtIpcMemClose,
 * the whitelist calls, aclrtIpcMemSetAttr), and what aclrtFree must know
 * of them.
 *
 * The checks are CANN's, in its order: the ACL layer's NULL checks
 * (src/acl/aclrt_impl/memory.cpp, aclrtIpcMemGetExportKeyImpl L1775,
 * aclrtIpcMemCloseImpl L1786, aclrtIpcMemImportByKeyImpl L1795,
 * aclrtIpcMemSetImportPidImpl L1855, aclrtIpcMemSetAttrImpl L1870: EH0008,
 * ACL_ERROR_INVALID_PARAM), then the runtime's (src/runtime/api/impl/
 * api_error.cc: IpcSetMemoryName L3747 size and len not 0 and flags at
 * most 1, IpcSetMemoryAttr L3768 type and attr in range, SetIpcMemPid
 * L3809 num > 0, IpcOpenMemory L3821 flags at most 1: EE1003,
 * ACL_ERROR_RT_PARAM_INVALID), then a current context
 * (api_impl_standard_soc.cc IpcOpenMemory L662). The key buffer holds 65
 * bytes (the API reference fixes len at 65; torch_npu's
 * kAclIpcHandleSize). What the driver refuses (a range off its pages, a
 * key nobody exported, a process not on the whitelist) the backend says
 * why, reported as "The argument is invalid.Reason: <call> failed, <why>."
 *
 * The documented order is: the importer closes, then the exporter closes,
 * then the exporter frees (CANN's aclrtIpcMemClose reference: other orders
 * "may cause exceptions"). aclsim reports the other orders it can see as
 * the allocator sanitizer's misuse (ipc-order, alloc/ipccheck.c): an
 * exporter closing while another process still has the key imported, and
 * an aclrtFree of a block whose export is still open (which then closes
 * the export, so that the freed bytes are no longer shared).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "memory.h"
#include "backends/be.h"

_Atomic unsigned api_ipc_open;

/* A refusal the backend explained (why), or its plain failure. */
static aclError refused(const char *fn, aclError rc, const char *why)
{
    if (rc == ACL_SUCCESS)
        return rc;
    if (why) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, %s.", fn, why);
        return rc;
    }
    return api_vmm_failed(fn, rc, NULL);
}

static aclError flags_bad(const char *fn, const char *what, uint64_t flags)
{
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, flags);
    return api_rt_bad_value(fn, what, v, "flags", "[0, 1]");
}

aclError api_impl_aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
                                          uint64_t flags)
{
    static const char fn[] = "aclrtIpcMemGetExportKey";
    static const char what[] = "Setting the memory to be shared between processes";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (!key)
        return api_err_null(fn, "key");
    if (size == 0)
        return api_rt_bad_value(fn, what, "0", "byteCount", "not equal to 0");
    if (len == 0)
        return api_rt_bad_value(fn, what, "0", "len", "not equal to 0");
    if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return flags_bad(fn, what, flags);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (len < BE_IPC_KEY_MAX) {
        char v[32];
        snprintf(v, sizeof v, "%zu", len);
        return api_rt_bad_value(fn, what, v, "len", "65 (the size of a key with its NUL)");
    }
    const char *why = NULL;
    char out[BE_IPC_KEY_MAX] = {0};
    rc = be_get()->ipc_mem_export(devPtr, size, flags, out, &why);
    if (rc == ACL_SUCCESS) {
        memcpy(key, out, sizeof out);
        atomic_fetch_add(&api_ipc_open, 1);
    }
    return refused(fn, rc, why);
}

aclError api_impl_aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    static const char fn[] = "aclrtIpcMemSetImportPid";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!key)
        return api_err_null(fn, "key");
    if (!pid)
        return api_err_null(fn, "pid");
    if (num == 0 || num > INT32_MAX) {
        char v[32];
        snprintf(v, sizeof v, "%d", (int32_t)num);
        return api_rt_bad_value(fn, "Setting the trustlist of processes that can share memory "
                                "through IPC", v, "num", "(0, 2147483647]");
    }
    const char *why = NULL;
    aclError rc = be_get()->ipc_mem_set_pids(key, pid, num, &why);
    return refused(fn, rc, why);
}

aclError api_impl_aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids,
                                                  size_t num)
{
    static const char fn[] = "aclrtIpcMemImportPidInterServer";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!key)
        return api_err_null(fn, "key");
    if (!serverPids)
        return api_err_null(fn, "serverPids");
    if (num == 0)
        return api_rt_bad_value(fn, "Setting the trustlist of processes on other servers", "0",
                                "num", "greater than 0");
    /* One simulated server: the pids of this server's entry are listed;
     * other servers' processes cannot reach the simulator. */
    for (size_t i = 0; i < num; i++) {
        if (!serverPids[i].pid && serverPids[i].num)
            return api_err_null(fn, "serverPids.pid");
        if (serverPids[i].num) {
            const char *why = NULL;
            aclError rc = be_get()->ipc_mem_set_pids(key, serverPids[i].pid, serverPids[i].num,
                                                     &why);
            if (rc != ACL_SUCCESS)
                return refused(fn, rc, why);
        }
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
    static const char fn[] = "aclrtIpcMemSetAttr";
    static const char what[] = "Setting the attribute for IPC-based memory sharing";
    API_FAULT(ACL_RT_IPC_MEM_IMPORT, fn);
    char v[32];
    if (!key)
        return api_err_null(fn, "key");
    if ((int)type != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK) {
        snprintf(v, sizeof v, "%d", (int)type);
        return api_rt_bad_value(fn, what, v, "type", "[0, 1)");
    }
    if (attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH) {
        snprintf(v, sizeof v, "%" PRIu64, attr);
        return api_rt_bad_value(fn, what, v, "attr", "[0, 4)");
    }
    /* The access link an import will use: the simulated devices have one
     * link between them, whatever is chosen. */
    return ACL_SUCCESS;
}

aclError api_impl_aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    static const char fn[] = "aclrtIpcMemImportByKey";
    API_FAULT(ACL_RT_IPC_MEM_IMPORT, fn);
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (!key)
        return api_err_null(fn, "key");
    if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return flags_bad(fn, "Opening the shared memory between processes", flags);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    void *p = NULL;
    rc = be_get()->ipc_mem_import(c->device, key, flags, &p, &why);
    if (rc == ACL_SUCCESS) {
        *devPtr = p;
        atomic_fetch_add(&api_ipc_open, 1);
    }
    return refused(fn, rc, why);
}

aclError api_impl_aclrtIpcMemClose(const char *key)
{
    static const char fn[] = "aclrtIpcMemClose";
    API_FAULT(ACL_RT_IPC_MEM_CLOSE, fn);
    if (!key)
        return api_err_null(fn, "key");
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = NULL;
    struct be_ipc_info info = {.role = 0};
    rc = be_get()->ipc_mem_close(key, 0, &info, &why);
    if (rc != ACL_SUCCESS)
        return refused(fn, rc, why);
    atomic_fetch_sub(&api_ipc_open, 1);
    if (info.role == BE_IPC_EXPORTED && info.importers)
        api_check_ipc_order(fn, info.ptr, info.size, info.key, info.importers, false);
    return ACL_SUCCESS;
}

void api_ipc_freeing(const char *fn, void *ptr)
{
    struct be_ipc_info info;
    struct be_ptr_info in;
    int (*find)(const void *, size_t, int, struct be_ipc_info *) = API_TOOL(ipc_mem_find);
    be_get()->lookup(ptr, &in);
    if (in.kind != BE_PTR_DEVICE || in.start != ptr)
        return; /* not a block: aclrtFree refuses it */
    while (find && find(ptr, in.size, BE_IPC_EXPORTED, &info)) {
        const char *why = NULL;
        api_check_ipc_order(fn, info.ptr, info.size, info.key, info.importers, true);
        if (be_get()->ipc_mem_close(info.key, BE_IPC_EXPORTED, &info, &why) != ACL_SUCCESS)
            break;
        atomic_fetch_sub(&api_ipc_open, 1);
    }
}
