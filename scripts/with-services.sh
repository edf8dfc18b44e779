#!/usr/bin/env bash
# Runs a command inside a throwaway environment with every store the tests need:
#   - a fresh HOME and XDG directories, so no real user's secrets are ever touched;
#   - a private D-Bus session with a Secret Service provider: gnome-keyring unlocked, or with
#     --provider=keepassxc KeePassXC headless (and then nothing D-Bus could activate in its
#     place: the bus has no service directories);
#   - an OpenBao dev server on 127.0.0.1 (the Vault backend);
#   - a passphrase and a directory for the encrypted-file backend.
# Everything is torn down when the command ends.
# Usage: with-services.sh [--provider=gnome-keyring|keepassxc] COMMAND [ARGS...]
set -euo pipefail

provider=${LINUX_KEYCHAIN_TEST_PROVIDER:-gnome-keyring}
case "${1:-}" in
    --provider=*) provider=${1#--provider=}; shift ;;
esac
case "$provider" in
    gnome-keyring|keepassxc) ;;
    *) echo "with-services: unknown provider '$provider' (gnome-keyring or keepassxc)" >&2; exit 2 ;;
esac
# The tests read it to know which provider they talk to.
export LINUX_KEYCHAIN_TEST_PROVIDER=$provider

if [ "${LINUX_KEYCHAIN_IN_SERVICES:-}" != "1" ]; then
    scratch=$(mktemp -d /tmp/linux-keychain-env.XXXXXX)
    chmod 700 "$scratch"
    trap 'rm -rf "$scratch"' EXIT
    export LINUX_KEYCHAIN_SCRATCH="$scratch"
    export HOME="$scratch/home" XDG_DATA_HOME="$scratch/home/.local/share" XDG_CONFIG_HOME="$scratch/home/.config"
    export XDG_RUNTIME_DIR="$scratch/runtime" XDG_CACHE_HOME="$scratch/home/.cache"
    mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" "$XDG_CACHE_HOME"
    chmod 700 "$XDG_RUNTIME_DIR"
    export LINUX_KEYCHAIN_IN_SERVICES=1
    # Keep the trap's scratch cleanup: run the inner part as a child, not with exec.
    # dbus-daemon warns that an unprivileged container cannot raise its file limit; that is
    # harmless noise, so it is the one line filtered from stderr.
    bus_options=()
    if [ "$provider" = keepassxc ]; then
        # A session bus like the standard one but with no service directories, so that no
        # gnome-keyring (or anything else) can be activated as org.freedesktop.secrets when
        # KeePassXC is not running.
        cat >"$scratch/session-bus.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
        bus_options=(--config-file="$scratch/session-bus.conf")
    fi
    dbus-run-session "${bus_options[@]}" -- "$0" "$@" 2> >(grep --line-buffered -v "Failed to set fd limit" >&2)
    exit $?
fi

# Inside the private bus from here on.
provider_pid=""
if [ "$provider" = keepassxc ]; then
    provider_pid=$(bash "$(dirname "$0")/start-keepassxc.sh" "$LINUX_KEYCHAIN_SCRATCH/keepassxc")
else
    echo -n "linux-keychain-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
fi
export KEYCHAIN_FILE_DIR="$LINUX_KEYCHAIN_SCRATCH/file-store"
export KEYCHAIN_FILE_PASSPHRASE="linux-keychain-test-passphrase"

bao_pid=""
if command -v bao >/dev/null 2>&1; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    export VAULT_ADDR="http://127.0.0.1:$port" VAULT_TOKEN="linux-keychain-root"
    bao server -dev -dev-listen-address="127.0.0.1:$port" -dev-root-token-id="$VAULT_TOKEN" \
        >"$LINUX_KEYCHAIN_SCRATCH/bao.log" 2>&1 &
    bao_pid=$!
    for _ in $(seq 1 100); do
        bao status >/dev/null 2>&1 && break
        sleep 0.1
    done
    bao status >/dev/null 2>&1 || { echo "with-services: OpenBao did not start; see bao.log:" >&2; cat "$LINUX_KEYCHAIN_SCRATCH/bao.log" >&2; }
fi

status=0
"$@" || status=$?
[ -z "$bao_pid" ] || kill "$bao_pid" 2>/dev/null || true
# KeePassXC ignores SIGTERM while it has unsaved changes (it would ask whether to save), and
# the database is thrown away: end it at once.
[ -z "$provider_pid" ] || kill -KILL "$provider_pid" 2>/dev/null || true
exit $status
