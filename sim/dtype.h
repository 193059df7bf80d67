/*
 * dtype.h - CANN's element types as the simulator's kernels read, write and
 * convert them (dtype.c): one place for every kernel's loads, stores and
 * casts, with CANN's rounding and saturation. The values of enum sim_dtype
 * are CANN's own numbering (sim.h), so the ACL layer's aclDataType reaches
 * the simulator unchanged.
 */
#ifndef ACLSIM_SIM_DTYPE_H_
#define ACLSIM_SIM_DTYPE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

/* Bytes of one element (0 for a type the kernels do not know). */
size_t sim_dt_size(enum sim_dtype dt);
/* CANN's name of dt in aclDataType's spelling without ACL_ ("float16"),
 * "?" for none. */
const char *sim_dt_name(enum sim_dtype dt);
/* Whether dt is a floating type (float16, bfloat16, float32, double). */
bool sim_dt_is_float(enum sim_dtype dt);
/* Whether dt is one the kernels compute with (sim_dt_size(dt) > 0). */
bool sim_dt_known(enum sim_dtype dt);

/* The element at p as a double (an int64 beyond 2^53 rounds to nearest). */
double sim_dt_load(enum sim_dtype dt, const void *p);
/* The element at p as an int64: integers and bool exactly (uint64 as its
 * bits), floating values as sim_dt_store would write them to an int64. */
int64_t sim_dt_load_i(enum sim_dtype dt, const void *p);

/* Write v as an element of dt, as CANN's Cast from a floating type does
 * (hicann/ops-math math/cast/op_kernel/arch35/cast_struct.h, the
 * CAST_POLICY_DEFINE lines): to a narrower floating type round to nearest,
 * ties to even (CAST_ROUND_MODE_RINT); to an integer type truncate toward
 * zero (CAST_ROUND_MODE_TRUNC), saturating at the type's bounds
 * (cast_impl.h: SatMode::SAT), NaN giving 0; to bool v != 0
 * (CAST_TEMPLATE_DST_BOOL). */
void sim_dt_store(enum sim_dtype dt, void *p, double v);
/* Write the integer v as an element of dt, as CANN's Cast from an integer
 * type does: to a narrower integer type keep the low bits (the
 * CAST_TEMPLATE_MIRCRO_INOUT pack); to a floating type round to nearest
 * (through float32 for float16 and bfloat16, the TWO_CAST RINT, RINT
 * lines); to bool v != 0. */
void sim_dt_store_i(enum sim_dtype dt, void *p, int64_t v);

/* v rounded to a value of floating type dt, as a double (computing in dt:
 * the result of each step is one of dt's values). */
double sim_dt_round(enum sim_dtype dt, double v);
/* v as a value of integer type dt (its low bits, sign-extended back). */
int64_t sim_dt_wrap(enum sim_dtype dt, int64_t v);

/* One element of type `from` at src written to dst as type `to`: CANN's
 * Cast of one element (a plain copy when the types agree). */
void sim_dt_convert(enum sim_dtype to, void *dst, enum sim_dtype from, const void *src);

/* IEEE half and bfloat16 bits from and to float32 (round to nearest even;
 * NaN stays NaN). */
float sim_f16_to_f32(uint16_t h);
uint16_t sim_f32_to_f16(float f);
float sim_bf16_to_f32(uint16_t b);
uint16_t sim_f32_to_bf16(float f);

#endif /* ACLSIM_SIM_DTYPE_H_ */
