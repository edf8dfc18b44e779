#!/usr/bin/env bash
# Checks the .deb that scripts/package.sh builds, as a Debian 12 machine without Swift would
# see it: unpacks it into a scratch root with `dpkg -x` and runs `keychain --version` and
# `keychain backends` from there with the toolchain off PATH and LD_LIBRARY_PATH unset; checks
# that ldd lists nothing from the toolchain, that the man page renders, that the completions
# parse, and that every dependency is a Debian package installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(bash scripts/package.sh)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
binary="$root/usr/bin/keychain"

clean_env=(env -i PATH=/usr/bin:/bin HOME="$root" LANG=C.UTF-8)
version=$("${clean_env[@]}" "$binary" --version)
expected="keychain $(dpkg-deb -f "$deb" Version)"
[ "$version" = "$expected" ] || { echo "package-test: --version printed '$version', not '$expected'" >&2; exit 1; }
if "${clean_env[@]}" ldd "$binary" | grep -Ei 'swift|not found'; then
    echo "package-test: the installed binary needs the libraries above" >&2
    exit 1
fi
# Runs and reports, whatever is usable on this machine (status 6 means nothing is).
status=0
"${clean_env[@]}" "$binary" backends >/dev/null 2>&1 || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 6 ] || { echo "package-test: keychain backends exited $status" >&2; exit 1; }

for file in usr/share/man/man1/keychain.1.gz usr/share/bash-completion/completions/keychain \
    usr/share/zsh/vendor-completions/_keychain usr/share/fish/vendor_completions.d/keychain.fish \
    usr/share/doc/keychain/copyright usr/share/doc/keychain/changelog.gz; do
    [ -s "$root/$file" ] || { echo "package-test: the package lacks /$file" >&2; exit 1; }
done
if command -v groff >/dev/null; then
    warnings=$(zcat "$root/usr/share/man/man1/keychain.1.gz" | groff -man -Tutf8 -ww -z 2>&1)
    [ -z "$warnings" ] || { echo "package-test: the man page has roff warnings: $warnings" >&2; exit 1; }
fi
bash -n "$root/usr/share/bash-completion/completions/keychain"
# Every dependency is a Debian package that dpkg knows (without taking dpkg's lock as
# `dpkg -i --dry-run` would, which a parallel apt-get may hold).
for package in $(dpkg-deb -f "$deb" Depends | tr -d ' ' | tr ',' ' ' | sed 's/([^)]*)//g'); do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q "install ok installed" \
        || { echo "package-test: the dependency $package is not an installed Debian package" >&2; exit 1; }
done
echo "package-test: $deb installs and runs without the Swift toolchain ($version)"
