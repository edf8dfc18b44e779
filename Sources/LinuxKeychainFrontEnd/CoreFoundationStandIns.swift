public import Foundation

// Core Foundation does not exist for Swift on Linux, but Apple-style keychain code names its
// types. Each stand-in is the Foundation class that CF is toll-free bridged to on Apple
// platforms, so the same casts work: `kSecClass as String`, `query as CFDictionary`,
// `[kSecClass: ...] as NSDictionary`, `result as? Data`, `result as? [CFString: AnyObject]`.

/// Core Foundation's `CFString`: here `NSString`, the class it is toll-free bridged to on Apple platforms.
public typealias CFString = NSString
/// Core Foundation's `CFMutableString`: here `NSMutableString`, the class it is toll-free bridged to on Apple platforms.
public typealias CFMutableString = NSMutableString
/// Core Foundation's `CFDictionary`: here `NSDictionary`, the class it is toll-free bridged to on Apple platforms.
public typealias CFDictionary = NSDictionary
/// Core Foundation's `CFMutableDictionary`: here `NSMutableDictionary`, the class it is toll-free bridged to on Apple platforms.
public typealias CFMutableDictionary = NSMutableDictionary
/// Core Foundation's `CFArray`: here `NSArray`, the class it is toll-free bridged to on Apple platforms.
public typealias CFArray = NSArray
/// Core Foundation's `CFMutableArray`: here `NSMutableArray`, the class it is toll-free bridged to on Apple platforms.
public typealias CFMutableArray = NSMutableArray
/// Core Foundation's `CFData`: here `NSData`, the class it is toll-free bridged to on Apple platforms.
public typealias CFData = NSData
/// Core Foundation's `CFMutableData`: here `NSMutableData`, the class it is toll-free bridged to on Apple platforms.
public typealias CFMutableData = NSMutableData
/// Core Foundation's `CFNumber`: here `NSNumber`, the class it is toll-free bridged to on Apple platforms.
public typealias CFNumber = NSNumber
/// Core Foundation's `CFBoolean`: here `NSNumber`, the class it is toll-free bridged to on Apple platforms.
public typealias CFBoolean = NSNumber
/// Core Foundation's `CFDate`: here `NSDate`, the class it is toll-free bridged to on Apple platforms.
public typealias CFDate = NSDate
/// Core Foundation's `CFNull`: here `NSNull`, the class it is toll-free bridged to on Apple platforms.
public typealias CFNull = NSNull
/// `takeRetainedValue() as Error` works because `NSError` is an `Error`.
public typealias CFError = NSError
/// Core Foundation's error-domain type: a `CFString`.
public typealias CFErrorDomain = CFString
/// Core Foundation's "any CF object": `AnyObject`, as SecItem results are typed on Apple platforms.
public typealias CFTypeRef = AnyObject
/// Core Foundation's signed index and count type: `Int`.
public typealias CFIndex = Int
/// Core Foundation's option-bits type: `UInt`.
public typealias CFOptionFlags = UInt
/// Core Foundation's type identifier: `UInt`.
public typealias CFTypeID = UInt

/// Declared implicitly unwrapped, as Apple's headers import them, so that both
/// `kCFBooleanTrue` and `kCFBooleanTrue!` compile as they do on Apple platforms.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// Core Foundation's false: `NSNumber(value: false)`, implicitly unwrapped as on Apple platforms.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
/// Core Foundation's null object: `NSNull()`.
public let kCFNull: CFNull! = NSNull()

/// Stands in for Core Foundation's allocator. The library allocates with Swift, so every
/// allocator argument is accepted and ignored.
public final class CFAllocator: Sendable {
    fileprivate init() {}
}

/// Apple's default allocator is NULL; this is a real object, so unwrapping it never traps.
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()
/// Core Foundation's system allocator: the same stand-in as `kCFAllocatorDefault` (memory is Swift's).
public let kCFAllocatorSystemDefault: CFAllocator! = kCFAllocatorDefault

/// The error domain of `CFError`s that carry an `OSStatus`, as on Apple platforms.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain = ConstantString(string: "NSOSStatusErrorDomain")

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
/// Core Foundation's bundle Info.plist key `CFBundleIdentifier`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = ConstantString(string: "CFBundleIdentifier")
/// Core Foundation's bundle Info.plist key `CFBundleName`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleNameKey: CFString! = ConstantString(string: "CFBundleName")
/// Core Foundation's bundle Info.plist key `CFBundleVersion`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleVersionKey: CFString! = ConstantString(string: "CFBundleVersion")
/// Core Foundation's bundle Info.plist key `CFBundleExecutable`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString! = ConstantString(string: "CFBundleExecutable")
/// Core Foundation's bundle Info.plist key `CFBundleInfoDictionaryVersion`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString! = ConstantString(string: "CFBundleInfoDictionaryVersion")
/// Core Foundation's bundle Info.plist key `CFBundleDevelopmentRegion`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString! = ConstantString(string: "CFBundleDevelopmentRegion")
/// Core Foundation's bundle Info.plist key `CFBundleLocalizations`, declared so code reading bundle information compiles.
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString! = ConstantString(string: "CFBundleLocalizations")
