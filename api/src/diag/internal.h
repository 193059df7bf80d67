/*
 * internal.h - what diag/'s report files share: the symbolized stacks of
 * the report being made, which report.c keeps and suppress.c matches
 * against the suppressions of ACLSIM_SUPPRESS.
 */
#ifndef ACLSIM_API_DIAG_INTERNAL_H_
#define ACLSIM_API_DIAG_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include "base/symbols.h"

#define REP_FRAMES 32
#define REP_STACKS 4

struct rep_stack {
    int n;
    struct base_frame f[REP_FRAMES];
};

/* Parse the suppression file at path (NULL: none), replacing the rules
 * held. Returns 0, or -1 with a precise complaint in err (the rules held
 * stay as they were). */
int rep_suppress_load(const char *path, char *err, size_t len);

/* Whether a rule names a report of `kind` with these stacks. */
bool rep_suppressed(const char *kind, const struct rep_stack *stacks, int n);

/* The rules' memory goes (the library unloads). */
void rep_suppress_free(void);

#endif /* ACLSIM_API_DIAG_INTERNAL_H_ */
