// swift-tools-version:6.0
import PackageDescription

/// The git commit `linux-keychain --version` prints, from LINUX_KEYCHAIN_COMMIT in the build's
/// environment: scripts/test.sh, demo.sh and package.sh set it (`git rev-parse --short=12
/// HEAD`, with "-dirty" for uncommitted changes). A build without it says "unknown" rather
/// than guess: SwiftPM runs no script at build time without a plugin, and it keeps this
/// manifest's result until the manifest or the environment changes, so a commit read here
/// from .git would go stale after the next `git commit`. Only hex digits and "-dirty" pass.
let buildCommit: [CSetting] = {
    guard let commit = Context.environment["LINUX_KEYCHAIN_COMMIT"], !commit.isEmpty,
          commit.allSatisfy({ "0123456789abcdef-dirty".contains($0) }) else { return [] }
    return [.define("LINUX_KEYCHAIN_COMMIT", to: "\"\(commit)\"")]
}()

let package = Package(
    name: "LinuxKeychain",
    products: [
        // Apple's SecItem API with every built-in backend registered.
        .library(name: "LinuxKeychain", targets: ["LinuxKeychain"]),
        // The same API with no backend linked: for a program that registers the one it wants.
        .library(name: "LinuxKeychainFrontEnd", targets: ["LinuxKeychainFrontEnd"]),
        // The typed Swift API (`Keychain`).
        .library(name: "LinuxKeychainKit", targets: ["LinuxKeychainKit"]),
        // For backend authors and programs that register backends: the protocol, the model,
        // the registry (KeychainCore) and the conformance suite every backend must pass.
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
        .library(name: "KeychainConformance", targets: ["KeychainCore", "KeychainConformance"]),
        // One per backend, to build one with its own settings in code (KernelKeyringBackend(keyring:)).
        .library(name: "KeychainKeyring", targets: ["KeychainKeyring"]),
        .library(name: "KeychainSecretService", targets: ["KeychainSecretService"]),
        .library(name: "KeychainEncryptedFile", targets: ["KeychainEncryptedFile"]),
        .library(name: "KeychainVault", targets: ["KeychainVault"]),
        // Named linux-keychain, not keychain: Debian's ssh-agent manager owns /usr/bin/keychain.
        .executable(name: "linux-keychain", targets: ["KeychainCLI"]),
        .executable(name: "keychain-bench", targets: ["KeychainBench"]),
        .executable(name: "keychain-bench-hello", targets: ["FoundationHello"]),
    ],
    targets: [
        // C libraries, one system-library target each.
        .systemLibrary(name: "CKeyutils", path: "CShims/CKeyutils", pkgConfig: "libkeyutils",
                       providers: [.apt(["libkeyutils-dev"])]),
        .systemLibrary(name: "CSodium", path: "CShims/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CPrctl", path: "CShims/CPrctl"),
        .systemLibrary(name: "CFileSystem", path: "CShims/CFileSystem"),
        // The commit the CLI was built from (see buildCommit above).
        .target(name: "CBuildInfo", path: "CShims/CBuildInfo", cSettings: buildCommit),
        // dlopen at first use, shared by the two shims below.
        .target(name: "CDynamicLibrary", path: "CShims/CDynamicLibrary"),
        // The keyring backend's process keyring, made before the program starts threads.
        .target(name: "CProcessKeyring", path: "CShims/CProcessKeyring"),
        // libsecret through dlopen at first use: no headers at build time, no link-time dependency.
        .target(name: "CSecretService", dependencies: ["CDynamicLibrary"], path: "CShims/CSecretService"),
        // libcurl through dlopen at first use, for the vault backend only.
        .target(name: "CCurl", dependencies: ["CDynamicLibrary"], path: "CShims/CCurl"),
        // OpenSSL's libcrypto through dlopen at first use, for the SecKey functions only.
        .target(name: "CLibcrypto", dependencies: ["CDynamicLibrary"], path: "CShims/CLibcrypto"),

        // Apple's OSStatus and errSec codes, shared by every module below.
        .target(name: "KeychainStatusCodes"),

        // The system-call layer every backend and the front end use: Errno, the EINTR-retrying
        // wrapper, the close rule and the errno→OSStatus mapping. No C library: the front end
        // links it for SecRandom. Internal: no product.
        .target(name: "KeychainSystemCalls", dependencies: ["KeychainStatusCodes"]),
        // The libkeyutils calls shared by the keyring backend and the file and vault backends'
        // caches in the kernel keyring; only they link libkeyutils. Internal: no product.
        .target(name: "KeychainKernelKeyCalls", dependencies: ["KeychainSystemCalls", "CKeyutils"]),

        // The model, the backend protocol, the registry and the memory backend. No C library:
        // its few file calls go through KeychainSystemCalls' typed errno.
        .target(name: "KeychainCore", dependencies: ["KeychainStatusCodes", "KeychainSystemCalls"]),

        // Backends.
        .target(name: "KeychainKeyring", dependencies: ["KeychainCore", "KeychainSystemCalls", "KeychainKernelKeyCalls", "CKeyutils", "CProcessKeyring"]),
        .target(name: "KeychainSecretService", dependencies: ["KeychainCore", "KeychainSystemCalls", "CSecretService"]),
        .target(name: "KeychainEncryptedFile", dependencies: ["KeychainCore", "KeychainSystemCalls", "KeychainKernelKeyCalls", "CSodium", "CKeyutils", "CFileSystem"]),
        .target(name: "KeychainVault", dependencies: ["KeychainCore", "KeychainSystemCalls", "KeychainKernelKeyCalls", "CCurl", "CKeyutils", "CSodium"]),

        // Apple's names only: the SecItem front end and the CF stand-ins, depending on no backend.
        // It registers the built-in ones through a weak hook only if LinuxKeychain is linked.
        .target(name: "CBuiltInBackendsHook", path: "CShims/CBuiltInBackendsHook"),
        // The four operations every entry point (SecItem, the typed API, the CLI) performs the
        // same way, over the registry the built-in backends join through the hook above; on
        // FoundationEssentials alone.
        .target(name: "KeychainEntryPoints", dependencies: ["KeychainCore", "CBuiltInBackendsHook"]),
        .target(name: "LinuxKeychainFrontEnd", dependencies: [
            "KeychainStatusCodes", "KeychainCore", "KeychainSystemCalls", "KeychainEntryPoints", "CLibcrypto",
        ]),
        // The registration of the built-in backends, on FoundationEssentials alone, so that the
        // CLI, which needs no Apple name, starts without Foundation (docs/performance.md).
        .target(name: "KeychainBuiltInBackends", dependencies: [
            "KeychainCore", "KeychainKeyring", "KeychainSecretService", "KeychainEncryptedFile", "KeychainVault",
        ]),
        // The front end (re-exported) plus registration of the built-in backends.
        .target(name: "LinuxKeychain", dependencies: [
            "LinuxKeychainFrontEnd", "KeychainCore", "KeychainBuiltInBackends",
        ]),
        // The typed Swift API (`Keychain`), in its own module so its names never meet Apple code's.
        .target(name: "LinuxKeychainKit", dependencies: ["LinuxKeychain", "KeychainCore", "KeychainEntryPoints"]),

        // The suite every backend must pass; public so third-party backends can run it too.
        .target(name: "KeychainConformance", dependencies: ["KeychainCore"]),

        // An example third-party backend on KeychainCore's public API alone, and the helper
        // process it gives the many-process conformance case (KeychainCore's "Writing a
        // backend" article). No package access: the compiler refuses any `package` symbol in
        // them, as it would in another package.
        .target(name: "ExampleBackend", dependencies: ["KeychainCore"], path: "Examples/ExampleBackend",
                packageAccess: false),
        .executableTarget(name: "ExampleBackendHelper", dependencies: ["ExampleBackend", "KeychainCore"],
                          path: "Examples/ExampleBackendHelper", packageAccess: false),

        .executableTarget(name: "KeychainCLI", dependencies: ["KeychainBuiltInBackends", "KeychainEntryPoints", "KeychainCore", "KeychainEncryptedFile", "KeychainSystemCalls", "CPrctl", "CSodium", "CBuildInfo"]),
        .executableTarget(name: "KeychainBench", dependencies: ["KeychainEntryPoints", "LinuxKeychain", "KeychainCore", "KeychainEncryptedFile", "KeychainKeyring", "CKeyutils", "CSodium", "CSecretServiceBaseline", "CCurl", "CCPUAffinity"],
                          path: "Benchmarks/KeychainBench"),
        // A Foundation hello-world, the whole-process floor the benchmark compares `linux-keychain get` with.
        .executableTarget(name: "FoundationHello", path: "Benchmarks/FoundationHello"),
        // The benchmark's CPU mask, widened for the whole-process rows.
        .target(name: "CCPUAffinity", path: "Benchmarks/CCPUAffinity"),
        // libsecret's one-call functions, which only the benchmark's baseline calls.
        .target(name: "CSecretServiceBaseline", dependencies: ["CDynamicLibrary"], path: "Benchmarks/CSecretServiceBaseline"),

        // Two small programs written as Apple code is, built separately so that each has its own
        // default identity (its executable's name), for the placement tests.
        .target(name: "PlacementProbe", dependencies: ["KeychainCore", "LinuxKeychain"],
                path: "Tests/PlacementProbes/Support"),
        .executableTarget(name: "KeychainProbeA", dependencies: ["PlacementProbe"], path: "Tests/PlacementProbes/ProbeA"),
        .executableTarget(name: "KeychainProbeB", dependencies: ["PlacementProbe"], path: "Tests/PlacementProbes/ProbeB"),
        // What the test targets share: skipping with a reason, the built executables, scratch
        // directories, items and queries, error expectations. Test code only.
        .target(name: "KeychainTestSupport", dependencies: ["KeychainCore", "KeychainConformance"],
                path: "Tests/KeychainTestSupport"),

        .testTarget(name: "KeychainPlacementTests",
                    dependencies: ["KeychainTestSupport", "KeychainCore", "LinuxKeychain", "KeychainConformance", "KeychainCLI", "KeychainProbeA", "KeychainProbeB"]),

        .testTarget(name: "KeychainSystemCallsTests", dependencies: ["KeychainSystemCalls", "KeychainKernelKeyCalls", "KeychainStatusCodes", "CKeyutils"]),
        .testTarget(name: "KeychainCoreTests", dependencies: ["KeychainTestSupport", "KeychainCore", "KeychainConformance"]),
        // Test-only: checks CLibcrypto's hand-made libcrypto ABI against the real OpenSSL headers
        // (libssl-dev) at build time. Headers only: nothing links libcrypto.
        .target(name: "CLibcryptoABICheck", path: "Tests/CLibcryptoABICheck"),
        .testTarget(name: "LinuxKeychainTests", dependencies: ["KeychainEntryPoints", "KeychainTestSupport", "LinuxKeychain", "LinuxKeychainFrontEnd", "LinuxKeychainKit", "KeychainCore",
                                                               "CLibcryptoABICheck"],
                    resources: [.copy("Fixtures")]),
        // Apple-style code of our own, run on every backend.
        .testTarget(name: "AppleCompatibilityTests", dependencies: ["KeychainTestSupport", "LinuxKeychain", "KeychainCore"]),
        .testTarget(name: "KeychainCLITests", dependencies: ["KeychainTestSupport", "LinuxKeychain", "KeychainCLI", "KeychainConformance",
                                                          "KeychainCore", "KeychainEncryptedFile"]),
        // A program that wants only the kernel keyring (LinuxKeychainFrontEnd + KeychainKeyring),
        // for the test that no other backend is linked into it.
        .executableTarget(name: "KeychainOneBackendProbe", dependencies: ["LinuxKeychainFrontEnd", "KeychainKeyring", "KeychainCore"],
                          path: "Tests/OneBackendProbe"),
        // A program that links LinuxKeychainFrontEnd alone, for the test that libkeyutils is not in it.
        .executableTarget(name: "KeychainFrontEndProbe", dependencies: ["LinuxKeychainFrontEnd"], path: "Tests/FrontEndProbe"),
        // Runs the thread-pool workload in a process of its own: as another user, in many processes, or
        // in a loop (scripts/soak.sh).
        .executableTarget(name: "KeychainThreadPoolProbe", dependencies: ["LinuxKeychain", "KeychainCore", "KeychainConformance"],
                          path: "Tests/ThreadPoolProbe"),
        .testTarget(name: "KeychainKeyringTests",
                    dependencies: ["KeychainTestSupport", "KeychainKeyring", "KeychainSystemCalls", "KeychainConformance", "LinuxKeychain", "KeychainCLI",
                                   "KeychainOneBackendProbe", "KeychainFrontEndProbe", "KeychainThreadPoolProbe"]),
        // Test-only: checks CSecretService's hand-made GLib ABI against the real headers at build time.
        // GLib's flags come from pkg-config; libsecret-1's own would add -pthread, which SwiftPM refuses.
        .systemLibrary(name: "CLibsecretHeaders", path: "Tests/CLibsecretHeaders", pkgConfig: "glib-2.0",
                       providers: [.apt(["libsecret-1-dev"])]),
        .target(name: "CSecretServiceABICheck", dependencies: ["CLibsecretHeaders"], path: "Tests/CSecretServiceABICheck",
                cSettings: [.unsafeFlags(["-I/usr/include/libsecret-1"])]),
        .testTarget(name: "KeychainSecretServiceTests",
                    dependencies: ["KeychainTestSupport", "KeychainSecretService", "KeychainConformance", "LinuxKeychain", "LinuxKeychainKit",
                                   "KeychainCLI", "CSecretServiceABICheck", "KeychainThreadPoolProbe"]),
        .testTarget(name: "KeychainEncryptedFileTests",
                    dependencies: ["KeychainTestSupport", "KeychainEncryptedFile", "KeychainConformance", "LinuxKeychain", "KeychainCLI", "CSodium",
                                   "KeychainThreadPoolProbe"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "ExampleBackendTests",
                    dependencies: ["ExampleBackend", "ExampleBackendHelper", "KeychainConformance", "KeychainCore"],
                    packageAccess: false),
        // Test-only: checks CCurl's hand-made libcurl ABI against the real <curl/curl.h>
        // (libcurl4-openssl-dev) at build time. Headers only: nothing links libcurl.
        .target(name: "CCurlABICheck", path: "Tests/CCurlABICheck"),
        .testTarget(name: "KeychainVaultTests",
                    dependencies: ["KeychainEntryPoints", "KeychainTestSupport", "KeychainVault", "KeychainConformance", "LinuxKeychain", "KeychainCLI", "KeychainSystemCalls",
                                   "CCurlABICheck", "KeychainThreadPoolProbe"]),
    ]
)

/// The compiler settings every Swift target shares, as swift-log sets them: `any` spelled out
/// for every existential, and imports internal unless a public (or package) declaration
/// exposes the imported module's types (`public import`, `package import`).
var swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// This package's own builds (scripts/test.sh sets LINUX_KEYCHAIN_STRICT=1) also require every
// public type to say whether it is Sendable, as swift-log's do. Only then: unsafe flags in a
// package that others depend on by version would keep them from using it.
if Context.environment["LINUX_KEYCHAIN_STRICT"] == "1" {
    swiftSettings.append(.unsafeFlags(["-Werror", "ExplicitSendable"]))
}

// C targets (the shims and header checks, all named C...) take no Swift settings.
for target in package.targets where !target.name.hasPrefix("C") && target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}

// The `linux-keychain` the .deb ships and the benchmark times (scripts/package.sh, bench.sh) links
// libstdc++ statically: LINUX_KEYCHAIN_STATIC_LIBSTDCXX names a folder holding only libstdc++.a,
// searched before the toolchain's. The shared libstdc++'s 4,000 symbol relocations cost every
// start about half a millisecond (docs/performance.md). Unset, as in any other build, nothing changes.
if let folder = Context.environment["LINUX_KEYCHAIN_STATIC_LIBSTDCXX"], !folder.isEmpty,
   let cli = package.targets.first(where: { $0.name == "KeychainCLI" }) {
    cli.linkerSettings = (cli.linkerSettings ?? []) + [.unsafeFlags(["-L", folder])]
}
