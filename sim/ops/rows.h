/*
 * rows.h - what the kernels that compute on rows share (rows.c): the
 * norms, softmax, scans and sorts gather a view's elements through the
 * engine into doubles, the dim they work along moved last, so that every
 * row is contiguous there; their results go back through the engine
 * (sim_scatter_f64) into the output's view, moved the same way.
 */
#ifndef ACLSIM_SIM_OPS_ROWS_H_
#define ACLSIM_SIM_OPS_ROWS_H_

#include "ops.h"

/* The view's elements as doubles in row-major order (NULL: out of host
 * memory; freed with base_free). */
double *sim_rows_load(const struct sim_view *v, const char *elem0);
/* v with dim d moved last (a 0-d view as it is). */
struct sim_view sim_view_axis_last(const struct sim_view *v, int d);

#endif /* ACLSIM_SIM_OPS_ROWS_H_ */
