import KeychainCore
import Testing

/// Text from a server or a D-Bus peer keeps its words and loses whatever a terminal would act on.
@Suite("ForeignText")
struct ForeignTextTests {
    @Test(arguments: [
        ("\u{1b}[1;31mred\u{1b}[0m text", "red text"),                      // CSI (colours)
        ("a\u{1b}]0;window title\u{07}b", "ab"),                             // OSC ended by BEL
        ("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b", "alinkb"),    // OSC 8 hyperlink, ended by ST
        ("a\u{1b}Pq#0;1\u{1b}\\b", "ab"),                                    // DCS
        ("a\u{1b}cb", "ab"),                                                 // two-character sequence (reset)
        ("a\u{1b}(0b", "ab"),                                                // with an intermediate (charset)
        ("a\u{9b}2Jb", "ab"),                                                // C1 CSI
        ("a\u{9d}0;t\u{9c}b", "ab"),                                         // C1 OSC ended by C1 ST
        ("bell\u{07} del\u{7f} nul\u{0} back\u{08}", "bell del nul back"),  // other controls
        ("line\none\ttab\rcr", "line one tab cr"),                           // layout becomes spaces
        ("\u{202e}evil\u{2066}\u{200f}", "evil"),                            // bidirectional controls
        ("permission denied: café ☕", "permission denied: café ☕"),          // ordinary text is kept
    ])
    func controlsAreRemoved(_ input: String, _ expected: String) {
        #expect(ForeignText.printable(input) == expected, "\(input.debugDescription)")
    }

    @Test func anUnterminatedSequenceEndsTheText() {
        #expect(ForeignText.printable("kept\u{1b}]0;no end") == "kept")
        #expect(ForeignText.printable("kept\u{1b}[") == "kept")
        #expect(ForeignText.printable("kept\u{1b}") == "kept")
    }
}
