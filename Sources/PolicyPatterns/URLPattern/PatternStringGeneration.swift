/// "Generate a pattern string" (https://urlpattern.spec.whatwg.org/#converting-part-lists-to-pattern-strings):
/// the normalized pattern string a component reports (what WPT's `expected_obj` lists).
enum PatternStringGeneration {
    static func generate(_ parts: [PatternPart], options: PatternOptions) -> String {
        var result = ""
        for (index, part) in parts.enumerated() {
            let previous = index > 0 ? parts[index - 1] : nil
            let next = index + 1 < parts.count ? parts[index + 1] : nil
            if part.kind == .fixedText {
                if part.modifier == .none {
                    result += PatternEscaping.pattern(part.value)
                } else {
                    result += "{" + PatternEscaping.pattern(part.value) + "}" + part.modifier.text
                }
                continue
            }
            let customName = !startsWithASCIIDigit(part.name)
            var needsGrouping = !part.suffix.isEmpty || (!part.prefix.isEmpty && part.prefix != options.prefix)
            if !needsGrouping, customName, part.kind == .segmentWildcard, part.modifier == .none, let next,
                next.prefix.isEmpty, next.suffix.isEmpty
            {
                if next.kind == .fixedText {
                    needsGrouping =
                        next.value.unicodeScalars.first.map {
                            PatternTokenizer.isValidNameCodePoint($0, first: false)
                        } ?? false
                } else {
                    needsGrouping = startsWithASCIIDigit(next.name)
                }
            }
            if !needsGrouping, part.prefix.isEmpty, let previous, previous.kind == .fixedText,
                let last = previous.value.unicodeScalars.last, String(last) == options.prefix
            {
                needsGrouping = true
            }
            if needsGrouping { result += "{" }
            result += PatternEscaping.pattern(part.prefix)
            if customName { result += ":" + part.name }
            switch part.kind {
            case .regexp:
                result += "(" + part.value + ")"
            case .segmentWildcard where !customName:
                result += "(" + options.segmentWildcardRegexp + ")"
            case .fullWildcard:
                let plainAsterisk =
                    previous == nil || previous?.kind == .fixedText || previous?.modifier != PatternPart.Modifier.none
                    || needsGrouping || !part.prefix.isEmpty
                if !customName, plainAsterisk {
                    result += "*"
                } else {
                    result += "(" + PatternOptions.fullWildcardRegexp + ")"
                }
            case .segmentWildcard, .fixedText:
                break
            }
            if part.kind == .segmentWildcard, customName, let first = part.suffix.unicodeScalars.first,
                PatternTokenizer.isValidNameCodePoint(first, first: false)
            {
                result += "\\"
            }
            result += PatternEscaping.pattern(part.suffix)
            if needsGrouping { result += "}" }
            result += part.modifier.text
        }
        return result
    }

    private static func startsWithASCIIDigit(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        return first >= 0x30 && first <= 0x39
    }
}
