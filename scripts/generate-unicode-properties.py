#!/usr/bin/env python3
"""Generates Sources/PolicyPatterns/Regex/UnicodePropertyTables.swift, the Unicode data behind the
regexp engine's property escapes \\p{…} and \\P{…} (ECMAScript's General_Category, Script,
Script_Extensions and the binary properties of ECMA-262's table), and the oracle fixture
Tests/NavigationPolicyTests/Resources/unicode-properties-oracle.json its volume test reads.

All data comes from ONE Unicode version, the one of the IDNA tables (Unicode 17.0.0,
Sources/URLStandard/IDNA/IDNATables.swift), from pinned PyPI packages:

    python3 -m venv .build/unicode-venv
    .build/unicode-venv/bin/pip install icu4py==1.2.0 unicodedata2==17.0.1 fonttools==4.62.1 regex==2026.7.19
    .build/unicode-venv/bin/python scripts/generate-unicode-properties.py

  - the tables: ICU 78.3 (Unicode 17.0), the libicuuc the icu4py 1.2.0 wheel bundles, called
    through ctypes: every set is ICU's own UnicodeSet for the property, and the value aliases
    (Qaac, cntrl, Combining_Mark, …) are ICU's names from PropertyValueAliases.txt;
  - cross-checks, every code point, from independent derivations: General_Category against
    unicodedata2 17.0.1 (UCD 17.0.0), Script and Script_Extensions against fonttools 4.62.1
    (generated from Scripts-17.0.0.txt and ScriptExtensions-17.0.0.txt), the binary properties
    against regex 2026.7.19 (Unicode 17.0: its Assigned equals unicodedata2's; it lacks only
    Changes_When_NFKC_Casefolded). The script stops on any difference or other version.
  - the fixture: a sample of properties as the cross-check sources derive them (not ICU), so
    the Swift tables are tested against a second derivation without Python at test time.

Each set is stored as its range boundaries (start, end + 1, start, …), the sets one after the
other (sets with equal ranges once), with each set's first and past-the-end word: both [UInt32]
tables as string literals in PackedTable's "~" form (scripts/lib/packed_table.py, as IDNATables),
decoded once at first use: a string literal costs the compiler nothing, and the differences of
sorted boundaries take one to four characters each (the WebAssembly build's download,
docs/performance.md, issue 43).
"""

import ctypes
import glob
from importlib import metadata
import json
import os
import sys

import fontTools.unicodedata.ScriptExtensions as font_scx
import fontTools.unicodedata.Scripts as font_sc
import regex
import unicodedata2 as ud

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from packed_table import encode, string_literal  # noqa: E402

UNICODE_VERSION = "17.0.0"
PINNED = {"icu4py": "1.2.0", "unicodedata2": "17.0.1", "fonttools": "4.62.1", "regex": "2026.7.19"}
ICU_VERSION = "78"
MAX_CP = 0x10FFFF

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUTPUT = os.path.join(ROOT, "Sources", "PolicyPatterns", "Regex", "UnicodePropertyTables.swift")
FIXTURE = os.path.join(ROOT, "Tests", "NavigationPolicyTests", "Resources", "unicode-properties-oracle.json")

# General_Category values as PropertyValueAliases.txt lists them (ECMA-262 accepts every alias);
# each one's aliases are checked against ICU's names below. The leaf values first, then the groups.
GENERAL_CATEGORIES = [
    ["Cc", "Control", "cntrl"], ["Cf", "Format"], ["Cn", "Unassigned"], ["Co", "Private_Use"], ["Cs", "Surrogate"],
    ["Ll", "Lowercase_Letter"], ["Lm", "Modifier_Letter"], ["Lo", "Other_Letter"], ["Lt", "Titlecase_Letter"],
    ["Lu", "Uppercase_Letter"], ["Mc", "Spacing_Mark"], ["Me", "Enclosing_Mark"], ["Mn", "Nonspacing_Mark"],
    ["Nd", "Decimal_Number", "digit"], ["Nl", "Letter_Number"], ["No", "Other_Number"],
    ["Pc", "Connector_Punctuation"], ["Pd", "Dash_Punctuation"], ["Pe", "Close_Punctuation"],
    ["Pf", "Final_Punctuation"], ["Pi", "Initial_Punctuation"], ["Po", "Other_Punctuation"],
    ["Ps", "Open_Punctuation"], ["Sc", "Currency_Symbol"], ["Sk", "Modifier_Symbol"], ["Sm", "Math_Symbol"],
    ["So", "Other_Symbol"], ["Zl", "Line_Separator"], ["Zp", "Paragraph_Separator"], ["Zs", "Space_Separator"],
    ["C", "Other"], ["L", "Letter"], ["LC", "Cased_Letter"], ["M", "Mark", "Combining_Mark"], ["N", "Number"],
    ["P", "Punctuation", "punct"], ["S", "Symbol"], ["Z", "Separator"],
]
LEAF_CATEGORIES = 30
GROUPS = {"C": "C", "L": "L", "LC": ("Ll", "Lt", "Lu"), "M": "M", "N": "N", "P": "P", "S": "S", "Z": "Z"}

# ECMA-262's table of binary Unicode property aliases (table-binary-unicode-properties), in its order.
BINARY_PROPERTIES = [
    ["ASCII"], ["ASCII_Hex_Digit", "AHex"], ["Alphabetic", "Alpha"], ["Any"], ["Assigned"],
    ["Bidi_Control", "Bidi_C"], ["Bidi_Mirrored", "Bidi_M"], ["Case_Ignorable", "CI"], ["Cased"],
    ["Changes_When_Casefolded", "CWCF"], ["Changes_When_Casemapped", "CWCM"], ["Changes_When_Lowercased", "CWL"],
    ["Changes_When_NFKC_Casefolded", "CWKCF"], ["Changes_When_Titlecased", "CWT"],
    ["Changes_When_Uppercased", "CWU"], ["Dash"], ["Default_Ignorable_Code_Point", "DI"], ["Deprecated", "Dep"],
    ["Diacritic", "Dia"], ["Emoji"], ["Emoji_Component", "EComp"], ["Emoji_Modifier", "EMod"],
    ["Emoji_Modifier_Base", "EBase"], ["Emoji_Presentation", "EPres"], ["Extended_Pictographic", "ExtPict"],
    ["Extender", "Ext"], ["Grapheme_Base", "Gr_Base"], ["Grapheme_Extend", "Gr_Ext"], ["Hex_Digit", "Hex"],
    ["IDS_Binary_Operator", "IDSB"], ["IDS_Trinary_Operator", "IDST"], ["ID_Continue", "IDC"], ["ID_Start", "IDS"],
    ["Ideographic", "Ideo"], ["Join_Control", "Join_C"], ["Logical_Order_Exception", "LOE"], ["Lowercase", "Lower"],
    ["Math"], ["Noncharacter_Code_Point", "NChar"], ["Pattern_Syntax", "Pat_Syn"], ["Pattern_White_Space", "Pat_WS"],
    ["Quotation_Mark", "QMark"], ["Radical"], ["Regional_Indicator", "RI"], ["Sentence_Terminal", "STerm"],
    ["Soft_Dotted", "SD"], ["Terminal_Punctuation", "Term"], ["Unified_Ideograph", "UIdeo"], ["Uppercase", "Upper"],
    ["Variation_Selector", "VS"], ["White_Space", "space"], ["XID_Continue", "XIDC"], ["XID_Start", "XIDS"],
]

# The v flag's properties of strings (ECMA-262's table-binary-unicode-properties-of-strings): the
# engine matches single code points only, so these are refused by name, not reported unknown.
PROPERTIES_OF_STRINGS = [
    "Basic_Emoji", "Emoji_Keycap_Sequence", "RGI_Emoji_Modifier_Sequence", "RGI_Emoji_Flag_Sequence",
    "RGI_Emoji_Tag_Sequence", "RGI_Emoji_ZWJ_Sequence", "RGI_Emoji",
]

# Script values in PropertyValueAliases.txt that no code point has and that ECMAScript engines refuse
# (V8 with ICU 78 says "Invalid property name"; ECMA-262's former table of Script values left it out):
# refused here too, so a pattern that fails in a browser fails here.
SCRIPTS_ENGINES_REFUSE = {"Hrkt"}

# The oracle fixture's sample: (Swift spelling in \p{…}, how the cross-check sources derive it).
FIXTURE_SAMPLE = [
    "Lu", "Nd", "L", "Cn", "Script=Latin", "sc=Greek", "Script=Sidetic", "scx=Deva", "Script_Extensions=Arab",
    "Alphabetic", "Emoji", "ID_Start", "Changes_When_Lowercased",
]


def check_versions():
    found = {name: metadata.version(name) for name in PINNED}
    if found != PINNED:
        sys.exit(f"expected {PINNED}; got {found}. Run: pip install " + " ".join(f"{k}=={v}" for k, v in PINNED.items()))
    if ud.unidata_version != UNICODE_VERSION:
        sys.exit(f"unicodedata2 has Unicode {ud.unidata_version}, not {UNICODE_VERSION}")
    for module in (font_sc, font_scx):
        with open(module.__file__, encoding="utf-8") as source:
            if f"-{UNICODE_VERSION}.txt" not in source.read(2000):
                sys.exit(f"{module.__file__} is not generated from Unicode {UNICODE_VERSION}")


class ICU:
    """The ICU 78 libicuuc that icu4py bundles, through ctypes."""

    def __init__(self):
        import icu4py

        libraries = glob.glob(os.path.join(os.path.dirname(icu4py.__file__), "..", "icu4py.libs", "libicuuc-*.so.78.*"))
        if len(libraries) != 1:
            sys.exit(f"expected one ICU {ICU_VERSION} libicuuc in icu4py's wheel, found {libraries}")
        self.lib = ctypes.CDLL(libraries[0])
        self.library = os.path.basename(libraries[0])
        self.version = self.unicode_version()
        if self.version != UNICODE_VERSION:
            sys.exit(f"ICU's Unicode version is {self.version}, not {UNICODE_VERSION}")

    def function(self, name, restype, *argtypes):
        f = getattr(self.lib, f"{name}_{ICU_VERSION}")
        f.restype = restype
        f.argtypes = list(argtypes)
        return f

    def unicode_version(self):
        version = (ctypes.c_uint8 * 4)()
        self.function("u_getUnicodeVersion", None, ctypes.c_void_p)(version)
        return ".".join(str(part) for part in version[:3])

    def ranges(self, expression):
        """The ranges of the UnicodeSet `[\\p{expression}]`, as ICU resolves it."""
        pattern = f"[\\p{{{expression}}}]".encode("utf-16-le")
        buffer = (ctypes.c_uint16 * (len(pattern) // 2)).from_buffer_copy(pattern)
        status = ctypes.c_int(0)
        open_pattern = self.function("uset_openPattern", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p)
        uset = open_pattern(buffer, len(pattern) // 2, ctypes.byref(status))
        if status.value > 0 or not uset:
            sys.exit(f"ICU refuses \\p{{{expression}}} (status {status.value})")
        count = self.function("uset_getItemCount", ctypes.c_int32, ctypes.c_void_p)(uset)
        get_item = self.function(
            "uset_getItem", ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p)
        result = []
        for index in range(count):
            start, end = ctypes.c_int32(0), ctypes.c_int32(0)
            length = get_item(uset, index, ctypes.byref(start), ctypes.byref(end), None, 0, ctypes.byref(status))
            if length != 0 or status.value > 0:
                sys.exit(f"ICU's \\p{{{expression}}} holds strings")
            result.append((start.value, end.value))
        self.function("uset_close", None, ctypes.c_void_p)(uset)
        return result

    def value_names(self, property_name, value_name):
        """Every name ICU has for one value of a property (short, long, then further aliases)."""
        prop = self.function("u_getPropertyEnum", ctypes.c_int, ctypes.c_char_p)(property_name.encode())
        value = self.function("u_getPropertyValueEnum", ctypes.c_int32, ctypes.c_int, ctypes.c_char_p)(
            prop, value_name.encode())
        if value < 0:
            sys.exit(f"ICU does not know {property_name}={value_name}")
        names = []
        name_of = self.function("u_getPropertyValueName", ctypes.c_char_p, ctypes.c_int, ctypes.c_int32, ctypes.c_int)
        for choice in range(8):
            name = name_of(prop, value, choice)
            if name is None:
                if choice >= 2:
                    break
                continue
            names.append(name.decode())
        return names


def ranges_of(members):
    """Sorted (start, end) ranges of an iterable of code points."""
    result = []
    for cp in sorted(members):
        if result and result[-1][1] + 1 == cp:
            result[-1] = (result[-1][0], cp)
        else:
            result.append((cp, cp))
    return result


def members(ranges):
    return {cp for start, end in ranges for cp in range(start, end + 1)}


ALL_SCALARS = "".join(chr(cp) for cp in range(MAX_CP + 1))


def regex_ranges(expression):
    """The regex module's derivation of \\p{expression} (surrogates included: a Python str holds them)."""
    found = regex.finditer(f"\\p{{{expression}}}+", ALL_SCALARS)
    return [(match.start(), match.end() - 1) for match in found]


def font_script_ranges():
    """Script and Script_Extensions per short script code, from fonttools' Scripts-17.0.0 data."""
    sc, scx = {}, {}
    starts, values = font_sc.RANGES, font_sc.VALUES
    for index, start in enumerate(starts):
        end = (starts[index + 1] if index + 1 < len(starts) else MAX_CP + 1) - 1
        sc.setdefault(values[index], set()).update(range(start, end + 1))
    explicit = set()
    starts, values = font_scx.RANGES, font_scx.VALUES
    for index, start in enumerate(starts):
        if values[index] is None:
            continue
        end = (starts[index + 1] if index + 1 < len(starts) else MAX_CP + 1) - 1
        for code in values[index]:
            scx.setdefault(code, set()).update(range(start, end + 1))
        explicit.update(range(start, end + 1))
    for code, points in sc.items():
        scx.setdefault(code, set()).update(points - explicit)
    return sc, scx


def cross_check(name, ours, theirs):
    if ours != theirs:
        only_ours = sorted(members(ours) - members(theirs))[:8]
        only_theirs = sorted(members(theirs) - members(ours))[:8]
        sys.exit(f"{name}: ICU and the cross-check differ: only ICU {list(map(hex, only_ours))}, "
                 f"only the other {list(map(hex, only_theirs))}")


def general_category_sets(icu):
    sets = []
    leaf_ranges = {}
    for aliases in GENERAL_CATEGORIES:
        names = icu.value_names("General_Category_Mask", aliases[0])
        if names != aliases:
            sys.exit(f"General_Category {aliases[0]}: ICU's names are {names}, the table's {aliases}")
        ranges = icu.ranges(f"General_Category={aliases[0]}")
        if len(sets) < LEAF_CATEGORIES:
            expected = ranges_of(cp for cp in range(MAX_CP + 1) if ud.category(chr(cp)) == aliases[0])
            leaf_ranges[aliases[0]] = expected
        else:
            group = GROUPS[aliases[0]]
            leaves = [leaf for leaf in leaf_ranges if (leaf in group if isinstance(group, tuple) else leaf[0] == group)]
            expected = ranges_of(set().union(*(members(leaf_ranges[leaf]) for leaf in leaves)))
        cross_check(f"gc={aliases[0]}", ranges, expected)
        sets.append((aliases, ranges))
    return sets


def script_sets(icu):
    font_sc_members, font_scx_members = font_script_ranges()
    scripts, extensions = [], []
    for short in sorted(font_sc.NAMES, key=lambda code: font_sc.NAMES[code]):
        if short in SCRIPTS_ENGINES_REFUSE:
            continue
        names = icu.value_names("Script", short)
        if names[:2] != [short, font_sc.NAMES[short]]:
            sys.exit(f"Script {short}: ICU's names {names}, fonttools' {short}, {font_sc.NAMES[short]}")
        sc = icu.ranges(f"Script={short}")
        scx = icu.ranges(f"Script_Extensions={short}")
        cross_check(f"sc={short}", sc, ranges_of(font_sc_members.get(short, set())))
        cross_check(f"scx={short}", scx, ranges_of(font_scx_members.get(short, set())))
        cross_check(f"sc={short} (regex)", sc, regex_ranges(f"sc={short}"))
        scripts.append((names, sc))
        extensions.append((names, scx))
    return scripts, extensions


def binary_sets(icu):
    sets = []
    for aliases in BINARY_PROPERTIES:
        ranges = icu.ranges(aliases[0])
        if aliases[0] != "Changes_When_NFKC_Casefolded":
            cross_check(aliases[0], ranges, regex_ranges(aliases[0]))
        sets.append((aliases, ranges))
    assigned = ranges_of(cp for cp in range(MAX_CP + 1) if ud.category(chr(cp)) != "Cn")
    cross_check("Assigned (unicodedata2)", sets[4][1], assigned)
    return sets


def boundaries(ranges):
    """A set's ranges as their boundaries: start, end + 1, start, …"""
    return [boundary for start, end in ranges for boundary in (start, end + 1)]


def names_literal(name_lists, indent="        "):
    return '"""\n' + "\n".join(indent + " ".join(names) for names in name_lists) + "\n" + indent + '"""'


def write_tables(icu, gc, scripts, extensions, binary):
    all_sets = gc + scripts + extensions + binary
    words = []
    bounds = []
    seen = {}
    for _, ranges in all_sets:
        data = tuple(boundaries(ranges))
        if data not in seen:
            seen[data] = len(words)
            words += data
        bounds += [seen[data], seen[data] + len(data)]
    range_count = sum(len(ranges) for _, ranges in all_sets)
    source = f"""// GENERATED by scripts/generate-unicode-properties.py -- do not edit by hand.
// Unicode {UNICODE_VERSION}: ICU {icu.library.split('.so.')[1]}'s libicuuc ({icu.library}) as the icu4py {PINNED['icu4py']} wheel bundles it;
// cross-checked on every code point against unicodedata2 {PINNED['unicodedata2']} (General_Category), fonttools {PINNED['fonttools']}
// (Scripts-17.0.0.txt, ScriptExtensions-17.0.0.txt) and regex {PINNED['regex']} (binary properties).
// Regenerate: see the script's header (a venv under .build/ with the four pinned packages).

/// The Unicode property sets behind `\\p{{…}}` and `\\P{{…}}`, generated from one Unicode version.
///
/// Each `…Names` literal has one line per property value: its aliases, separated by spaces. Line i
/// of ``generalCategoryNames`` is set i, line i of ``scriptNames`` is set ``scriptSetBase`` + i
/// (Script) and ``scriptExtensionsSetBase`` + i (Script_Extensions), line i of
/// ``binaryPropertyNames`` is set ``binarySetBase`` + i.
enum UnicodePropertyTables {{
    /// The Unicode version every table below comes from (the IDNA tables' version).
    static let unicodeVersion = "{UNICODE_VERSION}"

    /// General_Category values and aliases ({len(gc)}: the {LEAF_CATEGORIES} values, then the groups).
    static let generalCategoryNames: StaticString = {names_literal([names for names, _ in gc])}

    /// Script (and Script_Extensions) values and aliases ({len(scripts)}).
    static let scriptNames: StaticString = {names_literal([names for names, _ in scripts])}

    /// ECMA-262's binary properties and their short aliases ({len(binary)}).
    static let binaryPropertyNames: StaticString = {names_literal([names for names, _ in binary])}

    /// The `v` flag's properties of strings, which match sequences (refused by name).
    static let propertiesOfStringsNames: StaticString = {names_literal([[name] for name in PROPERTIES_OF_STRINGS])}

    static let scriptSetBase = {len(gc)}
    static let scriptExtensionsSetBase = {len(gc) + len(scripts)}
    static let binarySetBase = {len(gc) + len(scripts) + len(extensions)}
    static let setCount = {len(all_sets)}

    /// Per set, its first and past-the-end word in ``rangeBoundaries`` ({len(bounds)} words).
    static let setBounds: StaticString = {string_literal(encode(bounds))}

    /// Every set's range boundaries (start, end + 1, …), sets with equal ranges once
    /// ({range_count} ranges, {len(words)} words).
    static let rangeBoundaries: StaticString = {string_literal(encode(words))}
}}
"""
    with open(OUTPUT, "w", encoding="utf-8") as out:
        out.write(source)
    print(f"{OUTPUT}: {len(all_sets)} sets, {range_count} ranges, {len(words)} words of boundaries")


def write_fixture(gc, scripts, extensions, binary):
    """The sample as the cross-check sources derive it (unicodedata2, fonttools, regex), not ICU."""
    font_sc_members, font_scx_members = font_script_ranges()
    long_to_short = {long: short for short, long in font_sc.NAMES.items()}
    entries = []
    for expression in FIXTURE_SAMPLE:
        if "=" in expression:
            name, value = expression.split("=")
            short = long_to_short.get(value, value)
            source = font_sc_members if name in ("sc", "Script") else font_scx_members
            ranges = ranges_of(source.get(short, set()))
        elif len(expression) <= 2:
            leaves = [aliases[0] for aliases, _ in gc[:LEAF_CATEGORIES]]
            wanted = {leaf for leaf in leaves if leaf == expression or (len(expression) == 1 and leaf[0] == expression)}
            ranges = ranges_of(cp for cp in range(MAX_CP + 1) if ud.category(chr(cp)) in wanted)
        else:
            ranges = regex_ranges(expression)
        entries.append({"property": expression, "ranges": [[start, end] for start, end in ranges]})
    with open(FIXTURE, "w", encoding="utf-8") as out:
        out.write("[\n" + ",\n".join(json.dumps(entry, separators=(",", ":")) for entry in entries) + "\n]\n")
    print(f"{FIXTURE}: {len(entries)} properties")


def main():
    check_versions()
    icu = ICU()
    gc = general_category_sets(icu)
    scripts, extensions = script_sets(icu)
    binary = binary_sets(icu)
    for name in PROPERTIES_OF_STRINGS:
        assert all(name not in names for names, _ in gc + scripts + binary)
    write_tables(icu, gc, scripts, extensions, binary)
    write_fixture(gc, scripts, extensions, binary)


if __name__ == "__main__":
    main()
