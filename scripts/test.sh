#!/usr/bin/env bash
# The whole test suite: installs what is missing, starts the stores in a throwaway
# environment, and runs every test against real gnome-keyring, the kernel keyring, real files
# and a real OpenBao server; then the Secret Service tests once more against KeePassXC, the
# second real provider; the Vault tests against an OpenBao cluster; then a smoke run of the benchmark so that target cannot rot.
# Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --for test
# The commit `linux-keychain --version` names (see Package.swift).
LINUX_KEYCHAIN_COMMIT=$(bash scripts/build-commit.sh)
export LINUX_KEYCHAIN_COMMIT
# The package's own strict checks (see Package.swift), for the build and every run after it.
export LINUX_KEYCHAIN_STRICT=1
swift build --build-tests
# The stores' faults under a thread pool (suites named …UnderLoad…: a full disk, OpenBao and
# gnome-keyring restarted) load the machine enough to break the timing bounds of tests beside
# them, so they run after the rest, one at a time.
bash scripts/with-services.sh swift test --skip-build --skip UnderLoad "$@"
bash scripts/with-services.sh swift test --skip-build --no-parallel --filter UnderLoad "$@"
# The interrupted 2,000-item migrations into and out of gnome-keyring, alone: they keep the
# provider busy for longer than other tests' calls may wait.
LINUX_KEYCHAIN_TEST_MIGRATION_INTO_SECRET_SERVICE=1 bash scripts/with-services.sh swift test --skip-build --filter InterruptedMigrationTests "$@"
bash scripts/with-services.sh --provider=keepassxc swift test --skip-build --filter KeychainSecretServiceTests --skip UnderLoad "$@"
# The moves between every pair of stores with KWallet as the Secret Service (#30).
bash scripts/with-services.sh --provider=kwallet swift test --skip-build --filter MigrateCommandTests "$@"
# The Vault tests once more, through a standby of a three-node raft cluster; then the
# leader-failover test alone, since it kills that cluster's leader.
bash scripts/with-services.sh --vault=cluster swift test --skip-build --filter KeychainVaultTests "$@"
LINUX_KEYCHAIN_TEST_VAULT_FAILOVER=1 bash scripts/with-services.sh --vault=cluster swift test --skip-build --filter VaultFailoverTests "$@"
bash scripts/with-services.sh bash scripts/bench-smoke.sh
