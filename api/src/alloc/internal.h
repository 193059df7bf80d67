/*
 * internal.h - what the files of api/src/alloc/ share among themselves:
 * the allocator sanitizer's report lines, its lock and its counts
 * (sanitizer.c), for the checks kept in files of their own (graphcheck.c).
 *
 * Included only by alloc/'s own files (ci/check-layers).
 */
#ifndef ACLSIM_API_ALLOC_INTERNAL_H_
#define ACLSIM_API_ALLOC_INTERNAL_H_

#include "alloc.h"

/* The lock that serialises reports and the sanitizer's tables. */
void san_lock(void);
void san_unlock(void);
/* One line of a report (first: its "aclsim: " opening line). pre: lock. */
void san_line(bool first, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A stack, as every report prints them; the caller's own stack; the stack
 * that issued operator seq, while the sanitizer still keeps it. */
void san_stack(const char *what, void *const *frames, int n);
void san_here(const char *what);
void san_op_stack(const char *what, uint64_t seq);
/* Count one graph-memory-freed (freed) or graph-block-reuse report. */
void san_count_graph(bool freed);

#endif /* ACLSIM_API_ALLOC_INTERNAL_H_ */
