import Foundation

/// Writes CSV fields as RFC 4180 says: a field holding a comma, a double quote, a carriage return or a line feed is
/// put in double quotes with its quotes doubled; records end with CRLF. Text a user typed that begins with `=`, `+`,
/// `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet opening the file shows it as text
/// instead of running it as a formula (OWASP's advice on CSV injection); numbers are never changed.
public enum CSVField {
    /// Characters that make a spreadsheet read a cell as a formula.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r", "\r\n"]

    /// `value` as one field; `guardFormula` for user text.
    public static func escape(_ value: String, guardFormula: Bool) -> String {
        var text = value
        if guardFormula, let first = text.first, formulaStarts.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One record: the fields escaped, joined by commas, ended by CRLF.
    public static func record(_ fields: [String], guardFormula: [Bool]) -> String {
        var line = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { line += "," }
            line += escape(field, guardFormula: index < guardFormula.count && guardFormula[index])
        }
        return line + "\r\n"
    }
}
