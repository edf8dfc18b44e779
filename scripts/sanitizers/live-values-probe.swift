import Foundation

// Shows LeakSanitizer reporting two kinds of values that are still referenced at exit as
// leaks, with no project code, because it finds no plain pointer to them:
// - a `Data` of 15 bytes to 2 GiB, reported as a 65-byte direct leak (its __DataStorage) with
//   its bytes as an indirect one: it is the `.slice` case of an enum whose case tag Swift keeps
//   in the spare high bits of the storage pointer, which LeakSanitizer does not strip;
// - the 32-byte side table of an object that once had a weak reference (allocated in
//   `formWeakReference`): the object's reference count holds the table's address shifted.
// scripts/test-sanitizers.sh address builds and runs this first: the suppressions in
// lsan-suppressions.txt are justified only while these reports appear; when a toolchain stops
// producing them, the script says so, and those entries should go.
final class Holder { var bytes: Data? }
final class Watcher { weak var target: Holder? }
let holder = Holder()
@inline(never) func make(_ count: Int) -> Data { Data(count: count) }
@inline(never) func watchBriefly(_ target: Holder) { Watcher().target = target }
holder.bytes = make(191)  // the size of a file store's header
watchBriefly(holder)
_ = withUnsafeBytes(of: &holder.bytes) { raw in
    // The high byte of the storage pointer carries the case tag (0x40), not an address bit.
    fputs("live-values-probe: Data stored as \(raw.map { String($0, radix: 16) }.joined(separator: " "))\n", stderr)
}
