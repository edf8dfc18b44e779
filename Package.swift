// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LinuxKeychain",
    products: [
        .library(name: "LinuxKeychain", targets: ["LinuxKeychain"]),
        .library(name: "KeychainConformance", targets: ["KeychainConformance"]),
        .executable(name: "keychain", targets: ["KeychainCLI"]),
        .executable(name: "keychain-bench", targets: ["KeychainBench"]),
    ],
    targets: [
        // C libraries, one system-library target each.
        .systemLibrary(name: "CKeyutils", path: "CShims/CKeyutils", pkgConfig: "libkeyutils",
                       providers: [.apt(["libkeyutils-dev"])]),
        .systemLibrary(name: "CSodium", path: "CShims/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CPrctl", path: "CShims/CPrctl"),
        .systemLibrary(name: "CFileSystem", path: "CShims/CFileSystem"),
        // libsecret through dlopen at first use: no headers at build time, no link-time dependency.
        .target(name: "CSecretService", path: "CShims/CSecretService"),

        // The model, the backend protocol, the registry and the memory backend. No C.
        .target(name: "KeychainCore"),

        // Backends.
        .target(name: "KeychainKeyring", dependencies: ["KeychainCore", "CKeyutils"]),
        .target(name: "KeychainSecretService", dependencies: ["KeychainCore", "CSecretService"]),
        .target(name: "KeychainEncryptedFile", dependencies: ["KeychainCore", "CSodium", "CKeyutils", "CFileSystem"]),
        .target(name: "KeychainVault", dependencies: ["KeychainCore"]),

        // The SecItem front end, the typed API and registration of the built-in backends.
        .target(name: "LinuxKeychain", dependencies: [
            "KeychainCore", "KeychainKeyring", "KeychainSecretService", "KeychainEncryptedFile", "KeychainVault",
        ]),

        // The suite every backend must pass; public so third-party backends can run it too.
        .target(name: "KeychainConformance", dependencies: ["KeychainCore"]),

        .executableTarget(name: "KeychainCLI", dependencies: ["LinuxKeychain", "KeychainEncryptedFile", "CPrctl"]),
        .executableTarget(name: "KeychainBench", dependencies: ["LinuxKeychain", "CKeyutils", "CSodium", "CSecretService"],
                          path: "Benchmarks/KeychainBench"),

        .testTarget(name: "KeychainCoreTests", dependencies: ["KeychainCore", "KeychainConformance"]),
        .testTarget(name: "LinuxKeychainTests", dependencies: ["LinuxKeychain", "KeychainCore"]),
        .testTarget(name: "KeychainCLITests", dependencies: ["LinuxKeychain", "KeychainCLI"]),
        .testTarget(name: "KeychainKeyringTests",
                    dependencies: ["KeychainKeyring", "KeychainConformance", "LinuxKeychain", "KeychainCLI"]),
        .testTarget(name: "KeychainSecretServiceTests",
                    dependencies: ["KeychainSecretService", "KeychainConformance", "LinuxKeychain", "KeychainCLI"]),
        .testTarget(name: "KeychainEncryptedFileTests",
                    dependencies: ["KeychainEncryptedFile", "KeychainConformance", "LinuxKeychain", "KeychainCLI", "CSodium"]),
        .testTarget(name: "KeychainVaultTests",
                    dependencies: ["KeychainVault", "KeychainConformance", "LinuxKeychain", "KeychainCLI"]),
    ]
)
