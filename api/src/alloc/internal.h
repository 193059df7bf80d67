/*
 * internal.h - what the files of api/src/alloc/ share among themselves:
 * the end of a sanitizer report, its counts and its stacks (sanitizer.c),
 * for the checks kept in files of their own (graphcheck.c).
 *
 * Included only by alloc/'s own files (ci/check-layers).
 */
#ifndef ACLSIM_API_ALLOC_INTERNAL_H_
#define ACLSIM_API_ALLOC_INTERNAL_H_

#include "alloc.h"

/* A report of the sanitizer's is made with diag's api_rep_* calls
 * (api_rep_begin ... ) and ended here: printed unless suppressed, and
 * counted for aclsim_alloc_check_reports. */
void san_count(enum api_rep_kind k);
/* The caller's own stack; the stack that issued operator seq, while the
 * sanitizer still keeps it (with ACLSIM_TRACK=1). */
void san_here(const char *what);
void san_op_stack(const char *what, uint64_t seq);
/* Operator seq's type while the sanitizer still keeps it, else "?". */
const char *san_op_type(uint64_t seq);

#endif /* ACLSIM_API_ALLOC_INTERNAL_H_ */
