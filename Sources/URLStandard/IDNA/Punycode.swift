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
    static func decode(_ input: ArraySlice<UInt8>) -> [UInt32]? {
        // Keeps every count below in UInt32 range.
        guard input.count < Int(UInt32.max / 2) else { return nil }
        var output: [UInt32] = []
        output.reserveCapacity(input.count)
        var position = input.startIndex
        if let lastDelimiter = input.lastIndex(of: delimiter) {
            for byte in input[input.startIndex..<lastDelimiter] {
                guard byte < 0x80 else { return nil }
                output.append(UInt32(byte))
            }
            // RFC 3492 §6.2: the delimiter ends the basic code points only if there are some.
            if lastDelimiter > input.startIndex { position = lastDelimiter + 1 }
        }
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
            let count = UInt32(output.count) + 1
            bias = adapt(delta: i - oldI, numPoints: count, firstTime: oldI == 0)
            let (nextN, overflowN) = n.addingReportingOverflow(i / count)
            guard !overflowN else { return nil }
            n = nextN
            i %= count
            guard n <= 0x10FFFF, !(0xD800...0xDFFF).contains(n) else { return nil }
            output.insert(n, at: Int(i))
            i += 1
        }
        return output
    }

    /// Encodes scalar values as Punycode (without the `xn--` prefix), appending to `out`.
    /// Returns false on overflow (only reachable with absurdly long labels).
    static func encode(_ input: ArraySlice<UInt32>, into out: inout [UInt8]) -> Bool {
        guard input.count < Int(UInt32.max / 2) else { return false }
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
            let (steps, overflowMul) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflowMul else { return false }
            let (nextDelta, overflowAdd) = delta.addingReportingOverflow(steps)
            guard !overflowAdd else { return false }
            delta = nextDelta
            n = m
            for scalar in input {
                if scalar < n {
                    let (incremented, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return false }
                    delta = incremented
                }
                if scalar == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = threshold(k, bias: bias)
                        if q < t { break }
                        out.append(digitByte(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    out.append(digitByte(q))
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
}
