#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer with AddressSanitizer) of the decoders that read input
# from disk, the kernel or the network. One target per decoder, in Fuzz/Targets/TARGET.swift;
# its seed corpus, real values made by the project's own encoders, is Fuzz/corpus/TARGET.
#
#   fuzz.sh TARGET SECONDS      build TARGET and fuzz it for SECONDS, starting from its corpus
#   fuzz.sh all SECONDS         every target in turn, SECONDS each (CI)
#   fuzz.sh --seeds TARGET|all  rewrite the committed corpus from the encoders
#   fuzz.sh --list              the targets
#
# The library modules are built once by SwiftPM with `-sanitize=fuzzer,address` into
# .build/fuzz (the ordinary build is untouched); each target is the harness (Fuzz/*.swift and
# its target file) linked with those modules' objects. New inputs the fuzzer finds go to
# .build/fuzz/corpus/TARGET, not into the committed corpus. A finding stops the run with a
# crash-* file in .build/fuzz/findings/TARGET and fails the script; make it a test case in the
# decoder's normal tests, then fix the decoder.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(file-item file-header keyring-record vault-json persistent-ref bundle-item)
usage() { echo "usage: fuzz.sh TARGET|all SECONDS | fuzz.sh --seeds TARGET|all | fuzz.sh --list (targets: ${targets[*]})" >&2; exit 2; }

scratch=.build/fuzz
bin=$scratch/debug

# Builds every module the targets use: KeychainCLI depends on all of them. A debug build, so
# the modules are built with -enable-testing and the harnesses reach internal decoders.
build_modules() {
    # CDynamicLibrary is named on its own: SwiftPM builds a C target that only other C
    # targets depend on when it links a product, which a --target build does not do.
    local target
    for target in KeychainCLI CDynamicLibrary; do
        swift build --scratch-path "$scratch" --target "$target" -Xswiftc -sanitize=fuzzer,address 2>&1 | tail -3
        test "${PIPESTATUS[0]}" -eq 0
    done
}

# Links the harness of target $1 into $bin/fuzz-$1.
link_target() {
    local target=$1 modulemaps=() objects=()
    for map in "$bin"/*.build/module.modulemap; do modulemaps+=(-Xcc "-fmodule-map-file=$map"); done
    for shim in CShims/*/; do modulemaps+=(-I "$shim"); done
    # Every object SwiftPM built for the KeychainCLI closure; the executable's entry point is
    # renamed by SwiftPM (KeychainCLI_main), so its objects link beside libFuzzer's main.
    objects=("$bin"/*.build/*.o)
    swiftc -sanitize=fuzzer,address -parse-as-library -g -module-name "Fuzz_${target//-/_}" \
        -I "$bin/Modules" "${modulemaps[@]}" \
        Fuzz/FuzzEntry.swift Fuzz/FuzzSamples.swift "Fuzz/Targets/$target.swift" "${objects[@]}" \
        -lsodium -lkeyutils -o "$bin/fuzz-$target" 2>&1 | grep -v "ld.gold: warning: Cannot export local symbol '__asan" || true
    test -x "$bin/fuzz-$target"
}

known() { local target; for target in "${targets[@]}"; do [ "$target" = "$1" ] && return 0; done; return 1; }

write_seeds() {
    local target=$1
    # Seeds are rewritten; finding-* inputs (past findings, kept as regression seeds) stay.
    rm -f "Fuzz/corpus/$target"/seed-*
    LKC_FUZZ_WRITE_SEEDS="Fuzz/corpus/$target" "$bin/fuzz-$target"
    echo "fuzz: $target: $(ls "Fuzz/corpus/$target" | wc -l) seeds in Fuzz/corpus/$target"
}

run_target() {
    local target=$1 seconds=$2 log status=0
    mkdir -p "$scratch/corpus/$target" "$scratch/findings/$target"
    log=$scratch/findings/$target/last-run.log
    # Leaks are checked after every input and at exit; the suppressions are those of the
    # address-sanitized tests (each entry says why), as the same live-Data reports arise here.
    export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    # -rss_limit_mb: a decoder must not allocate more than its input justifies.
    "$bin/fuzz-$target" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$scratch/findings/$target/" "$scratch/corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    # The last status line (e.g. "#123456 DONE cov: 812 ft: 2301 corp: ...") and the rate.
    echo "fuzz: $target: $(grep -E '^#[0-9]+' "$log" | tail -1)"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$log" | sed "s/^/fuzz: $target: /"
    if [ "$status" -ne 0 ]; then
        tail -60 "$log" >&2
        echo "fuzz: $target found a failure (status $status); the input is in $scratch/findings/$target/" >&2
        return 1
    fi
}

case "${1:-}" in
    --list) printf '%s\n' "${targets[@]}"; exit 0 ;;
    --seeds) mode=seeds; selection=${2:-} ;;
    "") usage ;;
    *) mode=run; selection=$1; seconds=${2:-}; [[ "$seconds" =~ ^[0-9]+$ ]] || usage ;;
esac
if [ "$selection" = all ]; then chosen=("${targets[@]}"); elif known "$selection"; then chosen=("$selection"); else usage; fi

bash scripts/install-deps.sh --for fuzz
build_modules
failed=0
for target in "${chosen[@]}"; do
    link_target "$target"
    if [ "$mode" = seeds ]; then write_seeds "$target"; else run_target "$target" "$seconds" || failed=1; fi
done
exit "$failed"
