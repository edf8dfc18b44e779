#!/usr/bin/env bash
# Prints a folder holding only a link to libstdc++.a, for LINUX_KEYCHAIN_STATIC_LIBSTDCXX (see
# Package.swift): the release `linux-keychain` that scripts/package.sh ships and scripts/bench.sh
# times links libstdc++ statically. The archive is the one the toolchain's clang finds
# (libstdc++-NN-dev, which the Swift toolchain needs anyway); without it, this fails saying so.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
archive=$(clang --print-file-name=libstdc++.a)
if [ "$archive" = libstdc++.a ] || [ ! -f "$archive" ]; then
    echo "static-libstdcxx: clang finds no libstdc++.a (install the libstdc++-NN-dev package the Swift toolchain uses)" >&2
    exit 1
fi
folder="$root/.build/static-libstdcxx"
mkdir -p "$folder"
ln -sfn "$archive" "$folder/libstdc++.a"
echo "$folder"
