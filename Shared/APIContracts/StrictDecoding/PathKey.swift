/// A coding key made from a path step, for the coding path of a value decoded below the body's root.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ step: FieldPath.Step) {
        switch step {
        case .key(let key): (stringValue, intValue) = (key, nil)
        case .index(let index): (stringValue, intValue) = ("\(index)", index)
        }
    }

    init?(stringValue: String) { (self.stringValue, self.intValue) = (stringValue, nil) }
    init?(intValue: Int) { (self.stringValue, self.intValue) = ("\(intValue)", intValue) }
}
