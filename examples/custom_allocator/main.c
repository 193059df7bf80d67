/*
 * main.c - CANN's 0_custom_allocator sample, in C.
 *
 * A program hands its own allocator to the runtime: it describes the
 * allocator (an object plus alloc, free, alloc-advise and get-address
 * callbacks) in a desc, registers the desc on a stream, looks the
 * allocator up again by stream and drives it through the callbacks it got
 * back, then unregisters and tears everything down. Same flow and output
 * as the sample (example/3_memory_advanced/allocator/0_custom_allocator);
 * on failure it prints an error line and the runtime's message, releases
 * what it built, and exits 1 (the C++ sample returns -1 and leaks instead).
 *
 * With the argument --operator it also runs an Add on the stream, as a
 * framework would once its allocator is registered: the single-op executor
 * then takes its blocks from this allocator, whose blocks are host memory
 * (malloc), and the allocator sanitizer reports it (host-memory). That is
 * what `scons demo` shows.
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_op.h"
#include "acl/acl_rt_allocator.h"

#include <stdarg.h>

/* The sample's utils.h logs to stdout as "[INFO]  text" / "[ERROR]  text". */
static void log_line(const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(tag, stdout);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
}
#define INFO_LOG(...) log_line("[INFO]  ", __VA_ARGS__)
#define ERROR_LOG(...) log_line("[ERROR]  ", __VA_ARGS__)

static void print_recent_error(void)
{
    const char *msg = aclGetRecentErrMsg();
    if (msg)
        ERROR_LOG("%s", msg);
}

/* The sample's CHECK_ERROR, but instead of returning (and leaking what was
 * built so far) it jumps to the teardown of what exists. */
#define CHECK_ERROR(call)                                                              \
    do {                                                                               \
        aclError err_ = (call);                                                        \
        if (err_ != ACL_SUCCESS) {                                                     \
            ERROR_LOG("Operation failed: %s returned error code %d", #call, (int)err_); \
            print_recent_error();                                                      \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

#define CHECK_NOT_NULL(ptr, name)                                                      \
    do {                                                                               \
        if ((ptr) == NULL) {                                                           \
            ERROR_LOG("%s is nullptr", name);                                          \
            print_recent_error();                                                      \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

struct custom_block {
    void *addr;
    size_t size;
};

struct custom_allocator_state {
    uint32_t alloc_count;
    uint32_t free_count;
};

static void *custom_alloc(aclrtAllocator allocator, size_t size)
{
    struct custom_allocator_state *state = allocator;
    struct custom_block *block = malloc(sizeof *block);
    if (block == NULL)
        return NULL;
    block->addr = malloc(size);
    if (block->addr == NULL) {
        free(block);
        return NULL;
    }
    block->size = size;
    if (state != NULL)
        state->alloc_count++;
    INFO_LOG("CustomAlloc size=%zu", size);
    return block;
}

static void custom_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    struct custom_allocator_state *state = allocator;
    struct custom_block *b = block;
    if (b != NULL) {
        free(b->addr);
        free(b);
    }
    if (state != NULL)
        state->free_count++;
    INFO_LOG("CustomFree invoked");
}

static void *custom_alloc_advise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)addr; /* the hint is ignored: allocate as usual */
    INFO_LOG("CustomAllocAdvise size=%zu", size);
    return custom_alloc(allocator, size);
}

static void *custom_get_addr_from_block(aclrtAllocatorBlock block)
{
    const struct custom_block *b = block;
    return b == NULL ? NULL : b->addr;
}

/* Drive the allocator registered on `stream` through its callbacks. */
static int use_allocator(aclrtStream stream, struct custom_allocator_state *state)
{
    aclrtAllocatorDesc desc_out = NULL;
    aclrtAllocator allocator_out = NULL;
    aclrtAllocatorAllocFunc alloc_func = NULL;
    aclrtAllocatorFreeFunc free_func = NULL;
    aclrtAllocatorAllocAdviseFunc alloc_advise_func = NULL;
    aclrtAllocatorGetAddrFromBlockFunc get_addr_func = NULL;
    aclrtAllocatorBlock block = NULL;
    CHECK_ERROR(aclrtAllocatorGetByStream(stream, &desc_out, &allocator_out, &alloc_func,
                                          &free_func, &alloc_advise_func, &get_addr_func));
    CHECK_NOT_NULL(alloc_func, "allocFunc");
    CHECK_NOT_NULL(free_func, "freeFunc");
    CHECK_NOT_NULL(get_addr_func, "getAddrFromBlockFunc");

    block = alloc_func(allocator_out, 256);
    CHECK_NOT_NULL(block, "block");
    void *addr = get_addr_func(block);
    CHECK_NOT_NULL(addr, "addr");
    memset(addr, 0xAB, 256);
    if (alloc_advise_func != NULL) {
        aclrtAllocatorBlock advised = alloc_advise_func(allocator_out, 128, NULL);
        if (advised != NULL)
            free_func(allocator_out, advised);
    }
    free_func(allocator_out, block);
    INFO_LOG("Allocator desc queried: descOut=%p allocCount=%u freeCount=%u", desc_out,
             state->alloc_count, state->free_count);
    return 0;
fail:
    if (block != NULL && free_func != NULL)
        free_func(allocator_out, block);
    return -1;
}

/* An Add of 256 floats on stream, its tensors in device memory: the
 * executor asks the stream's allocator for its blocks. */
static int run_operator(aclrtStream stream)
{
    int64_t dims[1] = {256};
    void *dev = NULL;
    int rc = -1;
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    aclDataBuffer *buf = NULL;
    CHECK_NOT_NULL(td, "aclCreateTensorDesc");
    CHECK_ERROR(aclrtMalloc(&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemset(dev, 1024, 0, 1024));
    buf = aclCreateDataBuffer(dev, 1024);
    CHECK_NOT_NULL(buf, "aclCreateDataBuffer");
    aclTensorDesc *in[2] = {td, td};
    aclDataBuffer *ib[2] = {buf, buf};
    CHECK_ERROR(aclopExecuteV2("Add", 2, in, ib, 1, &td, &buf, NULL, stream));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    INFO_LOG("Add executed on the stream with the custom allocator");
    rc = 0;
fail:
    aclDestroyDataBuffer(buf);
    aclDestroyTensorDesc(td);
    if (dev != NULL)
        aclrtFree(dev);
    return rc;
}

int main(int argc, char **argv)
{
    int32_t device_id = 0;
    int inited = 0, device_set = 0, registered = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    aclrtAllocatorDesc desc = NULL;
    struct custom_allocator_state state = {0, 0};

    CHECK_ERROR(aclInit(NULL));
    inited = 1;
    CHECK_ERROR(aclrtSetDevice(device_id));
    device_set = 1;
    CHECK_ERROR(aclrtCreateContext(&context, device_id));
    CHECK_ERROR(aclrtCreateStream(&stream));

    desc = aclrtAllocatorCreateDesc();
    CHECK_NOT_NULL(desc, "aclrtAllocatorCreateDesc");
    CHECK_ERROR(aclrtAllocatorSetObjToDesc(desc, (aclrtAllocator)&state));
    CHECK_ERROR(aclrtAllocatorSetAllocFuncToDesc(desc, custom_alloc));
    CHECK_ERROR(aclrtAllocatorSetFreeFuncToDesc(desc, custom_free));
    CHECK_ERROR(aclrtAllocatorSetAllocAdviseFuncToDesc(desc, custom_alloc_advise));
    CHECK_ERROR(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, custom_get_addr_from_block));
    CHECK_ERROR(aclrtAllocatorRegister(stream, desc));
    registered = 1;

    if (use_allocator(stream, &state) != 0)
        goto fail;
    if (argc > 1 && strcmp(argv[1], "--operator") == 0 && run_operator(stream) != 0)
        goto fail;

    CHECK_ERROR(aclrtAllocatorUnregister(stream));
    registered = 0;
    CHECK_ERROR(aclrtAllocatorDestroyDesc(desc));
    desc = NULL;
    CHECK_ERROR(aclrtDestroyStream(stream));
    stream = NULL;
    CHECK_ERROR(aclrtDestroyContext(context));
    context = NULL;
    CHECK_ERROR(aclrtResetDeviceForce(device_id));
    device_set = 0;
    CHECK_ERROR(aclFinalize());
    return 0;

fail:
    /* Tear down whatever exists, best effort, then fail. */
    if (registered)
        aclrtAllocatorUnregister(stream);
    if (desc != NULL)
        aclrtAllocatorDestroyDesc(desc);
    if (stream != NULL)
        aclrtDestroyStream(stream);
    if (context != NULL)
        aclrtDestroyContext(context);
    if (device_set)
        aclrtResetDeviceForce(device_id);
    if (inited)
        aclFinalize();
    (void)aclGetRecentErrMsg();
    return EXIT_FAILURE;
}
