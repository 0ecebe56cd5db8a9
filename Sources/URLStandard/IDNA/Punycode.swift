/// Punycode (RFC 3492) for IDNA labels, with the overflow checks of RFC 3492 §6.4.
enum Punycode {
    private static let base: UInt32 = 36
    private static let tMin: UInt32 = 1
    private static let tMax: UInt32 = 26
    private static let skew: UInt32 = 38
    private static let damp: UInt32 = 700
    private static let initialBias: UInt32 = 72
    private static let initialN: UInt32 = 0x80
    private static let delimiter: UInt8 = 0x2D

    /// RFC 3492 §6.1.
    private static func adapt(delta: UInt32, numPoints: UInt32, firstTime: Bool) -> UInt32 {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The digit value of a basic code point (either case), or nil.
    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x61...0x7A: return UInt32(byte - 0x61)
        case 0x41...0x5A: return UInt32(byte - 0x41)
        case 0x30...0x39: return UInt32(byte - 0x30) + 26
        default: return nil
        }
    }

    /// The lowercase basic code point for a digit value (0..<36).
    @inline(__always)
    private static func digitByte(_ digit: UInt32) -> UInt8 {
        digit < 26 ? UInt8(truncatingIfNeeded: digit) + 0x61 : UInt8(truncatingIfNeeded: digit - 26) + 0x30
    }

    @inline(__always)
    private static func threshold(_ k: UInt32, bias: UInt32) -> UInt32 {
        k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
    }

    /// Decodes a Punycode string (the part after `xn--`) to scalar values.
    /// Returns nil for a non-basic input code point, a bad digit, overflow, or a decoded value
    /// that is not a Unicode scalar value (surrogate or above U+10FFFF).
    ///
    /// RFC 3492 inserts each decoded code point into the output as it goes, which moves what
    /// follows: a long label of code points inserted at the front cost quadratic time. The
    /// insertions are recorded instead and placed once all are known (``place(basic:values:at:)``).
    static func decode(_ input: ArraySlice<UInt8>) -> [UInt32]? {
        // Keeps every count below in UInt32 range.
        guard input.count < Int(UInt32.max / 2) else { return nil }
        var basic: [UInt32] = []
        var position = input.startIndex
        if let lastDelimiter = input.lastIndex(of: delimiter) {
            basic.reserveCapacity(lastDelimiter - input.startIndex)
            for byte in input[input.startIndex..<lastDelimiter] {
                guard byte < 0x80 else { return nil }
                basic.append(UInt32(byte))
            }
            // RFC 3492 §6.2: the delimiter ends the basic code points only if there are some.
            if lastDelimiter > input.startIndex { position = lastDelimiter + 1 }
        }
        // Each insertion: the code point, and its index in the output just after it went in.
        var values: [UInt32] = []
        var indexes: [UInt32] = []
        var n = initialN
        var i: UInt32 = 0
        var bias = initialBias
        while position < input.endIndex {
            let oldI = i
            var w: UInt32 = 1
            var k = base
            while true {
                guard position < input.endIndex, let digit = digitValue(input[position]) else { return nil }
                position += 1
                let (scaled, overflowMul) = digit.multipliedReportingOverflow(by: w)
                guard !overflowMul else { return nil }
                let (sum, overflowAdd) = i.addingReportingOverflow(scaled)
                guard !overflowAdd else { return nil }
                i = sum
                let t = threshold(k, bias: bias)
                if digit < t { break }
                let (nextW, overflowW) = w.multipliedReportingOverflow(by: base - t)
                guard !overflowW else { return nil }
                w = nextW
                k += base
            }
            let count = UInt32(truncatingIfNeeded: basic.count + values.count) + 1
            bias = adapt(delta: i - oldI, numPoints: count, firstTime: oldI == 0)
            let (nextN, overflowN) = n.addingReportingOverflow(i / count)
            guard !overflowN else { return nil }
            n = nextN
            i %= count
            guard n <= 0x10FFFF, !(0xD800...0xDFFF).contains(n) else { return nil }
            values.append(n)
            indexes.append(i)
            i += 1
        }
        return place(basic: basic, values: values, at: indexes)
    }

    /// The output of RFC 3492's decoder: `basic` first, then each `values[k]` inserted at
    /// `indexes[k]` in turn. When those insertions would move many code points, they are placed
    /// last to first instead: the k-th insertion ends at the `indexes[k]`-th of the positions no
    /// later insertion took (a later one only shifts it), and the basic code points fill the
    /// positions left, in their order. n log n for n code points.
    private static func place(basic: [UInt32], values: [UInt32], at indexes: [UInt32]) -> [UInt32] {
        guard !values.isEmpty else { return basic }
        // Inserting one at a time moves what follows each insertion: fine while that is little
        // (the usual label, whose code points mostly go near its end), placing otherwise.
        var moved = 0
        for (insertion, index) in indexes.enumerated() { moved += basic.count + insertion - Int(index) }
        if moved <= 8 * (basic.count + values.count) {
            var output = basic
            output.reserveCapacity(basic.count + values.count)
            for (value, index) in zip(values, indexes) { output.insert(value, at: Int(index)) }
            return output
        }
        let count = basic.count + values.count
        var output = [UInt32](repeating: 0, count: count)
        var taken = [Bool](repeating: false, count: count)
        var free = PositionCounts(count: count, filled: true)
        for insertion in values.indices.reversed() {
            let position = free.position(ofOrdinal: Int(indexes[insertion]))
            output[position] = values[insertion]
            taken[position] = true
            free.add(-1, at: position)
        }
        var basicScalars = basic.makeIterator()
        for position in output.indices where !taken[position] {
            guard let scalar = basicScalars.next() else { break }
            output[position] = scalar
        }
        return output
    }

    /// Encodes scalar values as Punycode (without the `xn--` prefix), appending to `out`.
    /// Returns false on overflow (only reachable with absurdly long labels).
    ///
    /// RFC 3492 walks the whole label once per distinct code point, counting the smaller ones
    /// before each occurrence: quadratic in a label of distinct scalars (outside attack round 11).
    /// A label with at most ``walkedDistinctValues`` distinct non-ASCII code points (almost every
    /// real one) is walked so; any other is encoded by counting (``encodeByCounting(_:into:)``),
    /// whose sort and counts cost more per code point than a few walks (outside attack round 12).
    static func encode(_ input: ArraySlice<UInt32>, into out: inout [UInt8]) -> Bool {
        guard input.count < Int(UInt32.max / 2) else { return false }
        var distinct: [UInt32] = []
        for scalar in input where scalar >= 0x80 && !distinct.contains(scalar) {
            guard distinct.count < walkedDistinctValues else { return encodeByCounting(input, into: &out) }
            distinct.append(scalar)
        }
        return encodeByWalking(input, into: &out)
    }

    /// The most distinct non-ASCII code points a label may have to be encoded by walking it.
    static let walkedDistinctValues = 16

    /// RFC 3492 §6.3 as written: one walk over the label per distinct code point.
    private static func encodeByWalking(_ input: ArraySlice<UInt32>, into out: inout [UInt8]) -> Bool {
        var basicCount: UInt32 = 0
        for scalar in input where scalar < 0x80 {
            out.append(UInt8(truncatingIfNeeded: scalar))
            basicCount += 1
        }
        var handled = basicCount
        if basicCount > 0 { out.append(delimiter) }
        var n = initialN
        var delta: UInt32 = 0
        var bias = initialBias
        let total = UInt32(truncatingIfNeeded: input.count)
        while handled < total {
            var m = UInt32.max
            for scalar in input where scalar >= n && scalar < m { m = scalar }
            guard advance(&n, to: m, handled: handled, delta: &delta) else { return false }
            for scalar in input {
                if scalar < n {
                    let (incremented, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return false }
                    delta = incremented
                }
                if scalar == n {
                    appendVariableLength(delta, bias: bias, to: &out)
                    bias = adapt(delta: delta, numPoints: handled + 1, firstTime: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            let (nextRound, overflow) = delta.addingReportingOverflow(1)
            guard !overflow else { return false }
            delta = nextRound
            n += 1
        }
        return true
    }

    /// The start of an encoding round (RFC 3492 §6.3): `n` moves to the next code point `m`,
    /// and `delta` grows by the `(m - n) * (handled + 1)` steps between; false on overflow.
    private static func advance(_ n: inout UInt32, to m: UInt32, handled: UInt32, delta: inout UInt32) -> Bool {
        let (steps, overflowMul) = (m - n).multipliedReportingOverflow(by: handled + 1)
        guard !overflowMul else { return false }
        let (nextDelta, overflowAdd) = delta.addingReportingOverflow(steps)
        guard !overflowAdd else { return false }
        delta = nextDelta
        n = m
        return true
    }

    /// RFC 3492 §6.3's generalized variable-length integer for `q`.
    private static func appendVariableLength(_ q: UInt32, bias: UInt32, to out: inout [UInt8]) {
        var q = q
        var k = base
        while true {
            let t = threshold(k, bias: bias)
            if q < t { break }
            out.append(digitByte(t + (q - t) % (base - t)))
            q = (q - t) / (base - t)
            k += base
        }
        out.append(digitByte(q))
    }

    /// ``encode(_:into:)`` of a label with many distinct code points: they are visited in
    /// (value, position) order and the smaller ones before a position are counted by
    /// ``PositionCounts``, so every delta is the RFC's, in n log n.
    private static func encodeByCounting(_ input: ArraySlice<UInt32>, into out: inout [UInt8]) -> Bool {
        var basicCount: UInt32 = 0
        // Handled code points (basic at first, then each value as its round ends), by position.
        var handledAt = PositionCounts(count: input.count)
        // The rest, as value << 32 | position: sorted, they come in the RFC's order.
        var pending: [UInt64] = []
        for (offset, scalar) in input.enumerated() {
            if scalar < 0x80 {
                out.append(UInt8(truncatingIfNeeded: scalar))
                basicCount += 1
                handledAt.add(1, at: offset)
            } else {
                pending.append(UInt64(scalar) << 32 | UInt64(offset))
            }
        }
        var handled = basicCount
        if basicCount > 0 { out.append(delimiter) }
        pending.sort()
        var n = initialN
        var delta: UInt32 = 0
        var bias = initialBias
        var round = 0
        while round < pending.count {
            let m = UInt32(truncatingIfNeeded: pending[round] >> 32)
            guard advance(&n, to: m, handled: handled, delta: &delta) else { return false }
            var roundEnd = round
            while roundEnd < pending.count, UInt32(truncatingIfNeeded: pending[roundEnd] >> 32) == m { roundEnd += 1 }
            // The RFC's walk: +1 for every code point below n, and at each n, emit and restart.
            var scanned = 0
            for entry in pending[round..<roundEnd] {
                let position = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
                guard add(handledAt.total(before: position) - handledAt.total(before: scanned), to: &delta) else { return false }
                appendVariableLength(delta, bias: bias, to: &out)
                bias = adapt(delta: delta, numPoints: handled + 1, firstTime: handled == basicCount)
                delta = 0
                handled += 1
                scanned = position + 1
            }
            guard add(handledAt.total(before: input.count) - handledAt.total(before: scanned), to: &delta) else { return false }
            for entry in pending[round..<roundEnd] { handledAt.add(1, at: Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)) }
            round = roundEnd
            let (nextRound, overflow) = delta.addingReportingOverflow(1)
            guard !overflow else { return false }
            delta = nextRound
            n += 1
        }
        return true
    }

    /// `delta += amount`, false when it overflows (the RFC adds one at a time; the sum overflows
    /// exactly when one of those steps would).
    private static func add(_ amount: Int, to delta: inout UInt32) -> Bool {
        // `UInt32(exactly:)`, not a comparison with `Int(UInt32.max)`: that traps where Int is
        // 32 bits (the WebAssembly build).
        guard let amount = UInt32(exactly: amount) else { return false }
        let (sum, overflow) = delta.addingReportingOverflow(amount)
        guard !overflow else { return false }
        delta = sum
        return true
    }
}
