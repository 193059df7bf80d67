/*
 * ops.h - what the simulator's operator files share: the one iteration
 * engine every kernel reads and writes tensors through (engine.c), and the
 * contract of an operator family (one file per family: pointwise.c,
 * movement.c, reduce.c, matmul.c, conv.c, attention.c; api/abi/ops/<family>.def lists its
 * kinds). kernels.c dispatches each kind to its family's table and does
 * what every operator shares (timing, the tiling record, queued copies).
 *
 * The engine follows the idea of PyTorch's TensorIterator: the operands of
 * an operator (outputs first, then inputs) are laid over one iteration
 * shape, an input broadcast by strides 0; dims of size 1 are dropped, dims
 * are ordered by the first operand's strides and adjacent dims that every
 * operand walks as one are merged, so a contiguous operator is one strip
 * and a transposed or broadcast one a few; the kernel's loop receives one
 * strip at a time (pointers and byte strides). Operands are reached through
 * the host view of device memory where it is one piece, else through a
 * scratch copy of the bytes they span; an input that overlaps an output
 * (other than the same view, in place) is read from a copy taken before
 * anything is written.
 */
#ifndef ACLSIM_SIM_OPS_OPS_H_
#define ACLSIM_SIM_OPS_OPS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/dtype.h"
#include "sim/sim.h"

/* ---- engine.c: access to an operator's tensors ---- */

#define SIM_ACC_MAX (SIM_OP_MAX_IN + SIM_OP_MAX_OUT)

/* Host access to the views of one operator's outputs and device inputs
 * (outputs first: slot i < n_out is out[i], then in[i - n_out]). */
struct sim_access {
    int n;
    struct {
        const struct sim_view *v;
        char *elem0;    /* host address of element 0 (NULL: an empty view) */
        char *scratch;  /* a copy of the span (NULL: the host view itself) */
        const char *lo; /* the span, where the view lives */
        size_t bytes;
        bool write, dev;
    } a[SIM_ACC_MAX];
};

/* Reach every tensor of op: SIM_OK, or SIM_EHOSTMEM / SIM_EIO (an injected
 * copy-engine fault) with nothing written and nothing left to close. */
enum sim_rc sim_access_open(struct sim_access *x, const struct sim_op *op);
/* Write back what went through scratch copies and let go (the result of
 * the writes: SIM_EIO on an injected fault). */
enum sim_rc sim_access_close(struct sim_access *x);
/* Let go without writing anything back (a failure before computing). */
void sim_access_drop(struct sim_access *x);
/* Host address of element 0 of out[i] and of in[i]. */
char *sim_access_out(const struct sim_access *x, int i);
char *sim_access_in(const struct sim_access *x, const struct sim_op *op, int i);

/* ---- engine.c: iteration ---- */

#define SIM_ITER_OPS (SIM_ACC_MAX + 1)

/* Operands laid over one iteration shape. */
struct sim_iter {
    int ndim, nops;
    int64_t shape[SIM_OP_MAX_DIMS];
    int64_t strides[SIM_ITER_OPS][SIM_OP_MAX_DIMS]; /* bytes */
    char *base[SIM_ITER_OPS];
};

/* One strip: n elements, operand k's first at ptrs[k], the next
 * strides[k] bytes further. */
typedef void (*sim_loop_fn)(void *ctx, char *const *ptrs, const int64_t *strides, int64_t n);

/* Start an iteration over `shape` (ndim dims; 0: a single element). */
void sim_iter_init(struct sim_iter *it, int ndim, const int64_t *shape);
/* Add an operand: element 0 at base, strides in elements (ndim of them,
 * right-aligned against the shape: a missing or size-1 dim of a smaller
 * view broadcasts), elements of esize bytes. */
void sim_iter_add(struct sim_iter *it, char *base, int vdims, const int64_t *vshape,
                  const int64_t *vstrides, size_t esize);
/* Add view v (element 0 at base) broadcast to the iteration shape. */
void sim_iter_add_view(struct sim_iter *it, char *base, const struct sim_view *v);
/* Drop size-1 dims, order dims by operand `key`'s strides (largest
 * outermost) and merge dims every operand walks as one. */
void sim_iter_coalesce(struct sim_iter *it, int key);
/* Elements in the iteration (0 when a dim is 0). */
int64_t sim_iter_count(const struct sim_iter *it);
/* Call fn for every strip. */
void sim_iter_run(struct sim_iter *it, sim_loop_fn fn, void *ctx);

/* ---- engine.c: helpers for kernels that work on plain arrays ---- */

/* Elements of a view. */
int64_t sim_view_elems(const struct sim_view *v);
/* The view's elements, in row-major order, as doubles into dst. */
void sim_gather_f64(const struct sim_view *v, const char *elem0, double *dst);
/* The view's elements broadcast to the nd dims `dims` (right-aligned, as
 * the iteration broadcasts), in row-major order, as doubles into dst. */
void sim_gather_f64_bcast(const struct sim_view *v, const char *elem0, int nd,
                          const int64_t *dims, double *dst);
/* Write src (row-major doubles) into the view, in its type (sim_dt_store). */
void sim_scatter_f64(const struct sim_view *v, char *elem0, const double *src);

/* ---- nz.c: CANN's FRACTAL_NZ matrices ---- */

/* FRACTAL_NZ view v's elements (element 0 at elem0), in row-major order of
 * its dims, as doubles (dbl) or floats into a. */
void sim_nz_gather(const struct sim_view *v, const char *elem0, void *a, bool dbl);
/* TRANS_NZ: out[0] (in[0]'s storage, NZ) = in[0] (ND) laid out in NZ. */
enum sim_rc sim_nz_trans(const struct sim_op *op, struct sim_access *x);

/* ---- the families ---- */

/* What a family provides for each of its kinds. */
struct sim_family {
    /* Compute op through the opened access x; the workspace gets what the
     * family keeps there (host bytes to copy to op->ws, at most ws_bytes:
     * *ws_host may point at them, freed by the caller with base_free). */
    enum sim_rc (*compute)(const struct sim_op *op, struct sim_access *x, void **ws_host,
                           size_t *ws_len);
    /* Its cost: flops, and whether the cube unit runs it. */
    void (*cost)(const struct sim_op *op, double *flops, bool *cube);
};

#define OPFAMILY(family) extern const struct sim_family sim_family_##family;
OPFAMILY(pointwise)
OPFAMILY(movement)
OPFAMILY(reduce)
OPFAMILY(matmul)
OPFAMILY(index)
OPFAMILY(norm)
OPFAMILY(scan)
OPFAMILY(conv)
OPFAMILY(attention)
#undef OPFAMILY

#endif /* ACLSIM_SIM_OPS_OPS_H_ */
