#!/usr/bin/env bash
# Coverage-guided fuzzing of Masonry's parsers of outside bytes (issue #25), with libFuzzer.
#
#   scripts/fuzz.sh --list                       the targets (FuzzTargets.all)
#   scripts/fuzz.sh TARGET SECONDS [--jobs N]    fuzz TARGET for SECONDS (N processes, at most 2)
#   scripts/fuzz.sh --build                      only build the fuzzer
#   scripts/fuzz.sh --smoke SECONDS              build once, then fuzz every target for SECONDS, two at once (CI)
#
# The fuzzer is one executable, masonry-fuzz (Sources/masonry-fuzz), over every FuzzTarget, built
# from the package's one ASan build (scripts/asan-fuzzer-build.sh: release, ASan with libFuzzer's
# coverage, UBSan on the C targets), which scripts/sanitize.sh address shares; SwiftPM rebuilds only
# what changed.
# The target is chosen by MASONRY_FUZZ_TARGET, which -jobs children inherit.
#
# Inputs and outputs, per target:
#   seeds        Tests/FuzzReplayTests/Corpus/TARGET/ (read only here; swift test replays them)
#   dictionary   Fuzz/dictionaries/TARGET.dict, else the one of its format (png-decode: png.dict)
#   corpus       Fuzz/work/TARGET/corpus/ (what libFuzzer adds; git-ignored, kept between runs)
#   findings     Fuzz/findings/TARGET/ (crash-*, timeout-*, oom-*; git-ignored). Once fixed, copy
#                the input to Tests/FuzzReplayTests/Corpus/TARGET/regressions/.
#   log          Fuzz/work/TARGET/fuzz-*.log; the summary (exec/s, cov, ft, findings) is printed.
# Limits: -max_len is twice the largest seed (4 KiB to 1 MiB); -rss_limit_mb is 3 GiB shared by
# the jobs (the machine's 24 GiB serve eight sessions), which is also the biggest single malloc;
# -timeout 10 s per input (--smoke runs two targets at once, each with its own 3 GiB: 6 GiB at most).
# The targets themselves decode under DecodeLimits.fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

source "$root/scripts/asan-fuzzer-build.sh"
swift_build() {
    swift build "${asan_fuzzer_build[@]}" --product masonry-fuzz "$@"
}

build() {
    swift_build 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|^Building for|^Build of product' || true
    binary=$(swift_build --show-bin-path)/masonry-fuzz
    [ -x "$binary" ] || { echo "fuzz.sh: the fuzzer did not build" >&2; exit 2; }
}

# fuzz TARGET SECONDS JOBS: one run of one target; prints its summary, returns 1 on a finding.
fuzz() {
    local target=$1 seconds=$2 jobs=$3
    local seeds=$root/Tests/FuzzReplayTests/Corpus/$target
    [ -d "$seeds" ] || { echo "fuzz.sh: no seeds in $seeds (is '$target' in FuzzTargets.all?)" >&2; exit 64; }
    local work=$root/Fuzz/work/$target
    local findings=$root/Fuzz/findings/$target
    mkdir -p "$work/corpus" "$findings"
    rm -f "$work"/fuzz-*.log
    touch "$work/started"   # findings of earlier runs stay in $findings, and are not this run's

    local dictionary=$root/Fuzz/dictionaries/$target.dict
    [ -f "$dictionary" ] || dictionary=$root/Fuzz/dictionaries/${target%%-*}.dict
    # MASONRY_FUZZ_SEED (CI sets it) fixes libFuzzer's random seed, so a smoke run takes the same
    # path on every machine (it still runs for SECONDS, so a faster machine goes further); 0: random.
    local options=(-seed="${MASONRY_FUZZ_SEED:-0}" -max_total_time="$seconds" -print_final_stats=1 -timeout=10
                   -rss_limit_mb=$((3072 / jobs)) -artifact_prefix="$findings/")
    [ -f "$dictionary" ] && options+=(-dict="$dictionary")
    local largest max_len
    largest=$(find "$seeds" -type f -printf '%s\n' | sort -n | tail -1)
    max_len=$((2 * ${largest:-0}))
    [ "$max_len" -ge 4096 ] || max_len=4096
    [ "$max_len" -le 1048576 ] || max_len=1048576
    options+=(-max_len="$max_len")

    local status=0
    (
        cd "$work"
        export MASONRY_FUZZ_TARGET=$target
        if [ "$jobs" -eq 1 ]; then
            "$binary" "${options[@]}" corpus "$seeds" >fuzz-0.log 2>&1
        else
            # Each job writes fuzz-<n>.log here and shares corpus/ with the other.
            "$binary" "${options[@]}" -jobs="$jobs" -workers="$jobs" corpus "$seeds" >/dev/null 2>&1
        fi
    ) || status=$?

    local log last runs rate rss
    for log in "$work"/fuzz-*.log; do
        last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
        echo "$target (${log##*/}): ${runs:-?} runs in ${seconds} s, ${rate:-?} exec/s," \
            "cov: $(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last") ft: $(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")," \
            "corpus $(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last"), peak RSS ${rss:-?} MB"
    done
    local found
    found=$(find "$findings" -type f -newer "$work/started" | sort)
    if [ -n "$found" ] || [ "$status" -ne 0 ]; then
        echo "$target: FINDINGS (libFuzzer status $status):"
        for file in $found; do echo "  $file"; done
        grep -hE '^==[0-9]+==ERROR|^SUMMARY|runtime error|Fatal error|precondition' "$work"/fuzz-*.log | sort -u | head -20 | sed 's/^/  /'
        echo "  log: $work/fuzz-*.log"
        return 1
    fi
    echo "$target: no findings"
}

# A smaller quarantine than ASan's 256 MB default keeps RSS in the limit; UBSan findings abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:malloc_context_size=20}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Leaks inside the decoding libraries themselves, each with its reason, as in scripts/sanitize.sh.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan-suppressions.txt:print_suppressions=0}

case "${1:-}" in
    --list) build >&2; "$binary" --list; exit 0 ;;
    --build) build; echo "$binary"; exit 0 ;;
    --smoke)
        # Every target with one build (SwiftPM's up-to-date check alone costs seconds a call), two
        # at a time (a libFuzzer job uses one core); each target's summary is printed in list order.
        seconds=${2:?usage: scripts/fuzz.sh --smoke SECONDS}
        build
        mapfile -t targets < <("$binary" --list)
        mkdir -p Fuzz/work
        failed=0
        for ((i = 0; i < ${#targets[@]}; i += 2)); do
            pair=("${targets[@]:i:2}")
            pids=()
            for target in "${pair[@]}"; do fuzz "$target" "$seconds" 1 >"Fuzz/work/$target.smoke" 2>&1 & pids+=($!); done
            for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
            for target in "${pair[@]}"; do cat "Fuzz/work/$target.smoke"; done
        done
        exit "$failed" ;;
    ""|-h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

target=$1
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [--jobs N]}
jobs=1
if [ "${3:-}" = "--jobs" ]; then jobs=${4:?--jobs needs a number}; fi
[ "$jobs" -ge 1 ] && [ "$jobs" -le 2 ] || { echo "fuzz.sh: --jobs is 1 or 2 (two cores)" >&2; exit 64; }
build
fuzz "$target" "$seconds" "$jobs"
