/*
 * attr.c - operator attributes (the OPATTR family of api/abi/calls.def,
 * acl_op.h): aclopCreateAttr, aclopDestroyAttr and the aclopSetAttr*
 * calls, and the lookups and copies the operator library and handles make.
 *
 * Semantics and check order are those of CANN's GE ACL layer (hicann/ge
 * api/acl/acl_op_executor: types/op_attr.cpp, utils/array_utils.h): NULL
 * pointers give EH0002 "Argument <p> must not be null.", a negative count
 * EH0001 (or no message where CANN gives none), all of them
 * ACL_ERROR_INVALID_PARAM. A later Set of a name replaces the earlier one
 * (CANN keeps a std::map). Forwarded to a real runtime when one is loaded
 * (API_FORWARD).
 */
#include <string.h>
#include "base/mem.h"
#include "op.h"

static void attr_clear(struct api_attr *a)
{
    if (a->strs)
        for (size_t i = 0; i < a->n; i++)
            base_free(a->strs[i]);
    base_free(a->strs);
    base_free(a->ints);
    base_free(a->floats);
    base_free(a->lens);
    base_free(a->name);
    memset(a, 0, sizeof *a);
}

const struct api_attr *api_attr_find(const aclopAttr *attr, const char *name)
{
    if (!attr)
        return NULL;
    for (size_t i = 0; i < attr->n; i++)
        if (strcmp(attr->v[i].name, name) == 0)
            return &attr->v[i];
    return NULL;
}

/* Store `a` (which owns its arrays, not yet its name) under `name`,
 * replacing any value of that name. On failure `a` is released. */
static aclError attr_put(aclopAttr *attr, const char *name, struct api_attr *a)
{
    a->name = base_strdup(name);
    struct api_attr *slot = (struct api_attr *)api_attr_find(attr, name);
    if (!slot && a->name && attr->n == attr->cap) {
        size_t cap = attr->cap ? attr->cap * 2 : 4;
        struct api_attr *v = base_realloc(attr->v, cap * sizeof *v);
        if (v) {
            attr->v = v;
            attr->cap = cap;
        }
    }
    if (!a->name || (!slot && attr->n == attr->cap)) {
        attr_clear(a);
        return api_err_host_alloc(sizeof *a);
    }
    if (slot)
        attr_clear(slot);
    else
        slot = &attr->v[attr->n++];
    *slot = *a;
    return ACL_SUCCESS;
}

/* A scalar or list of integers (bool, int, data type). */
static aclError set_ints(aclopAttr *attr, const char *name, enum api_attr_kind kind, size_t n,
                         const void *values, size_t width)
{
    struct api_attr a = {.kind = kind, .n = n};
    if (n && !(a.ints = base_malloc(n * sizeof *a.ints)))
        return api_err_host_alloc(n * sizeof *a.ints);
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)values + i * width;
        if (width == 1)
            a.ints[i] = *(const uint8_t *)p != 0;
        else if (width == sizeof(int))
            a.ints[i] = *(const int *)p;
        else
            a.ints[i] = *(const int64_t *)p;
    }
    return attr_put(attr, name, &a);
}

static aclError set_floats(aclopAttr *attr, const char *name, enum api_attr_kind kind, size_t n,
                           const float *values)
{
    struct api_attr a = {.kind = kind, .n = n};
    if (n && !(a.floats = base_malloc(n * sizeof *a.floats)))
        return api_err_host_alloc(n * sizeof *a.floats);
    if (n)
        memcpy(a.floats, values, n * sizeof *a.floats);
    return attr_put(attr, name, &a);
}

static aclError set_strings(aclopAttr *attr, const char *name, enum api_attr_kind kind, size_t n,
                            const char *const *values)
{
    struct api_attr a = {.kind = kind, .n = 0};
    if (n && !(a.strs = base_calloc(n, sizeof *a.strs)))
        return api_err_host_alloc(n * sizeof *a.strs);
    for (size_t i = 0; i < n; i++, a.n++)
        if (!(a.strs[i] = base_strdup(values[i]))) {
            attr_clear(&a);
            return api_err_host_alloc(strlen(values[i]) + 1);
        }
    return attr_put(attr, name, &a);
}

aclopAttr *api_impl_aclopCreateAttr(void)
{
    API_FORWARD(aclopCreateAttr, ());
    aclopAttr *a = base_calloc(1, sizeof *a);
    if (!a)
        api_err_host_alloc(sizeof *a);
    return a;
}

void api_impl_aclopDestroyAttr(const aclopAttr *attr)
{
    API_FORWARD_VOID(aclopDestroyAttr, (attr));
    if (!attr)
        return;
    aclopAttr *a = (aclopAttr *)attr;
    for (size_t i = 0; i < a->n; i++)
        attr_clear(&a->v[i]);
    base_free(a->v);
    base_free(a);
}

/* CANN's checks: attr, then attrName (then, for lists, values when
 * numValues > 0); a negative count stores an empty list. */
#define ATTR_CHECKS(attr, name)                                                          \
    do {                                                                                 \
        if (!(attr))                                                                     \
            return api_err_arg_null("attr");                                             \
        if (!(name))                                                                     \
            return api_err_arg_null("attrName");                                         \
    } while (0)
#define LIST_CHECKS(attr, name, num, values)                                             \
    do {                                                                                 \
        ATTR_CHECKS(attr, name);                                                         \
        if ((num) > 0 && !(values))                                                      \
            return api_err_arg_null("values");                                           \
    } while (0)
#define COUNT(num) ((num) > 0 ? (size_t)(num) : 0)

aclError api_impl_aclopSetAttrBool(aclopAttr *attr, const char *attrName, uint8_t attrValue)
{
    API_FORWARD(aclopSetAttrBool, (attr, attrName, attrValue));
    ATTR_CHECKS(attr, attrName);
    return set_ints(attr, attrName, API_ATTR_BOOL, 1, &attrValue, 1);
}

aclError api_impl_aclopSetAttrInt(aclopAttr *attr, const char *attrName, int64_t attrValue)
{
    API_FORWARD(aclopSetAttrInt, (attr, attrName, attrValue));
    ATTR_CHECKS(attr, attrName);
    return set_ints(attr, attrName, API_ATTR_INT, 1, &attrValue, sizeof attrValue);
}

aclError api_impl_aclopSetAttrFloat(aclopAttr *attr, const char *attrName, float attrValue)
{
    API_FORWARD(aclopSetAttrFloat, (attr, attrName, attrValue));
    ATTR_CHECKS(attr, attrName);
    return set_floats(attr, attrName, API_ATTR_FLOAT, 1, &attrValue);
}

aclError api_impl_aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue)
{
    API_FORWARD(aclopSetAttrString, (attr, attrName, attrValue));
    if (!attr)
        return api_err_arg_null("attr");
    if (!attrValue)
        return api_err_arg_null("attrValue");
    if (!attrName)
        return api_err_arg_null("attrName");
    return set_strings(attr, attrName, API_ATTR_STRING, 1, &attrValue);
}

aclError api_impl_aclopSetAttrDataType(aclopAttr *attr, const char *attrName, aclDataType attrValue)
{
    API_FORWARD(aclopSetAttrDataType, (attr, attrName, attrValue));
    ATTR_CHECKS(attr, attrName);
    int v = (int)attrValue;
    return set_ints(attr, attrName, API_ATTR_DTYPE, 1, &v, sizeof v);
}

aclError api_impl_aclopSetAttrListDataType(aclopAttr *attr, const char *attrName, int numValues,
                                           const aclDataType values[])
{
    API_FORWARD(aclopSetAttrListDataType, (attr, attrName, numValues, values));
    LIST_CHECKS(attr, attrName, numValues, values);
    return set_ints(attr, attrName, API_ATTR_LIST_DTYPE, COUNT(numValues), values,
                    sizeof(aclDataType));
}

aclError api_impl_aclopSetAttrListBool(aclopAttr *attr, const char *attrName, int numValues,
                                       const uint8_t *values)
{
    API_FORWARD(aclopSetAttrListBool, (attr, attrName, numValues, values));
    LIST_CHECKS(attr, attrName, numValues, values);
    return set_ints(attr, attrName, API_ATTR_LIST_BOOL, COUNT(numValues), values, 1);
}

aclError api_impl_aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues,
                                      const int64_t *values)
{
    API_FORWARD(aclopSetAttrListInt, (attr, attrName, numValues, values));
    LIST_CHECKS(attr, attrName, numValues, values);
    return set_ints(attr, attrName, API_ATTR_LIST_INT, COUNT(numValues), values, sizeof(int64_t));
}

aclError api_impl_aclopSetAttrListFloat(aclopAttr *attr, const char *attrName, int numValues,
                                        const float *values)
{
    API_FORWARD(aclopSetAttrListFloat, (attr, attrName, numValues, values));
    LIST_CHECKS(attr, attrName, numValues, values);
    return set_floats(attr, attrName, API_ATTR_LIST_FLOAT, COUNT(numValues), values);
}

aclError api_impl_aclopSetAttrListString(aclopAttr *attr, const char *attrName, int numValues,
                                         const char **values)
{
    API_FORWARD(aclopSetAttrListString, (attr, attrName, numValues, values));
    if (!attr)
        return api_err_arg_null("attr");
    if (numValues > 0) {
        if (!values)
            return api_err_arg_null("arr");
        for (int i = 0; i < numValues; i++)
            if (!values[i])
                return api_err_arg_null("arr[i]");
    }
    if (!attrName)
        return api_err_arg_null("attrName");
    return set_strings(attr, attrName, API_ATTR_LIST_STRING, COUNT(numValues), values);
}

aclError api_impl_aclopSetAttrListListInt(aclopAttr *attr, const char *attrName, int numLists,
                                          const int *numValues, const int64_t *const values[])
{
    API_FORWARD(aclopSetAttrListListInt, (attr, attrName, numLists, numValues, values));
    ATTR_CHECKS(attr, attrName);
    if (!numValues)
        return api_err_arg_null("numValues");
    if (numLists > 0) {
        if (!values)
            return api_err_arg_null("arr");
        for (int i = 0; i < numLists; i++)
            if (!values[i])
                return api_err_arg_null("arr[i]");
    }
    size_t lists = COUNT(numLists), total = 0;
    for (size_t i = 0; i < lists; i++)
        total += COUNT(numValues[i]);
    struct api_attr a = {.kind = API_ATTR_LIST_LIST_INT, .n = total, .nlists = lists};
    if ((total && !(a.ints = base_malloc(total * sizeof *a.ints))) ||
        (lists && !(a.lens = base_malloc(lists * sizeof *a.lens)))) {
        attr_clear(&a);
        return api_err_host_alloc(total * sizeof *a.ints);
    }
    for (size_t i = 0, k = 0; i < lists; i++) {
        a.lens[i] = (int)COUNT(numValues[i]);
        for (int j = 0; j < a.lens[i]; j++)
            a.ints[k++] = values[i][j];
    }
    return attr_put(attr, attrName, &a);
}

aclopAttr *api_attr_clone(const aclopAttr *attr, bool *ok)
{
    *ok = true;
    if (!attr)
        return NULL;
    aclopAttr *c = api_impl_aclopCreateAttr();
    for (size_t i = 0; c && i < attr->n; i++) {
        const struct api_attr *a = &attr->v[i];
        aclError rc;
        if (a->kind == API_ATTR_LIST_LIST_INT) {
            const int64_t *lists[64];
            size_t k = 0;
            for (size_t j = 0; j < a->nlists && j < 64; k += (size_t)a->lens[j], j++)
                lists[j] = a->ints + k;
            rc = api_impl_aclopSetAttrListListInt(c, a->name, (int)a->nlists, a->lens, lists);
        } else if (a->floats) {
            rc = set_floats(c, a->name, a->kind, a->n, a->floats);
        } else if (a->strs || a->kind == API_ATTR_STRING || a->kind == API_ATTR_LIST_STRING) {
            rc = set_strings(c, a->name, a->kind, a->n, (const char *const *)a->strs);
        } else {
            rc = set_ints(c, a->name, a->kind, a->n, a->ints, sizeof(int64_t));
        }
        if (rc != ACL_SUCCESS) {
            api_impl_aclopDestroyAttr(c);
            c = NULL;
        }
    }
    *ok = c != NULL;
    return c;
}
