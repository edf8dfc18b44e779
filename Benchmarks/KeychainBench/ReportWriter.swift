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
        if let summary = DurableDefaultAgainstKeyring.summary(results) { lines += ["", summary] }
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

    private struct Document: Codable { let results: [BenchmarkResult] }

    /// The results a `writeJSON` wrote to `path`.
    static func readJSON(from path: String) throws -> [BenchmarkResult] {
        try JSONDecoder().decode(Document.self, from: Data(contentsOf: URL(fileURLWithPath: path))).results
    }

    static func writeJSON(_ results: [BenchmarkResult], to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(Document(results: results)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// One panel per backend (in the order of the results), each on its own log scale: for
    /// every measured row, our p50 in the backend's colour, the raw call's in grey, and the
    /// peer's in the peer's own colour, with our ratio to the raw call written above.
    static func writeSVG(_ results: [BenchmarkResult], to path: String) throws {
        var panels: [(backend: String, rows: [BenchmarkResult])] = []
        for result in results {
            if let index = panels.firstIndex(where: { $0.backend == result.backend }) {
                panels[index].rows.append(result)
            } else {
                panels.append((result.backend, [result]))
            }
        }
        let peers = Array(Set(results.compactMap(\.peer))).sorted()
        let barWidth = 12.0, groupGap = 14.0, left = 70.0, panelTop = 46.0
        let plotHeight = 150.0, labelSpace = 110.0, panelHeight = 24 + plotHeight + labelSpace
        let groupWidth = 3 * barWidth + groupGap
        let widest = panels.map(\.rows.count).max() ?? 1
        let width = max(left + Double(widest) * groupWidth + 120, 760)
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(panelTop + Double(panels.count) * panelHeight))" font-family="sans-serif" font-size="10">
        <text x="10" y="16" font-size="13">keychain-bench: p50 latency (µs, log scale per panel); ×N = our p50 over the raw call's</text>

        """
        var legendX = 10.0
        for (name, color) in [("ours", "#555"), ("raw call", rawColor)] + peers.map({ ($0, peerColor($0)) }) {
            svg += rect(x: legendX, top: 26, bottom: 36, width: 10, color: color)
            svg += "<text x=\"\(legendX + 14)\" y=\"35\">\(escape(name))</text>\n"
            legendX += 24 + Double(name.count) * 6
        }
        for (panelIndex, panel) in panels.enumerated() {
            let top = panelTop + Double(panelIndex) * panelHeight + 20
            let bottom = top + plotHeight
            let values = panel.rows.flatMap { [$0.p50Microseconds, $0.baselineP50Microseconds, $0.peerP50Microseconds] }
                .compactMap { $0 }.filter { $0 > 0 }
            let low = floor(log10(values.min() ?? 1)), high = max(ceil(log10(values.max() ?? 10)), low + 1)
            func y(_ value: Double) -> Double { top + plotHeight * (1 - (log10(max(value, 1e-3)) - low) / (high - low)) }
            svg += "<text x=\"10\" y=\"\(top - 6)\" font-size=\"12\" font-weight=\"bold\">\(escape(panel.backend))</text>\n"
            for decade in Int(low)...Int(high) {
                let value = pow(10, Double(decade))
                svg += "<line x1=\"\(left)\" x2=\"\(width - 10)\" y1=\"\(y(value))\" y2=\"\(y(value))\" stroke=\"#ddd\"/>"
                svg += "<text x=\"\(left - 6)\" y=\"\(y(value) + 4)\" text-anchor=\"end\">\(format(value))</text>\n"
            }
            for (index, row) in panel.rows.enumerated() {
                let x = left + 8 + Double(index) * groupWidth
                svg += rect(x: x, top: y(row.p50Microseconds), bottom: bottom, width: barWidth, color: color(for: row.backend))
                if let raw = row.baselineP50Microseconds {
                    svg += rect(x: x + barWidth, top: y(raw), bottom: bottom, width: barWidth, color: rawColor)
                }
                if let peer = row.peerP50Microseconds, let name = row.peer {
                    svg += rect(x: x + 2 * barWidth, top: y(peer), bottom: bottom, width: barWidth, color: peerColor(name))
                }
                if let ratio = row.ratioToBaseline {
                    svg += "<text x=\"\(x)\" y=\"\(y(row.p50Microseconds) - 3)\" font-size=\"9\">×\(String(format: ratio < 10 ? "%.1f" : "%.0f", ratio))</text>\n"
                }
                let label = "\(row.operation) (\(row.items))"
                svg += "<text transform=\"translate(\(x + barWidth),\(bottom + 8)) rotate(50)\">\(escape(label))</text>\n"
            }
        }
        svg += "</svg>\n"
        try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static let rawColor = "#aaa"

    private static func peerColor(_ peer: String) -> String {
        ["python-keyring": "#1b9e77", "keyrings.cryptfile": "#d95f02", "hvac": "#7570b3", "bao kv get": "#e7298a",
         "python3 -m keyring get": "#66a61e"][peer] ?? "#e6ab02"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }

    private static func rect(x: Double, top: Double, bottom: Double, width: Double, color: String) -> String {
        "<rect x=\"\(x)\" y=\"\(top)\" width=\"\(width)\" height=\"\(max(bottom - top, 1))\" fill=\"\(color)\"/>\n"
    }

    private static func color(for backend: String) -> String {
        ["memory": "#4e79a7", "keyring": "#f28e2b", "secret-service": "#59a14f", "file": "#e15759",
         "vault": "#b07aa1", "keyring-persistent-grouped": "#c46a10", "process": "#76b7b2"][backend] ?? "#76b7b2"
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }
}
