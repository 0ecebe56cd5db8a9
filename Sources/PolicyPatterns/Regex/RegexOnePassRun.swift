/// Running a ``RegexOnePass`` program: one thread walks the input's UTF-8 once (ASCII scalars
/// tested on the inline bitmaps), writing capture slots only when captures are asked for.
extension RegexOnePass {
    /// The outcome of one run: `matched` is meaningless when `exceeded`.
    struct Run {
        var matched = false
        /// One step per input scalar looked at, plus one for the end: at most scalars + 1,
        /// well inside the Pike VM's bound of 2 × states × (scalars + 1).
        var steps = 0
        var exceeded = false
        /// Group i's text at index i (group 0 = the whole match); empty unless captures were asked for.
        var captures: [String?] = []
    }

    /// Runs over `input` within `stepLimit` steps; with `captures`, the groups' texts as the VM
    /// gives them.
    func run(_ input: String, stepLimit: Int, captures: Bool) -> Run {
        var input = input
        return input.withUTF8 { (bytes) -> Run in
            guard captures else { return walk(bytes, stepLimit: stepLimit, slots: nil) }
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: slotCount) { (slots) -> Run in
                slots.initialize(repeating: -1)
                var run = walk(bytes, stepLimit: stepLimit, slots: slots)
                guard run.matched else { return run }
                run.captures.reserveCapacity(slotCount / 2)
                for group in 0..<(slotCount / 2) {
                    let start = slots[2 * group]
                    let end = slots[2 * group + 1]
                    if start >= 0, end >= start, end <= bytes.count {
                        run.captures.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                    } else {
                        run.captures.append(nil)
                    }
                }
                return run
            }
        }
    }

    /// The walk itself; slot values are UTF-8 offsets (the scalar boundaries the VM's scalar
    /// indices name).
    private func walk(_ bytes: UnsafeBufferPointer<UInt8>, stepLimit: Int, slots: UnsafeMutableBufferPointer<Int>?) -> Run {
        var run = Run()
        // With a fixed tail, the input's last scalars must be it; the walk ends where it starts.
        var limit = bytes.count
        for set in tail.reversed() {
            run.steps += 1
            if run.steps > stepLimit {
                run.exceeded = true
                return run
            }
            guard limit > 0 else { return run }
            var start = limit - 1
            while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
            guard let (scalar, length) = Self.scalar(in: bytes, at: start), start + length == limit,
                sets[set].contains(fold(scalar))
            else { return run }
            limit = start
        }
        var node = nodes[0]
        var offset = 0
        while offset < limit {
            run.steps += 1
            if run.steps > stepLimit {
                run.exceeded = true
                return run
            }
            guard let (scalar, length) = Self.scalar(in: bytes, at: offset),
                let taken = candidate(in: node, for: fold(scalar))
            else { return run }
            if let slots { apply(actions[taken.actions], at: offset, to: slots) }
            node = nodes[taken.next]
            offset += length
        }
        run.steps += 1
        if run.steps > stepLimit {
            run.exceeded = true
            return run
        }
        guard let endActions = node.endActions else { return run }
        if let slots {
            apply(actions[endActions], at: offset, to: slots)
            apply(tailActions[...], at: bytes.count, to: slots)
        }
        run.matched = true
        return run
    }

    /// The scalar whose UTF-8 starts at `offset`, and its length in bytes (Swift strings are
    /// valid UTF-8: a lead byte says how many continuation bytes follow); nil past the end.
    private static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (UInt32, Int)? {
        let lead = bytes[offset]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard offset + length <= bytes.count else { return nil }
        var scalar = UInt32(lead) & (lead >= 0xF0 ? 0x07 : lead >= 0xE0 ? 0x0F : 0x1F)
        for index in (offset + 1)..<(offset + length) {
            scalar = scalar << 6 | UInt32(bytes[index] & 0x3F)
        }
        return (scalar, length)
    }

    /// The scalar as the sets are tested: its simple case fold under `i`.
    private func fold(_ scalar: UInt32) -> UInt32 {
        guard ignoreCase else { return scalar }
        if scalar < 0x80 { return (0x41...0x5A).contains(scalar) ? scalar + 0x20 : scalar }
        return RegexCaseFolding.fold(scalar)
    }

    /// The one thread of `node` whose set holds `scalar` (there is at most one).
    private func candidate(in node: Node, for scalar: UInt32) -> Candidate? {
        for index in node.candidates {
            let candidate = candidates[index]
            let holds: Bool
            if scalar < 64 {
                holds = (candidate.asciiLow >> UInt64(scalar)) & 1 == 1
            } else if scalar < 128 {
                holds = (candidate.asciiHigh >> UInt64(scalar - 64)) & 1 == 1
            } else {
                holds = sets[candidate.set].contains(scalar)
            }
            if holds { return candidate }
        }
        return nil
    }

    private func apply(_ writes: ArraySlice<Int>, at offset: Int, to slots: UnsafeMutableBufferPointer<Int>) {
        for action in writes {
            if action >= 0 { slots[action] = offset } else { slots[~action] = -1 }
        }
    }
}
