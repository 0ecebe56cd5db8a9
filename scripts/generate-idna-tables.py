#!/usr/bin/env python3
"""Generates Sources/URLStandard/IDNA/IDNATables.swift, the Unicode data behind the
pure-Swift UTS #46 ToASCII (IDNA mapping, NFC, Bidi_Class, Joining_Type, General_Category=Mark).

All data comes from ONE Unicode version, the one the web-platform-tests IdnaTestV2.json in
Tests/NavigationPolicyTests/Resources expects (Unicode 17.0: it treats CJK Extension J, new in
17.0, as valid and the Small Seal block, new in 18.0, as disallowed):

    python3 -m venv /tmp/idna-venv
    /tmp/idna-venv/bin/pip install idna==3.19 unicodedata2==17.0.1
    /tmp/idna-venv/bin/python scripts/generate-idna-tables.py

  - idna 3.19: idna/uts46data.py (IdnaMappingTable.txt 17.0.0) and idna/idnadata.py
    (DerivedJoiningType 17.0.0);
  - unicodedata2 17.0.1 (UCD 17.0.0): canonical decompositions, Canonical_Combining_Class,
    Bidi_Class, General_Category; composition exclusions are derived from it.

The script refuses to run on other versions, and its output is deterministic (same input,
same bytes). Only regeneration needs Python; the build and the tests do not.

Each table is a [UInt32] array written as a string literal and decoded once at first use
(PackedTable.decode): a string literal costs the Swift compiler nothing, unlike a large array
literal of integers, which the type checker is slow on. The literal is "~" and then, per word,
its difference from the word before (modulo 2^32, zigzag-coded) as a base64 VLQ (source maps'
variable-length quantity: 5 bits a character, the sixth says "more follows"). The tables are
sorted or run-coded, so most differences take one or two characters: the WebAssembly build's
data is a third of what base64 of the raw words took, and compresses to less than half
(docs/performance.md, issue 43).
"""

from importlib import metadata
import os
import sys

import idna
import idna.idnadata as idnadata
import idna.uts46data as uts46data
import unicodedata2 as ud

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from packed_table import encode, string_literal  # noqa: E402

UNICODE_VERSION = "17.0.0"
IDNA_PACKAGE_VERSION = "3.19"
UNICODEDATA2_VERSION = "17.0.1"

OUTPUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "URLStandard", "IDNA", "IDNATables.swift"
)

# Status codes shared with IDNAMapping.swift.
STATUS = {"V": 0, "M": 1, "D": 2, "I": 3, "X": 4}
# Bidi classes the RFC 5893 rules distinguish; everything else is OTHER (0). Shared with BidiRule.swift.
BIDI = {"L": 1, "R": 2, "AL": 3, "AN": 4, "EN": 5, "ES": 6, "CS": 7, "ET": 8, "ON": 9, "BN": 10, "NSM": 11}
# Joining types the CONTEXTJ rule uses; shared with ContextJRule.swift (0 = U, non-joining).
JOINING = {"L": 1, "D": 2, "R": 3, "T": 4, "C": 5}

HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
MAX_CP = 0x10FFFF


def check_versions():
    packages = (idna.__version__, metadata.version("unicodedata2"))
    if packages != (IDNA_PACKAGE_VERSION, UNICODEDATA2_VERSION):
        sys.exit(f"expected idna {IDNA_PACKAGE_VERSION} and unicodedata2 {UNICODEDATA2_VERSION}; got {packages}")
    found = (uts46data.__version__, idnadata.__version__, ud.unidata_version)
    if found != (UNICODE_VERSION, UNICODE_VERSION, UNICODE_VERSION):
        sys.exit(
            f"expected Unicode {UNICODE_VERSION} everywhere; got uts46data {found[0]}, "
            f"idnadata {found[1]}, unicodedata2 {found[2]}. "
            f"Run: pip install idna=={IDNA_PACKAGE_VERSION} unicodedata2=={UNICODEDATA2_VERSION}"
        )


def covering_ranges(value_of):
    """[(start, value)] runs over 0...0x10FFFF where value_of changes."""
    runs = []
    previous = None
    for cp in range(MAX_CP + 1):
        v = value_of(cp)
        if v != previous:
            runs.append((cp, v))
            previous = v
    return runs


def mapping_tables():
    """UTS #46 mapping: range starts, values (offset << 8 | length << 3 | status), scalar blob."""
    starts, values, blob = [], [], []
    offsets = {}
    entries = list(zip(uts46data.uts46_starts, uts46data.uts46_statuses, uts46data.uts46_replacements))
    for start, status, replacement in entries:
        code = STATUS[chr(status)]
        payload = 0
        if code == STATUS["M"]:
            scalars = [ord(c) for c in replacement]
            key = tuple(scalars)
            if key not in offsets:
                offsets[key] = len(blob)
                blob.extend(scalars)
            assert 0 < len(scalars) < 32
            payload = offsets[key] << 8 | len(scalars) << 3
        else:
            # Deviations carry their transitional mapping, which nontransitional processing ignores.
            assert replacement is None or replacement == "" or code == STATUS["D"]
        value = payload | code
        # Merge runs that the idna package keeps apart (it lists every code point below 256).
        if values and values[-1] == value and code != STATUS["M"]:
            continue
        starts.append(start)
        values.append(value)
    # ASCII is handled inline by the Swift code: lowercase A-Z, everything else valid.
    for cp in range(0x80):
        expected = STATUS["M"] if 0x41 <= cp <= 0x5A else STATUS["V"]
        assert status_of(starts, values, cp) == expected, hex(cp)
    return starts, values, blob


def status_of(starts, values, cp):
    import bisect

    return values[bisect.bisect_right(starts, cp) - 1] & 7


def is_canonical_decomposable(cp):
    d = ud.decomposition(chr(cp))
    return d != "" and not d.startswith("<")


def normalization_tables():
    ccc_runs = covering_ranges(lambda cp: ud.combining(chr(cp)))
    ccc = [start << 8 | value for start, value in ccc_runs]

    decomp_keys, decomp_values, decomp_blob = [], [], []
    compositions = []
    for cp in range(MAX_CP + 1):
        if HANGUL_FIRST <= cp <= HANGUL_LAST or not is_canonical_decomposable(cp):
            continue
        full = [ord(c) for c in ud.normalize("NFD", chr(cp))]
        assert 0 < len(full) < 256
        decomp_keys.append(cp)
        decomp_values.append(len(decomp_blob) << 8 | len(full))
        decomp_blob.extend(full)
        # A primary composite is one that NFC gives back from its own decomposition; the rest are
        # the full composition exclusions (singletons, non-starter decompositions, the exclusion list).
        if ud.normalize("NFC", ud.normalize("NFD", chr(cp))) == chr(cp):
            pair = [int(x, 16) for x in ud.decomposition(chr(cp)).split()]
            assert len(pair) == 2, hex(cp)
            compositions.append((pair[0], pair[1], cp))
    compositions.sort()
    # Code points after which text may not be NFC: NFC_Quick_Check No (NFC changes the code point
    # itself) or Maybe (it can combine with what precedes it), or a non-zero combining class
    # (ordering). Text with none of them is NFC, so the Swift side skips normalizing it.
    seconds = {second for _, second, _ in compositions}
    seconds.update(range(0x1161, 0x1161 + 21))  # Hangul V jamo compose with L
    seconds.update(range(0x11A8, 0x11A7 + 28))  # Hangul T jamo compose with LV
    quick_runs = covering_ranges(
        lambda cp: 1 if ud.combining(chr(cp)) or cp in seconds or ud.normalize("NFC", chr(cp)) != chr(cp) else 0
    )
    quick = [start << 8 | value for start, value in quick_runs]
    comp = []
    for first, second, composite in compositions:
        comp.extend((first, second, composite))
    return ccc, decomp_keys, decomp_values, decomp_blob, comp, quick


def bidi_table():
    runs = covering_ranges(lambda cp: BIDI.get(ud.bidirectional(chr(cp)), 0))
    return [start << 8 | value for start, value in runs]


def joining_table():
    by_cp = {}
    for name, ranges in idnadata.joining_types.items():
        for r in ranges:
            for cp in range(r >> 32, r & 0xFFFFFFFF):
                by_cp[cp] = JOINING[name]
    runs = covering_ranges(lambda cp: by_cp.get(cp, 0))
    return [start << 8 | value for start, value in runs]


def mark_table():
    runs = covering_ranges(lambda cp: 1 if ud.category(chr(cp)).startswith("M") else 0)
    return [start << 8 | value for start, value in runs]


def swift_literal(name, doc, words):
    return f"    /// {doc} ({len(words)} words).\n    static let {name}: StaticString = {string_literal(encode(words))}\n"


def main():
    check_versions()
    map_starts, map_values, map_blob = mapping_tables()
    ccc, decomp_keys, decomp_values, decomp_blob, comp, quick = normalization_tables()
    tables = [
        ("mappingStarts", "UTS #46 mapping: first code point of each range, ascending", map_starts),
        ("mappingValues", "UTS #46 mapping per range: scalar offset << 8 | length << 3 | status", map_values),
        ("mappingScalars", "UTS #46 mapping targets, concatenated (deduplicated)", map_blob),
        ("combiningClasses", "Canonical_Combining_Class: range start << 8 | class, covering all code points", ccc),
        ("decompositionKeys", "Code points with a canonical decomposition (Hangul excluded), ascending", decomp_keys),
        ("decompositionValues", "Full canonical decomposition per key: scalar offset << 8 | length", decomp_values),
        ("decompositionScalars", "Full canonical decompositions, concatenated", decomp_blob),
        ("compositions", "Primary composites (Hangul excluded): first, second, composite; sorted", comp),
        ("nfcQuickCheck", "Code points that may make text non-NFC: range start << 8 | 1, covering", quick),
        ("bidiClasses", "Bidi_Class for RFC 5893: range start << 8 | class (BidiClass raw value)", bidi_table()),
        ("joiningTypes", "Joining_Type for CONTEXTJ: range start << 8 | type (JoiningType raw value)", joining_table()),
        ("marks", "General_Category=Mark: range start << 8 | 1 if a mark, covering all code points", mark_table()),
    ]
    out = []
    out.append("// GENERATED by scripts/generate-idna-tables.py -- do not edit by hand.\n")
    out.append(f"// Unicode {UNICODE_VERSION}: idna {idna.__version__} (uts46data {uts46data.__version__}, ")
    out.append(f"idnadata {idnadata.__version__}), unicodedata2 {metadata.version('unicodedata2')} (UCD {ud.unidata_version}).\n")
    out.append("// Regenerate: pip install idna==3.19 unicodedata2==17.0.1; python3 scripts/generate-idna-tables.py\n")
    out.append("// Each table is a [UInt32] array as \"~\" and base64 VLQs of its words' differences, decoded once by PackedTable.\n\n")
    out.append("/// Unicode data for UTS #46 ToASCII, generated from one Unicode version.\n")
    out.append("enum IDNATables {\n")
    out.append("    /// The Unicode version every table below comes from.\n")
    out.append(f'    static let unicodeVersion = "{UNICODE_VERSION}"\n\n')
    out.append("\n".join(swift_literal(name, doc, words) for name, doc, words in tables))
    out.append("}\n")
    text = "".join(out)
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    print(f"wrote {os.path.normpath(OUTPUT)} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
