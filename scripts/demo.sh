#!/usr/bin/env bash
# The main job, as a short demo of the `keychain` CLI on the default (`auto`) backend,
# inside a throwaway environment so that no real keyring is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --product keychain
bin="$(swift build --show-bin-path)/keychain"
bash scripts/with-services.sh bash -c '
    set -euo pipefail
    bin="$1"
    echo "\$ keychain backends"; "$bin" backends
    echo "\$ printf s3cr3t | keychain set demo-service alice"; printf s3cr3t | "$bin" set demo-service alice
    echo "\$ keychain get demo-service alice"; "$bin" get demo-service alice; echo
    echo "\$ keychain list demo-service"; "$bin" list demo-service
    echo "\$ keychain delete demo-service alice"; "$bin" delete demo-service alice
    echo "\$ keychain get demo-service alice"; "$bin" get demo-service alice || echo "(exit status $?)"
' demo "$bin"
