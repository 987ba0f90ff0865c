import HTTPTypes

extension HTTPFields {
    /// The value of the field `name`, as `self[name]` gives it (several fields of the name joined, `; ` for cookies
    /// and `, ` for the rest), without its cost when there is one: the subscript joins even a single value into a new
    /// string through unspecialized generic code, which showed in the gateway's profile for every header it reads.
    func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            if found != nil { return self[name] }
            found = field.value
        }
        return found
    }

    /// Whether a field `name` is present.
    func has(_ name: HTTPField.Name) -> Bool {
        contains { $0.name == name }
    }
}
