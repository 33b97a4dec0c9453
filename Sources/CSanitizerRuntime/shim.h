// Entry points of the compiler's sanitizer runtimes (compiler-rt). Nothing is linked here:
// the runtime that defines them comes with `-sanitize=fuzzer` or `-sanitize=thread`, and Swift
// code calls them only under the matching compile condition (MASONRY_LIBFUZZER, MASONRY_TSAN),
// which scripts/fuzz.sh and scripts/sanitize.sh set.
#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program with its own main (masonry-fuzz): the same flags as
// libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

// ThreadSanitizer's happens-before annotations: a release on `address` happens before every
// later acquire on it. WorkerThreads' Lock calls them around Synchronization.Mutex, whose
// futex TSan cannot see.
void __tsan_acquire(void *address);
void __tsan_release(void *address);
