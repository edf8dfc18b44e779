#!/usr/bin/env bash
# The full benchmark: installs what is missing, builds in release mode, starts every store in
# a throwaway environment (private D-Bus with gnome-keyring, OpenBao dev server, file store)
# and runs keychain-bench on every backend usable there. Writes docs/benchmark.json,
# docs/benchmark.svg and docs/benchmark.md, which docs/performance.md draws on.
# Extra arguments go to keychain-bench (e.g. --quick, --backend keyring).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python peers kept out of .build/python itself (see install-deps.sh).
export KEYCHAIN_BENCH_PYTHONPATH="$PWD/.build/bench-python"
bash scripts/install-deps.sh --for test
# With the Swift runtime and libstdc++ linked in and no RUNPATH, as scripts/package.sh builds the linux-keychain users install:
# loading the shared runtime and Foundation is most of a dynamic build's start-up.
LINUX_KEYCHAIN_STATIC_LIBSTDCXX=$(bash scripts/static-libstdcxx.sh)
export LINUX_KEYCHAIN_STATIC_LIBSTDCXX
build=(swift build -c release --static-swift-stdlib --disable-local-rpath)
"${build[@]}" --product keychain-bench
"${build[@]}" --product linux-keychain
"${build[@]}" --product keychain-bench-hello
bin="$("${build[@]}" --show-bin-path)"
mkdir -p docs
# The keyring backend runs in a fresh session keyring, so the figures are those of a store
# holding only what the benchmark puts there, not whatever earlier runs or tests left in the
# user's persistent keyring.
# The user keyring is linked into it, as pam_keyinit does in a login session, so the file
# backend's unlock cache (kept in the user keyring) works as it does for a logged-in user.
#
# keychain-bench itself (not the stores it talks to) runs pinned to one CPU where `taskset` and
# more than one CPU exist: on a shared virtual machine a process that moves between CPUs falls
# into spells, each longer than a benchmark row, in which every call, the raw ones included,
# is slower, and a row measured in such a spell reads as growth that is not there
# (docs/performance.md, "What is measured, and how"). The whole-process rows' children run on
# every CPU, as users run them (keychain-bench widens its mask for them: CPUAffinity.swift).
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
    pin=(taskset -c "$(( $(nproc) - 1 ))")
fi
KEYCHAIN_KEYRING=session bash scripts/with-services.sh keyctl session - sh -c 'keyctl link @u @s >/dev/null && exec "$@"' sh \
    "${pin[@]}" "$bin/keychain-bench" --json docs/benchmark.json --svg docs/benchmark.svg --markdown docs/benchmark.md "$@"
