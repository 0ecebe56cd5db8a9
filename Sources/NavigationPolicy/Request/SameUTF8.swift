extension String {
    /// Whether this string and `other` are the same UTF-8 bytes. `==` on String is canonical
    /// equivalence: `https://a\u{37E}b.example/` (GREEK QUESTION MARK) equals the href
    /// `https://a;b.example/` under it, and a key id `"\u{212A}1"` (KELVIN SIGN) equals `"K1"`
    /// (outside attacks 11 and 12). Read in place: the UTF-8 views' `elementsEqual` walks each
    /// byte through the generic iterator, which cost half a decision in the WebAssembly build.
    package func hasSameUTF8(as other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in URLParser.bytesEqual(left, right) }
        }
        guard case .some(.some(let same)) = compared else { return utf8.elementsEqual(other.utf8) }
        return same
    }
}
