/*
 * kernels.c - what every built-in operator shares: each kind's family
 * (the families' files under sim/ops/ compute, through the one engine of
 * sim/ops/engine.c), its roofline time (roofline.c), its tiling record and
 * workspace, and the copies and checks of operators that wait in a queue.
 * stream.c puts an operator in its stream's queue and task.c runs it when
 * the stream reaches it (sim_op_run in sim.h); this file only computes.
 *
 * An operator reads and writes its tensors where they are, through their
 * views (sim/ops/ops.h says how), when it runs, as every simulated task
 * moves its bytes when it runs. Operators that the ACL layer gives
 * allocator memory really use it: each writes its tiling record into its
 * tiling block, and the families that accumulate (MatMul, GEMM,
 * reductions) keep their fp32 accumulators in their workspace. The ACL
 * layer has validated shapes, types and buffers; nothing here checks them
 * again, except that the device memory of an operator that waited in a
 * queue is still live (sim_op_live).
 */
#include <string.h>
#include "base/mem.h"
#include "fault/fault.h"
#include "internal.h"
#include "ops/ops.h"
#include "queue.h"

/* Each kind's family: one list (api/abi/opkinds.def) makes the table. */
static const struct sim_family *const family_of[SIM_OP_KINDS] = {
#define OPKIND(id, family, what) [SIM_OP_##id] = &sim_family_##family,
#define OPLIMIT(id, value)
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
};

/* A small record of what the kernel runs with, as tiling data is. */
struct tiling {
    uint32_t kind, n_in;
    uint64_t out_elems;
    uint64_t dims[2];
};

static size_t view_bytes(const struct sim_view *v)
{
    return (size_t)sim_view_elems(v) * sim_dt_size(v->dt);
}

/* Write n host bytes to device memory at dst (its fault point was hit
 * before the operator computed). */
static enum sim_rc put(void *dst, const void *src, size_t n)
{
    void *h = sim_mem_view(dst, true, n);
    if (!h)
        return sim_mem_copy(dst, true, src, false, n);
    memcpy(h, src, n);
    return SIM_OK;
}

/* Compute op's results into its outputs, its tiling record and, for the
 * families that accumulate, its workspace. */
static enum sim_rc compute(const struct sim_op *op)
{
    struct sim_access x;
    enum sim_rc rc = sim_access_open(&x, op);
    if (rc != SIM_OK)
        return rc;
    if (op->tiling) {
        const struct sim_view *o = &op->out[0];
        struct tiling t = {(uint32_t)op->kind, (uint32_t)op->n_in, (uint64_t)sim_view_elems(o),
                           {(uint64_t)(o->ndims ? o->dims[0] : 1),
                            (uint64_t)(o->ndims > 1 ? o->dims[1] : 1)}};
        size_t n = op->tiling_bytes < sizeof t ? op->tiling_bytes : sizeof t;
        rc = sim_mem_copy(op->tiling, true, &t, false, n);
    }
    if (rc == SIM_OK && op->ws && FLT_HIT(SIM_COPY_ENGINE))
        rc = SIM_EIO;
    if (rc != SIM_OK) {
        sim_access_drop(&x); /* nothing written */
        return rc;
    }
    void *ws = NULL;
    size_t ws_len = 0;
    rc = family_of[op->kind]->compute(op, &x, &ws, &ws_len);
    if (rc == SIM_OK && op->ws && ws && ws_len)
        rc = put(op->ws, ws, ws_len < op->ws_bytes ? ws_len : op->ws_bytes);
    base_free(ws);
    enum sim_rc wrc = sim_access_close(&x);
    return rc != SIM_OK ? rc : wrc;
}

enum sim_rc sim_op_compute(int32_t dev, const struct sim_op *op, uint64_t *ps)
{
    enum sim_rc rc = compute(op);
    if (rc != SIM_OK)
        return rc;
    double flops = 0, bytes = 0;
    bool cube = false;
    family_of[op->kind]->cost(op, &flops, &cube);
    for (int i = 0; i < op->n_out; i++)
        bytes += (double)view_bytes(&op->out[i]);
    for (int i = 0; i < op->n_in; i++)
        bytes += (double)view_bytes(&op->in[i]);
    const struct sim_profile *p = sim_device_profile(dev);
    enum sim_dtype dt = op->kind == SIM_OP_CAST || op->n_in == 0 ? op->out[0].dt : op->in[0].dt;
    *ps = sim_roofline_ps(p, sim_device_soc(dev), cube, dt, flops, bytes);
    return SIM_OK;
}

/* ---- Operators that wait in a stream's queue ---- */

struct sim_op *sim_op_copy(const struct sim_op *op)
{
    size_t name = op->name ? strlen(op->name) + 1 : 0, total = sizeof *op + name;
    for (int i = 0; i < op->n_in; i++)
        if (!op->in[i].dev) {
            const void *lo;
            size_t n;
            sim_view_span(&op->in[i], &lo, &n);
            total += n;
        }
    struct sim_op *c = base_malloc(total);
    if (!c)
        return NULL;
    *c = *op;
    char *at = (char *)(c + 1);
    if (op->name) {
        memcpy(at, op->name, name);
        c->name = at;
        at += name;
    }
    /* Host inputs are taken now, as the host source of a queued copy is:
     * the bytes the view spans, the view rebased on them. */
    for (int i = 0; i < op->n_in; i++)
        if (!op->in[i].dev) {
            const void *lo;
            size_t n;
            sim_view_span(&op->in[i], &lo, &n);
            if (n)
                memcpy(at, lo, n);
            c->in[i].data = at;
            c->in[i].offset -= ((const char *)lo - (const char *)op->in[i].data) /
                               (ptrdiff_t)sim_dt_size(op->in[i].dt);
            at += n;
        }
    return c;
}

/* Whether the bytes view v spans are live device memory (nothing to check
 * when it spans none). */
static bool holds(const struct sim_view *v)
{
    const void *lo;
    size_t n;
    sim_view_span(v, &lo, &n);
    return n == 0 || sim_mem_holds(lo, n);
}

bool sim_op_live(const struct sim_op *op)
{
    for (int i = 0; i < op->n_in; i++)
        if (op->in[i].dev && !holds(&op->in[i]))
            return false;
    for (int i = 0; i < op->n_out; i++)
        if (!holds(&op->out[i]))
            return false;
    return (!op->ws || sim_mem_holds(op->ws, op->ws_bytes)) &&
           (!op->tiling || sim_mem_holds(op->tiling, op->tiling_bytes));
}
