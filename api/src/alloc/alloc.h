/*
 * alloc.h - the contract of api/src/alloc/, the custom-allocator API and
 * what watches it: descs and their registration (allocator.c), the
 * stream -> allocator registry (registry.c), and the allocator sanitizer
 * (sanitizer.c, ACLSIM_ALLOC_CHECK) that the memory calls and the executor
 * report their accesses to.
 *
 * alloc/ includes diag/ and rt/ (the graphs captures made) and nothing else
 * of api/src: the folders above it (mem/, op/) call it, never the reverse.
 */
#ifndef ACLSIM_API_ALLOC_ALLOC_H_
#define ACLSIM_API_ALLOC_ALLOC_H_

#include "diag/diag.h"
#include "rt/rt.h"

/* ---- registry.c: stream -> allocator snapshot, lock-free lookups ---- */

struct api_alloc_snapshot {
    aclrtAllocatorDesc desc; /* the user's handle, returned by GetByStream */
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

/* Insert or replace the entry of `stream`. Returns 0, or -1 when the host
 * memory to grow the table cannot be had (the registry is unchanged). */
int api_registry_put(const void *stream, const struct api_alloc_snapshot *s);

/* The snapshot of `stream`, or NULL when it has none. Never blocks on
 * writers for longer than one table mutation. A snapshot never changes and
 * stays readable while the library is loaded. */
const struct api_alloc_snapshot *api_registry_get(const void *stream);

/* GetByStream's common case: the snapshot of stream (not NULL) when it is
 * found at once, NULL when api_registry_get must answer instead. */
const struct api_alloc_snapshot *api_registry_try(const void *stream);

/* Remove the entry of `stream`, if any. */
void api_registry_remove(const void *stream);

/* Number of entries (tests and leak reports). */
size_t api_registry_count(void);

/* Call fn for every entry, under the writers' lock (fn must not register or
 * unregister). */
void api_registry_each(void (*fn)(const void *stream, const struct api_alloc_snapshot *s,
                                  void *user),
                       void *user);

/* ---- allocator.c ---- */

/* Whether desc is a live handle from aclrtAllocatorCreateDesc (created and
 * not destroyed). Compares the value only: desc is never read. */
bool api_desc_live(const void *desc);

/* ---- sanitizer.c: the allocator sanitizer (ACLSIM_ALLOC_CHECK) ---- */

enum api_check_mode { API_CHECK_OFF, API_CHECK_WARN, API_CHECK_ERROR };
enum api_check_mode api_check_mode(void);

/* Before aclrtFree(p) frees a device block: a use of the host's that
 * races with every use of its bytes the host has not waited for
 * (free-while-pending). Copies and fills need no hook: the backend's
 * happens-before checks every task it runs (be_tools.hb_*). */
void api_check_free(const void *p);
/* Reports made so far of `kind` ("host-memory", "cross-stream-reuse", ...;
 * NULL: of every kind): aclsim_alloc_check_reports. */
unsigned long api_check_reports(const char *kind);
/* Before aclrtAllocatorUnregister(stream) / aclrtAllocatorDestroyDesc(desc). */
void api_check_unregister(const void *stream);
void api_check_destroy_desc(const void *desc);

/* An operator being executed, as the sanitizer reports it. */
struct api_check_op {
    uint64_t seq;         /* operators executed so far, this one included */
    const char *type;
    const void *stream;   /* backend handle */
    const void *obj;      /* allocator object (NULL: the executor's own allocator) */
    const void *desc;     /* desc it was registered with */
    uint64_t start, end;  /* simulated interval, once launched */
};

/* Start the record of an operator (stack with ACLSIM_TRACK=1). */
void api_check_op_begin(struct api_check_op *op, const char *type, const void *stream,
                        const void *obj, const void *desc);

/* The callbacks (code addresses) of the allocator op takes its blocks
 * from, which its reports name. */
void api_check_op_allocator(const struct api_check_op *op, uintptr_t alloc_fn,
                            uintptr_t free_fn);

/* A block the executor got for `op`: the address must be live device
 * memory and [addr, addr+bytes) inside one allocation. Returns whether the
 * kernel may use the block. */
bool api_check_block(const struct api_check_op *op, const void *block, const void *addr,
                     size_t bytes, bool workspace);

/* The n blocks the executor got for op (their addresses, sizes and
 * whether each is the workspace; a NULL address is one left unused): two
 * that share bytes are reported (overlapping-blocks). */
/* Just before the launch: every block the allocator gave this execute is
 * still live device memory (a later allocFunc of the same execute may have
 * freed an earlier block). A block that is not is reported
 * (block-freed-before-launch) and its address set NULL (the kernel leaves
 * it alone). */
void api_check_live_at_launch(const struct api_check_op *op, void *const *block, void **addr,
                              const size_t *bytes, const bool *workspace, int n);
void api_check_disjoint(const struct api_check_op *op, const void *const *addr,
                        const size_t *bytes, const bool *workspace, int n);

/* After the launch: op's simulated interval, which its reports show as an
 * illustration (the backend checked its uses when it ran). */
void api_check_launched(struct api_check_op *op);
/* op's workspace is the caller's, passed to `call` (aclnnMatmul...): its
 * reports call it so. */
void api_check_op_workspace(const struct api_check_op *op, const char *call);
/* "stream N (0x...)", or "the host" for NULL: how every report names a
 * stream. */
#define API_NAME_LEN 64
const char *api_stream_name(const void *stream, char buf[API_NAME_LEN]);

/* An operator's conflicts with live graphs, one report per graph
 * (graph-block-reuse): blocks its allocator gave it (addr, bytes: n of
 * them) that a live graph other than g (the graph op is captured into,
 * or NULL) uses, as the graph would run on bytes now someone else's; and,
 * for an operator outside any capture (g NULL), its output [out,
 * out+out_bytes) and its blocks (block_what: "its workspace", "the
 * executor's block") stored in bytes a live graph owns, which its next
 * replay overwrites. */
#define API_CHECK_BLOCKS 4
void api_check_graph_op(const struct api_check_op *op, const struct api_graph *g,
                        const void *const *addr, const size_t *bytes, int n, const void *out,
                        size_t out_bytes, const char *block_what);
/* Before a replay of g: every device byte range its tasks touch must
 * still be allocated (graph-memory-freed, naming the replay). */
void api_check_graph_replay(struct api_graph *g);
/* Before a free of [p, p+n) (`call`: the freeing call): a live graph whose
 * captured work uses those bytes is reported (graph-memory-freed). */
void api_check_graph_free(const char *call, const void *p, size_t n);
/* Work outside any capture (`what`: an operator's role and name, or the
 * call) on `stream` stores its own data in [p, p+n): when a live graph
 * owns those bytes (a replay writes them before it reads them: its
 * workspaces, intermediates, outputs) the next replay overwrites that
 * data (graph-block-reuse). seq: the operator's number (0: none). */
void api_check_graph_write(const char *what, const void *stream, uint64_t seq, const void *p,
                           size_t n);

/* Around the allocator's free callback: an aclrtFree inside it is the
 * allocator returning the block in the stream's order. */
void api_check_free_begin(const void *stream);
void api_check_free_end(void);

/* ---- ipccheck.c: device memory shared between processes ---- */

/* The documented order of IPC memory (importer closes, exporter closes,
 * exporter frees) broken in this process, the exporter (ipc-order): func
 * closes the export of key ([p, p+n)) while other processes still have it
 * imported (importers not 0), or (freeing) frees its block before closing
 * it. */
void api_check_ipc_order(const char *func, const void *p, size_t n, const char *key,
                         unsigned importers, bool freeing);

#endif /* ACLSIM_API_ALLOC_ALLOC_H_ */
