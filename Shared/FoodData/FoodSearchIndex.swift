import APIContracts

/// Ranks table foods against a free-text query, tolerating plurals (by singular words), prefixes
/// ("toast" finds "toasted") and typos (edit distance 1 for words of 3-6 letters, 2 from 7).
///
/// Relevance: the share of query words a food's name covers (an exact word counts 1, a prefix 0.85, a typo
/// 0.75 or 0.6), plus a bonus when they appear in the name's first part (USDA names start with the food:
/// "Egg, whole, raw"), minus a little for every extra word (the generic food before the specific one) and for
/// branded, baby and restaurant foods and for preserved states the query did not ask for (dried, frozen,
/// canned...), which a person describing their meal rarely means.
struct FoodSearchIndex: Sendable {
    private struct Entry: Sendable {
        var words: [String]
        var headWords: Set<String>
        var penalty: Double
        /// Words of a preserved or altered state (dried, frozen, canned...), which a query must ask for.
        var stateWords: Set<String>
    }

    /// How well a food's name answers the query: matched weight, the part of it in the name's first segment,
    /// and whether the name's very first word was matched.
    private struct Match {
        var weight = 0.0
        var head = 0.0
        var leading = 0.0

        mutating func keepBest(_ other: Match) {
            weight = max(weight, other.weight)
            head = max(head, other.head)
            leading = max(leading, other.leading)
        }

        mutating func add(_ other: Match) {
            weight += other.weight
            head += other.head
            leading += other.leading
        }
    }

    /// One query word's possible meanings in the vocabulary, with their weights.
    private typealias Candidates = [(word: String, weight: Double)]

    private let entries: [Entry]
    private let postings: [String: [Int]]
    private let sortedVocabulary: [String]

    /// Everyday words the USDA table spells differently ("toast" is "Bread, ..., toasted").
    private static let everydayWords: [String: [String]] = [
        "toast": ["bread", "toasted"], "oj": ["orange", "juice"], "coke": ["cola"], "soda": ["carbonated", "beverage"],
        "fry": ["french", "fried"], "chip": ["chip"], "yoghurt": ["yogurt"], "porridge": ["oatmeal"],
    ]

    /// A person who writes "eggs" means fresh eggs, not dried egg powder.
    private static let stateWords: Set<String> = [
        "dried", "dehydrated", "powder", "powdered", "frozen", "canned", "concentrate", "mix", "substitute", "imitation",
        "freeze", "condensed", "unprepared", "uncooked", "dry",
    ]

    private static let stopWords: Set<String> = ["a", "an", "the", "of", "with", "and", "or", "in", "on", "some", "my"]

    init(names: [String], groups: [FoodGroup]) {
        var entries: [Entry] = []
        var postings: [String: [Int]] = [:]
        for (index, name) in names.enumerated() {
            let words = FoodNameTokenizer.words(name)
            let head = Set(FoodNameTokenizer.words(String(name.split(separator: ",").first ?? "")))
            var penalty = 0.0
            if name.split(separator: " ").contains(where: Self.isBrandWord) { penalty += 0.12 }
            switch groups[index] {
            case .babyFoods: penalty += 0.35
            case .traditionalFoods: penalty += 0.2
            case .restaurantFoods, .fastFoods, .mealsAndEntrees: penalty += 0.05
            default: break
            }
            entries.append(Entry(words: words, headWords: head, penalty: penalty, stateWords: Set(words).intersection(Self.stateWords)))
            for word in Set(words) { postings[word, default: []].append(index) }
        }
        self.entries = entries
        self.postings = postings
        self.sortedVocabulary = postings.keys.sorted()
    }

    /// Up to `limit` entry indices with their relevance, best first; ties keep table order.
    func search(_ query: String, limit: Int) -> [(index: Int, score: Double)] {
        let queryWords = FoodNameTokenizer.words(query).filter { !Self.stopWords.contains($0) }
            .flatMap { Self.everydayWords[$0] ?? [$0] }
        guard !queryWords.isEmpty, limit > 0 else { return [] }
        var sums: [Int: Match] = [:]
        for queryWord in queryWords {
            var best: [Int: Match] = [:]
            for candidate in candidates(for: queryWord) {
                for index in postings[candidate.word] ?? [] {
                    let entry = entries[index]
                    let head = entry.headWords.contains(candidate.word) ? candidate.weight : 0
                    let leading = entry.words.first == candidate.word ? candidate.weight : 0
                    best[index, default: Match()].keepBest(Match(weight: candidate.weight, head: head, leading: leading))
                }
            }
            for (index, match) in best { sums[index, default: Match()].add(match) }
        }
        let count = Double(queryWords.count)
        let asked = Set(queryWords)
        let scored = sums.map { index, match -> (index: Int, score: Double) in
            let entry = entries[index]
            let extraWords = max(0, Double(entry.words.count) - count)
            let unaskedStates = Double(entry.stateWords.subtracting(asked).count)
            let score =
                (match.weight + 0.25 * match.head) / count + 0.1 * min(1, match.leading) - 0.015 * extraWords - entry.penalty
                - 0.08 * unaskedStates
            return (index, score)
        }
        return scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.prefix(limit).map { $0 }
    }

    /// The vocabulary words a query word may mean: itself, words it begins, and near misses when it is not a word.
    private func candidates(for queryWord: String) -> Candidates {
        var result: Candidates = []
        if postings[queryWord] != nil { result.append((queryWord, 1.0)) }
        if queryWord.count >= 3 {
            var position = lowerBound(queryWord)
            while position < sortedVocabulary.count, sortedVocabulary[position].hasPrefix(queryWord) {
                if sortedVocabulary[position] != queryWord { result.append((sortedVocabulary[position], 0.85)) }
                position += 1
            }
        }
        guard result.isEmpty, queryWord.count >= 3 else { return result }
        let maxDistance = queryWord.count >= 7 ? 2 : 1
        let query = Array(queryWord.utf8)
        for word in sortedVocabulary where abs(word.utf8.count - query.count) <= maxDistance {
            let distance = EditDistance.between(query, Array(word.utf8), limit: maxDistance)
            if distance <= maxDistance { result.append((word, distance == 1 ? 0.75 : 0.6)) }
        }
        return result
    }

    private func lowerBound(_ word: String) -> Int {
        var low = 0
        var high = sortedVocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if sortedVocabulary[middle] < word { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// USDA writes brand names in capitals ("KELLOGG'S", "CAMPBELL'S"); units like "NLEA" are rare in names.
    /// An ASCII word is read byte by byte (the same answer, without a `Character` per letter).
    static func isBrandWord(_ word: Substring) -> Bool {
        var upper = 0
        for byte in word.utf8 {
            switch byte {
            case 0x41...0x5A: upper += 1
            case 0x61...0x7A: return false
            case 0x80...: return isBrandWordUnicode(word)
            default: continue
            }
        }
        return upper >= 3
    }

    /// `isBrandWord(_:)` of any word: three or more letters, all upper-case.
    static func isBrandWordUnicode(_ word: Substring) -> Bool {
        let letters = word.filter(\.isLetter)
        return letters.count >= 3 && letters.allSatisfy(\.isUppercase)
    }
}
