/*
 * opattr.h - operator attributes (struct aclopAttr of acl_op.h), shared by
 * op.c (the aclopSetAttr* calls) and oplib.c (the operators that read them).
 *
 * An attribute set maps names to typed values, a later Set of a name
 * replacing the earlier one (CANN keeps a std::map). Values are stored in
 * three shapes: integers (bool, int, data type and their lists, and list of
 * lists, flattened with per-list lengths), floats, strings.
 */
#ifndef ACLSIM_API_OPATTR_H_
#define ACLSIM_API_OPATTR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "acl/acl_op.h"

enum api_attr_kind {
    API_ATTR_BOOL, API_ATTR_INT, API_ATTR_FLOAT, API_ATTR_STRING, API_ATTR_DTYPE,
    API_ATTR_LIST_BOOL, API_ATTR_LIST_INT, API_ATTR_LIST_FLOAT, API_ATTR_LIST_STRING,
    API_ATTR_LIST_DTYPE, API_ATTR_LIST_LIST_INT
};

struct api_attr {
    char *name;
    enum api_attr_kind kind;
    size_t n;       /* values (lists: elements; list of lists: all ints) */
    int64_t *ints;  /* integer kinds */
    float *floats;  /* float kinds */
    char **strs;    /* string kinds */
    size_t nlists;  /* list of lists: number of lists */
    int *lens;      /* list of lists: length of each */
};

struct aclopAttr {
    struct api_attr *v;
    size_t n, cap;
};

/* The attribute named `name`, or NULL. attr may be NULL (no attributes). */
const struct api_attr *api_attr_find(const aclopAttr *attr, const char *name);

#endif /* ACLSIM_API_OPATTR_H_ */
