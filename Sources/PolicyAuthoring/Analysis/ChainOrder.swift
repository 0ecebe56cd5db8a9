/// Facts about candidate lists (chain positions in order) that let a search skip work while
/// staying exact.
enum ChainOrder {
    /// The candidates up to and including the first whose box contains `box` on every field
    /// from `field` on (the earlier fields are already fixed to regions every candidate
    /// accepts): no later candidate is ever the first to match in `box`.
    static func upToFirstContaining(_ candidates: [Int], _ boxes: [[RegionSet]], _ box: [RegionSet], from field: Int)
        -> [Int]
    {
        guard let stop = candidates.firstIndex(where: { BoxSearch.contains(boxes[$0], box, from: field) }) else {
            return candidates
        }
        return Array(candidates[...stop])
    }

    /// The longest reordering this check looks at: comparing every pair costs its square.
    static let reorderLimit = 48

    /// Whether two candidate lists make the same first match for every request: the same
    /// elements (`alike`: same box and outcome) in an order that differs only between elements
    /// whose boxes share no request. Sound because if the first matches differ, both match
    /// the request, so their boxes meet and their relative order is the same in both lists,
    /// which contradicts each being first in one of them. `false` means "not shown", not
    /// "different".
    static func decideAlike(_ first: [Int], _ second: [Int], alike: (Int, Int) -> Bool, boxes: [[RegionSet]]) -> Bool {
        guard first.count == second.count else { return false }
        var start = 0
        while start < first.count, alike(first[start], second[start]) { start += 1 }
        var end = first.count
        while end > start, alike(first[end - 1], second[end - 1]) { end -= 1 }
        let middle = end - start
        if middle == 0 { return true }
        guard middle <= reorderLimit else { return false }
        // Where each first-chain element sits in the second list (equal elements in order).
        var used = [Bool](repeating: false, count: middle)
        var place: [Int] = []
        for position in start..<end {
            guard
                let match = (start..<end).first(where: { !used[$0 - start] && alike(first[position], second[$0]) })
            else { return false }
            used[match - start] = true
            place.append(match)
        }
        for one in 0..<middle {
            for other in (one + 1)..<middle where place[one] > place[other] {
                if BoxSearch.intersects(boxes[first[start + one]], boxes[first[start + other]]) { return false }
            }
        }
        return true
    }
}
