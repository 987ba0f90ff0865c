import Foundation
import NIOCore

/// Writes a zip archive while its entries stream by, without knowing their sizes up front and without holding them:
/// each entry is stored (no compression), its local header says "sizes follow" (general-purpose flag bit 3) and a
/// data descriptor after the data carries the CRC-32 and the size; the central directory at the end repeats them, as
/// every reader (Python's zipfile, Info-ZIP's unzip, the platforms' archive tools) reads it. Names are UTF-8 (flag
/// bit 11). No Zip64: an archive past 4 GiB or 65,535 entries throws `ZipWriter.TooLarge`.
struct ZipWriter: Sendable {
    /// The archive would need Zip64.
    struct TooLarge: Error {}
    /// The calls came out of order (an entry started before the last one finished, data outside an entry).
    struct Misuse: Error {}

    /// What the central directory needs of a finished entry.
    private struct Entry: Sendable {
        var name: [UInt8]
        var offset: UInt32
        var crc: UInt32
        var size: UInt32
    }

    /// The entry being written: its name, where its header starts, its checksum and size so far.
    private struct OpenEntry: Sendable {
        var name: [UInt8]
        var offset: UInt64
        var crc = CRC32()
        var size: UInt64 = 0
    }

    private var entries: [Entry] = []
    private var open: OpenEntry?
    /// Bytes of the archive written so far.
    private(set) var offset: UInt64 = 0
    private let dosTime: UInt16
    private let dosDate: UInt16
    private static let flags: UInt16 = 0x0808
    private static let versionNeeded: UInt16 = 20
    /// Unix (3) in the high byte, so the permissions in the external attributes are read.
    private static let versionMadeBy: UInt16 = 0x0314
    /// A regular file, mode 0644.
    private static let externalAttributes: UInt32 = 0o100644 << 16

    /// A writer whose entries carry `modifiedAt` (in UTC; MS-DOS time has 2-second steps and starts in 1980).
    init(modifiedAt: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: modifiedAt)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        dosDate = UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        dosTime = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
    }

    /// Starts the entry `name`: its local header, to be written before its data.
    mutating func startEntry(_ name: String) throws -> ByteBuffer {
        guard open == nil else { throw Misuse() }
        guard entries.count < 0xFFFF, offset < 0xFFFF_FFFF else { throw TooLarge() }
        let nameBytes = Array(name.utf8)
        var header = ByteBuffer()
        header.writeInteger(UInt32(0x0403_4B50), endianness: .little)
        header.writeInteger(Self.versionNeeded, endianness: .little)
        header.writeInteger(Self.flags, endianness: .little)
        header.writeInteger(UInt16(0), endianness: .little)  // stored
        header.writeInteger(dosTime, endianness: .little)
        header.writeInteger(dosDate, endianness: .little)
        header.writeInteger(UInt32(0), endianness: .little)  // CRC-32, size and compressed size: in the data descriptor
        header.writeInteger(UInt32(0), endianness: .little)
        header.writeInteger(UInt32(0), endianness: .little)
        header.writeInteger(UInt16(nameBytes.count), endianness: .little)
        header.writeInteger(UInt16(0), endianness: .little)  // no extra field
        header.writeBytes(nameBytes)
        open = OpenEntry(name: nameBytes, offset: offset)
        offset += UInt64(header.readableBytes)
        return header
    }

    /// Counts `chunk` into the open entry and returns it, to be written as it is.
    mutating func data(_ chunk: ByteBuffer) throws -> ByteBuffer {
        guard var entry = open else { throw Misuse() }
        entry.crc.update(chunk)
        entry.size += UInt64(chunk.readableBytes)
        offset += UInt64(chunk.readableBytes)
        guard entry.size < 0xFFFF_FFFF else { throw TooLarge() }
        open = entry
        return chunk
    }

    /// Ends the open entry: its data descriptor (signature, CRC-32, compressed and uncompressed size).
    mutating func finishEntry() throws -> ByteBuffer {
        guard let entry = open else { throw Misuse() }
        var descriptor = ByteBuffer()
        descriptor.writeInteger(UInt32(0x0807_4B50), endianness: .little)
        descriptor.writeInteger(entry.crc.value, endianness: .little)
        descriptor.writeInteger(UInt32(entry.size), endianness: .little)
        descriptor.writeInteger(UInt32(entry.size), endianness: .little)
        entries.append(Entry(name: entry.name, offset: UInt32(entry.offset), crc: entry.crc.value, size: UInt32(entry.size)))
        open = nil
        offset += UInt64(descriptor.readableBytes)
        return descriptor
    }

    /// The central directory and its end record: the last bytes of the archive.
    mutating func finish() throws -> ByteBuffer {
        guard open == nil else { throw Misuse() }
        guard offset < 0xFFFF_FFFF else { throw TooLarge() }
        var directory = ByteBuffer()
        for entry in entries {
            directory.writeInteger(UInt32(0x0201_4B50), endianness: .little)
            directory.writeInteger(Self.versionMadeBy, endianness: .little)
            directory.writeInteger(Self.versionNeeded, endianness: .little)
            directory.writeInteger(Self.flags, endianness: .little)
            directory.writeInteger(UInt16(0), endianness: .little)
            directory.writeInteger(dosTime, endianness: .little)
            directory.writeInteger(dosDate, endianness: .little)
            directory.writeInteger(entry.crc, endianness: .little)
            directory.writeInteger(entry.size, endianness: .little)
            directory.writeInteger(entry.size, endianness: .little)
            directory.writeInteger(UInt16(entry.name.count), endianness: .little)
            directory.writeInteger(UInt16(0), endianness: .little)  // extra field
            directory.writeInteger(UInt16(0), endianness: .little)  // comment
            directory.writeInteger(UInt16(0), endianness: .little)  // disk
            directory.writeInteger(UInt16(0), endianness: .little)  // internal attributes
            directory.writeInteger(Self.externalAttributes, endianness: .little)
            directory.writeInteger(entry.offset, endianness: .little)
            directory.writeBytes(entry.name)
        }
        let directorySize = UInt64(directory.readableBytes)
        guard offset + directorySize < 0xFFFF_FFFF else { throw TooLarge() }
        directory.writeInteger(UInt32(0x0605_4B50), endianness: .little)
        directory.writeInteger(UInt16(0), endianness: .little)
        directory.writeInteger(UInt16(0), endianness: .little)
        directory.writeInteger(UInt16(entries.count), endianness: .little)
        directory.writeInteger(UInt16(entries.count), endianness: .little)
        directory.writeInteger(UInt32(directorySize), endianness: .little)
        directory.writeInteger(UInt32(offset), endianness: .little)
        directory.writeInteger(UInt16(0), endianness: .little)  // comment
        offset += UInt64(directory.readableBytes)
        return directory
    }
}
