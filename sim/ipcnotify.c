/*
 * ipcnotify.c - the state notifies share between processes (IPC notifies:
 * aclrtNotifyGetExportKey, aclrtNotifyImportByKey; sim.h describes the
 * model). queue.c makes, records, waits for and destroys notifies; this
 * file only keeps what an exported one shares, as ipc.c does for events:
 * it calls nothing of the stream files.
 *
 * An exported notify's state lives in a page of POSIX shared memory,
 * "/aclsim-nt-<pid>-<n>" (the key is the name without its slash): whether
 * it is set (a record sets it, a wait consumes it, atomically, in whichever
 * process), the exporter's pid, its export flags and the pids allowed to
 * import it (written by the exporter only). A record in one process
 * releases a wait in another when the waiting process looks at the page
 * (queue.c polls it while a stream of its waits on one). The exporter's
 * destroy unlinks the name (no new imports); the page lives on in the
 * processes that have it mapped. An import is refused when the key names
 * no live export, when the importer is not on the whitelist (unless the
 * export disabled the check), and when the exporter died (its key is
 * dead, as the driver's shared ids die with their process); names of dead
 * exporters are swept (sim_ipc_sweep, ipcmem.c).
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/mem.h"
#include "internal.h"
#include "queue.h"

#define PAGE_MAGIC UINT64_C(0x31746e6e434c4341) /* "ACLCnnt1" */
#define WHITE_MAX 480
#define PREFIX "aclsim-nt-"

struct ntf_page {
    _Atomic uint64_t magic;
    _Atomic uint32_t set;  /* recorded and not consumed by a wait */
    int32_t exporter;      /* pid */
    uint64_t flags;        /* export flags: SIM_NOTIFY_NO_PID_CHECK */
    _Atomic int32_t nwhite;
    int32_t white[WHITE_MAX];
};

struct sim_ntf_ipc {
    char name[SIM_IPC_KEY_MAX + 1]; /* with its slash */
    struct ntf_page *page;
    bool creator;
};

static _Atomic unsigned next_name;

bool sim_ntf_ipc_take(struct sim_ntf_ipc *i)
{
    return atomic_exchange_explicit(&i->page->set, 0, memory_order_acq_rel) != 0;
}

void sim_ntf_ipc_give(struct sim_ntf_ipc *i)
{
    atomic_store_explicit(&i->page->set, 1, memory_order_release);
}

bool sim_ntf_ipc_same(const struct sim_ntf_ipc *a, const struct sim_ntf_ipc *b)
{
    return a && b && a->page == b->page;
}

static struct ntf_page *map_fd(int fd)
{
    void *p = mmap(NULL, sizeof(struct ntf_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

enum sim_rc sim_ntf_ipc_export(bool set, uint64_t flags, struct sim_ntf_ipc **out,
                               char key[SIM_IPC_KEY_MAX])
{
    sim_ipc_sweep();
    struct sim_ntf_ipc *i = base_calloc(1, sizeof *i);
    if (!i)
        return SIM_EHOSTMEM;
    snprintf(i->name, sizeof i->name, "/" PREFIX "%d-%u", (int)getpid(),
             atomic_fetch_add(&next_name, 1));
    int fd = shm_open(i->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (ftruncate(fd, (off_t)sizeof *i->page) == 0)
            i->page = map_fd(fd);
        close(fd);
    }
    if (!i->page) {
        if (fd >= 0)
            shm_unlink(i->name);
        base_free(i);
        return SIM_EHOSTMEM;
    }
    atomic_init(&i->page->set, set ? 1u : 0u);
    i->page->exporter = (int32_t)getpid();
    i->page->flags = flags;
    atomic_init(&i->page->nwhite, 0);
    atomic_store_explicit(&i->page->magic, PAGE_MAGIC, memory_order_release);
    i->creator = true;
    snprintf(key, SIM_IPC_KEY_MAX, "%s", i->name + 1);
    *out = i;
    return SIM_OK;
}

enum sim_rc sim_ntf_ipc_pids(struct sim_ntf_ipc *i, const int32_t *pids, size_t n,
                             const char **why)
{
    int32_t have = atomic_load_explicit(&i->page->nwhite, memory_order_relaxed);
    if ((size_t)(WHITE_MAX - have) < n) {
        *why = "the whitelist is full";
        return SIM_ENOMEM;
    }
    memcpy(i->page->white + have, pids, n * sizeof *pids);
    atomic_store_explicit(&i->page->nwhite, have + (int32_t)n, memory_order_release);
    return SIM_OK;
}

/* Whether this process may import the page. */
static bool allowed(const struct ntf_page *p)
{
    int32_t me = (int32_t)getpid();
    if ((p->flags & SIM_NOTIFY_NO_PID_CHECK) || p->exporter == me)
        return true;
    int32_t n = atomic_load_explicit(&p->nwhite, memory_order_acquire);
    for (int32_t k = 0; k < n && k < WHITE_MAX; k++)
        if (p->white[k] == me)
            return true;
    return false;
}

enum sim_rc sim_ntf_ipc_open(const char *key, struct sim_ntf_ipc **out, const char **why)
{
    static const char none[] = "the key names no live exported notify (never exported, or its "
                               "notify was destroyed)";
    *why = none;
    if (strncmp(key, PREFIX, sizeof PREFIX - 1) != 0 || strnlen(key, SIM_IPC_KEY_MAX) ==
        SIM_IPC_KEY_MAX || strchr(key, '/'))
        return SIM_EINVAL;
    struct sim_ntf_ipc *i = base_calloc(1, sizeof *i);
    if (!i)
        return SIM_EHOSTMEM;
    snprintf(i->name, sizeof i->name, "/%s", key);
    int fd = shm_open(i->name, O_RDWR | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof *i->page)
        i->page = map_fd(fd);
    if (fd >= 0)
        close(fd);
    enum sim_rc rc = SIM_EINVAL;
    if (i->page && atomic_load_explicit(&i->page->magic, memory_order_acquire) == PAGE_MAGIC) {
        if (!sim_pid_alive(i->page->exporter)) {
            *why = "the process that exported the notify has exited: its key died with it";
        } else if (!allowed(i->page)) {
            *why = "this process is not on the notify's whitelist: the exporter must list its pid "
                   "(aclrtDeviceGetBareTgid) with aclrtNotifySetImportPid, or export with "
                   "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION";
            rc = SIM_EPERM;
        } else {
            rc = SIM_OK;
        }
    }
    if (rc != SIM_OK) {
        if (i->page)
            munmap(i->page, sizeof *i->page);
        base_free(i);
        return rc;
    }
    *why = NULL;
    *out = i;
    return SIM_OK;
}

void sim_ntf_ipc_close(struct sim_ntf_ipc *i)
{
    if (!i)
        return;
    if (i->creator)
        shm_unlink(i->name); /* no new imports; the page lives on where mapped */
    munmap(i->page, sizeof *i->page);
    base_free(i);
}
