/// Text that came from outside the program (a server's answer, a D-Bus peer's error, another
/// process's name), made safe to put into a message that may be printed on a terminal.
///
/// `printable(_:)` removes terminal escape sequences whole (ESC and C1 introduced: CSI, OSC,
/// DCS and the other string sequences, and two-character ones), every other C0 and C1 control
/// character and DEL, and the bidirectional-text controls that reorder what a reader sees.
/// Tabs and line breaks become spaces, so words stay apart. Everything else is kept as it is.
package enum ForeignText: Sendable {
    package static func printable(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                skipEscapeSequence(&scalars)
            case 0x9B:
                skipControlSequence(&scalars)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
                skipControlString(&scalars)
            case 0x09, 0x0A, 0x0D:
                result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F:
                continue
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                continue
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// What follows an ESC: `[` starts a control sequence; `]`, `P`, `X`, `^` and `_` a
    /// string ended by BEL or ST; anything else is intermediates and one final character.
    private static func skipEscapeSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        guard var next = scalars.next() else { return }
        switch next {
        case "[": skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_": skipControlString(&scalars)
        default:
            while (0x20...0x2F).contains(next.value), let following = scalars.next() { next = following }
        }
    }

    /// A control sequence's parameters and intermediates (0x20-0x3F), through its final
    /// character (0x40-0x7E); a character outside both ends it too, and is dropped with it.
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let next = scalars.next(), (0x20...0x3F).contains(next.value) {}
    }

    /// An OSC, DCS, SOS, PM or APC string, through its terminator: BEL, ESC `\` or C1 ST.
    private static func skipControlString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let next = scalars.next() {
            switch next.value {
            case 0x07, 0x9C: return
            case 0x1B:
                _ = scalars.next()  // the `\` of ST, or whatever follows: a new sequence ends the string
                return
            default: continue
            }
        }
    }
}
