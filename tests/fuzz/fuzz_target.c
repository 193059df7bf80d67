/*
 * fuzz_target.c - the API-sequence fuzzer as a libFuzzer target (clang
 * -fsanitize=fuzzer,address,undefined): libFuzzer mutates the bytes that
 * fuzz_model.c decodes into calls, guided by the coverage of the library
 * (built with the same instrumentation and linked in). A mismatch with the
 * model aborts, so libFuzzer keeps the input as a crash file; replay it
 * with this binary or, without clang, with fuzz_driver --input FILE.
 */
#include <stdlib.h>
#include "fuzz_model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (fuzz_setup() != 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size);
    return 0;
}
