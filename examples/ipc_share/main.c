/*
 * main.c - two processes sharing device memory by key, as torch_npu shares
 * a tensor's block between processes (and vllm-ascend's IPC weight
 * transfer does).
 *
 * The producer allocates a 2 MB block (ACL_MEM_MALLOC_HUGE_ONLY: an export
 * must start and end on page boundaries), fills it on its stream, records
 * an IPC event after the fill, and exports the block's key with pid
 * validation on: it lists the consumer's pid (which the consumer got from
 * aclrtDeviceGetBareTgid) with aclrtIpcMemSetImportPid. The consumer, on
 * device 1 when there are two (ACLSIM_DEVICE_COUNT=2: an import on another
 * device asks for ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS, as
 * torch_npu's does), on device 0 otherwise, opens the event and makes its stream wait for it, so its
 * copy of the imported bytes comes after the producer's fill; it checks
 * the bytes, writes an answer into the first 4 KB, synchronises, and
 * closes its import. Only then does the producer read the answer, close
 * its export and free the block: the order CANN documents (importer
 * closes, exporter closes, exporter frees).
 *
 * The processes talk through two pipes (the key, the event handle, the
 * pids, "closed"); they could be any two programs passing the same bytes.
 * With IPC_SHARE_MISTAKE=wrongorder the producer closes its export while
 * the consumer still has the key imported, which the allocator sanitizer
 * reports (ipc-order; ACLSIM_ALLOC_CHECK=error exits 25).
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "acl/acl.h"

#define SIZE (2u << 20)
#define ANSWER 4096u

#define CHECK(x)                                                                         \
    do {                                                                                 \
        aclError r_ = (x);                                                               \
        if (r_ != ACL_SUCCESS) {                                                         \
            fprintf(stderr, "%s: %s failed: %d: %s\n", who, #x, r_, aclGetRecentErrMsg()); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

struct offer {
    char key[65];
    aclrtIpcEventHandle filled; /* recorded after the fill */
};

static const char *who = "ipc_share";
static unsigned char host[SIZE];

static int send_all(int fd, const void *p, size_t n)
{
    return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int recv_all(int fd, void *p, size_t n)
{
    return read(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int consumer(int in, int out)
{
    who = "consumer";
    int32_t me = 0;
    struct offer o;
    char word = 0;
    aclrtStream s;
    aclrtEvent filled;
    void *q = NULL;
    uint32_t devices = 0;
    CHECK(aclInit(NULL));
    CHECK(aclrtGetDeviceCount(&devices));
    int32_t dev = devices > 1 ? 1 : 0;
    CHECK(aclrtSetDevice(dev));
    CHECK(aclrtDeviceGetBareTgid(&me));
    if (send_all(out, &me, sizeof me) || recv_all(in, &o, sizeof o))
        return 1;
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtIpcOpenEventHandle(o.filled, &filled));
    /* the block lives on the producer's device 0 */
    CHECK(aclrtIpcMemImportByKey(&q, o.key, dev ? ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS
                                                : ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
    CHECK(aclrtStreamWaitEvent(s, filled));
    CHECK(aclrtMemcpyAsync(host, SIZE, q, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(aclrtMemsetAsync(q, ANSWER, 0xa5, ANSWER, s));
    CHECK(aclrtSynchronizeStream(s));
    for (size_t i = 0; i < SIZE; i++)
        if (host[i] != 0x5a) {
            fprintf(stderr, "consumer: byte %zu is %#x, want 0x5a\n", i, host[i]);
            return 1;
        }
    printf("consumer: imported %u bytes at %p on device %d, all 0x5a; answered in the first %u\n",
           SIZE, q, (int)dev, ANSWER);
    if (getenv("IPC_SHARE_MISTAKE")) { /* hold the import while the producer closes */
        if (send_all(out, "i", 1) || recv_all(in, &word, 1))
            return 1;
    }
    CHECK(aclrtIpcMemClose(o.key));
    if (send_all(out, "c", 1))
        return 1;
    CHECK(aclrtDestroyEvent(filled));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(dev));
    CHECK(aclFinalize());
    return 0;
}

static int producer(int in, int out)
{
    who = "producer";
    int wrong = getenv("IPC_SHARE_MISTAKE") && !strcmp(getenv("IPC_SHARE_MISTAKE"), "wrongorder");
    int32_t peer = 0;
    struct offer o;
    char word = 0;
    aclrtStream s;
    aclrtEvent filled;
    void *p;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMalloc(&p, SIZE, ACL_MEM_MALLOC_HUGE_ONLY));
    CHECK(aclrtMemsetAsync(p, SIZE, 0x5a, SIZE, s));
    CHECK(aclrtCreateEventExWithFlag(&filled, ACL_EVENT_IPC));
    CHECK(aclrtRecordEvent(filled, s));
    CHECK(aclrtIpcGetEventHandle(filled, &o.filled));
    CHECK(aclrtIpcMemGetExportKey(p, SIZE, o.key, sizeof o.key,
                                  ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    if (recv_all(in, &peer, sizeof peer))
        return 1;
    CHECK(aclrtIpcMemSetImportPid(o.key, &peer, 1));
    if (send_all(out, &o, sizeof o) || recv_all(in, &word, 1))
        return 1;
    if (wrong) { /* the mistake: the consumer still has it imported */
        CHECK(aclrtIpcMemClose(o.key));
        if (send_all(out, "g", 1) || recv_all(in, &word, 1))
            return 1;
    }
    /* the consumer closed: its answer is in the block */
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < SIZE; i++)
        if (host[i] != (i < ANSWER ? 0xa5 : 0x5a)) {
            fprintf(stderr, "producer: byte %zu is %#x after the consumer answered\n", i,
                    host[i]);
            return 1;
        }
    printf("producer: exported %s; the consumer's answer is in the block\n", o.key);
    if (!wrong)
        CHECK(aclrtIpcMemClose(o.key));
    CHECK(aclrtFree(p));
    CHECK(aclrtDestroyEvent(filled));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}

int main(void)
{
    int to_consumer[2], to_producer[2];
    if (pipe(to_consumer) || pipe(to_producer))
        return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(to_consumer[1]);
        close(to_producer[0]);
        exit(consumer(to_consumer[0], to_producer[1]));
    }
    close(to_consumer[0]);
    close(to_producer[1]);
    int rc = producer(to_producer[0], to_consumer[1]);
    close(to_consumer[1]);
    close(to_producer[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "ipc_share: the consumer failed (status %d)\n", status);
        rc = rc ? rc : 1;
    }
    if (rc == 0)
        printf("ipc_share: importer closed, exporter closed, exporter freed: done\n");
    return rc;
}
