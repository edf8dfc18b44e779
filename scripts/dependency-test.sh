#!/usr/bin/env bash
# Follows the README's "Install" section word for word, as a newcomer would: a copy of this
# checkout in a folder named LinuxKeychain, beside it a new package MyApp whose Package.swift
# and Sources/MyApp/main.swift are the README's own code blocks (read from README.md, not
# copied here), then the README's command in MyApp, whose output must be what the README says.
# The program runs inside scripts/with-services.sh, so it stores in a throwaway gnome-keyring.
# Everything happens under a new temporary directory, removed afterwards. It builds
# LinuxKeychain afresh there as a dependency (no LINUX_KEYCHAIN_STRICT: a dependent's build).
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
readme="$checkout/README.md"
bash "$checkout/scripts/install-deps.sh" --for demo >&2

# The code block that follows the first line naming `FILE` in the README's Install section,
# without the list's indentation.
readme_block() {
    awk -v label="\`$1\`" '
        /^## / { in_install = ($0 == "## Install") }
        in_install && !found && index($0, label) { found = 1; next }
        found == 1 && /^ *```swift$/ { found = 2; indent = index($0, "`") - 1; next }
        found == 2 && /^ *```$/ { exit }
        found == 2 { print substr($0, indent + 1) }
    ' "$readme"
}

scratch=$(mktemp -d /tmp/linux-keychain-dependency.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Step 1: this repository in a folder named LinuxKeychain: its files as git sees them (tracked
# and new ones, not .build or anything else ignored).
mkdir "$scratch/LinuxKeychain"
git -C "$checkout" ls-files -z --cached --others --exclude-standard \
    | (cd "$checkout" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) \
    | tar -C "$checkout" --null -T - -cf - | tar -C "$scratch/LinuxKeychain" -xf -
# Steps 2 and 3: the package and its first program.
mkdir -p "$scratch/MyApp/Sources/MyApp"
readme_block MyApp/Package.swift >"$scratch/MyApp/Package.swift"
readme_block MyApp/Sources/MyApp/main.swift >"$scratch/MyApp/Sources/MyApp/main.swift"
for file in Package.swift Sources/MyApp/main.swift; do
    [ -s "$scratch/MyApp/$file" ] || { echo "dependency-test: README.md's Install section has no block for MyApp/$file" >&2; exit 1; }
done
grep -q '\.package(path: "\.\./LinuxKeychain")' "$scratch/MyApp/Package.swift" \
    || { echo "dependency-test: the README's Package.swift does not depend on ../LinuxKeychain by path" >&2; exit 1; }
# Step 4: "In `MyApp`: `COMMAND` prints `OUTPUT`."
step=$(awk '/^## /{ in_install = ($0 == "## Install") } in_install && /^[0-9]+\. In `MyApp`: `/' "$readme")
command=$(sed -n 's/^[0-9]*\. In `MyApp`: `\([^`]*\)` prints `\([^`]*\)`.*/\1/p' <<<"$step")
expected=$(sed -n 's/^[0-9]*\. In `MyApp`: `\([^`]*\)` prints `\([^`]*\)`.*/\2/p' <<<"$step")
[ -n "$command" ] && [ -n "$expected" ] \
    || { echo "dependency-test: README.md's Install section says no command to run in MyApp" >&2; exit 1; }

started=$(date +%s)
output=$(cd "$scratch/MyApp" && env -u LINUX_KEYCHAIN_STRICT -u LINUX_KEYCHAIN_COMMIT \
    bash "$checkout/scripts/with-services.sh" bash -c "$command" 2>"$scratch/build.log") || {
    cat "$scratch/build.log" >&2
    echo "dependency-test: '$command' failed in MyApp (log above)" >&2
    exit 1
}
if [ "$(tail -n 1 <<<"$output")" != "$expected" ]; then
    cat "$scratch/build.log" >&2
    echo "dependency-test: '$command' printed '$output', not '$expected'" >&2
    exit 1
fi
echo "dependency-test: the README's install steps build and run MyApp against LinuxKeychain by path ('$command' printed '$expected', $(($(date +%s) - started)) s)"
