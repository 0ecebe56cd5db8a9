/// The WHATWG IPv6 parser and serializer (RFC 4291 text forms, including `::` compression
/// and a trailing embedded dotted IPv4 address; no zone identifiers).
public enum IPv6Address {
    /// Parses the text between the brackets of an IPv6 host into eight 16-bit pieces.
    static func parse(_ input: UnsafeBufferPointer<UInt8>) throws(URLParseError) -> [UInt16] {
        let len = input.count
        // Reads the byte at i, or -1 for "EOF" (also for any out-of-range index).
        @inline(__always) func at(_ i: Int) -> Int { i >= 0 && i < len ? Int(input[i]) : -1 }
        @inline(__always) func hex(_ c: Int) -> Int? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x57
            case 0x41...0x46: return c - 0x37
            default: return nil
            }
        }
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int? = nil
        var pointer = 0
        let fail = URLParseError(.invalidIPv6)

        if at(pointer) == 0x3A {
            if at(pointer + 1) != 0x3A { throw fail }
            pointer += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while at(pointer) != -1 {
            if pieceIndex == 8 { throw fail }
            if at(pointer) == 0x3A {
                if compress != nil { throw fail }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value = 0
            var length = 0
            while length < 4, let h = hex(at(pointer)) {
                value = value * 16 + h
                pointer += 1
                length += 1
            }
            if at(pointer) == 0x2E {
                // Embedded IPv4: re-read the digits just consumed as decimal.
                if length == 0 { throw fail }
                pointer -= length
                if pieceIndex > 6 { throw fail }
                var numbersSeen = 0
                while at(pointer) != -1 {
                    var ipv4Piece: Int? = nil
                    if numbersSeen > 0 {
                        if at(pointer) == 0x2E, numbersSeen < 4 {
                            pointer += 1
                        } else {
                            throw fail
                        }
                    }
                    let first = at(pointer)
                    if first < 0x30 || first > 0x39 { throw fail }
                    while true {
                        let c = at(pointer)
                        if c < 0x30 || c > 0x39 { break }
                        let number = c - 0x30
                        if let piece = ipv4Piece {
                            if piece == 0 { throw fail }  // no leading zeros
                            ipv4Piece = piece * 10 + number
                        } else {
                            ipv4Piece = number
                        }
                        if let piece = ipv4Piece, piece > 255 { throw fail }
                        pointer += 1
                    }
                    let piece = ipv4Piece ?? 0
                    address[pieceIndex] = address[pieceIndex] &* 0x100 &+ UInt16(piece)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                if numbersSeen != 4 { throw fail }
                break
            } else if at(pointer) == 0x3A {
                pointer += 1
                if at(pointer) == -1 { throw fail }
            } else if at(pointer) != -1 {
                throw fail
            }
            address[pieceIndex] = UInt16(value)
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                let other = compress + swaps - 1
                guard other >= 0, other < 8 else { throw fail }
                address.swapAt(pieceIndex, other)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            throw fail
        }
        return address
    }

    /// Serializes eight pieces in the standard's compressed form (without brackets):
    /// the first longest run of two or more zero pieces becomes `::`, hex is lowercase.
    public static func serialize(_ pieces: [UInt16]) -> String {
        var out: [UInt8] = []
        append(pieces, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func append(_ pieces: [UInt16], to out: inout [UInt8]) {
        // Find the first longest run of zeros (length >= 2).
        var compress = -1
        var bestLen = 1
        var i = 0
        while i < pieces.count {
            if pieces[i] == 0 {
                var j = i
                while j < pieces.count, pieces[j] == 0 { j += 1 }
                if j - i > bestLen {
                    bestLen = j - i
                    compress = i
                }
                i = j
            } else {
                i += 1
            }
        }
        var ignore0 = false
        for (index, piece) in pieces.enumerated() {
            if ignore0, piece == 0 { continue }
            ignore0 = false
            if compress == index {
                if index == 0 { out.append(0x3A) }
                out.append(0x3A)
                ignore0 = true
                continue
            }
            var started = false
            var shift = 12
            while shift >= 0 {
                let nibble = UInt8((piece >> UInt16(shift)) & 0xF)
                if nibble != 0 || started || shift == 0 {
                    out.append(nibble < 10 ? 0x30 + nibble : 0x57 + nibble)
                    started = true
                }
                shift -= 4
            }
            if index != pieces.count - 1 { out.append(0x3A) }
        }
    }
}
