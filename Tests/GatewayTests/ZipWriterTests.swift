import Foundation
import NIOCore
import Testing

@testable import Gateway

/// The streaming zip writer of `GET /api/export?format=csv`, read back by Python's zipfile and Info-ZIP's `unzip -t`
/// (the readers users have), so a valid-looking but unreadable archive cannot pass.
@Suite("Zip writer")
struct ZipWriterTests {
    /// One entry to write: its name and its data in the chunks it arrives in.
    struct Entry {
        var name: String
        var chunks: [[UInt8]]
        var bytes: [UInt8] { chunks.flatMap { $0 } }
    }

    /// The archive of `entries` as the export writes it, chunk by chunk.
    static func archive(_ entries: [Entry]) throws -> [UInt8] {
        var writer = ZipWriter(modifiedAt: Date(timeIntervalSince1970: 1_795_000_000))
        var archive = ByteBuffer()
        for entry in entries {
            var header = try writer.startEntry(entry.name)
            archive.writeBuffer(&header)
            for chunk in entry.chunks {
                var passed = try writer.data(ByteBuffer(bytes: chunk))
                archive.writeBuffer(&passed)
            }
            var descriptor = try writer.finishEntry()
            archive.writeBuffer(&descriptor)
        }
        var directory = try writer.finish()
        archive.writeBuffer(&directory)
        #expect(writer.offset == UInt64(archive.readableBytes), "the writer's count of bytes differs from what it wrote")
        return Array(archive.readableBytesView)
    }

    /// What Python's zipfile reads from `archive`: `testzip()` (nil when every CRC matches) and each entry's name,
    /// size, CRC and SHA-256.
    struct PythonReading: Decodable {
        struct Member: Decodable {
            var name: String
            var size: Int
            var crc: UInt32
            var sha256: String
        }
        var bad: String?
        var members: [Member]
    }

    static func readWithPython(_ archive: [UInt8]) throws -> PythonReading {
        let file = try temporaryFile(archive)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import hashlib, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                bad = z.testzip()
                members = [{"name": i.filename, "size": i.file_size, "crc": i.CRC,
                            "sha256": hashlib.sha256(z.read(i)).hexdigest()} for i in z.infolist()]
            print(json.dumps({"bad": bad, "members": members}))
            """
        let output = try run("/usr/bin/env", ["python3", "-c", script, file.path])
        #expect(output.status == 0, "python's zipfile could not read the archive: \(output.text)")
        return try JSONDecoder().decode(PythonReading.self, from: Data(output.text.utf8))
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
        try Data(bytes).write(to: file)
        return file
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func sha256Hex(_ bytes: [UInt8]) throws -> String {
        let file = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        return try run("/usr/bin/env", ["sha256sum", file.path]).text.split(separator: " ").first.map(String.init) ?? ""
    }

    @Test("CRC-32 is zip's: the check value of \"123456789\" and of nothing, the same in one piece or in chunks")
    func crc() {
        var whole = CRC32()
        whole.update(Array("123456789".utf8))
        #expect(whole.value == 0xCBF4_3926)
        #expect(CRC32().value == 0)
        var chunked = CRC32()
        for piece in ["1234", "5", "6789"] { chunked.update(Array(piece.utf8)) }
        #expect(chunked.value == whole.value)
    }

    @Test("several entries, one of them empty, read back with their names, sizes, CRCs and bytes; unzip -t finds no error")
    func severalEntries() throws {
        let entries = [
            Entry(name: "meals.csv", chunks: [Array("id,title\r\n".utf8), Array("1,\"Eggs, toast\"\r\n".utf8)]),
            Entry(name: "empty.csv", chunks: []),
            Entry(name: "goal_history.csv", chunks: [Array("effectiveFrom\r\n2026-11-25\r\n".utf8)]),
            Entry(name: "notes-é.csv", chunks: [Array("ü\r\n".utf8)]),
        ]
        let archive = try Self.archive(entries)
        let reading = try Self.readWithPython(archive)
        #expect(reading.bad == nil, "entry \(reading.bad ?? "") failed its CRC check")
        #expect(reading.members.map(\.name) == entries.map(\.name))
        for (member, entry) in zip(reading.members, entries) {
            var crc = CRC32()
            crc.update(entry.bytes)
            #expect(member.size == entry.bytes.count, "\(entry.name)")
            #expect(member.crc == crc.value, "\(entry.name)")
            #expect(member.sha256 == (try Self.sha256Hex(entry.bytes)), "\(entry.name)")
        }
        let file = try Self.temporaryFile(archive)
        defer { try? FileManager.default.removeItem(at: file) }
        let test = try Self.run("/usr/bin/env", ["unzip", "-t", file.path])
        #expect(test.status == 0 && test.text.contains("No errors detected"), "unzip -t: \(test.text)")
    }

    @Test("an archive of no entries is a valid empty zip")
    func noEntries() throws {
        let archive = try Self.archive([])
        #expect(archive.count == 22, "an empty zip is its end record alone")
        let reading = try Self.readWithPython(archive)
        #expect(reading.members.isEmpty)
        #expect(reading.bad == nil)
    }

    @Test("a 3 MiB entry written in 4,000-byte chunks reads back byte for byte")
    func largeEntryInChunks() throws {
        let chunkSize = 4000
        var chunks: [[UInt8]] = []
        var produced = 0
        var state: UInt32 = 7
        while produced < 3 * 1024 * 1024 {
            let count = min(chunkSize, 3 * 1024 * 1024 - produced)
            chunks.append(
                (0..<count).map { _ in
                    state = state &* 1_664_525 &+ 1_013_904_223
                    return UInt8(truncatingIfNeeded: state >> 24)
                })
            produced += count
        }
        let entry = Entry(name: "meal_items.csv", chunks: chunks)
        let reading = try Self.readWithPython(try Self.archive([entry]))
        #expect(reading.bad == nil)
        #expect(reading.members.first?.size == 3 * 1024 * 1024)
        #expect(reading.members.first?.sha256 == (try Self.sha256Hex(entry.bytes)))
    }

    @Test("misuse is refused: data outside an entry, an entry inside an entry, finishing with an entry open")
    func misuse() throws {
        var writer = ZipWriter(modifiedAt: Date(timeIntervalSince1970: 0))
        #expect(throws: ZipWriter.Misuse.self) { try writer.data(ByteBuffer(string: "x")) }
        _ = try writer.startEntry("a.csv")
        #expect(throws: ZipWriter.Misuse.self) { try writer.startEntry("b.csv") }
        #expect(throws: ZipWriter.Misuse.self) { try writer.finish() }
    }
}
