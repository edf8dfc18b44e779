#!/usr/bin/env bash
# Builds the DocC documentation of LinuxKeychainKit and KeychainCore into
# .build/docs/MODULE.doccarchive with the toolchain's own docc, from symbol graphs of the debug
# build: no SwiftPM plugin. Any docc warning (a broken ``Symbol`` link in a doc comment or an
# article, say) fails the run. Builds what it needs; after scripts/test.sh that is nothing.
# Extra arguments go to every `docc convert` (e.g. --transform-for-static-hosting). Last, it
# checks the README and docs/*.md against their size budget.
set -euo pipefail
cd "$(dirname "$0")/.."

# docc and swift-symbolgraph-extract ship beside `swift` in the toolchain.
toolchain_bin=$(dirname "$(readlink -f "$(command -v swift)")")
docc="$toolchain_bin/docc"
extract="$toolchain_bin/swift-symbolgraph-extract"
for tool in "$docc" "$extract"; do
    [ -x "$tool" ] || { echo "docs: $tool is missing; it comes with the Swift toolchain" >&2; exit 1; }
done

# The same settings as scripts/test.sh, so that after it this build has nothing left to do.
export LINUX_KEYCHAIN_STRICT="${LINUX_KEYCHAIN_STRICT:-1}"
LINUX_KEYCHAIN_COMMIT="${LINUX_KEYCHAIN_COMMIT:-$(bash scripts/build-commit.sh)}"
export LINUX_KEYCHAIN_COMMIT
swift build --target LinuxKeychainKit
bin=$(swift build --show-bin-path)
triple=$(basename "$(dirname "$bin")")

# Where the clang importer finds the C modules the Swift modules were built against: the
# system-library shims' module maps, and those SwiftPM wrote for the C targets.
include_flags=(-I "$bin/Modules")
for map in "$PWD"/CShims/*/module.modulemap "$bin"/*.build/module.modulemap; do
    [ -e "$map" ] && include_flags+=(-Xcc "-fmodule-map-file=$map")
done
for headers in "$PWD"/CShims/*/include; do
    [ -d "$headers" ] && include_flags+=(-Xcc "-I$headers")
done

out=.build/docs
mkdir -p "$out"
# A module's pages come from its own symbol graph, and from its extensions of this package's
# own modules (LinuxKeychainKit extends KeychainCore's ItemMigration). Extensions of Foundation
# or the standard library are left out: they would document others' types.
own_graphs() {
    local module=$1 all=$2 kept=$3 file extended
    for file in "$all"/*.symbols.json; do
        case $(basename "$file") in
            "$module.symbols.json") ;;
            "$module@"*.symbols.json)
                extended=${file##*@}
                extended=${extended%.symbols.json}
                [ -d "Sources/$extended" ] || continue ;;
            *) continue ;;
        esac
        cp "$file" "$kept/"
    done
}

for module in KeychainCore LinuxKeychainKit; do
    graphs="$out/symbol-graphs/$module"
    rm -rf "$graphs" "$out/$module.doccarchive"
    mkdir -p "$graphs/all" "$graphs/own"
    "$extract" -module-name "$module" -target "$triple" "${include_flags[@]}" \
        -minimum-access-level public -skip-inherited-docs -emit-extension-block-symbols -output-dir "$graphs/all"
    own_graphs "$module" "$graphs/all" "$graphs/own"
    "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/own" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.linuxkeychain.$module" \
        --output-path "$out/$module.doccarchive" \
        --warnings-as-errors "$@"
    echo "docs: $out/$module.doccarchive"
done

# The size budget of the newcomer's pages (#27): the README at most 12 KB, docs/*.md 120 KB in all.
readme_bytes=$(wc -c < README.md)
docs_bytes=$(cat docs/*.md | wc -c)
[ "$readme_bytes" -le 12000 ] || { echo "docs: README.md is $readme_bytes bytes, over its 12,000" >&2; exit 1; }
[ "$docs_bytes" -le 120000 ] || { echo "docs: docs/*.md are $docs_bytes bytes in all, over their 120,000" >&2; exit 1; }
echo "docs: README.md $readme_bytes bytes, docs/*.md $docs_bytes bytes"
