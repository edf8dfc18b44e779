#!/usr/bin/env bash
# Checks the .deb that scripts/package.sh builds, as a Debian 12 machine without Swift would
# see it:
#   1. unpacked with `dpkg -x` into a scratch root, `linux-keychain --version` and
#      `linux-keychain backends` run from there with the toolchain off PATH and
#      LD_LIBRARY_PATH unset; ldd lists nothing from the toolchain, the man page renders, the
#      completions parse, and every dependency is a Debian package installed here;
#   2. installed for real beside Debian's own `keychain` package (the ssh-agent manager, which
#      owns /usr/bin/keychain and keychain(1)): `apt-get install keychain`, then `dpkg -i` ours,
#      then both run, and ours stores and reads a secret in the file backend. Different
#      package names, so no file clash and no version ordering between Debian's 2.8.5 and our
#      0.1.0 (dpkg compares versions only within one package name).
# Needs root (or sudo) for step 2. What step 2 installed is removed again at the end: ours
# always, Debian's `keychain` only if it was not installed before.
set -euo pipefail
cd "$(dirname "$0")/.."
# The commit package.sh bakes into the build (taken now: a change to the files while it builds
# would make a later reading differ).
commit=$(bash scripts/build-commit.sh)
deb=$(bash scripts/package.sh)
command=linux-keychain
[ "$(dpkg-deb -f "$deb" Package)" = "$command" ] || { echo "package-test: $deb is not the package $command" >&2; exit 1; }
root=$(mktemp -d)
sudo_prefix=()
[ "$(id -u)" -eq 0 ] || sudo_prefix=(sudo)
installed_ours=0
installed_debians=0
cleanup() {
    [ "$installed_ours" = 0 ] || "${sudo_prefix[@]}" dpkg -r "$command" >/dev/null || true
    [ "$installed_debians" = 0 ] || DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get remove -y -qq keychain >/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT
dpkg -x "$deb" "$root"
binary="$root/usr/bin/$command"

clean_env=(env -i PATH=/usr/bin:/bin HOME="$root" LANG=C.UTF-8)
version=$("${clean_env[@]}" "$binary" --version)
expected="$command $(dpkg-deb -f "$deb" Version) (commit $commit)"
[ "$version" = "$expected" ] || { echo "package-test: --version printed '$version', not '$expected'" >&2; exit 1; }
if "${clean_env[@]}" ldd "$binary" | grep -Ei 'swift|not found'; then
    echo "package-test: the installed binary needs the libraries above" >&2
    exit 1
fi
# Runs and reports, whatever is usable on this machine (status 6 means nothing is).
status=0
"${clean_env[@]}" "$binary" backends >/dev/null 2>&1 || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 6 ] || { echo "package-test: $command backends exited $status" >&2; exit 1; }

files=(usr/bin/$command usr/share/man/man1/$command.1.gz usr/share/bash-completion/completions/$command
    usr/share/zsh/vendor-completions/_$command usr/share/fish/vendor_completions.d/$command.fish
    usr/share/doc/$command/copyright usr/share/doc/$command/changelog.gz)
for file in "${files[@]}"; do
    [ -s "$root/$file" ] || { echo "package-test: the package lacks /$file" >&2; exit 1; }
done
# Nothing else: in particular nothing named keychain.
unexpected=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$' | grep -vxF -f <(printf '/%s\n' "${files[@]}") || true)
[ -z "$unexpected" ] || { echo "package-test: the package holds files it should not: $unexpected" >&2; exit 1; }
if command -v groff >/dev/null; then
    warnings=$(zcat "$root/usr/share/man/man1/$command.1.gz" | groff -man -Tutf8 -ww -z 2>&1)
    [ -z "$warnings" ] || { echo "package-test: the man page has roff warnings: $warnings" >&2; exit 1; }
fi
bash -n "$root/usr/share/bash-completion/completions/$command"
# Every dependency is a Debian package that dpkg knows (without taking dpkg's lock as
# `dpkg -i --dry-run` would, which a parallel apt-get may hold).
for package in $(dpkg-deb -f "$deb" Depends | tr -d ' ' | tr ',' ' ' | sed 's/([^)]*)//g'); do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q "install ok installed" \
        || { echo "package-test: the dependency $package is not an installed Debian package" >&2; exit 1; }
done

# 2. Beside Debian's `keychain`, installed for real.
is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
if is_installed "$command"; then
    echo "package-test: $command is already installed here; remove it first (dpkg -r $command)" >&2
    exit 1
fi
if ! is_installed keychain; then
    installed_debians=1
    DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq -o DPkg::Lock::Timeout=300 keychain >/dev/null
fi
# dpkg -i takes dpkg's lock, which another apt-get on this machine may hold for a while.
installed_ours=1
for attempt in $(seq 1 60); do
    if output=$("${sudo_prefix[@]}" dpkg -i "$deb" 2>&1); then break; fi
    if [ "$attempt" -lt 60 ] && grep -q "lock" <<<"$output"; then sleep 5; continue; fi
    echo "package-test: dpkg -i $deb failed beside Debian's keychain:" >&2
    echo "$output" >&2
    exit 1
done
[ "$(dpkg-query -S /usr/bin/keychain | cut -d: -f1)" = keychain ] \
    || { echo "package-test: /usr/bin/keychain is no longer Debian's keychain" >&2; exit 1; }
[ "$(dpkg-query -S "/usr/bin/$command" | cut -d: -f1)" = "$command" ] \
    || { echo "package-test: /usr/bin/$command does not belong to $command" >&2; exit 1; }
[ -s /usr/share/man/man1/keychain.1.gz ] && [ -s "/usr/share/man/man1/$command.1.gz" ] \
    || { echo "package-test: keychain(1) and $command(1) are not both installed" >&2; exit 1; }
debians_version=$(dpkg-query -W -f='${Version}' keychain)
# Debian's keychain prints its banner (with its version) on stderr.
debians_banner=$(env -i PATH=/usr/bin:/bin HOME="$root" /usr/bin/keychain --version 2>&1)
grep -q "keychain ${debians_version%%-*}" <<<"$debians_banner" \
    || { echo "package-test: Debian's keychain --version printed: $debians_banner" >&2; exit 1; }
installed_version=$(env -i PATH=/usr/bin:/bin HOME="$root" "/usr/bin/$command" --version)
[ "$installed_version" = "$expected" ] \
    || { echo "package-test: the installed $command --version printed '$installed_version'" >&2; exit 1; }
store=(env -i PATH=/usr/bin:/bin HOME="$root/home" XDG_STATE_HOME="$root/home/state" LANG=C.UTF-8
    KEYCHAIN_BACKEND=file KEYCHAIN_FILE_DIR="$root/store" KEYCHAIN_FILE_PASSPHRASE=package-test
    KEYCHAIN_FILE_CACHE_SECONDS=0)
mkdir -p "$root/home"
printf 'from the installed package' | "${store[@]}" "$command" set package-test alice
read_back=$("${store[@]}" "$command" get package-test alice)
[ "$read_back" = "from the installed package" ] \
    || { echo "package-test: the installed $command read back '$read_back'" >&2; exit 1; }
"${store[@]}" "$command" delete package-test alice
echo "package-test: $deb installs and runs without the Swift toolchain ($version), beside Debian's keychain $debians_version"
