public import Foundation

// Core Foundation does not exist for Swift on Linux, but Apple-style keychain code names its
// types. Each stand-in is the Foundation class that CF is toll-free bridged to on Apple
// platforms, so the same casts work: `kSecClass as String`, `query as CFDictionary`,
// `[kSecClass: ...] as NSDictionary`, `result as? Data`, `result as? [CFString: AnyObject]`.

public typealias CFString = NSString
public typealias CFMutableString = NSMutableString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFMutableArray = NSMutableArray
public typealias CFData = NSData
public typealias CFMutableData = NSMutableData
public typealias CFNumber = NSNumber
public typealias CFBoolean = NSNumber
public typealias CFDate = NSDate
public typealias CFNull = NSNull
/// `takeRetainedValue() as Error` works because `NSError` is an `Error`.
public typealias CFError = NSError
public typealias CFErrorDomain = CFString
public typealias CFTypeRef = AnyObject
public typealias CFIndex = Int
public typealias CFOptionFlags = UInt
public typealias CFTypeID = UInt

/// Declared implicitly unwrapped, as Apple's headers import them, so that both
/// `kCFBooleanTrue` and `kCFBooleanTrue!` compile as they do on Apple platforms.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
public let kCFNull: CFNull! = NSNull()

/// Stands in for Core Foundation's allocator. The library allocates with Swift, so every
/// allocator argument is accepted and ignored.
public final class CFAllocator: Sendable {
    fileprivate init() {}
}

/// Apple's default allocator is NULL; this is a real object, so unwrapping it never traps.
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()
public let kCFAllocatorSystemDefault: CFAllocator! = kCFAllocatorDefault

/// The error domain of `CFError`s that carry an `OSStatus`, as on Apple platforms.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain = "NSOSStatusErrorDomain"

extension NSError {
    /// The `CFError` a Security function hands out for `status`, carrying the message in
    /// `localizedDescription`. Messages never contain secrets.
    static func keychainError(_ status: OSStatus, _ message: String) -> NSError {
        NSError(domain: kCFErrorDomainOSStatus as String, code: Int(status),
                userInfo: [NSLocalizedDescriptionKey: message])
    }
}

// The keys of a bundle's information property list, which keychain code reads to name its
// service after the app (`Bundle.main.object(forInfoDictionaryKey: kCFBundleIdentifierKey as String)`).
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
nonisolated(unsafe) public let kCFBundleNameKey: CFString! = "CFBundleName"
nonisolated(unsafe) public let kCFBundleVersionKey: CFString! = "CFBundleVersion"
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString! = "CFBundleExecutable"
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString! = "CFBundleInfoDictionaryVersion"
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString! = "CFBundleDevelopmentRegion"
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString! = "CFBundleLocalizations"
