#!/usr/bin/env bash
# Runs `keychain-bench --quick`, then `--bundle 20` on every backend, and checks only that they
# finish and write valid JSON of the documented shape; their times are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python peers kept out of .build/python itself (see install-deps.sh).
export KEYCHAIN_BENCH_PYTHONPATH="$PWD/.build/bench-python"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bench="$(swift build --show-bin-path)/keychain-bench"
"$bench" --quick --json "$out/bench.json" --svg "$out/bench.svg" >/dev/null
"$bench" --bundle 20 --json "$out/bench.json" >/dev/null
python3 - "$out/bench.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert results, "no results"
bundle = sorted(r["backend"] + " " + r["operation"] for r in results if r["operation"].endswith("(bundle)"))
assert bundle == ["file import (bundle)", "keyring export (bundle)", "keyring import (bundle)",
                  "secret-service import (bundle)", "vault import (bundle)"], bundle
for row in results:
    for key in ("backend", "operation", "items", "p50_us", "p90_us", "p99_us", "ops_per_s"):
        assert key in row, f"missing {key} in {row}"
print(f"bench smoke: {len(results)} results from {sorted({r['backend'] for r in results})}")
PY
grep -q "<svg" "$out/bench.svg"
