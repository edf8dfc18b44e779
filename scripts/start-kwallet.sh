#!/usr/bin/env bash
# Starts KWallet (kwalletd5) headless as the Secret Service provider on the current session bus,
# with its default wallet open and the collection behind the `default` alias unlocked, and waits
# until a client's first call can write. Used by with-services.sh --provider=kwallet; HOME,
# XDG_CONFIG_HOME, XDG_DATA_HOME and the bus must already be the throwaway ones.
#
# Usage: start-kwallet.sh DIRECTORY
#   DIRECTORY receives kwalletd's log; the script prints kwalletd's process id on stdout.
#
# The route (no dialog, no display): kwalletd's own `pamOpen(wallet, key, timeout)` D-Bus call,
# the entry pam_kwallet5 uses at login, given a random 56-byte key instead of the PBKDF2 hash
# of a login password. For a wallet that does not exist yet it creates a blowfish wallet with
# that key, without a dialog. Two things make it take two starts:
#   - the Secret Service side (the FDO service) makes its collections from the wallet files
#     present when kwalletd starts, and pamOpen's new wallet announces no walletCreated: so the
#     first kwalletd only creates the wallet file, and a second one, started with the file in
#     place, opens it with the same key;
#   - an open wallet is still a locked collection until a Secret Service client unlocks it:
#     Service.Unlock returns a prompt, and Prompt.Prompt asks kwalletd to open the wallet,
#     which is open already and so needs no password dialog ("Prompt on Open" is off, so no
#     access dialog either).
# An empty kdewallet.kwl placed beforehand does not spare the first start: pamOpen then opens
# it as an existing wallet of unknown cipher and fails without a word.
# kwalletrc: Secret Service interface on, no first-use wizard, no closing when idle, no
# kwalletmanager. QT_QPA_PLATFORM=offscreen, since there is no display.
set -euo pipefail

directory=$1
mkdir -p "$directory" "$XDG_CONFIG_HOME" "${XDG_DATA_HOME:-$HOME/.local/share}"
chmod 700 "$directory"
log="$directory/kwalletd.log"

cat >"$XDG_CONFIG_HOME/kwalletrc" <<'EOF'
[Wallet]
Enabled=true
First Use=false
Default Wallet=kdewallet
Close When Idle=false
Close on Screensaver=false
Leave Open=true
Prompt on Open=false
Launch Manager=false

[org.freedesktop.secrets]
apiEnabled=true
EOF

# The wallet's key, as dbus-send's byte list; only this script and kwalletd ever see it.
key=$(head -c 56 /dev/urandom | od -An -tu1 -v | tr -s ' \n' ',,' | sed 's/^,//; s/,$//')

call() {
    dbus-send --session --print-reply "$@" 2>/dev/null
}
kwalletd_call() {
    call --dest=org.kde.kwalletd5 /modules/kwalletd5 "org.kde.KWallet.$1" "${@:2}"
}
fail() {
    echo "start-kwallet: $1; kwalletd's log:" >&2
    cat "$log" >&2
    [ -z "${pid:-}" ] || kill "$pid" 2>/dev/null || true
    exit 1
}

# Starts kwalletd, waits until it owns org.freedesktop.secrets, and opens the wallet with the key.
start_and_open() {
    QT_QPA_PLATFORM=offscreen kwalletd5 >>"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        call --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner \
            string:org.freedesktop.secrets >/dev/null && break
        kill -0 "$pid" 2>/dev/null || fail "kwalletd5 exited"
        sleep 0.05
    done
    # pamOpen sends no answer (NoReply); isOpen, answered after it, says whether it worked.
    kwalletd_call pamOpen string:kdewallet "array:byte:$key" int32:0 >/dev/null || fail "pamOpen failed"
    kwalletd_call isOpen string:kdewallet | grep -q 'boolean true' || fail "pamOpen did not open the wallet"
}

start_and_open
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""
start_and_open

collection=$(call --dest=org.freedesktop.secrets /org/freedesktop/secrets \
    org.freedesktop.Secret.Service.ReadAlias string:default | awk -F'"' '/object path/ {print $2}')
[ -n "$collection" ] && [ "$collection" != "/" ] || fail "no collection behind the default alias"
prompt=$(call --dest=org.freedesktop.secrets /org/freedesktop/secrets \
    org.freedesktop.Secret.Service.Unlock "array:objpath:$collection" | awk -F'"' '/object path/ {print $2}' | tail -1)
[ -n "$prompt" ] && [ "$prompt" != "/" ] || fail "Unlock returned no prompt"
call --dest=org.freedesktop.secrets "$prompt" org.freedesktop.Secret.Prompt.Prompt string:0 >/dev/null \
    || fail "the unlock prompt failed"
# The prompt completes on kwalletd's next turn of its event loop.
for _ in $(seq 1 200); do
    if call --dest=org.freedesktop.secrets "$collection" org.freedesktop.DBus.Properties.Get \
        string:org.freedesktop.Secret.Collection string:Locked | grep -q 'boolean false'; then
        echo "$pid"
        exit 0
    fi
    sleep 0.02
done
fail "the collection $collection stayed locked"
