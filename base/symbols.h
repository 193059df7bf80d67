/*
 * symbols.h - the stacks of aclsim's reports as people read them: each
 * return address (backtrace(3)) turned into function, source file and line
 * with elfutils' libdw, aclsim's own frames cut, as AddressSanitizer and
 * memcheck print theirs. This layer depends on nothing else in aclsim.
 */
#ifndef ACLSIM_BASE_SYMBOLS_H_
#define ACLSIM_BASE_SYMBOLS_H_

#include <stdint.h>

struct base_frame {
    uintptr_t pc;       /* the call's address (the return address less one) */
    char function[128]; /* "" when the object has no symbol for it */
    char file[256];     /* source file as the debug information names it, "" without -g */
    int line;           /* 0 without -g */
    char module[128];   /* the object file's base name */
};

/* Symbolize the stack pcs[0..n) (innermost first, as backtrace(3) gives
 * it): the frames outside aclsim's own library, up to and including main,
 * into out[0..max). Returns how many were written. Thread-safe; cold. */
int base_stack_user(void *const *pcs, int n, struct base_frame *out, int max);

/* Symbolize one code address (a function pointer): out->pc is addr itself.
 * Returns 0, or -1 when no object holds the address. */
int base_symbolize(const void *addr, struct base_frame *out);

/* "fn file:line", "fn (module)" or "0x... (module)": one frame in a line's
 * worth of text, for a report. Returns buf. */
const char *base_frame_text(const struct base_frame *f, char *buf, int size);

#endif /* ACLSIM_BASE_SYMBOLS_H_ */
