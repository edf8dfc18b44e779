import Foundation

/// The terminal table, the JSON file and the SVG chart, all from one set of results.
enum ReportWriter {
    static let header = ["backend", "operation", "items", "p50 µs", "p90 µs", "p99 µs", "ops/s", "raw p50 µs", "x raw", "peer p50 µs"]

    static func table(_ results: [BenchmarkResult]) -> String {
        let table = [header] + rows(results)
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { column, cell in cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The same table in Markdown, with the raw baseline's name beside its figure.
    static func writeMarkdown(_ results: [BenchmarkResult], to path: String) throws {
        var lines = ["| " + header.joined(separator: " | ") + " |", "|" + String(repeating: "---|", count: header.count)]
        for (result, row) in zip(results, rows(results)) {
            var cells = row
            if let baseline = result.baseline, cells[7] != "-" { cells[7] += " (`\(baseline)`)" }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static func rows(_ results: [BenchmarkResult]) -> [[String]] {
        results.map { result -> [String] in
            [result.backend, result.operation, String(result.items),
             format(result.p50Microseconds), format(result.p90Microseconds), format(result.p99Microseconds),
             format(result.operationsPerSecond),
             result.baselineP50Microseconds.map(format) ?? "-",
             result.ratioToBaseline.map { String(format: "%.2f", $0) } ?? "-",
             result.peerP50Microseconds.map { "\(format($0)) (\(result.peer ?? ""))" } ?? "-"]
        }
    }

    static func writeJSON(_ results: [BenchmarkResult], to path: String) throws {
        struct Document: Codable { let results: [BenchmarkResult] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(Document(results: results)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Bars of p50 per backend and operation on a log scale, each with its raw baseline
    /// beside it where there is one.
    static func writeSVG(_ results: [BenchmarkResult], to path: String) throws {
        let bars = results
        let barWidth = 14.0, gap = 10.0, left = 70.0, top = 30.0, plotHeight = 300.0
        // The right margin leaves room for the last labels, which slant to the right.
        let width = left + Double(bars.count) * (2 * barWidth + gap) + 160
        let values = bars.flatMap { [$0.p50Microseconds, $0.baselineP50Microseconds ?? $0.p50Microseconds] }.filter { $0 > 0 }
        let lowDecade = floor(log10(values.min() ?? 1)), highDecade = ceil(log10(values.max() ?? 10))
        let span = max(highDecade - lowDecade, 1)
        func y(_ value: Double) -> Double { top + plotHeight * (1 - (log10(max(value, 1e-3)) - lowDecade) / span) }

        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(top + plotHeight + 140))" font-family="sans-serif" font-size="11">
        <text x="\(left)" y="18" font-size="13">keychain-bench: p50 latency per backend and operation (µs, log scale); grey = raw call</text>

        """
        for decade in Int(lowDecade)...Int(highDecade) {
            let value = pow(10, Double(decade))
            svg += "<line x1=\"\(left)\" x2=\"\(width - 10)\" y1=\"\(y(value))\" y2=\"\(y(value))\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(y(value) + 4)\" text-anchor=\"end\">\(format(value))</text>\n"
        }
        for (index, bar) in bars.enumerated() {
            let x = left + 10 + Double(index) * (2 * barWidth + gap)
            let bottom = top + plotHeight
            svg += rect(x: x, top: y(bar.p50Microseconds), bottom: bottom, width: barWidth, color: color(for: bar.backend))
            if let baseline = bar.baselineP50Microseconds {
                svg += rect(x: x + barWidth, top: y(baseline), bottom: bottom, width: barWidth, color: "#aaa")
            }
            let label = "\(bar.backend) \(bar.operation) (\(bar.items))".replacingOccurrences(of: "&", with: "&amp;")
                .replacingOccurrences(of: "<", with: "&lt;")
            svg += "<text transform=\"translate(\(x + barWidth),\(bottom + 8)) rotate(60)\">\(label)</text>\n"
        }
        svg += "</svg>\n"
        try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static func rect(x: Double, top: Double, bottom: Double, width: Double, color: String) -> String {
        "<rect x=\"\(x)\" y=\"\(top)\" width=\"\(width)\" height=\"\(max(bottom - top, 1))\" fill=\"\(color)\"/>\n"
    }

    private static func color(for backend: String) -> String {
        ["memory": "#4e79a7", "keyring": "#f28e2b", "secret-service": "#59a14f", "file": "#e15759",
         "vault": "#b07aa1"][backend] ?? "#76b7b2"
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }
}
