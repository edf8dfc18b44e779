#!/usr/bin/env bash
# Runs `keychain-bench --quick` and checks only that it finishes and writes valid JSON of the
# documented shape; its times are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python peers kept out of .build/python itself (see install-deps.sh).
export KEYCHAIN_BENCH_PYTHONPATH="$PWD/.build/bench-python"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$(swift build --show-bin-path)/keychain-bench" --quick --json "$out/bench.json" --svg "$out/bench.svg" >/dev/null
python3 - "$out/bench.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert results, "no results"
for row in results:
    for key in ("backend", "operation", "items", "p50_us", "p90_us", "p99_us", "ops_per_s"):
        assert key in row, f"missing {key} in {row}"
print(f"bench smoke: {len(results)} results from {sorted({r['backend'] for r in results})}")
PY
grep -q "<svg" "$out/bench.svg"
