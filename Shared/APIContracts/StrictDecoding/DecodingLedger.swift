/// What one strict decoding saw: the problems of each field, and of each JSON object the keys it holds beside the keys
/// the decoded type asked for, so that keys nobody asked for are reported as unknown once decoding is done.
final class DecodingLedger {
    /// One JSON object of the body, by its path.
    struct ObjectKeys {
        /// The keys the object holds.
        var present: [String]
        /// The keys a decoded type asked for (read, tested for, or looked up absent).
        var asked: Set<String> = []
        /// A type read the object's keys as data (a dictionary): every key is known.
        var open = false
    }

    private(set) var problems: [FieldPath: String] = [:]
    private var objects: [FieldPath: ObjectKeys] = [:]

    /// Records `problem` at `path`; the first problem of a field is the one reported.
    func record(_ problem: String, at path: FieldPath) {
        if problems[path] == nil { problems[path] = problem }
    }

    /// Notes the object at `path` and the keys it holds (once per path, however many containers read it).
    func noteObject(at path: FieldPath, keys: [String]) {
        if objects[path] == nil { objects[path] = ObjectKeys(present: keys) }
    }

    /// Notes that the type being decoded asked the object at `path` for `key`.
    func noteAsked(_ key: String, at path: FieldPath) {
        objects[path]?.asked.insert(key)
    }

    /// Notes that the object at `path` is read as data, all its keys known.
    func noteOpen(at path: FieldPath) {
        objects[path]?.open = true
    }

    /// Every key present that no type asked for, with the asked key it most resembles when one is close.
    func unknownKeys() -> [FieldPath: String?] {
        var unknown: [FieldPath: String?] = [:]
        for (path, object) in objects where !object.open {
            for key in object.present where !object.asked.contains(key) {
                unknown[path.appending(key)] = FieldSuggestion.closest(to: key, among: object.asked)
            }
        }
        return unknown
    }
}
