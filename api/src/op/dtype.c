/*
 * dtype.c - CANN's data type rules, in one place for every operator: the
 * types' names as CANN's logs print them, type promotion of mixed inputs,
 * which casts are allowed and the type categories (hicann/opbase
 * include/nnopbase/opdev/data_type_utils.h: PromoteType and its
 * kPromoteTypesLookup table L178-260, CanCast L267-283, IsFloatingType,
 * IsIntegralType, IsComplexType L238-265). The operators' own support
 * lists stay with each operator (nn/), as CANN keeps them per operator;
 * the simulator's side of types (how elements are read, rounded and
 * saturated) is sim/dtype.c.
 */
#include <stdio.h>
#include "op.h"

const char *api_dtype_name(aclDataType t)
{
    switch ((int)t) {
    case ACL_FLOAT:
        return "DT_FLOAT";
    case ACL_FLOAT16:
        return "DT_FLOAT16";
    case ACL_INT8:
        return "DT_INT8";
    case ACL_INT32:
        return "DT_INT32";
    case ACL_UINT8:
        return "DT_UINT8";
    case ACL_INT16:
        return "DT_INT16";
    case ACL_UINT16:
        return "DT_UINT16";
    case ACL_UINT32:
        return "DT_UINT32";
    case ACL_INT64:
        return "DT_INT64";
    case ACL_UINT64:
        return "DT_UINT64";
    case ACL_DOUBLE:
        return "DT_DOUBLE";
    case ACL_BOOL:
        return "DT_BOOL";
    case ACL_STRING:
        return "DT_STRING";
    case ACL_COMPLEX64:
        return "DT_COMPLEX64";
    case ACL_COMPLEX128:
        return "DT_COMPLEX128";
    case ACL_BF16:
        return "DT_BF16";
    case ACL_INT4:
        return "DT_INT4";
    case ACL_UINT1:
        return "DT_UINT1";
    case ACL_COMPLEX32:
        return "DT_COMPLEX32";
    case ACL_HIFLOAT8:
        return "DT_HIFLOAT8";
    case ACL_FLOAT8_E5M2:
        return "DT_FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN:
        return "DT_FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0:
        return "DT_FLOAT8_E8M0";
    default:
        return "DT_UNDEFINED";
    }
}

bool api_type_in(aclDataType t, api_types set)
{
    return (int)t >= 0 && (int)t < 64 && (set & API_T(t));
}

void api_types_text(api_types set, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int t = 0; t < 64 && at < len; t++)
        if (set & API_T(t))
            at += (size_t)snprintf(buf + at, len - at, "%s,", api_dtype_name((aclDataType)t));
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

bool api_is_complex(aclDataType t)
{
    return t == ACL_COMPLEX32 || t == ACL_COMPLEX64 || t == ACL_COMPLEX128;
}

bool api_is_floating(aclDataType t)
{
    switch ((int)t) {
    case ACL_DOUBLE:
    case ACL_FLOAT:
    case ACL_BF16:
    case ACL_FLOAT16:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
        return true;
    default:
        return false;
    }
}

bool api_is_integral(aclDataType t, bool with_bool)
{
    switch ((int)t) {
    case ACL_INT8:
    case ACL_INT16:
    case ACL_INT32:
    case ACL_INT64:
    case ACL_UINT8:
    case ACL_UINT16:
    case ACL_UINT32:
    case ACL_UINT64:
        return true;
    case ACL_BOOL:
        return with_bool;
    default:
        return false;
    }
}

bool api_can_cast(aclDataType from, aclDataType to)
{
    if (api_is_complex(from) && !api_is_complex(to))
        return false;
    if (api_is_floating(from) && api_is_integral(to, false))
        return false;
    if (from != ACL_BOOL && to == ACL_BOOL)
        return false;
    return true;
}

/* The real types aclsim computes, in the order of the table below. */
static const aclDataType ranked[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8,
                                     ACL_INT16, ACL_INT64, ACL_DOUBLE, ACL_BOOL, ACL_BF16};
#define NR (sizeof ranked / sizeof ranked[0])

/* kPromoteTypesLookup restricted to those types (rows a, columns b);
 * every other pair of different types promotes to nothing (UNDEFINED)
 * unless one is complex, which aclsim does not compute. */
#define f4 ACL_FLOAT
#define f2 ACL_FLOAT16
#define i1 ACL_INT8
#define i4 ACL_INT32
#define u1 ACL_UINT8
#define i2 ACL_INT16
#define i8 ACL_INT64
#define f8 ACL_DOUBLE
#define b1 ACL_BOOL
#define bf ACL_BF16
static const aclDataType promoted[NR][NR] = {
    /*        f4  f2  i1  i4  u1  i2  i8  f8  b1  bf */
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
    /* f2 */ {f4, f2, f2, f2, f2, f2, f2, f8, f2, f4},
    /* i1 */ {f4, f2, i1, i4, i2, i2, i8, f8, i1, bf},
    /* i4 */ {f4, f2, i4, i4, i4, i4, i8, f8, i4, bf},
    /* u1 */ {f4, f2, i2, i4, u1, i2, i8, f8, u1, bf},
    /* i2 */ {f4, f2, i2, i4, i2, i2, i8, f8, i2, bf},
    /* i8 */ {f4, f2, i8, i8, i8, i8, i8, f8, i8, bf},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
    /* b1 */ {f4, f2, i1, i4, u1, i2, i8, f8, b1, bf},
    /* bf */ {f4, f4, bf, bf, bf, bf, bf, f8, bf, bf},
};
#undef f4
#undef f2
#undef i1
#undef i4
#undef u1
#undef i2
#undef i8
#undef f8
#undef b1
#undef bf

static int rank_of(aclDataType t)
{
    for (unsigned i = 0; i < NR; i++)
        if (ranked[i] == t)
            return (int)i;
    return -1;
}

aclDataType api_promote(aclDataType a, aclDataType b)
{
    if (a == b)
        return (int)a >= 0 ? a : ACL_DT_UNDEFINED;
    int ra = rank_of(a), rb = rank_of(b);
    return ra < 0 || rb < 0 ? ACL_DT_UNDEFINED : promoted[ra][rb];
}
