/// A packaged product's barcode as the food catalog stores and looks it up: its Global Trade Item Number, always in
/// the 14-digit form (GTIN-14), so that every printed spelling of one product's code is one key. UPC-A (12 digits),
/// EAN-13 (13) and EAN-8 (8) are the same number with leading zeros; a UPC-E code (8 digits, number system 0 or 1) is
/// a UPC-A with zeros suppressed and is expanded first. Every form ends in a GS1 check digit, which is checked.
public struct GTIN: Hashable, Sendable, CustomStringConvertible {
    /// The 14 digits.
    public let digits: String

    public var description: String { digits }

    private init(padding digits: some StringProtocol) {
        self.digits = String(repeating: "0", count: 14 - digits.count) + digits
    }

    /// The GTINs a scanned or typed code can stand for, most likely first, or why it stands for none. Spaces and
    /// hyphens between digits are ignored. An 8-digit code can be an EAN-8 or a UPC-E: each reading whose check
    /// digit holds is returned (rarely both), so a look-up tries them in turn.
    public static func readings(of code: String) -> Result<[GTIN], BarcodeProblem> {
        let digits = code.filter { $0 != " " && $0 != "-" }
        guard !digits.isEmpty else { return .failure(.empty) }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .failure(.notDigits) }
        switch digits.count {
        case 12, 13, 14:
            return checked(digits).map { [GTIN(padding: digits)] }
        case 8:
            let asEAN8 = checked(digits)
            var readings: [GTIN] = []
            if case .success = asEAN8 { readings.append(GTIN(padding: digits)) }
            if let upcA = expandUPCE(digits), case .success = checked(upcA) { readings.append(GTIN(padding: upcA)) }
            // With no reading, the problem is the EAN-8 reading's: the 8-digit form not limited to number systems 0 and 1.
            if readings.isEmpty, case .failure(let problem) = asEAN8 { return .failure(problem) }
            return .success(readings)
        default:
            return .failure(.unsupportedLength(digits.count))
        }
    }

    /// The one GTIN of a code that has one reading, such as a GTIN-14 read back from storage.
    public init?(_ code: String) {
        guard case .success(let readings) = Self.readings(of: code), readings.count == 1 else { return nil }
        self = readings[0]
    }

    /// GS1's check digit of `body` (the digits before it): weights 3 and 1 alternating from the right, then the
    /// amount that rounds the sum up to a multiple of 10.
    static func checkDigit(of body: some StringProtocol) -> Int {
        var sum = 0
        for (position, character) in body.reversed().enumerated() {
            sum += (character.wholeNumberValue ?? 0) * (position.isMultiple(of: 2) ? 3 : 1)
        }
        return (10 - sum % 10) % 10
    }

    /// Success when the last digit of `digits` is the check digit of the others.
    private static func checked(_ digits: String) -> Result<Void, BarcodeProblem> {
        let expected = checkDigit(of: digits.dropLast())
        let found = digits.last?.wholeNumberValue ?? -1
        return found == expected ? .success(()) : .failure(.checkDigit(expected: expected, found: found))
    }

    /// The UPC-A (12 digits) of an 8-digit UPC-E code (number system 0 or 1, six digits, check digit), or nil when
    /// its number system is neither.
    static func expandUPCE(_ code: String) -> String? {
        let digits = Array(code)
        guard digits.count == 8, digits[0] == "0" || digits[0] == "1" else { return nil }
        let d = digits[1...6].map(String.init)
        let middle: String
        switch d[5] {
        case "0", "1", "2": middle = d[0] + d[1] + d[5] + "0000" + d[2] + d[3] + d[4]
        case "3": middle = d[0] + d[1] + d[2] + "00000" + d[3] + d[4]
        case "4": middle = d[0] + d[1] + d[2] + d[3] + "00000" + d[4]
        default: middle = d[0] + d[1] + d[2] + d[3] + d[4] + "0000" + d[5]
        }
        return String(digits[0]) + middle + String(digits[7])
    }
}

/// Why a code is no barcode the catalog reads; each names the problem for the client's error message.
public enum BarcodeProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notDigits
    case unsupportedLength(Int)
    case checkDigit(expected: Int, found: Int)

    public var description: String {
        switch self {
        case .empty: "the barcode is empty"
        case .notDigits: "a barcode has digits only (spaces and hyphens between them are ignored)"
        case .unsupportedLength(let count):
            "a barcode has 8 (EAN-8, UPC-E), 12 (UPC-A), 13 (EAN-13) or 14 (GTIN-14) digits, not \(count)"
        case .checkDigit(let expected, let found): "the check digit is \(found), but the digits before it give \(expected)"
        }
    }
}
