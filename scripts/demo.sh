#!/usr/bin/env bash
# A short demo of the `linux-keychain` CLI on the default (`auto`) backend, inside a throwaway
# environment (private D-Bus with gnome-keyring, OpenBao, a scratch file store) so that no real
# keyring is touched. Prints the demo only; the build log appears only if the build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
LINUX_KEYCHAIN_COMMIT=$(bash scripts/build-commit.sh)
export LINUX_KEYCHAIN_COMMIT
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { bash scripts/install-deps.sh --for demo && swift build --product linux-keychain; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "demo: the build failed (log above)" >&2
    exit 1
fi
bin="$(swift build --show-bin-path)/linux-keychain"
bash scripts/with-services.sh bash -c '
    set -euo pipefail
    bin="$1"
    show() { printf "\n\$ %s\n" "$1"; }
    show "linux-keychain backends"; "$bin" backends
    show "printf s3cr3t | linux-keychain set --label \"Demo API token\" demo-service alice"
    printf s3cr3t | "$bin" set --label "Demo API token" demo-service alice
    show "linux-keychain get demo-service alice"; "$bin" get demo-service alice; echo
    show "printf hunter2 | linux-keychain set --protocol https --port 8443 git.example.com alice"
    printf hunter2 | "$bin" set --protocol https --port 8443 git.example.com alice
    show "linux-keychain list"; "$bin" list
    show "linux-keychain run --env TOKEN demo-service alice -- sh -c '\''echo \"the command sees TOKEN=\$TOKEN\"'\''"
    "$bin" run --env TOKEN demo-service alice -- sh -c "echo \"the command sees TOKEN=\$TOKEN\""
    show "linux-keychain delete demo-service alice"; "$bin" delete demo-service alice
    show "linux-keychain get demo-service alice"; "$bin" get demo-service alice 2>&1 || echo "(exit status $?: not found)"
' demo "$bin"
