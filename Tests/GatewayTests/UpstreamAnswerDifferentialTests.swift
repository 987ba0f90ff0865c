import Foundation
import Testing

@testable import Gateway

/// The gateway's upstream answer parser against swift-nio's `HTTPResponseDecoder` (llhttp), on generated and mutated
/// conversations split at random points (`UpstreamAnswerDifferential`): both must make the same heads, body bytes,
/// ends and refusals of each, except where docs/GATEWAY.md ("Where the upstream answer parser differs from
/// swift-nio's") lists a difference, each with a test of its own below. Seeded and replayable:
/// `PARSER_DIFFERENTIAL_SEED` (the first seed, 1) and `PARSER_DIFFERENTIAL_CASES` (5,000 here; `deploy/fuzz-answer-parser`
/// runs a million); a failure names each case's seed.
@Suite("Upstream answer parser against swift-nio's")
struct UpstreamAnswerDifferentialTests {
    typealias Differential = UpstreamAnswerDifferential

    /// The listed differences: where the gateway refuses what swift-nio reads, or reads it otherwise.
    enum ListedDifference: String, CaseIterable {
        /// 101 is refused: the gateway never asks an upstream to switch protocols.
        case switchingProtocols = "101 refused"
        /// A transfer coding other than `chunked` alone (gzip; gzip, chunked; chunked twice; chunked and a tab) is
        /// refused, where llhttp reads the body until the close, or as chunked when chunked comes last.
        case transferCodings = "transfer codings but chunked alone refused"
        /// A status code outside 100-599 is refused; llhttp takes any three digits.
        case statusRange = "status outside 100-599 refused"
        /// `Connection: close` (or `keep-alive`) with a tab after it: the gateway reads the option without the
        /// whitespace around it (RFC 9110), llhttp does not recognise it.
        case connectionWithTab = "Connection option with a tab read"
        /// The answer to a HEAD request without a length keeps the connection (it has no body, RFC 9112); llhttp
        /// reads it as one that lasts until the close.
        case headAnswerWithoutLength = "HEAD answer without a length keeps the connection"
        /// A control character (DEL, NUL...) in a reason phrase, interim answers' included, is refused (RFC 9112's
        /// reason-phrase; the gateway passes the phrase on); llhttp takes it.
        case reasonPhraseControl = "control character in a reason phrase refused"
        /// An interim answer never ends the connection (the final answer says whether it is kept); llhttp takes one
        /// with `Connection: close`, or of HTTP/1.0, for the connection's last.
        case interimEndsNothing = "an interim answer does not end the connection"
        /// `close` wins over `keep-alive` when an answer says both; llhttp keeps an HTTP/1.0 connection then.
        case closeWinsOverKeepAlive = "Connection: close wins over keep-alive"
        /// A Content-Length of more than 18 digits (an exabyte) is refused; llhttp takes up to 2^64 - 1.
        case hugeLength = "Content-Length above 18 digits refused"
        /// Bytes after the last awaited answer are refused, line breaks too; llhttp skips line breaks between answers.
        case strayLineBreak = "a line break after the last answer refused"

        /// Whether this difference explains what the two made of `conversation` from the first item where they differ.
        func explains(ours: [Differential.Item], nio: [Differential.Item], in conversation: Differential.Case) -> Bool {
            let common = min(ours.count, nio.count)
            guard let index = (0..<common).first(where: { ours[$0] != nio[$0] }) ?? (ours.count != nio.count ? common : nil) else { return false }
            // The answer where they part: the one ours was reading there, from where it began in the bytes.
            let answer = ours[..<index].filter { $0 == .end }.count
            let reading = Differential.oursReading(conversation)
            let oursRefused = index < ours.count && ours[index].isRefusal
            if self == .strayLineBreak {
                // Ours read every awaited answer and refused what followed, beginning with CR or LF, which llhttp skips.
                let rest = conversation.bytes[reading.stoppedAt...]
                return oursRefused && answer == conversation.exchanges.count && (rest.first == 0x0A || rest.first == 0x0D)
            }
            let starts = reading.answerStarts
            if self == .connectionWithTab, oursRefused, answer >= 1, answer == starts.count {
                // Ours took `close` and a tab as the end of the connection, and refused what came after; llhttp read on.
                let previous = UpstreamAnswerDifferentialTests.finalHead(of: Array(conversation.bytes[starts[answer - 1]...]))
                return previous.fields.contains { $0.name.lowercased() == "connection" && $0.rawValue.contains("\t") }
            }
            guard answer < starts.count else { return false }
            let bytes = Array(conversation.bytes[starts[answer]...])
            let head = UpstreamAnswerDifferentialTests.finalHead(of: bytes)
            switch self {
            case .switchingProtocols:
                return oursRefused && head.code == 101
            case .transferCodings:
                // Interim answers' framing is checked too.
                let codings = (head.fields + head.interimFields).filter { $0.name.lowercased() == "transfer-encoding" }
                return oursRefused
                    && (codings.count > 1
                        || codings.contains { field in
                            let value = field.rawValue.drop { $0 == " " || $0 == "\t" }
                            return value.contains("\t") || value.trimmingCharacters(in: .whitespaces).lowercased() != "chunked"
                        })
            case .statusRange:
                return oursRefused && head.code.map { !(100...599).contains($0) } == true
            case .connectionWithTab, .headAnswerWithoutLength:
                // The same head but for whether the connection is kept.
                guard index < ours.count, index < nio.count, case .head(let code, _, let fields) = ours[index],
                    case .head(code, _, fields) = nio[index]
                else { return false }
                if self == .connectionWithTab {
                    return head.fields.contains { $0.name.lowercased() == "connection" && $0.rawValue.contains("\t") }
                }
                let requests = conversation.exchanges.map(\.requestIsHead)
                let framing = ["content-length", "transfer-encoding"]
                return answer < requests.count && requests[answer] && !head.fields.contains { framing.contains($0.name.lowercased()) }
            case .interimEndsNothing:
                let interimLines = head.statusLines.dropLast()
                return index < nio.count && nio[index].isRefusal
                    && (interimLines.contains { $0.hasPrefix("HTTP/1.0") }
                        || head.interimFields.contains { $0.name.lowercased() == "connection" && $0.rawValue.lowercased().contains("close") })
            case .closeWinsOverKeepAlive:
                guard index < ours.count, index < nio.count, case .head(let code, false, let fields) = ours[index],
                    case .head(code, true, fields) = nio[index]
                else { return false }
                let options = head.fields.filter { $0.name.lowercased() == "connection" }.map { $0.rawValue.lowercased() }.joined(separator: ",")
                return options.contains("close") && options.contains("keep-alive")
            case .hugeLength:
                return oursRefused
                    && (head.fields + head.interimFields).contains {
                        $0.name.lowercased() == "content-length" && $0.rawValue.trimmingCharacters(in: .whitespaces).count > 18
                    }
            case .strayLineBreak:
                return false  // above
            case .reasonPhraseControl:
                return oursRefused && head.statusLines.contains { line in line.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }
            }
        }
    }

    /// One conversation each listed difference explains.
    static func example(of difference: ListedDifference) -> Differential.Case {
        let (text, requestIsHead): (String, Bool) =
            switch difference {
            case .switchingProtocols: ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", false)
            case .transferCodings: ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc", false)
            case .statusRange: ("HTTP/1.1 600 Odd\r\nContent-Length: 3\r\n\r\nabc", false)
            case .connectionWithTab: ("HTTP/1.1 200 OK\r\nConnection: close\t\r\nContent-Length: 3\r\n\r\nabc", false)
            case .headAnswerWithoutLength: ("HTTP/1.1 200 OK\r\nETag: \"1\"\r\n\r\n", true)
            case .reasonPhraseControl: ("HTTP/1.1 200 O\u{7F}K\r\nContent-Length: 3\r\n\r\nabc", false)
            case .interimEndsNothing: ("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", false)
            case .closeWinsOverKeepAlive: ("HTTP/1.0 200 OK\r\nConnection: close\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc", false)
            case .hugeLength: ("HTTP/1.1 204 No Content\r\nContent-Length: 9999999999999999999\r\n\r\n", false)
            case .strayLineBreak: ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc\r\n", false)
            }
        return Differential.Case(exchanges: [.init(requestIsHead: requestIsHead, bytes: Array(text.utf8))], splits: [])
    }

    /// The status code and raw field lines of the first final head in `bytes` (past interim answers), and the status
    /// lines of all those heads, as far as they can be told; for explaining differences only.
    static func finalHead(of bytes: [UInt8]) -> (
        code: Int?, fields: [(name: String, rawValue: String)], statusLines: [String], interimFields: [(name: String, rawValue: String)]
    ) {
        let crlf: [UInt8] = [0x0D, 0x0A]
        var rest = bytes[...]
        var statusLines: [String] = []
        var interimFields: [(name: String, rawValue: String)] = []
        while true {
            var end = rest.endIndex
            if let found = (rest.startIndex..<max(rest.startIndex, rest.endIndex - 3)).first(where: { rest[$0..<($0 + 4)].elementsEqual(crlf + crlf) }
            ) {
                end = found
            }
            var lines: [String] = []
            var lineStart = rest.startIndex
            while lineStart < end {
                let lineEnd = (lineStart..<end).first { rest[$0] == 0x0D && $0 + 1 < rest.endIndex && rest[$0 + 1] == 0x0A } ?? end
                lines.append(String(decoding: rest[lineStart..<lineEnd], as: UTF8.self))
                lineStart = lineEnd + 2
            }
            statusLines.append(lines.first ?? "")
            let statusParts = lines.first?.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false) ?? []
            let code = statusParts.count > 1 ? Int(statusParts[1]) : nil
            let fields = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), String(line[line.index(after: colon)...]))
            }
            if let code, (100..<200).contains(code), code != 101, end < rest.endIndex {
                interimFields += fields
                rest = rest[(end + 4)...]
                continue
            }
            return (code, fields, statusLines, interimFields)
        }
    }

    static var firstSeed: UInt64 { UInt64(ProcessInfo.processInfo.environment["PARSER_DIFFERENTIAL_SEED"] ?? "") ?? 1 }
    static var caseCount: UInt64 { UInt64(ProcessInfo.processInfo.environment["PARSER_DIFFERENTIAL_CASES"] ?? "") ?? 5_000 }

    @Test("generated and mutated answers split anywhere: the same heads, bodies, ends and refusals as swift-nio's, but for the listed differences")
    func sameAsSwiftNIO() {
        var agreedReading = 0
        var agreedRefusing = 0
        var listed: [ListedDifference: Int] = [:]
        var unexplained: [String] = []
        for seed in Self.firstSeed..<(Self.firstSeed + Self.caseCount) {
            let conversation = Differential.generated(seed: seed)
            let (ours, nio) = Differential.compared(conversation)
            if ours == nio {
                if ours.last?.isRefusal == true { agreedRefusing += 1 } else { agreedReading += 1 }
                continue
            }
            if let difference = ListedDifference.allCases.first(where: { $0.explains(ours: ours, nio: nio, in: conversation) }) {
                listed[difference, default: 0] += 1
                continue
            }
            unexplained.append("seed \(seed): \(conversation)\n  ours: \(ours)\n  nio:  \(nio)")
        }
        let summary =
            "\(Self.caseCount) cases from seed \(Self.firstSeed): \(agreedReading) read alike, \(agreedRefusing) refused alike, "
            + "listed differences \(listed.map { "\($0.key.rawValue) \($0.value)" }.sorted()), \(unexplained.count) unexplained"
        print(summary)
        #expect(unexplained.isEmpty, "\(summary); the first:\n\(unexplained.prefix(5).joined(separator: "\n"))")
        if Self.caseCount >= 1_000 {
            // A generator that stopped making either kind would leave the comparison with nothing to compare.
            #expect(agreedReading * 5 >= Int(Self.caseCount), "\(summary)")
            #expect(agreedRefusing * 20 >= Int(Self.caseCount), "\(summary)")
        }
    }

    /// What the two make of `text` (one answer to a GET), in one read.
    func both(_ text: String) -> (ours: [Differential.Item], nio: [Differential.Item]) {
        Differential.compared(Differential.Case(exchanges: [.init(requestIsHead: false, bytes: Array(text.utf8))], splits: []))
    }

    @Test("each listed difference is one: the two differ on its example, and it explains how", arguments: ListedDifference.allCases)
    func listedDifference(difference: ListedDifference) {
        let conversation = Self.example(of: difference)
        let (ours, nio) = Differential.compared(conversation)
        #expect(ours != nio, "swift-nio reads the example as the gateway does: \(ours)")
        #expect(difference.explains(ours: ours, nio: nio, in: conversation), "ours \(ours), nio \(nio)")
        let others = ListedDifference.allCases.filter { $0 != difference && $0.explains(ours: ours, nio: nio, in: conversation) }
        #expect(others.isEmpty, "explained by others too: \(others)")
    }

    @Test("listed: 101 is refused, where swift-nio reads an upgrade")
    func switchingProtocols() {
        let (ours, nio) = both("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n")
        #expect(ours == [.refused("")])
        #expect(nio.first.map { if case .head(101, _, _) = $0 { true } else { false } } == true)
    }

    @Test(
        "listed: transfer codings other than chunked alone are refused, where swift-nio reads until the close or the chunks",
        arguments: ["gzip", "gzip, chunked", "chunked\t", "chunked\r\nTransfer-Encoding: chunked"])
    func transferCodings(coding: String) {
        let (ours, nio) = both("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(coding)\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(ours == [.refused("")])
        #expect(nio.last == .end, "swift-nio reads it")
    }

    @Test("listed: status codes outside 100-599 are refused, where swift-nio takes any three digits", arguments: ["600", "099", "999"])
    func statusRange(code: String) {
        let (ours, nio) = both("HTTP/1.1 \(code) Odd\r\nContent-Length: 3\r\n\r\nabc")
        #expect(ours == [.refused("")])
        #expect(nio.last == .end)
    }

    @Test("listed: a Connection option with a tab after it counts, where swift-nio ignores it")
    func connectionWithTab() {
        let (ours, nio) = both("HTTP/1.1 200 OK\r\nConnection: close\t\r\nContent-Length: 3\r\n\r\nabc")
        let fields = [Differential.Field(name: "Connection", value: "close"), Differential.Field(name: "Content-Length", value: "3")]
        #expect(ours == [.head(code: 200, keepAlive: false, fields: fields), .body(Array("abc".utf8)), .end])
        #expect(nio == [.head(code: 200, keepAlive: true, fields: fields), .body(Array("abc".utf8)), .end])
    }

    @Test(
        "framing read as swift-nio reads it: a second Content-Length, a tab in it, whitespace after a chunk size are refused by both",
        arguments: [
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", "HTTP/1.1 200 OK\r\nContent-Length: 3\t\r\n\r\nabc",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 ;a=b\r\nabc\r\n0\r\n\r\n",
        ])
    func refusedByBoth(text: String) {
        let (ours, nio) = both(text)
        #expect(ours.last == .refused("") && ours == nio)
    }

    @Test("a case is made again from its seed, and split reads give what one read gives")
    func replayable() {
        for seed in UInt64(1)...200 {
            let conversation = Differential.generated(seed: seed)
            #expect(conversation.bytes == Differential.generated(seed: seed).bytes)
            var whole = conversation
            whole.splits = []
            #expect(Differential.ours(whole) == Differential.ours(conversation) || Differential.ours(conversation).last?.isRefusal == true)
        }
    }
}
