#!/usr/bin/env bash
# Runs a command inside a throwaway environment with every store the tests need:
#   - a fresh HOME and XDG directories, so no real user's secrets are ever touched;
#   - kernel keyrings of its own: a new user namespace gives the run its own user and
#     persistent keyrings, and `keyctl session -` its own session keyring, so nothing the
#     tests store in the kernel (items, the file backend's unlock cache) reaches the real
#     user's keyrings, and parallel runs never see each other's keys;
#   - a private D-Bus session with a Secret Service provider: gnome-keyring unlocked, or with
#     --provider=keepassxc KeePassXC headless, or with --provider=kwallet kwalletd5 with its
#     wallet open (with either, nothing D-Bus could activate in its place: the bus has no
#     service directories);
#   - an OpenBao dev server on 127.0.0.1 (the Vault backend);
#   - a passphrase and a directory for the encrypted-file backend.
# Afterwards it checks that the real user's persistent and user keyrings hold the keys they
# held before: a difference fails the run under KEYCHAIN_REQUIRE_ALL_BACKENDS=1 (CI), and is
# reported as a warning elsewhere.
# Everything is torn down when the command ends.
#   - the test tools' Python environment, .build/python (scripts/install-deps.sh), first on
#     PATH, so that `bao`, `python3` and Python keyring are the ones installed there.
# With --vault=cluster the Vault backend talks to a three-node raft cluster instead
# (scripts/start-bao-cluster.sh), through a standby: VAULT_ADDR names one.
# Usage: with-services.sh [--provider=gnome-keyring|keepassxc|kwallet] [--vault=dev|cluster] COMMAND [ARGS...]
set -euo pipefail
python_env="$(cd "$(dirname "$0")/.." && pwd)/.build/python/bin"
[ ! -d "$python_env" ] || case ":$PATH:" in *":$python_env:"*) ;; *) export PATH="$python_env:$PATH" ;; esac

provider=${LINUX_KEYCHAIN_TEST_PROVIDER:-gnome-keyring}
vault=${LINUX_KEYCHAIN_TEST_VAULT:-dev}
while :; do
    case "${1:-}" in
        --provider=*) provider=${1#--provider=}; shift ;;
        --vault=*) vault=${1#--vault=}; shift ;;
        *) break ;;
    esac
done
case "$vault" in
    dev|cluster) ;;
    *) echo "with-services: unknown vault '$vault' (dev or cluster)" >&2; exit 2 ;;
esac
# The inner run (this script again) and the tests read it.
export LINUX_KEYCHAIN_TEST_VAULT=$vault
case "$provider" in
    gnome-keyring|keepassxc|kwallet) ;;
    *) echo "with-services: unknown provider '$provider' (gnome-keyring, keepassxc or kwallet)" >&2; exit 2 ;;
esac
# The tests read it to know which provider they talk to.
export LINUX_KEYCHAIN_TEST_PROVIDER=$provider

# The keys linked in the caller's user and persistent keyrings, one line each:
# "<keyring> <serial> <expiring|perm> <type> <description>". Run in a throwaway session
# keyring, since looking up the persistent keyring links it into the session keyring.
keyring_snapshot() {
    command -v keyctl >/dev/null 2>&1 || return 0
    keyctl session - sh -c '
        for name in user persistent; do
            if [ "$name" = user ]; then ring=@u; else ring=$(keyctl get_persistent @s 2>/dev/null) || continue; fi
            for serial in $(keyctl rlist "$ring" 2>/dev/null); do
                line=$(grep -i "^$(printf "%08x" "$serial") " /proc/keys 2>/dev/null) || line=""
                timeout=$(echo "$line" | awk "{print \$4}")
                [ "$timeout" = perm ] || timeout=expiring
                echo "$name $serial $timeout $(keyctl rdescribe "$serial" 2>/dev/null)"
            done
        done' 2>/dev/null | sort || true
}

# The serials of the caller's persistent, user and session keyrings, for the test that
# checks the run cannot reach them.
outer_keyring_serials() {
    command -v keyctl >/dev/null 2>&1 || return 0
    echo "$(keyctl session - keyctl get_persistent @s 2>/dev/null || true)" \
         "$(keyctl show @u 2>/dev/null | sed -n 2p | awk '{print $1}')" \
         "$(keyctl show @s 2>/dev/null | sed -n 2p | awk '{print $1}')"
}

# Runs "$@" in a new user namespace that maps every uid and gid to itself: the run gets
# kernel keyrings of its own for every user (root's, and the throwaway users some tests
# switch to), while files and processes keep their owners. Only root may map every id
# (without newuidmap); others get their own id mapped (unshare --map-current-user).
in_identity_user_namespace() {
    local handshake
    handshake=$(mktemp -d /tmp/linux-keychain-userns.XXXXXX)
    mkfifo "$handshake/pid" "$handshake/mapped"
    {
        pid=$(cat "$handshake/pid")
        if echo "0 0 4294967295" >"/proc/$pid/uid_map" && echo "0 0 4294967295" >"/proc/$pid/gid_map"
        then echo mapped >"$handshake/mapped"; else echo failed >"$handshake/mapped"; fi
        # The child holds both FIFOs open by now; the names are no longer needed, and a run
        # that is killed later must not leave them behind.
        rm -rf "$handshake"
    } &
    local mapper=$! status=0
    unshare --user --mount sh -c 'echo $$ >"$0/pid"; read -r answer <"$0/mapped"; [ "$answer" = mapped ] || exit 125; exec "$@"' \
        "$handshake" "$@" || status=$?
    wait "$mapper"
    rm -rf "$handshake"
    return $status
}

if [ "${LINUX_KEYCHAIN_IN_SERVICES:-}" != "1" ]; then
    scratch=$(mktemp -d /tmp/linux-keychain-env.XXXXXX)
    chmod 700 "$scratch"
    trap 'rm -rf "$scratch"' EXIT
    export LINUX_KEYCHAIN_SCRATCH="$scratch"
    export HOME="$scratch/home" XDG_DATA_HOME="$scratch/home/.local/share" XDG_CONFIG_HOME="$scratch/home/.config"
    export XDG_RUNTIME_DIR="$scratch/runtime" XDG_CACHE_HOME="$scratch/home/.cache"
    export XDG_STATE_HOME="$scratch/home/.local/state"
    # No machine-wide pin from this host leaks into the tests.
    export KEYCHAIN_SYSTEM_CONFIG="$scratch/system-config"
    mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
    chmod 700 "$XDG_RUNTIME_DIR"
    export LINUX_KEYCHAIN_IN_SERVICES=1

    isolation=()
    if [ "$(id -u)" = 0 ] && in_identity_user_namespace true 2>/dev/null; then
        isolation=(in_identity_user_namespace)
    elif unshare --user --map-current-user true 2>/dev/null; then
        isolation=(unshare --user --map-current-user)
    else
        echo "with-services: cannot make a user namespace (unshare --user); the kernel keyring tests share the real user and persistent keyrings" >&2
    fi
    if command -v keyctl >/dev/null 2>&1 && keyctl session - true 2>/dev/null; then
        isolation+=(keyctl session -)
    fi
    export LINUX_KEYCHAIN_OUTER_KEYRINGS
    LINUX_KEYCHAIN_OUTER_KEYRINGS=$(outer_keyring_serials)
    before=$(keyring_snapshot)

    # Keep the trap's scratch cleanup: run the inner part as a child, not with exec.
    # dbus-daemon warns that an unprivileged container cannot raise its file limit, and
    # `keyctl session` announces the keyring it made; that harmless noise is filtered from stderr.
    bus_options=()
    if [ "$provider" != gnome-keyring ]; then
        # A session bus like the standard one but with no service directories, so that no
        # gnome-keyring (or anything else) can be activated as org.freedesktop.secrets when
        # KeePassXC or kwalletd is not running. Its limits are the standard session bus's
        # (session.conf): with dbus-daemon's own, a client may await 128 replies at once, and
        # reading 2,000 items, one request each, failed with LimitsExceeded on KWallet.
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
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
  <limit name="max_match_rules_per_connection">50000</limit>
  <limit name="max_replies_per_connection">50000</limit>
</busconfig>
EOF
        bus_options=(--config-file="$scratch/session-bus.conf")
    fi
    status=0
    "${isolation[@]}" dbus-run-session "${bus_options[@]}" -- "$0" "$@" \
        2> >(grep --line-buffered -v -e "Failed to set fd limit" -e "^Joined session keyring: " >&2) || status=$?

    after=$(keyring_snapshot)
    # A key that had a timeout may have expired meanwhile. Any other change is the run's doing,
    # or another process's of this user (a desktop, another test run): so it fails the run
    # where nothing else runs (CI, KEYCHAIN_REQUIRE_ALL_BACKENDS=1), and is a warning elsewhere.
    added=$(comm -13 <(echo "$before") <(echo "$after"))
    removed=$(comm -23 <(echo "$before") <(echo "$after") | grep -v '^[a-z]* [0-9]* expiring ' || true)
    if [ -n "$added$removed" ]; then
        echo "with-services: the run changed the real user's kernel keyrings (keyring serial timeout type description):" >&2
        [ -z "$added" ] || echo "$added" | sed 's/^/  added:   /' >&2
        [ -z "$removed" ] || echo "$removed" | sed 's/^/  removed: /' >&2
        if [ "${KEYCHAIN_REQUIRE_ALL_BACKENDS:-}" = 1 ]; then
            [ "$status" -ne 0 ] || status=1
        else
            echo "with-services: (a warning here: other processes of this user may have made these changes; CI fails on them)" >&2
        fi
    fi
    exit $status
fi

# Inside the private bus from here on.
# A login session keyring links the user keyring, so that its keys (the file backend's unlock
# cache) are possessed; give the fresh session keyring the same shape.
! command -v keyctl >/dev/null 2>&1 || keyctl link @u @s 2>/dev/null || true
provider_pid=""
if [ "$provider" = keepassxc ]; then
    provider_pid=$(bash "$(dirname "$0")/start-keepassxc.sh" "$LINUX_KEYCHAIN_SCRATCH/keepassxc")
elif [ "$provider" = kwallet ]; then
    provider_pid=$(bash "$(dirname "$0")/start-kwallet.sh" "$LINUX_KEYCHAIN_SCRATCH/kwallet")
else
    echo -n "linux-keychain-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
fi
export KEYCHAIN_FILE_DIR="$LINUX_KEYCHAIN_SCRATCH/file-store"
export KEYCHAIN_FILE_PASSPHRASE="linux-keychain-test-passphrase"
# Python keyring picks a chaining backend once another keyring package is installed (the
# benchmark installs keyrings.cryptfile); the interop tests need its Secret Service backend.
export PYTHON_KEYRING_BACKEND="keyring.backends.SecretService.Keyring"
# Vault tokens are cached only where a test asks for it (a keyctl session of its own).
export KEYCHAIN_VAULT_TOKEN_CACHE=off

bao_pid=""
cluster_pids=""
if [ "$vault" = cluster ]; then
    mkdir -m 700 "$LINUX_KEYCHAIN_SCRATCH/bao-cluster"
    if bash "$(dirname "$0")/start-bao-cluster.sh" "$LINUX_KEYCHAIN_SCRATCH/bao-cluster"; then
        # shellcheck disable=SC1091
        . "$LINUX_KEYCHAIN_SCRATCH/bao-cluster/env"
    else
        echo "with-services: the OpenBao cluster did not start" >&2
    fi
    cluster_pids=$(cat "$LINUX_KEYCHAIN_SCRATCH/bao-cluster/pids" 2>/dev/null || true)
elif command -v bao >/dev/null 2>&1; then
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
# A test may have killed a node already; the others are ended at once (their data is thrown away).
for pid in $cluster_pids; do kill -KILL "$pid" 2>/dev/null || true; done
# KeePassXC ignores SIGTERM while it has unsaved changes (it would ask whether to save), and
# the database (or the wallet) is thrown away: end it at once.
[ -z "$provider_pid" ] || kill -KILL "$provider_pid" 2>/dev/null || true
exit $status
