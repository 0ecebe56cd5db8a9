"""PackedTable's "~" form (Sources/URLStandard/IDNA/PackedTable.swift), written once for the Python
table generators (scripts/generate-idna-tables.py, scripts/generate-unicode-properties.py).

A [UInt32] table is a Swift string literal: "~" and then, per word, its difference from the word
before (modulo 2^32, zigzag-coded) as a base64 VLQ (source maps' variable-length quantity: 5 bits
a character, the sixth says "more follows"). Sorted and run-coded tables take one or two characters
a word: a third of the data of base64 of the raw words, and less than half of it gzipped, which is
what the WebAssembly build's download pays (docs/performance.md, issue 43).
"""

BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def encode(words):
    """"~", then each word's zigzag-coded difference from the one before as a base64 VLQ."""
    out = ["~"]
    previous = 0
    for word in words:
        assert 0 <= word <= 0xFFFFFFFF
        difference = (word - previous) & 0xFFFFFFFF
        previous = word
        # Zigzag over 32 bits: 0, -1, 1, -2 … → 0, 1, 2, 3 …
        zigzag = ((difference << 1) & 0xFFFFFFFF) ^ (0xFFFFFFFF if difference >> 31 else 0)
        while True:
            digit, zigzag = zigzag & 31, zigzag >> 5
            out.append(BASE64[digit | 32] if zigzag else BASE64[digit])
            if not zigzag:
                break
    return "".join(out)


def string_literal(text, indent="        ", width=112):
    """A multi-line Swift string literal of `text` in lines of `width`, indented the way `swift
    format` indents them, so formatting the generated file changes nothing (the indentation is not
    part of the string). Every line but the last ends in a backslash, which continues the line, so
    the string is `text` alone: a line break every 112 characters cost the gzipped WebAssembly
    module 2.9 KB (its repeats no longer line up; docs/performance.md, issue 43)."""
    lines = [indent + text[i : i + width] for i in range(0, len(text), width)]
    return '"""\n' + "\\\n".join(lines) + "\n" + indent + '"""'
