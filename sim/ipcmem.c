/*
 * ipcmem.c - device memory shared between processes (sim.h describes the
 * model): the shared objects behind IPC keys, their headers (whitelist),
 * this process's exports and imports, the sweep of the shared objects
 * whose creating process died, and shareable handles of physical memory
 * (at the end).
 *
 * An object is one header page, then the exported bytes. The exporter
 * copies the block's bytes in and maps the object's bytes over the block's
 * host view (vaspace.c), so that its copies, fills and operators go on
 * reaching the same bytes; an importer reads the header (pread: touching
 * a fresh mapping of it would cost a page fault, more than the call) and
 * maps the bytes at a fresh range of its address space (vmm.c,
 * sim_vmm_attach). Nothing is copied at import or close.
 *
 * The header is written by the exporter only (size, device, flags, the
 * whitelist). Each import keeps the object open with a shared flock(2),
 * which the kernel drops when the importer closes or dies; the exporter
 * learns whether any import is still open by trying an exclusive one.
 * The key names the object and its size, so an import needs no fstat: one
 * shm_open, one pread, one mmap, one flock; its close one munmap and one
 * close (scons bench: ipc_import_vs_shm).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/mem.h"
#include "heap.h"
#include "internal.h"
#include "vaspace.h"

#define HEAD_BYTES 4096u
#define HEAD_MAGIC UINT64_C(0x31656d73434c4341) /* "ACLCsme1" */
#define WHITE_MAX 480
#define PREFIX "aclsim-mem-"

struct ipc_head {
    _Atomic uint64_t magic;
    uint64_t size;       /* bytes after the header */
    int32_t exporter;    /* pid */
    int32_t dev;         /* the exporter's device */
    uint64_t flags;      /* export flags: bit 0, no pid validation */
    _Atomic int32_t nwhite;
    int32_t white[WHITE_MAX];
};
_Static_assert(sizeof(struct ipc_head) <= HEAD_BYTES, "the header fits its page");

struct entry {
    struct sim_ipc_info info;
    struct ipc_head *head; /* an export's, mapped */
    int fd; /* the object, open: an import holds a shared flock on it */
    struct entry *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries; /* newest first */
static unsigned next_name;
static int32_t me; /* getpid(), kept: an import asks for it */

static void forked(void)
{
    me = (int32_t)getpid();
}

__attribute__((constructor)) static void ipcmem_load(void)
{
    me = (int32_t)getpid();
    pthread_atfork(NULL, NULL, forked);
}

bool sim_pid_alive(int32_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

void sim_ipc_sweep(void)
{
    DIR *dir = opendir("/dev/shm");
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *rest = NULL;
        if (strncmp(e->d_name, PREFIX, sizeof PREFIX - 1) == 0)
            rest = e->d_name + sizeof PREFIX - 1;
        else if (strncmp(e->d_name, "aclsim-ev-", 10) == 0 ||
                 strncmp(e->d_name, "aclsim-nt-", 10) == 0 ||
                 strncmp(e->d_name, "aclsim-vmm-", 11) == 0)
            rest = strchr(e->d_name + 7, '-') + 1;
        char *end = NULL;
        long pid = rest ? strtol(rest, &end, 10) : 0;
        if (rest && end != rest && *end == '-' && pid > 0 && !sim_pid_alive((int32_t)pid)) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(dir);
}

/* This process's entry of key in role (0: either, imports first); NULL.
 * pre: lock held. */
static struct entry **find(const char *key, int role)
{
    for (int pass = 0; pass < 2; pass++) {
        int want = pass == 0 ? SIM_IPC_IMPORTED : SIM_IPC_EXPORTED;
        if (role && role != want)
            continue;
        for (struct entry **p = &entries; *p; p = &(*p)->next)
            if ((*p)->info.role == want && strcmp((*p)->info.key, key) == 0)
                return p;
    }
    return NULL;
}

/* Whether an import of the exported object fd is open (1) or not (0). */
static unsigned importers(int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return errno == EWOULDBLOCK ? 1 : 0;
    flock(fd, LOCK_UN);
    return 0;
}

static bool overlaps(const void *p, uint64_t n, const struct sim_ipc_info *i)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)i->ptr;
    return a < b + i->size && b < a + (n ? n : 1);
}

/* The checks of an export: [ptr, ptr+size) inside one live block, on page
 * boundaries of its kind. The block ends where the driver's allocation
 * does (svm_ipc.c svm_ipc_create_handle L313-317: va + size past the
 * allocation's start + size is refused): the usable bytes and the
 * runtime's padding, not the heap's rounding to pages. *dev its device. */
static enum sim_rc export_range(void *ptr, uint64_t size, int32_t *dev, const char **why)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d) {
        *why = "devPtr is not device memory of an open device";
        return SIM_EINVAL;
    }
    uint64_t start, bytes, off = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    uint32_t tag;
    enum sim_heap_rc rc = sim_heap_lookup(d->heap, off, &start, &bytes, &tag);
    uint64_t padding = atomic_load_explicit(&d->padding, memory_order_relaxed);
    *dev = sim_dev_id(d);
    sim_lock_give(&d->lock);
    if (rc != SIM_HEAP_OK || (tag & 3) == 3) {
        *why = "devPtr is not inside a live block of aclrtMalloc";
        return SIM_EINVAL;
    }
    uint64_t page = sim_page_bytes((enum sim_page)(tag & 3));
    if (off % page || size % HEAD_BYTES) {
        *why = "the range does not start and end on a page boundary of its block (a small "
               "aclrtMalloc block shares its pages: allocate at least 4 KB, or with "
               "ACL_MEM_MALLOC_HUGE_FIRST or ACL_MEM_MALLOC_HUGE_ONLY)";
        return SIM_EINVAL;
    }
    uint64_t end = bytes - (tag >> 2) + padding; /* from the block's start */
    if (end > bytes)
        end = bytes;
    if (off - start > end || size > end - (off - start)) {
        *why = "the range runs past the end of its block";
        return SIM_EINVAL;
    }
    return SIM_OK;
}

/* Create the object of an export of [ptr, ptr+size): its name in key, the
 * bytes copied in, its header mapped in *head. */
static enum sim_rc create_object(struct sim_dev *d, void *ptr, uint64_t size, uint64_t flags,
                                 char key[SIM_IPC_KEY_MAX], struct ipc_head **head, int *kept)
{
    char name[SIM_IPC_KEY_MAX + 1];
    snprintf(key, SIM_IPC_KEY_MAX, PREFIX "%d-%u-%llu", (int)me, next_name++,
             (unsigned long long)(size / HEAD_BYTES));
    snprintf(name, sizeof name, "/%s", key);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return SIM_EHOSTMEM;
    enum sim_rc rc = ftruncate(fd, (off_t)(HEAD_BYTES + size)) == 0 ? SIM_OK : SIM_EHOSTMEM;
    for (uint64_t done = 0, n = 0; rc == SIM_OK && done < size; done += n) {
        const char *h = sim_vaspace_span(d->vs, (uint64_t)(uintptr_t)ptr + done, size - done, &n);
        if (!h || pwrite(fd, h, (size_t)n, (off_t)(HEAD_BYTES + done)) != (ssize_t)n)
            rc = SIM_EHOSTMEM;
    }
    void *m = rc == SIM_OK ? mmap(NULL, HEAD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                           : MAP_FAILED;
    int shared = -1;
    if (m != MAP_FAILED) {
        sim_views_exclusive(d);
        shared = sim_vaspace_share(d->vs, (uint64_t)(uintptr_t)ptr, size, fd, HEAD_BYTES);
        sim_views_shared(d);
    }
    if (m == MAP_FAILED || shared != 0) {
        if (m != MAP_FAILED)
            munmap(m, HEAD_BYTES);
        close(fd);
        shm_unlink(name);
        return SIM_EHOSTMEM;
    }
    *kept = fd;
    struct ipc_head *h = m;
    h->size = size;
    h->exporter = me;
    h->dev = sim_dev_id(d);
    h->flags = flags;
    atomic_store_explicit(&h->nwhite, 0, memory_order_relaxed);
    atomic_store_explicit(&h->magic, HEAD_MAGIC, memory_order_release);
    *head = h;
    return SIM_OK;
}

enum sim_rc sim_ipc_mem_export(void *ptr, uint64_t size, uint64_t flags,
                               char key[SIM_IPC_KEY_MAX], const char **why)
{
    int32_t dev = 0;
    *why = NULL;
    enum sim_rc rc = export_range(ptr, size, &dev, why);
    if (rc != SIM_OK)
        return rc;
    struct entry *e = base_calloc(1, sizeof *e);
    if (!e)
        return SIM_EHOSTMEM;
    sim_ipc_sweep();
    pthread_mutex_lock(&lock);
    for (struct entry *x = entries; x; x = x->next)
        if (x->info.role == SIM_IPC_EXPORTED && overlaps(ptr, size, &x->info)) {
            pthread_mutex_unlock(&lock);
            base_free(e);
            *why = "the range overlaps a range this process exported already (one key per range)";
            return SIM_EINVAL;
        }
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    rc = d ? create_object(d, ptr, size, flags, e->info.key, &e->head, &e->fd) : SIM_EINVAL;
    if (d)
        sim_lock_give(&d->lock);
    if (rc == SIM_OK) {
        e->info.role = SIM_IPC_EXPORTED;
        e->info.ptr = ptr;
        e->info.size = size;
        e->info.dev = dev;
        e->next = entries;
        entries = e;
        memcpy(key, e->info.key, SIM_IPC_KEY_MAX);
    }
    pthread_mutex_unlock(&lock);
    if (rc != SIM_OK)
        base_free(e);
    return rc;
}

enum sim_rc sim_ipc_mem_set_pids(const char *key, const int32_t *pids, size_t n, const char **why)
{
    pthread_mutex_lock(&lock);
    struct entry **p = find(key, SIM_IPC_EXPORTED);
    enum sim_rc rc = SIM_OK;
    if (!p) {
        *why = "the key names no memory this process exported (never exported here, or closed)";
        rc = SIM_EINVAL;
    } else {
        struct ipc_head *h = (*p)->head;
        int32_t have = atomic_load_explicit(&h->nwhite, memory_order_relaxed);
        if ((size_t)(WHITE_MAX - have) < n) {
            *why = "the whitelist is full";
            rc = SIM_ENOMEM;
        } else {
            memcpy(h->white + have, pids, n * sizeof *pids);
            atomic_store_explicit(&h->nwhite, have + (int32_t)n, memory_order_release);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Whether this process may import the object fd, whose header's first
 * part is h (the whitelist is read only when needed). */
static bool allowed(int fd, const struct ipc_head *h)
{
    if ((h->flags & 1) || h->exporter == me)
        return true;
    int32_t n = atomic_load_explicit(&h->nwhite, memory_order_relaxed), white[WHITE_MAX];
    n = n < 0 ? 0 : n > WHITE_MAX ? WHITE_MAX : n;
    ssize_t want = (ssize_t)((size_t)n * sizeof *white);
    if (pread(fd, white, (size_t)want, (off_t)offsetof(struct ipc_head, white)) != want)
        return false;
    for (int32_t i = 0; i < n; i++)
        if (white[i] == me)
            return true;
    return false;
}

/* The checks of an import, on the mapped header. */
static enum sim_rc import_check(int32_t dev, int fd, uint64_t size, bool peer,
                                const char **why)
{
    struct ipc_head h;
    size_t first = offsetof(struct ipc_head, white);
    if (pread(fd, &h, first, 0) != (ssize_t)first ||
        atomic_load_explicit(&h.magic, memory_order_relaxed) != HEAD_MAGIC || h.size != size ||
        !sim_pid_alive(h.exporter)) { /* killed before its close or a sweep */
        *why = "the key names no live export (never exported, closed by its exporter, or its "
               "exporter died)";
        return SIM_EINVAL;
    }
    if (!allowed(fd, &h)) {
        *why = "this process is not on the key's whitelist: the exporter must list its pid "
               "(aclrtDeviceGetBareTgid) with aclrtIpcMemSetImportPid, or export with "
               "ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION";
        return SIM_EPERM;
    }
    if (h.dev != dev && !peer) {
        *why = "the memory is on another device than the importer's: import with "
               "ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS";
        return SIM_EUNSUPPORTED;
    }
    return SIM_OK;
}

/* Open the object of key: its fd and data size (the key's last number,
 * in pages; the header says it again), or -1. */
static int open_object(const char *key, uint64_t *size)
{
    char name[SIM_IPC_KEY_MAX + 1];
    size_t n = strnlen(key, SIM_IPC_KEY_MAX);
    const char *last = n < SIM_IPC_KEY_MAX ? strrchr(key, '-') : NULL;
    char *end = NULL;
    unsigned long long pages = last ? strtoull(last + 1, &end, 10) : 0;
    if (!last || *end || !pages || pages > (UINT64_C(1) << 34) ||
        strncmp(key, PREFIX, sizeof PREFIX - 1) != 0 || strchr(key, '/'))
        return -1;
    snprintf(name, sizeof name, "/%s", key);
    *size = pages * HEAD_BYTES;
    return shm_open(name, O_RDWR | O_CLOEXEC, 0);
}

enum sim_rc sim_ipc_mem_import(int32_t dev, const char *key, bool peer, void **ptr,
                               const char **why)
{
    uint64_t size = 0;
    void *va = NULL;
    *why = NULL;
    struct entry *e = base_calloc(1, sizeof *e);
    if (!e)
        return SIM_EHOSTMEM;
    int fd = open_object(key, &size);
    enum sim_rc rc = fd >= 0 ? import_check(dev, fd, size, peer, why) : SIM_EINVAL;
    if (fd < 0)
        *why = "the key names no live export (never exported, closed by its exporter, or its "
               "exporter died)";
    /* the header said the object holds size bytes after it */
    if (rc == SIM_OK)
        rc = sim_vmm_attach(dev, fd, HEAD_BYTES, size, &va);
    if (rc == SIM_OK && flock(fd, LOCK_SH) != 0)
        rc = SIM_EHOSTMEM;
    if (rc != SIM_OK) {
        if (va)
            sim_vmm_detach(va);
        if (fd >= 0)
            close(fd);
        base_free(e);
        return rc;
    }
    e->fd = fd;
    snprintf(e->info.key, sizeof e->info.key, "%s", key);
    e->info.role = SIM_IPC_IMPORTED;
    e->info.ptr = va;
    e->info.size = size;
    e->info.dev = dev;
    pthread_mutex_lock(&lock);
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&lock);
    *ptr = va;
    return SIM_OK;
}

/* Undo an export: the name goes, the block's bytes become its own again. */
static void unexport(struct entry *e)
{
    char name[SIM_IPC_KEY_MAX + 1];
    snprintf(name, sizeof name, "/%s", e->info.key);
    shm_unlink(name);
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)e->info.ptr);
    if (d) {
        sim_views_exclusive(d);
        sim_vaspace_unshare(d->vs, (uint64_t)(uintptr_t)e->info.ptr, e->info.size,
                            SIM_VASPACE_KEEP);
        sim_views_shared(d);
        sim_lock_give(&d->lock);
    }
    munmap(e->head, HEAD_BYTES);
}

enum sim_rc sim_ipc_mem_close(const char *key, int role, struct sim_ipc_info *out,
                              const char **why)
{
    *why = NULL;
    pthread_mutex_lock(&lock);
    struct entry **p = find(key, role), *e = p ? *p : NULL;
    if (e)
        *p = e->next;
    pthread_mutex_unlock(&lock);
    if (!e) {
        *why = "the key names no memory this process imported or exported (never, or closed "
               "already)";
        return SIM_EINVAL;
    }
    *out = e->info;
    if (e->info.role == SIM_IPC_IMPORTED) {
        sim_vmm_detach(e->info.ptr); /* fails if its device closed meanwhile */
    } else {
        out->importers = importers(e->fd);
        unexport(e);
    }
    close(e->fd);
    base_free(e);
    return SIM_OK;
}

bool sim_ipc_mem_find(const void *p, uint64_t n, int role, struct sim_ipc_info *out)
{
    pthread_mutex_lock(&lock);
    struct entry *e = entries;
    while (e && (!overlaps(p, n, &e->info) || (role && e->info.role != role)))
        e = e->next;
    if (e) {
        *out = e->info;
        out->importers = e->info.role == SIM_IPC_EXPORTED ? importers(e->fd) : 0;
    }
    pthread_mutex_unlock(&lock);
    return e != NULL;
}

static void handles_drop(int32_t dev);

void sim_ipc_mem_drop(int32_t dev)
{
    handles_drop(dev);
    pthread_mutex_lock(&lock);
    struct entry **p = &entries;
    while (*p) {
        struct entry *e = *p;
        if (e->info.dev != dev) {
            p = &e->next;
            continue;
        }
        *p = e->next;
        if (e->info.role == SIM_IPC_EXPORTED) {
            char name[SIM_IPC_KEY_MAX + 1];
            snprintf(name, sizeof name, "/%s", e->info.key);
            shm_unlink(name);
            munmap(e->head, HEAD_BYTES);
            /* the range's next block must not share the object's bytes */
            struct sim_dev *d = sim_dev_get(dev);
            sim_vaspace_unshare(d->vs, (uint64_t)(uintptr_t)e->info.ptr, e->info.size,
                                SIM_VASPACE_ZERO);
        } /* an import's view goes with the device's mappings (vmm.c) */
        close(e->fd);
        base_free(e);
    }
    pthread_mutex_unlock(&lock);
}

size_t sim_ipc_mem_each(void (*fn)(const struct sim_ipc_info *i, void *user), void *user)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e; e = e->next, n++)
        fn(&e->info, user);
    pthread_mutex_unlock(&lock);
    return n;
}

/* ---- shareable handles of physical memory ----
 *
 * A shareable handle is (exporter's pid << 32) | n; "/aclsim-vmm-<pid>-<n>"
 * is a header page saying where the bytes are: the exporter's device memfd
 * (vmm.c keeps all physical memory of a device in one), the offset and
 * size there, and the whitelist. An importer opens that memfd through
 * /proc/<pid>/fd/<fd>, read-locks its bytes (F_OFD_SETLK: the exporter's
 * free keeps the bytes while a lock is held) and adopts them as a handle
 * of its own device (vmm.c, sim_vmm_phys_adopt), mapped with aclrtMapMem. */

#define VHEAD_MAGIC UINT64_C(0x31686d76434c4341) /* "ACLCvmh1" */

struct vhead {
    uint64_t magic;
    int32_t exporter, fd, dev, page;
    uint64_t off, bytes, size, flags;
    int32_t nwhite;
    int32_t white[WHITE_MAX];
};
_Static_assert(sizeof(struct vhead) <= HEAD_BYTES, "the header fits its page");

struct hexport {
    uint64_t shareable;
    void *handle; /* the exporter's physical handle */
    int32_t dev;
    struct vhead *head;
    struct hexport *next;
};

static struct hexport *hexports;
static unsigned next_handle = 1;

static void vname(uint64_t shareable, char *name, size_t n)
{
    snprintf(name, n, "/aclsim-vmm-%u-%u", (unsigned)(shareable >> 32),
             (unsigned)(shareable & 0xffffffffu));
}

enum sim_rc sim_ipc_handle_export(void *handle, uint64_t flags, uint64_t *shareable,
                                  const char **why)
{
    struct sim_phys_share sh;
    *why = NULL;
    struct hexport *x = base_calloc(1, sizeof *x);
    if (!x)
        return SIM_EHOSTMEM;
    enum sim_rc rc = sim_vmm_phys_share(handle, &sh, why);
    if (rc != SIM_OK) {
        base_free(x);
        return rc;
    }
    sim_ipc_sweep();
    pthread_mutex_lock(&lock);
    x->shareable = ((uint64_t)(uint32_t)me << 32) | next_handle++;
    x->handle = handle;
    x->dev = sh.dev;
    char name[64];
    vname(x->shareable, name, sizeof name);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    void *m = fd >= 0 && ftruncate(fd, HEAD_BYTES) == 0
                  ? mmap(NULL, HEAD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED) {
        if (fd >= 0)
            shm_unlink(name);
        pthread_mutex_unlock(&lock);
        base_free(x);
        return SIM_EHOSTMEM;
    }
    x->head = m;
    *x->head = (struct vhead){VHEAD_MAGIC, me, sh.fd, sh.dev, (int32_t)sh.page, sh.off, sh.bytes,
                              sh.size, flags, 0, {0}};
    x->next = hexports;
    hexports = x;
    *shareable = x->shareable;
    pthread_mutex_unlock(&lock);
    return SIM_OK;
}

void sim_ipc_handle_forget(void *handle)
{
    pthread_mutex_lock(&lock);
    for (struct hexport **p = &hexports; *p; p = &(*p)->next) {
        struct hexport *x = *p;
        if (x->handle != handle)
            continue;
        *p = x->next;
        char name[64];
        vname(x->shareable, name, sizeof name);
        shm_unlink(name); /* later imports find no live export; made ones keep their bytes */
        munmap(x->head, HEAD_BYTES);
        base_free(x);
        break;
    }
    pthread_mutex_unlock(&lock);
}

enum sim_rc sim_ipc_handle_set_pids(uint64_t shareable, const int32_t *pids, size_t n,
                                    const char **why)
{
    enum sim_rc rc = SIM_EINVAL;
    *why = "the shareable handle was not exported by this process";
    pthread_mutex_lock(&lock);
    for (struct hexport *x = hexports; x; x = x->next)
        if (x->shareable == shareable) {
            struct vhead *h = x->head;
            if ((size_t)(WHITE_MAX - h->nwhite) < n) {
                *why = "the whitelist is full";
                rc = SIM_ENOMEM;
            } else {
                memcpy(h->white + h->nwhite, pids, n * sizeof *pids);
                h->nwhite += (int32_t)n;
                rc = SIM_OK;
                *why = NULL;
            }
            break;
        }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Open the exporter's memfd of h and read-lock its bytes: the fd, or -1. */
static int open_bytes(const struct vhead *h)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h->exporter, (int)h->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct flock l = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = (off_t)h->off,
                      .l_len = (off_t)h->bytes};
    if (fd >= 0 && fcntl(fd, F_OFD_SETLK, &l) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

enum sim_rc sim_ipc_handle_import(uint64_t shareable, int32_t dev, void **handle,
                                  const char **why)
{
    char name[64];
    struct vhead h;
    *why = "the shareable handle names no live export (never exported, or its exporter's "
           "device closed or the exporter died)";
    if ((int32_t)(shareable >> 32) == me) {
        *why = "the shareable handle was exported by this process: import in the exporting "
               "process is not supported";
        return SIM_EUNSUPPORTED;
    }
    vname(shareable, name, sizeof name);
    int mfd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
    if (mfd < 0)
        return SIM_EINVAL;
    ssize_t got = pread(mfd, &h, sizeof h, 0);
    close(mfd);
    if (got != (ssize_t)sizeof h || h.magic != VHEAD_MAGIC)
        return SIM_EINVAL;
    bool ok = (h.flags & 1) != 0;
    for (int32_t i = 0; !ok && i < h.nwhite && i < WHITE_MAX; i++)
        ok = h.white[i] == me;
    if (!ok) {
        *why = "this process is not on the shareable handle's whitelist: the exporter must list "
               "its pid with aclrtMemSetPidToShareableHandle, or export with "
               "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION";
        return SIM_EPERM;
    }
    int fd = open_bytes(&h);
    if (fd < 0)
        return SIM_EINVAL;
    struct sim_phys_share s = {fd, h.off, h.bytes, h.size, (enum sim_page)h.page, h.dev};
    *why = NULL;
    return sim_vmm_phys_adopt(dev, fd, &s, handle);
}

static void handles_drop(int32_t dev)
{
    pthread_mutex_lock(&lock);
    for (struct hexport **p = &hexports; *p;) {
        struct hexport *x = *p;
        if (x->dev != dev) {
            p = &x->next;
            continue;
        }
        *p = x->next;
        char name[64];
        vname(x->shareable, name, sizeof name);
        shm_unlink(name);
        munmap(x->head, HEAD_BYTES);
        base_free(x);
    }
    pthread_mutex_unlock(&lock);
}
