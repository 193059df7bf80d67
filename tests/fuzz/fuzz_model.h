/*
 * fuzz_model.h - the API-sequence fuzzer's decoder and model, shared by the
 * libFuzzer target (fuzz_target.c, clang) and the seeded random driver
 * (fuzz_driver.c, any C compiler).
 *
 * fuzz_one() decodes bytes into a sequence of ACL calls (init/finalize,
 * devices, contexts, streams, events, device and host memory, peer access,
 * copies and fills in and out of bounds, the allocator descs and registry, fault
 * points), makes each call, and compares what it answers (return code,
 * message or none, outputs, copied bytes, memory accounting, allocator
 * snapshots) with a small model of CANN's rules as aclsim documents them.
 * Each sequence starts from, and returns the library to, a clean state.
 * A mismatch prints the sequence so far and calls fuzz_fail_hook.
 */
#ifndef ACLSIM_TESTS_FUZZ_MODEL_H_
#define ACLSIM_TESTS_FUZZ_MODEL_H_

#include <stddef.h>
#include <stdint.h>

/* Once per process, before the first fuzz_one: the environment the model
 * assumes (2 devices of 32 MiB, Ascend910B1), loaded by aclInit. Returns 0,
 * or -1 when the environment arms aclsim's faults at load (ACLSIM_FAULT,
 * FIU_*): the model cannot predict those. */
int fuzz_setup(void);

/* Run one sequence. Returns the number of calls made. */
unsigned fuzz_one(const uint8_t *data, size_t size);

/* Print every call as it is made (stderr). */
extern int fuzz_verbose;

/* Called after a mismatch was printed; the driver exits, the libFuzzer
 * target aborts (so libFuzzer saves the input). Must not return. */
extern void (*fuzz_fail_hook)(void);

#endif /* ACLSIM_TESTS_FUZZ_MODEL_H_ */
