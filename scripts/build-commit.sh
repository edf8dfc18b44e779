#!/usr/bin/env bash
# Prints the commit `linux-keychain --version` should name: `git rev-parse --short=12 HEAD`,
# with "-dirty" when tracked files differ from it, or "unknown" outside a git checkout.
# scripts/test.sh, demo.sh and package.sh export it as LINUX_KEYCHAIN_COMMIT before building;
# Package.swift passes it to the CBuildInfo target (a plain `swift build` prints "unknown").
set -euo pipefail
cd "$(dirname "$0")/.."
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || commit+="-dirty"
    echo "$commit"
else
    echo unknown
fi
