/*
 * bench_ipc.c - importing device memory shared between processes, against
 * what the operating system must do for it, in one process.
 *
 * Prints "name value" lines:
 *   ipc_import_close_ns  one aclrtIpcMemImportByKey + aclrtIpcMemClose of a
 *                        2 MB key (the exporter's own: the import's work is
 *                        the same in any process)
 *   ipc_import_vs_shm    that pair / a bare shm_open + mmap + munmap + close
 *                        of a 2 MB POSIX shared memory object (the floor:
 *                        an import must at least open and map the bytes)
 * Every time is the best of several runs, the sides taking turns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "acl/acl.h"
#include "bench.h"

#define SIZE ((size_t)2 << 20)
#define CYCLES 4000

static char key[65];
static char floor_name[64];

static double import_close(void)
{
    double t = now();
    for (int i = 0; i < CYCLES; i++) {
        void *q;
        check(aclrtIpcMemImportByKey(&q, key, 0), "aclrtIpcMemImportByKey");
        sink = q;
        check(aclrtIpcMemClose(key), "aclrtIpcMemClose");
    }
    return (now() - t) / CYCLES;
}

static double shm_floor(void)
{
    double t = now();
    for (int i = 0; i < CYCLES; i++) {
        int fd = shm_open(floor_name, O_RDWR, 0);
        void *m = fd >= 0 ? mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                          : MAP_FAILED;
        if (m == MAP_FAILED) {
            fprintf(stderr, "bench_ipc: shm_open/mmap failed\n");
            exit(1);
        }
        sink = m;
        munmap(m, SIZE);
        close(fd);
    }
    return (now() - t) / CYCLES;
}

int main(void)
{
    void *p;
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtMalloc(&p, SIZE, ACL_MEM_MALLOC_HUGE_ONLY), "aclrtMalloc");
    check(aclrtMemset(p, SIZE, 0x5a, SIZE), "aclrtMemset");
    check(aclrtIpcMemGetExportKey(p, SIZE, key, sizeof key,
                                  ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION),
          "aclrtIpcMemGetExportKey");
    snprintf(floor_name, sizeof floor_name, "/aclsim-bench-floor-%d", (int)getpid());
    int fd = shm_open(floor_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)SIZE) != 0) {
        fprintf(stderr, "bench_ipc: cannot create %s\n", floor_name);
        return 1;
    }
    close(fd);
    double (*const f[])(void) = {import_close, shm_floor};
    double b[2];
    best_of(f, b, 2);
    shm_unlink(floor_name);
    printf("ipc_import_close_ns %.3f\n", b[0] * 1e9);
    printf("ipc_import_vs_shm %.3f\n", b[0] / b[1]);
    check(aclrtIpcMemClose(key), "aclrtIpcMemClose");
    check(aclrtFree(p), "aclrtFree");
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
