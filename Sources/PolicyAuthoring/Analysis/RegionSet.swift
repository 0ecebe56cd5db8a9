/// The regions of one field a handler's match accepts: every region (`nil`, the field is not
/// in the `match` block) or a sorted list of region numbers.
///
/// Regions are the atoms of the Boolean algebra the chain's own entries generate on that
/// field (see ``AnalysisDomain``): every request in a region satisfies the same entries, so a
/// handler accepts all of a region or none of it.
typealias RegionSet = [Int32]?

enum RegionSets {
    /// Whether sorted `inner` ⊆ sorted `outer` (`nil` is everything).
    static func isSubset(_ inner: [Int32], of outer: RegionSet) -> Bool {
        guard let outer else { return true }
        if inner.count > outer.count { return false }
        var position = 0
        for value in inner {
            while position < outer.count, outer[position] < value { position += 1 }
            guard position < outer.count, outer[position] == value else { return false }
        }
        return true
    }

    /// Whether two region sets share a region.
    static func intersects(_ first: RegionSet, _ second: RegionSet) -> Bool {
        guard let first, let second else {
            return !(first?.isEmpty ?? false) && !(second?.isEmpty ?? false)
        }
        var left = 0
        var right = 0
        while left < first.count, right < second.count {
            if first[left] == second[right] { return true }
            if first[left] < second[right] { left += 1 } else { right += 1 }
        }
        return false
    }

    /// The sorted intersection.
    static func intersection(_ first: [Int32], _ second: [Int32]) -> [Int32] {
        var result: [Int32] = []
        var left = 0
        var right = 0
        while left < first.count, right < second.count {
            if first[left] == second[right] {
                result.append(first[left])
                left += 1
                right += 1
            } else if first[left] < second[right] {
                left += 1
            } else {
                right += 1
            }
        }
        return result
    }

    /// Whether `value` is in a sorted set.
    static func contains(_ set: RegionSet, _ value: Int32) -> Bool {
        guard let set else { return true }
        var low = 0
        var high = set.count
        while low < high {
            let middle = (low + high) / 2
            if set[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < set.count && set[low] == value
    }
}
