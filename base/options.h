/*
 * options.h - aclsim's run-time options, read from the environment in one
 * place (options.def is the catalogue; mimalloc's options.c is the model).
 *
 * Every option is parsed and checked once: LOAD options when the library
 * loads, INIT options again by opt_reload() (aclInit calls it when the
 * runtime starts). Readers get the cached value and never call getenv, so
 * nothing reads the environment while another thread may change it. A value
 * that does not parse keeps the default and is remembered, in one format
 * ("ACLSIM_X=value is invalid: expected ..."): aclInit fails with it, and a
 * bad LOAD option is also printed on stderr when the library loads.
 * This layer depends on nothing else in aclsim.
 */
#ifndef ACLSIM_BASE_OPTIONS_H_
#define ACLSIM_BASE_OPTIONS_H_

#include <stdbool.h>
#include <stdint.h>

enum opt_id {
#define OPT(id, name, kind, def, lo, hi, when, help) OPT_##id,
#include "options.def"
#undef OPT
    OPT_COUNT
};

/* The option's value: a string (NULL when unset or empty, for STR and PATH),
 * a number (UINT, BOOL; the default when unset), or the index of the word
 * (ENUM). */
const char *opt_str(enum opt_id id);
uint64_t opt_uint(enum opt_id id);
bool opt_bool(enum opt_id id);
unsigned opt_enum(enum opt_id id);
/* Whether the variable was set (non-empty) when last read. */
bool opt_is_set(enum opt_id id);

/* Read the INIT options again (and check them). Returns 0, or -1 when an
 * option is invalid (opt_error says which). */
int opt_reload(void);

/* The complaint about the first invalid option (catalogue order), or NULL. */
const char *opt_error(void);

/* Complain about option id's value in the common format, "<NAME>=<value>
 * is invalid: <expected>", for checks only a consumer can make (it lasts
 * until the option is read again). Returns the complaint. */
const char *opt_invalid(enum opt_id id, const char *expected);

/* Catalogue entries, for help texts and tests. */
const char *opt_name(enum opt_id id);
const char *opt_help(enum opt_id id);

/* Whether this copy of the library was loaded, in a link-map namespace of
 * its own, by another copy already loaded in the program (the ascend
 * backend's loopback onto aclsim's simulator tree): then it leaves faults,
 * banners and differential mode to the copy the program calls. */
bool opt_nested(void);

#endif /* ACLSIM_BASE_OPTIONS_H_ */
