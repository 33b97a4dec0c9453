#!/usr/bin/env bash
# The whole test suite under a sanitizer (issue #25):
#
#   scripts/sanitize.sh address     AddressSanitizer on Swift and C, and UBSan on the C targets
#   scripts/sanitize.sh undefined   UndefinedBehaviorSanitizer on the C targets
#   scripts/sanitize.sh thread      ThreadSanitizer on Swift and C
#
# Further arguments go to `swift test` (e.g. --filter BandScheduler). Each mode builds into its
# own folder, .build/sanitize-MODE (git-ignored), and exits non-zero on any failing test or
# sanitizer report. The address mode's build is the one scripts/fuzz.sh builds the fuzzer from
# (scripts/asan-fuzzer-build.sh): it carries libFuzzer's coverage counters as well.
#
# The build is optimised (-c release, with -enable-testing for the tests' @testable imports):
# Swift's overflow and bounds checks stay on at -O, the package has no assert() or #if DEBUG, and
# the suite runs six times faster than at -Onone (ASan, 2 cores: 111 s against 693 s, for a build
# 200 s longer), which keeps CI under 30 minutes.
#
# Swift has no UBSan on Linux (`-sanitize=undefined` is refused for the target); Swift's own
# overflow and bounds checks stay on in every mode. The C targets get
# -fsanitize=undefined -fno-sanitize-recover=undefined (a finding aborts the test process), and
# the link gets UBSan's runtime (in `address` mode ASan's runtime holds it).
#
# Tests that cannot hold under a sanitizer are skipped under it, by the compile condition set
# here (MASONRY_ASAN, MASONRY_TSAN; TestSupport's `Sanitizer`), each with its reason in
# Swift Testing's "skipped" line. MASONRY_TSAN also makes WorkerThreads' `Lock` announce its
# critical sections to TSan (Synchronization.Mutex's futex is invisible to it); see
# Sources/WorkerThreads/Lock.swift. Suppressions that remain are in scripts/tsan-suppressions.txt
# and scripts/lsan-suppressions.txt, each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/sanitize.sh address|undefined|thread [swift test arguments]}
shift
ubsan_c=(-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined)
release_testing=(-c release -Xswiftc -enable-testing --scratch-path ".build/sanitize-$mode")
case "$mode" in
    address)
        # The build scripts/fuzz.sh also uses (scripts/asan-fuzzer-build.sh): ASan with libFuzzer's
        # coverage, so CI compiles the package once for the suite and the fuzz smoke.
        source scripts/asan-fuzzer-build.sh
        build_options=("${asan_fuzzer_build[@]}")
        # Leaks are findings too (LeakSanitizer runs at each test process's exit). A malloc too
        # big to satisfy returns NULL, as it does without ASan: the decoders report it as the
        # file's problem, and tests check that (interlaced images too large to hold).
        export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64}
        export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0}
        ;;
    undefined)
        build_options=("${release_testing[@]}" "${ubsan_c[@]}" -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined)
        ;;
    thread)
        build_options=("${release_testing[@]}" --sanitize=thread -Xswiftc -DMASONRY_TSAN)
        # atexit_sleep_ms: TSan waits a second at every exit by default (for threads still
        # running to report), which every child `masonry` would spend, and the signal tests
        # bound the time from signal to exit by 1 s.
        export TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$PWD/scripts/tsan-suppressions.txt:history_size=4:allocator_may_return_null=1:atexit_sleep_ms=50}
        ;;
    *) echo "sanitize.sh: the mode is address, undefined or thread" >&2; exit 64 ;;
esac
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Only what the suite runs: the test bundle (SwiftPM's product PACKAGEPackageTests), the command and
# the cache tests' child process. The bench tools are not built (masonry-floor, a C program, cannot
# link under libFuzzer's runtime, whose main it would duplicate).
# ld.gold warns "Cannot export local symbol '__asan_...'" for every sanitizer symbol: harmless noise.
for product in MasonryPackageTests masonry TileCacheProbe; do
    swift build --product "$product" "${build_options[@]}" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|Cannot export local symbol' || true
    swift build --product "$product" "${build_options[@]}" >/dev/null
done
swift test --skip-build "${build_options[@]}" "$@"
