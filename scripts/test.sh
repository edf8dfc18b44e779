#!/usr/bin/env bash
# The whole test suite: installs what is missing, starts the stores in a throwaway
# environment, and runs every test against real gnome-keyring, the kernel keyring, real files
# and a real OpenBao server. Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
# CI provides every backend, so there an unavailable backend fails instead of being skipped.
bash scripts/with-services.sh swift test --skip-build "$@"
