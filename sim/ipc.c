/*
 * ipc.c - the state events share between processes (ACL_EVENT_IPC; sim.h
 * describes the model). stream.c makes and destroys the events, this file
 * only keeps what they share: it calls nothing of the stream files.
 *
 * The state of an IPC event (the word an event's record sets, queue.h) lives
 * in a page of POSIX shared memory, "/aclsim-ev-<pid>-<n>", with the id of
 * the process that set it last: a time is only meaningful in the timeline
 * of the process that wrote it. Each process maps a page once (a registry
 * counts the events of this process on it), so the events on one page in
 * one process share one state word, and a wait on one of them is released
 * by a record through another. The creator's event unlinks the name when
 * it goes; the page itself goes with the last mapping. The names of a
 * process killed while it had IPC events are unlinked by the next process
 * that creates one (or exports IPC memory: sim_ipc_sweep, ipcmem.c); the
 * pages live on in the processes that still have them open.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/mem.h"
#include "queue.h"

#define PAGE_MAGIC UINT64_C(0x31766576434c4341) /* "ACLCvev1" */

struct ipc_page {
    uint64_t magic;
    _Atomic sim_ps mark;     /* the event's state (queue.h) */
    _Atomic int32_t writer;  /* the process whose timeline mark belongs to */
    int32_t creator;
};

struct sim_ipc {
    char name[SIM_IPC_NAME_MAX];
    struct ipc_page *page;
    unsigned refs;                  /* events of this process on the page */
    const struct sim_event *creator; /* the event that made it, if ours */
    struct sim_ipc *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_ipc *maps;
static unsigned next_name;

bool sim_ipc_mine(const struct sim_ipc *ipc)
{
    return atomic_load_explicit(&ipc->page->writer, memory_order_acquire) == (int32_t)getpid();
}

void sim_ipc_note_writer(struct sim_ipc *ipc)
{
    atomic_store_explicit(&ipc->page->writer, (int32_t)getpid(), memory_order_release);
}

static struct ipc_page *map_fd(int fd)
{
    void *p = mmap(NULL, sizeof(struct ipc_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Add a mapping to the registry. pre: lock held. */
static struct sim_ipc *registered(const char *name, struct ipc_page *page)
{
    struct sim_ipc *m = base_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->page = page;
    m->next = maps;
    maps = m;
    return m;
}

/* Drop a mapping no event of this process uses. pre: lock held. */
static void unregister(struct sim_ipc *m)
{
    for (struct sim_ipc **p = &maps; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    munmap(m->page, sizeof *m->page);
    base_free(m);
}

enum sim_rc sim_ipc_attach_new(struct sim_event *e)
{
    sim_ipc_sweep();
    pthread_mutex_lock(&lock);
    char name[SIM_IPC_NAME_MAX];
    snprintf(name, sizeof name, "/aclsim-ev-%d-%u", (int)getpid(), next_name++);
    enum sim_rc rc = SIM_EHOSTMEM;
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    struct ipc_page *page = NULL;
    if (fd >= 0) {
        if (ftruncate(fd, (off_t)sizeof *page) == 0)
            page = map_fd(fd);
        close(fd);
    }
    struct sim_ipc *m = page ? registered(name, page) : NULL;
    if (m) {
        page->creator = (int32_t)getpid();
        atomic_init(&page->mark, 0);
        atomic_init(&page->writer, page->creator);
        page->magic = PAGE_MAGIC;
        m->refs = 1;
        m->creator = e;
        e->ipc = m;
        e->mark = &page->mark;
        rc = SIM_OK;
    } else {
        if (page)
            munmap(page, sizeof *page);
        if (fd >= 0)
            shm_unlink(name);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void sim_ipc_detach(struct sim_event *e)
{
    struct sim_ipc *m = e->ipc;
    if (!m)
        return;
    pthread_mutex_lock(&lock);
    if (m->creator == e) {
        shm_unlink(m->name); /* no new opens; the page lives on */
        m->creator = NULL;
    }
    e->ipc = NULL;
    e->mark = &e->own;
    if (--m->refs == 0)
        unregister(m);
    pthread_mutex_unlock(&lock);
}

enum sim_rc sim_event_export(const struct sim_event *e, char name[SIM_IPC_NAME_MAX])
{
    if (!e->ipc)
        return SIM_EINVAL;
    pthread_mutex_lock(&lock);
    snprintf(name, SIM_IPC_NAME_MAX, "%s", e->ipc->name);
    pthread_mutex_unlock(&lock);
    return SIM_OK;
}

/* This process's mapping of `name`, mapped now if needed; NULL with *rc.
 * pre: lock held. */
static struct sim_ipc *find_or_map(const char *name, enum sim_rc *rc)
{
    for (struct sim_ipc *m = maps; m; m = m->next)
        if (strcmp(m->name, name) == 0)
            return m;
    *rc = SIM_EINVAL;
    if (strncmp(name, "/aclsim-ev-", 11) != 0 || strchr(name + 1, '/'))
        return NULL;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return NULL;
    struct stat st;
    struct ipc_page *page = NULL;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof *page)
        page = map_fd(fd);
    close(fd);
    if (!page)
        return NULL;
    if (page->magic != PAGE_MAGIC) {
        munmap(page, sizeof *page);
        return NULL;
    }
    struct sim_ipc *m = registered(name, page);
    if (!m) {
        munmap(page, sizeof *page);
        *rc = SIM_EHOSTMEM;
    }
    return m;
}

enum sim_rc sim_ipc_attach_name(struct sim_event *e, const char *name)
{
    pthread_mutex_lock(&lock);
    enum sim_rc rc = SIM_OK;
    struct sim_ipc *m = find_or_map(name, &rc);
    if (m) {
        m->refs++;
        e->ipc = m;
        e->mark = &m->page->mark;
        rc = SIM_OK;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
