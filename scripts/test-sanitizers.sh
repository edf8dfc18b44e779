#!/usr/bin/env bash
# The test suite under a sanitizer: `thread` (ThreadSanitizer) or `address` (AddressSanitizer),
# built into a folder of its own (.build/SANITIZER) so the ordinary build is untouched.
# Without further arguments it runs the targets whose code has threads of its own, as CI does:
# Core, the kernel keyring, the encrypted file, the Secret Service and Vault. Any other
# `swift test --filter` expression may follow, e.g. `.` for the whole suite.
# A sanitizer report fails the run even where the test that triggered it passed.
# Usage: test-sanitizers.sh thread|address [FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: test-sanitizers.sh thread|address [FILTER]}
threaded='KeychainCoreTests|KeychainKeyringTests|KeychainEncryptedFileTests|KeychainVaultTests'
filter=${2:-$threaded|KeychainSecretServiceTests}
case "$sanitizer" in
    thread) report='WARNING: ThreadSanitizer' ;;
    address) report='ERROR: AddressSanitizer|ERROR: LeakSanitizer' ;;
    *) echo "test-sanitizers: unknown sanitizer '$sanitizer' (thread or address)" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
LINUX_KEYCHAIN_COMMIT=$(bash scripts/build-commit.sh)
export LINUX_KEYCHAIN_COMMIT LINUX_KEYCHAIN_STRICT=1
# The conformance case `thread-pool` in 16 threads, not 64: under a sanitizer the full shape
# took most of the run on every backend. The ordinary suite runs the full shape. Test-only.
export LINUX_KEYCHAIN_TEST_THREAD_POOL_THREADS=${LINUX_KEYCHAIN_TEST_THREAD_POOL_THREADS:-16}
# A file-store call waits up to 120 s, not 30, for another process's lock: under the sanitizer's
# slowdown, 16 processes of 8 threads on one store (FileManyProcessesTests) left a waiter 30 s
# behind the others. Tests that check the wait set their own. Test-only.
export KEYCHAIN_FILE_LOCK_TIMEOUT=${KEYCHAIN_FILE_LOCK_TIMEOUT:-120}
scratch=.build/$sanitizer
if [ "$sanitizer" = address ]; then
    # LeakSanitizer reports some live values as leaks (scripts/sanitizers/live-values-probe.swift
    # shows which, and why); lsan-suppressions.txt names them, each entry with its reason.
    # The probe runs first, so that the suppressions go once a toolchain no longer needs them.
    mkdir -p "$scratch"
    swiftc -sanitize=address -g scripts/sanitizers/live-values-probe.swift -o "$scratch/live-values-probe" 2>/dev/null
    probe_report=$("$scratch/live-values-probe" 2>&1 || true)
    if grep -q 'Direct leak of 65 byte' <<<"$probe_report" && grep -q formWeakReference <<<"$probe_report"; then
        echo "test-sanitizers: LeakSanitizer still reports live Data and weak side tables as leaked (live-values-probe); suppressions apply"
    else
        echo "test-sanitizers: LeakSanitizer no longer reports live Data or weak side tables (live-values-probe): remove the entries of scripts/sanitizers/lsan-suppressions.txt it no longer needs" >&2
        exit 1
    fi
    export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan-suppressions.txt:print_suppressions=1${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# `skip`: tests whose timing bounds the sanitizer's slowdown, not the code, would break; the
# endless-answer test bounds how long reading a huge reply may take.
skip=endlessAnswerIsRefusedPromptly
# ThreadSanitizer turns itself off in the child of a multi-threaded fork, which may then hang
# on a lock of its runtime: the Vault fork tests' children make requests, so they run elsewhere.
[ "$sanitizer" != thread ] || skip+='|VaultForkTests'
# The stores' faults under a thread pool (suites named …UnderLoad…) load the machine enough to
# break the timing bounds of tests beside them; scripts/test.sh runs them alone, one at a time.
skip+='|UnderLoad'
# One `swift test` run over the filter $1, with the environment settings that follow it.
run_tests() {
    env "${@:2}" bash scripts/with-services.sh swift test --sanitize="$sanitizer" --scratch-path "$scratch" --skip-build \
        --filter "$1" --skip "$skip" 2>&1 | tee -a "$log" || status=$?
}
if [ "$sanitizer" = address ] && [ -z "${2:-}" ]; then
    # Debian's GLib has no frame pointers, so the fast unwinder shows a GLib allocation as two
    # frames, which no suppression can tell apart. The Secret Service tests, the ones that run
    # GLib, take full stacks; only they do, since that slows every allocation.
    run_tests "$threaded"
    # Full stacks slow the client enough that a reply beats its next request: the tests that
    # count how requests share waits, or see a read go out before the search is answered, fail
    # in every try (they all run in the ordinary suite).
    skip+='|aGetSendsNineRequestsInThreeWaits|aMissAsksTheLockStateBeforeTheSearchIsAnswered'
    skip+='|aRepeatedGetSendsTheReadBeforeTheSearchIsAnswered|aRepeatedUpdateSendsTheReadBeforeTheSearchIsAnswered'
    run_tests KeychainSecretServiceTests ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
else
    run_tests "$filter"
fi
if grep -Eq "$report" "$log"; then
    echo "test-sanitizers: $sanitizer sanitizer reports above ($(grep -Ec "$report" "$log"))" >&2
    exit 1
fi
exit "$status"
