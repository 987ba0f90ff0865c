/// The known field a misspelt one most resembles: the same name in another case or with `_`/`-` (`eaten_at`,
/// `EatenAt`), a known name with a unit or word added (`proteinGrams` for `protein`), or one a few typos away
/// (`calroies`).
enum FieldSuggestion {
    /// The closest of `known` to `field`, or nil when none is close enough to be what was meant.
    static func closest(to field: String, among known: Set<String>) -> String? {
        let wanted = normalised(field)
        guard !wanted.isEmpty else { return nil }
        var best: (name: String, score: Int)?
        for name in known {
            let candidate = normalised(name)
            guard let score = score(wanted, candidate) else { continue }
            if best == nil || score < best!.score || score == best!.score && name < best!.name { best = (name, score) }
        }
        return best?.name
    }

    /// How far apart two normalised names are (lower is closer); nil when too far to suggest.
    private static func score(_ wanted: [UInt8], _ candidate: [UInt8]) -> Int? {
        if wanted == candidate { return 0 }
        let shorter = min(wanted.count, candidate.count)
        // A known name with something added or left off: protein / proteinGrams, water / waterMl.
        if shorter >= 3, wanted.starts(with: candidate) || candidate.starts(with: wanted) {
            return 1 + abs(wanted.count - candidate.count) / 4
        }
        let limit = max(2, max(wanted.count, candidate.count) / 3)
        let distance = EditDistance.between(wanted, candidate, limit: limit)
        return distance <= limit ? 1 + distance : nil
    }

    /// Lower case, without the separators other spellings use.
    private static func normalised(_ name: String) -> [UInt8] {
        name.lowercased().utf8.filter { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
    }
}
