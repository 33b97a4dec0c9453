# Sourced by scripts/sanitize.sh (mode address) and scripts/fuzz.sh: the one build of the package
# under AddressSanitizer with libFuzzer's coverage, in .build/sanitize-address (git-ignored).
#
# Both scripts build from it, so CI compiles the package once for the ASan suite and the fuzz
# smoke: the fuzzer is then only linked (about 170 s of a 2-core CI run saved). The suite's code
# carries coverage counters it does not use (Notes/fuzzing.md, "CI").
#   - release (-O): libFuzzer needs speed, and the ASan suite runs six times faster than at -Onone.
#     Swift's overflow and bounds checks stay on at -O (not -Ounchecked); the package has no
#     assert() or #if DEBUG. -enable-testing: the tests' @testable imports.
#   - Swift with -sanitize=address and libFuzzer's coverage (-sanitize-coverage: edges as inline
#     8-bit counters with their PC table, and compares; what -sanitize=fuzzer gives). Swift has no
#     UBSan on Linux; its own checks stand in.
#   - the package's C targets with -fsanitize=fuzzer-no-link,address,undefined and no UBSan
#     recovery: a finding aborts. Debian's libraries are not rebuilt: ASan sees their heap blocks
#     (redzones, use after free through our code, memcpy and friends) but not their own loads.
#   - libFuzzer's runtime without its main (libclang_rt.fuzzer_no_main, with the libstdc++ it is
#     written against) in every link: it holds the coverage hooks and LLVMFuzzerRunDriver, which
#     masonry-fuzz's main calls under MASONRY_LIBFUZZER. -sanitize=fuzzer would link libFuzzer's
#     main whole, which clashes with the test runner's main (SwiftPM renames an executable's
#     entry point, not the test runner's).
#   - MASONRY_ASAN: TestSupport's `Sanitizer` skips the tests that cannot hold under ASan.
#   - lld: ld.gold stops with "internal error in format_file_lineno" on the ASan+libFuzzer link.
# shellcheck disable=SC2034  # used by the scripts that source this file
libfuzzer_no_main="$("$(dirname "$(readlink -f "$(command -v swiftc)")")/clang" -print-resource-dir)/lib/linux/libclang_rt.fuzzer_no_main-$(uname -m).a"
[ -f "$libfuzzer_no_main" ] || { echo "asan-fuzzer-build.sh: the Swift toolchain has no libFuzzer runtime at $libfuzzer_no_main" >&2; exit 2; }
asan_fuzzer_build=(
    -c release --scratch-path .build/sanitize-address
    -Xswiftc -enable-testing -Xswiftc -DMASONRY_ASAN -Xswiftc -DMASONRY_LIBFUZZER
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
    -Xswiftc -use-ld=lld -Xlinker "$libfuzzer_no_main" -Xlinker -lstdc++
    -Xcc -fsanitize=fuzzer-no-link,address,undefined -Xcc -fno-sanitize-recover=undefined
)
