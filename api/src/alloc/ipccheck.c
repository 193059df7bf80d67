/*
 * ipccheck.c - the allocator sanitizer's check of device memory shared
 * between processes (ipc-order): the order CANN documents for an IPC key
 * (aclrtIpcMemClose in the API reference, and its sample
 * example/1_basic_features/memory/10_ipc_memory_withpid: the importer
 * closes first, then the exporter closes, then the exporter frees; any
 * other order "may cause exceptions"), as far as the exporting process
 * can see it: whether an importer still holds the key is the backend's
 * answer (sim/ipcmem.c: a shared flock each open import holds).
 */
#include "alloc.h"
#include "internal.h"

void api_check_ipc_order(const char *func, const void *p, size_t n, const char *key,
                         unsigned importers, bool freeing)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    const void *end = (const char *)p + n;
    api_rep_begin(API_REP_IPC_ORDER);
    if (freeing)
        api_rep_line(true, "allocator check (ipc-order): %s(%p) frees [%p, %p), exported as IPC "
                     "key %s, before aclrtIpcMemClose(%s) closed the export", func, p, p, end,
                     key, key);
    else
        api_rep_line(true, "allocator check (ipc-order): %s(%s) closes the export of [%p, %p) "
                     "while an import of it is still open", func, key, p, end);
    if (importers)
        api_rep_line(false, "an import of the key (in another process, or this one) has not been "
                     "closed: it keeps reading and writing the shared bytes, which are no longer "
                     "this block's");
    api_rep_line(false, "fix: the documented order is: each importer calls aclrtIpcMemClose "
                 "(after synchronising its work on the memory), then the exporter calls "
                 "aclrtIpcMemClose, then aclrtFree; order the processes with an IPC event "
                 "(ACL_EVENT_IPC) or your own channel");
    api_rep_fact("key", "%s", key);
    api_rep_range(p, n);
    san_here(freeing ? "the free was called at" : "the close was called at");
    san_count(API_REP_IPC_ORDER);
}
