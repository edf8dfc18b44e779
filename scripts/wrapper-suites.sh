#!/usr/bin/env bash
# Runs popular Keychain wrappers' own test suites against this checkout of LinuxKeychain, on
# every backend, with only their imports changed (docs/apple-compatibility.md has the results).
#
# Usage: scripts/wrapper-suites.sh CHECKOUTS [WRAPPER...]
#   CHECKOUTS holds the wrappers' repositories, each under its repository name: KeychainAccess
#   (kishikawakatsumi), keychain-swift (evgenyneu), Valet (square), SwiftKeychainWrapper
#   (jrendel). WRAPPER limits the run to some of them (default: all four).
#   BACKENDS (default: keyring secret-service file vault memory) and WRAPPERS_PKG (the scratch
#   package, default $TMPDIR/linux-keychain-wrappers; reused, so reruns build incrementally).
#
# Their code goes only into the scratch package, never into this repository. What changes:
#   - `import Security` becomes `import LinuxKeychain`; where Darwin's Foundation or XCTest
#     brings Security implicitly, `import LinuxKeychain` is added; `import CoreGraphics` goes.
#   - Valet, for what Linux's Foundation lacks: its `@objc` attributes are dropped, WeakStorage
#     keeps weak boxes in a dictionary (no NSMapTable), its test host's identifiers take the iOS
#     branch (as its library does everywhere but macOS; MacTests, macOS ACLs, stays out), and
#     "is the test host signed" answers yes: the entitlements come from KEYCHAIN_ACCESS_GROUPS.
#   - KEYCHAIN_ACCESS_GROUPS is the test host's entitlement list, where its tests need two groups.
# Each run goes through scripts/with-services.sh; logs land in WRAPPERS_PKG/logs.
set -euo pipefail
checkouts=$(cd "${1:?usage: wrapper-suites.sh CHECKOUTS [WRAPPER...]}" && pwd); shift
wrappers=${*:-KeychainAccess keychain-swift Valet SwiftKeychainWrapper}
here=$(cd "$(dirname "$0")/.." && pwd)
pkg=${WRAPPERS_PKG:-${TMPDIR:-/tmp}/linux-keychain-wrappers}
rm -rf "$pkg/Sources" "$pkg/Tests"; mkdir -p "$pkg/logs"

use_linux_keychain() { sed -i -e 's/^import Security$/import LinuxKeychain/' -e '/^import CoreGraphics$/d' "$@"; }
add_import_after() { local line=$1; shift; sed -i "s/^$line\$/&\nimport LinuxKeychain/" "$@"; }
targets=()
target() { targets+=("        .target(name: \"$1\", dependencies: lkc, swiftSettings: [.swiftLanguageMode(.$2)]),"
                     "        .testTarget(name: \"$1Tests\", dependencies: [\"$1\"] + lkc, swiftSettings: [.swiftLanguageMode(.v5)]),"); }

prepare_KeychainAccess() {
    local from=$checkouts/KeychainAccess/Lib to=$pkg
    mkdir -p "$to/Sources/KeychainAccess" "$to/Tests/KeychainAccessTests"
    cp "$from/KeychainAccess/Keychain.swift" "$to/Sources/KeychainAccess/"
    # SharedCredentialTests is iOS-only (Safari's shared web credentials).
    cp "$from/KeychainAccessTests/"{KeychainAccessTests,EnumTests,ErrorTypeTests}.swift "$to/Tests/KeychainAccessTests/"
    use_linux_keychain "$to/Sources/KeychainAccess/"*.swift
    add_import_after 'import KeychainAccess' "$to/Tests/KeychainAccessTests/"*.swift
    target KeychainAccess v5
}
prepare_keychain_swift() {
    local from=$checkouts/keychain-swift to=$pkg
    mkdir -p "$to/Sources/KeychainSwift" "$to/Tests"
    cp "$from/Sources/"*.swift "$to/Sources/KeychainSwift/"
    cp -r "$from/Tests/KeychainSwiftTests" "$to/Tests/"
    rm "$to/Tests/KeychainSwiftTests/ClearTests.swift" # its own Package.swift excludes it
    use_linux_keychain "$to/Sources/KeychainSwift/"*.swift
    add_import_after '@testable import KeychainSwift' "$to/Tests/KeychainSwiftTests/"*.swift
    target KeychainSwift v5
}
prepare_Valet() {
    local from=$checkouts/Valet to=$pkg
    mkdir -p "$to/Sources/Valet" "$to/Tests/ValetTests"
    cp -r "$from/Sources/Valet/." "$to/Sources/Valet/"
    find "$to/Sources/Valet" -name '*.h' -delete
    # One test target, as in Valet.xcodeproj: the unit tests use the integration tests' identifiers.
    cp -r "$from/Tests/ValetTests" "$to/Tests/ValetTests/Unit"
    cp -r "$from/Tests/ValetIntegrationTests" "$to/Tests/ValetTests/Integration"
    find "$to/Sources/Valet" -name '*.swift' -exec sed -i -E 's/@objc(\([^)]*\))?[[:space:]]*//g' {} +
    find "$to/Sources/Valet" "$to/Tests/ValetTests" -name '*.swift' -exec sed -i \
        -e 's/^import Foundation$/&\nimport LinuxKeychain/' -e 's/^@testable import Valet$/&\nimport LinuxKeychain/' \
        -e 's/^        #if os(iOS)$/        #if os(iOS) || os(Linux)/' {} +
    sed -i 's/^func testEnvironmentIsSignedOrDoesNotRequireEntitlement() -> Bool {$/&\n    #if os(Linux)\n    return true\n    #endif/' \
        "$to/Tests/ValetTests/Integration/ValetIntegrationTests.swift"
    cat > "$to/Sources/Valet/Internal/WeakStorage.swift" <<'SWIFT'
// Stand-in for Valet's WeakStorage: Linux's Foundation has no NSMapTable.strongToWeakObjects.
import Foundation

final class WeakStorage<T: AnyObject>: @unchecked Sendable {
    private final class Box { weak var value: T?; init(_ value: T?) { self.value = value } }
    subscript(_ key: String) -> T? {
        get { lock.withLock { map[key]?.value } }
        set { lock.withLock { map[key] = Box(newValue) } }
    }
    private let lock = NSLock()
    private var map: [String: Box] = [:]
}
SWIFT
    target Valet v6
}
prepare_SwiftKeychainWrapper() {
    local from=$checkouts/SwiftKeychainWrapper to=$pkg
    mkdir -p "$to/Sources/SwiftKeychainWrapper" "$to/Tests/SwiftKeychainWrapperTests"
    cp "$from/SwiftKeychainWrapper/"*.swift "$to/Sources/SwiftKeychainWrapper/"
    cp "$from/SwiftKeychainWrapperTests/"*.swift "$to/Tests/SwiftKeychainWrapperTests/"
    use_linux_keychain "$to/Sources/SwiftKeychainWrapper/"*.swift
    add_import_after 'import Foundation' "$to/Sources/SwiftKeychainWrapper/"*.swift
    add_import_after 'import SwiftKeychainWrapper' "$to/Tests/SwiftKeychainWrapperTests/"*.swift
    target SwiftKeychainWrapper v5
}

# Each wrapper's test target and its test host's entitlements (own group first, as Apple orders them).
declare -A test_target=([KeychainAccess]=KeychainAccessTests [keychain-swift]=KeychainSwiftTests
                        [Valet]=ValetTests [SwiftKeychainWrapper]=SwiftKeychainWrapperTests)
declare -A entitled=(
    [KeychainAccess]=27AEDK3C9F.com.kishikawakatsumi.KeychainAccess.TestHost,27AEDK3C9F.shared
    [Valet]=9XUJ7M53NG.com.squareup.Valet-iOS-Test-Host-App,9XUJ7M53NG.com.squareup.Valet-iOS-Test-Host-App2,group.valet.test)

for wrapper in $wrappers; do "prepare_${wrapper//-/_}"; done
{
    echo '// swift-tools-version:6.0'
    echo 'import PackageDescription'
    echo "let lkc: [Target.Dependency] = [.product(name: \"LinuxKeychain\", package: \"$(basename "$here")\")]"
    echo "let package = Package(name: \"Wrappers\", dependencies: [.package(path: \"$here\")], targets: ["
    printf '%s\n' "${targets[@]}"
    echo '])'
} > "$pkg/Package.swift"
(cd "$pkg" && swift build --build-tests 2>&1 | grep -E 'error:|Build complete' | sort -u)

for wrapper in $wrappers; do
    for backend in ${BACKENDS:-keyring secret-service file vault memory}; do
        log=$pkg/logs/$wrapper-$backend.log
        (cd "$pkg" && KEYCHAIN_BACKEND=$backend KEYCHAIN_ACCESS_GROUPS=${entitled[$wrapper]:-} \
            KEYCHAIN_REQUIRE_ALL_BACKENDS=1 LINUX_KEYCHAIN_STRICT=1 \
            bash "$here/scripts/with-services.sh" swift test --skip-build --filter "${test_target[$wrapper]}\\." >"$log" 2>&1) || true
        started=$(grep -cE "^Test Case .* started" "$log" || true)
        failures=$(grep -cE "^Test Case .* failed" "$log" || true)
        failed=$(grep -E "^Test Case .* failed" "$log" | sed -E "s/^Test Case '[^.]*\.([^']*)' failed.*/\1/" | tr '\n' ' ' || true)
        if grep -q "Fatal error" "$log"; then # the test that was running when the process died
            failures=$((failures + 1))
            failed+="$(grep -E "^Test Case .* started" "$log" | tail -1 | sed -E "s/^Test Case '[^.]*\.([^']*)' started.*/\1/") (crashed, and the tests after it did not run: see $log)"
        fi
        echo "$wrapper on $backend: $((started - failures)) of $started passed${failed:+; failed: $failed}"
    done
done
