/*
 * ipcmem.c - device memory shared between processes (the IPC family):
 * keys (aclrtIpcMemGetExportKey, aclrtIpcMemImportByKey, aclrtIpcMemClose,
 * the whitelist calls, aclrtIpcMemSetAttr), what aclrtFree must know of
 * them, and shareable handles of physical memory (at the end).
 *
 * The checks are CANN's, in its order: the ACL layer's NULL checks
 * (src/acl/aclrt_impl/memory.cpp, aclrtIpcMemGetExportKeyImpl L1775,
 * aclrtIpcMemCloseImpl L1786, aclrtIpcMemImportByKeyImpl L1795,
 * aclrtIpcMemSetImportPidImpl L1855, aclrtIpcMemSetAttrImpl L1870: EH0008,
 * ACL_ERROR_INVALID_PARAM; len and num reach the runtime as 32 bits,
 * L1782 and L1866), then the runtime's (src/runtime/api/impl/
 * api_error.cc: IpcSetMemoryName L3747 size and len not 0 and flags at
 * most 1, IpcSetMemoryAttr L3768 type and attr in range, SetIpcMemPid
 * L3809 num > 0, IpcOpenMemory L3821 flags at most 1: EE1003,
 * ACL_ERROR_RT_PARAM_INVALID), then a current context
 * (api_impl_standard_soc.cc IpcOpenMemory L662). The key buffer holds 65
 * bytes (the API reference fixes len at 65; torch_npu's
 * kAclIpcHandleSize). What the driver refuses (a range off its pages, a
 * key nobody exported, a process not on the whitelist) the backend says
 * why, reported as "The argument is invalid. Reason: <call> failed, <why>."
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
    return why ? api_err_refused(fn, rc, why) : api_vmm_failed(fn, rc, NULL);
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
    uint32_t len32 = (uint32_t)len; /* memory.cpp L1782 passes len as 32 bits */
    if (size == 0)
        return api_rt_bad_value(fn, what, "0", "byteCount", "not equal to 0");
    if (len32 == 0)
        return api_rt_bad_value(fn, what, "0", "len", "not equal to 0");
    if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return flags_bad(fn, what, flags);
    struct api_ctx *c;
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (len32 < BE_IPC_KEY_MAX) {
        char v[32];
        snprintf(v, sizeof v, "%u", len32);
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
    int32_t n = (int32_t)num; /* memory.cpp L1866 passes num as 32 bits */
    if (n <= 0) {
        char v[32];
        snprintf(v, sizeof v, "%d", n);
        return api_rt_bad_value(fn, "Setting the trustlist of processes that can share memory "
                                "through IPC", v, "num", "(0, 2147483647]");
    }
    const char *why = NULL;
    aclError rc = be_get()->ipc_mem_set_pids(key, pid, (size_t)n, &why);
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

/* ---- shareable handles of physical memory (memory.cpp L1215-1298) ----
 *
 * The ACL layer's checks: NULL handles and pointers (EH0008), a V1
 * handleType other than ACL_MEM_HANDLE_TYPE_NONE (EH0007), pidNum 0
 * (EH0007), V2 import flags other than 0 (EH0009), all 100000. What the
 * driver refuses (a handle exported twice, an import in the exporting
 * process, a process off the whitelist: the API reference's rules) the
 * backend says why. FABRIC handles (V2) join AI servers, which one machine
 * does not have: 207000. */

static aclError fabric(const char *fn)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, "
               "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC handles connect AI servers (A3 only), which the "
               "simulator does not have: use ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT.", fn);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static aclError share_type_bad(const char *fn, aclrtMemSharedHandleType t)
{
    char v[32];
    snprintf(v, sizeof v, "%d", (int)t);
    return api_rt_bad_value(fn, "Exporting a shareable handle", v, "shareType",
                            "ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT(1) or "
                            "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC(2)");
}

static aclError share_export(const char *fn, aclrtDrvMemHandle handle, uint64_t flags,
                             uint64_t *shareable)
{
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return flags_bad(fn, "Exporting a shareable handle", flags);
    const char *why = NULL;
    uint64_t out = 0;
    aclError rc = be_get()->vmm_share_export(handle, flags, &out, &why);
    if (rc == ACL_SUCCESS)
        *shareable = out;
    return refused(fn, rc, why);
}

aclError api_impl_aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
                                                  aclrtMemHandleType handleType, uint64_t flags,
                                                  uint64_t *shareableHandle)
{
    static const char fn[] = "aclrtMemExportToShareableHandle";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!handle)
        return api_err_null(fn, "handle");
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE) {
        char v[32];
        snprintf(v, sizeof v, "%d", (int)handleType);
        return api_err_value(fn, v, "handleType", "ACL_MEM_HANDLE_TYPE_NONE");
    }
    if (!shareableHandle)
        return api_err_null(fn, "shareableHandle");
    return share_export(fn, handle, flags, shareableHandle);
}

aclError api_impl_aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                    aclrtMemSharedHandleType shareType,
                                                    void *shareableHandle)
{
    static const char fn[] = "aclrtMemExportToShareableHandleV2";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!handle)
        return api_err_null(fn, "handle");
    if (!shareableHandle)
        return api_err_null(fn, "shareableHandle");
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return fabric(fn);
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
        return share_type_bad(fn, shareType);
    return share_export(fn, handle, flags, shareableHandle);
}

static aclError share_import(const char *fn, uint64_t shareable, int32_t dev,
                             aclrtDrvMemHandle *handle)
{
    const char *why = NULL;
    void *h = NULL;
    aclError rc = be_get()->vmm_share_import(shareable, dev, &h, &why);
    if (rc == ACL_SUCCESS)
        *handle = h;
    return refused(fn, rc, why);
}

aclError api_impl_aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                    aclrtDrvMemHandle *handle)
{
    static const char fn[] = "aclrtMemImportFromShareableHandle";
    API_FAULT(ACL_RT_IPC_MEM_IMPORT, fn);
    if (!handle)
        return api_err_null(fn, "handle");
    aclError rc = api_device_usable(fn, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    return share_import(fn, shareableHandle, deviceId, handle);
}

aclError api_impl_aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                                      aclrtMemSharedHandleType shareType,
                                                      uint64_t flags, aclrtDrvMemHandle *handle)
{
    static const char fn[] = "aclrtMemImportFromShareableHandleV2";
    API_FAULT(ACL_RT_IPC_MEM_IMPORT, fn);
    if (!shareableHandle)
        return api_err_null(fn, "shareableHandle");
    if (!handle)
        return api_err_null(fn, "handle");
    if (flags != 0) {
        api_report(API_MSG_EH0009, "%s failed. Value %" PRIu64 " for parameter flags is invalid. "
                   "Reason: flags is a reserved parameter and must be 0.", fn, flags);
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_ctx *c; /* the current device (memory.cpp: rtsGetDevice) */
    aclError rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return fabric(fn);
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
        return share_type_bad(fn, shareType);
    return share_import(fn, *(const uint64_t *)shareableHandle, c->device, handle);
}

static aclError share_pids(const char *fn, uint64_t shareable, int32_t *pid, size_t n)
{
    const char *why = NULL;
    aclError rc = be_get()->vmm_share_set_pids(shareable, pid, n, &why);
    return refused(fn, rc, why);
}

aclError api_impl_aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid,
                                                  size_t pidNum)
{
    static const char fn[] = "aclrtMemSetPidToShareableHandle";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!pid)
        return api_err_null(fn, "pid");
    if (pidNum == 0)
        return api_err_value(fn, "0", "pidNum", "must be greater than 0");
    return share_pids(fn, shareableHandle, pid, pidNum);
}

aclError api_impl_aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                                    aclrtMemSharedHandleType shareType,
                                                    int32_t *pid, size_t pidNum)
{
    static const char fn[] = "aclrtMemSetPidToShareableHandleV2";
    API_FAULT(ACL_RT_IPC_MEM_EXPORT, fn);
    if (!shareableHandle)
        return api_err_null(fn, "shareableHandle");
    if (!pid)
        return api_err_null(fn, "pid");
    if (pidNum == 0)
        return api_err_value(fn, "0", "pidNum", "must be greater than 0");
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return fabric(fn);
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
        return share_type_bad(fn, shareType);
    return share_pids(fn, *(const uint64_t *)shareableHandle, pid, pidNum);
}
