#!/usr/bin/env bash
# The soak (issue #29): the thread-pool case (ThreadPoolWorkload's defaults: 64 threads each add,
# read, update 3 times and delete 4 items) in a loop for MINUTES on a real backend, in the tests'
# throwaway environment (scripts/with-services.sh starts the stores). KeychainThreadPoolProbe
# --soak samples its own resident memory (VmRSS) and open descriptors between runs, once a
# minute and at the end (after the second run, none starts that would end past MINUTES), and
# fails if any run failed, or if from minute 1 (for one minute: the end of the first run) to the
# end memory grew by more than 5 MB or descriptors changed by more than 2. Figures:
# docs/performance.md.
# Usage: soak.sh BACKEND MINUTES   BACKEND: keyring, file, secret-service, vault, or all (each in turn)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ] || ! [ "$2" -gt 0 ] 2>/dev/null; then
    echo "usage: soak.sh keyring|file|secret-service|vault|all MINUTES" >&2
    exit 2
fi
case "$1" in
    all) backends="keyring file secret-service vault" ;;
    keyring|file|secret-service|vault) backends=$1 ;;
    *) echo "soak: unknown backend '$1' (keyring, file, secret-service, vault or all)" >&2; exit 2 ;;
esac
if [ "${LINUX_KEYCHAIN_IN_SERVICES:-}" != 1 ]; then
    # The build the tests use, with its settings (a no-op after scripts/test.sh).
    export LINUX_KEYCHAIN_STRICT=1
    LINUX_KEYCHAIN_COMMIT="${LINUX_KEYCHAIN_COMMIT:-$(bash scripts/build-commit.sh)}"
    export LINUX_KEYCHAIN_COMMIT
    swift build --product KeychainThreadPoolProbe >/dev/null
    KEYCHAIN_SOAK_PROBE="$(swift build --show-bin-path)/KeychainThreadPoolProbe" \
        exec bash scripts/with-services.sh bash "$0" "$@"
fi
status=0
for backend in $backends; do
    echo "soak: $backend for $2 min"
    KEYCHAIN_BACKEND=$backend "$KEYCHAIN_SOAK_PROBE" --soak "$2" "soak-$backend" || status=1
done
exit $status
