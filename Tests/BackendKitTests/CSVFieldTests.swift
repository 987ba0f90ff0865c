import Testing

@testable import BackendKit

/// CSV as the export writes it: RFC 4180 quoting, CRLF records, and the guard against formula injection.
@Suite("CSV fields")
struct CSVFieldTests {
    @Test("plain text is written as it is; commas, quotes and line breaks are quoted with quotes doubled")
    func quoting() {
        #expect(CSVField.escape("Eggs and toast", guardFormula: true) == "Eggs and toast")
        #expect(CSVField.escape("eggs, toast", guardFormula: true) == "\"eggs, toast\"")
        #expect(CSVField.escape("the \"big\" one", guardFormula: true) == "\"the \"\"big\"\" one\"")
        #expect(CSVField.escape("line one\nline two", guardFormula: true) == "\"line one\nline two\"")
        #expect(CSVField.escape("line one\r\nline two", guardFormula: true) == "\"line one\r\nline two\"")
        #expect(CSVField.escape("", guardFormula: true) == "")
        #expect(CSVField.escape("Müsli ☕️", guardFormula: true) == "Müsli ☕️")
    }

    @Test("user text starting with = + - @ tab or CR gets a leading apostrophe; values (numbers) never do")
    func formulaInjection() {
        #expect(CSVField.escape("=HYPERLINK(\"http://evil\")", guardFormula: true) == "\"'=HYPERLINK(\"\"http://evil\"\")\"")
        #expect(CSVField.escape("+1 cup", guardFormula: true) == "'+1 cup")
        #expect(CSVField.escape("-fat", guardFormula: true) == "'-fat")
        #expect(CSVField.escape("@SUM(A1)", guardFormula: true) == "'@SUM(A1)")
        #expect(CSVField.escape("\tcmd", guardFormula: true) == "'\tcmd")
        #expect(CSVField.escape("\rcmd", guardFormula: true) == "\"'\rcmd\"")
        #expect(CSVField.escape("a=b", guardFormula: true) == "a=b")
        #expect(CSVField.escape("-500", guardFormula: false) == "-500")
        #expect(CSVField.escape("=1+1", guardFormula: false) == "=1+1")
    }

    @Test("a record joins its fields with commas, guards only the chosen ones and ends with CRLF")
    func record() {
        let line = CSVField.record(["1", "-2", "=evil", "a,b"], guardFormula: [false, false, true, true])
        #expect(line == "1,-2,'=evil,\"a,b\"\r\n")
        #expect(CSVField.record([], guardFormula: []) == "\r\n")
    }

    @Test("a table's header names its columns in order; only text columns are guarded")
    func header() {
        let table = ExportTable(
            file: "meals", key: "meals", source: "meals", order: "id",
            columns: [ExportColumn("id", "id"), ExportColumn("title", "title", .text), ExportColumn("eatenAt", "eaten_at", .timestamp)])
        #expect(table.csvHeader == "id,title,eatenAt\r\n")
        #expect(table.guardedFields == [false, true, false])
    }
}
