#!/usr/bin/env python3
"""Generate refimpl/regex/unicode_data.py from Unicode Character Database files.

Usage:
    python3 tools/gen_unicode.py UCD_DIR [OUTPUT]

UCD_DIR must hold these files of one Unicode version (16.0.0 is the pinned one:
it is what the Rust `regex-syntax` crate 0.8.x, and so llguidance, uses):

    UnicodeData.txt            general categories, Bidi_Mirrored
    Scripts.txt                the Script property
    PropList.txt               binary properties (White_Space, Join_Control, ...)
    DerivedCoreProperties.txt  binary properties (Alphabetic, Uppercase, Lowercase, ...)
    emoji-data.txt             the emoji binary properties (may also be at emoji/emoji-data.txt)
    CaseFolding.txt            simple case folding (statuses C and S)
    PropertyAliases.txt        property names and their aliases
    PropertyValueAliases.txt   general category and script value aliases

OUTPUT defaults to refimpl/regex/unicode_data.py next to this script's repository.
The generator is deterministic: the same inputs give the same bytes.
It does not use the `unicodedata` module, so the output does not depend on the Python
running it.  See tools/README.md for where the files come from and their license.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
from typing import Dict, Iterable, List, Sequence, Set, Tuple

PINNED_VERSION = "16.0.0"
MAX_CP = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)

# Binary properties exported (the set regex-syntax 0.8 knows, from PropList.txt,
# DerivedCoreProperties.txt, emoji-data.txt and UnicodeData.txt field 9; the
# enumerated Indic_Conjunct_Break is left out, as Rust cannot name it either).
BINARY_FROM_FILES = ("PropList.txt", "DerivedCoreProperties.txt", "emoji-data.txt")

Pairs = List[Tuple[int, int]]


# ----------------------------------------------------------------------------- helpers

def symbolic_name_normalize(name: str) -> str:
    """UAX44-LM3 loose matching, exactly as regex-syntax does it (see unicode.py)."""
    starts_with_is = len(name) >= 2 and name[:2].lower() == "is"
    if starts_with_is:
        name = name[2:]
    out = []
    for ch in name:
        if ch in " _-":
            continue
        if "A" <= ch <= "Z":
            out.append(chr(ord(ch) + 32))
        elif ord(ch) <= 0x7F:
            out.append(ch)
    s = "".join(out)
    if starts_with_is and s == "c":
        s = "isc"
    return s


def canonical(pairs: Iterable[Tuple[int, int]]) -> Pairs:
    """Sort, merge overlapping/adjacent pairs, and drop the surrogates."""
    items = sorted(pairs)
    merged: Pairs = []
    for lo, hi in items:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    out: Pairs = []
    slo, shi = SURROGATES
    for lo, hi in merged:
        if hi < slo or lo > shi:
            out.append((lo, hi))
            continue
        if lo < slo:
            out.append((lo, slo - 1))
        if hi > shi:
            out.append((shi + 1, hi))
    return out


def complement(pairs: Pairs) -> Pairs:
    out: Pairs = []
    nxt = 0
    for lo, hi in pairs:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return canonical(out)


def read_lines(path: str) -> List[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def first_line(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.readline().strip()


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def parse_cp_range(field: str) -> Tuple[int, int]:
    field = field.strip()
    if ".." in field:
        a, b = field.split("..")
        return int(a, 16), int(b, 16)
    v = int(field, 16)
    return v, v


def data_fields(lines: Iterable[str]) -> Iterable[List[str]]:
    """The `;`-separated fields of the data lines (comments and blanks dropped)."""
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            yield [f.strip() for f in line.split(";")]


def find_file(ucd: str, name: str) -> str:
    for cand in (os.path.join(ucd, name), os.path.join(ucd, "emoji", name)):
        if os.path.exists(cand):
            return cand
    raise SystemExit("missing UCD file: %s (looked in %s)" % (name, ucd))


# ----------------------------------------------------------------------------- parsers

def parse_unicode_data(path: str) -> Tuple[Dict[str, Pairs], Pairs]:
    """General_Category (two-letter abbreviations -> pairs) and Bidi_Mirrored pairs."""
    gc: Dict[str, Pairs] = {}
    mirrored: Pairs = []
    first = None
    for fields in data_fields(read_lines(path)):
        cp = int(fields[0], 16)
        name, cat, bidi_m = fields[1], fields[2], fields[9]
        if name.endswith(", First>"):
            first = cp
            continue
        lo = cp
        if name.endswith(", Last>"):
            assert first is not None
            lo, first = first, None
        gc.setdefault(cat, []).append((lo, cp))
        if bidi_m == "Y":
            mirrored.append((lo, cp))
    return gc, mirrored


def parse_ranges_by_value(path: str, want_two_fields: bool = True) -> Dict[str, Pairs]:
    """`range ; Value # ...` files (Scripts.txt, PropList.txt, ...)."""
    out: Dict[str, Pairs] = {}
    for fields in data_fields(read_lines(path)):
        if want_two_fields and len(fields) != 2:
            continue  # e.g. Indic_Conjunct_Break ; Linker (an enumerated property)
        out.setdefault(fields[1], []).append(parse_cp_range(fields[0]))
    return out


def parse_case_folding(path: str) -> List[Tuple[int, ...]]:
    """Simple case folding equivalence classes (statuses C and S), sorted."""
    folds: Dict[int, int] = {}
    for fields in data_fields(read_lines(path)):
        status = fields[1]
        if status not in ("C", "S"):
            continue
        folds[int(fields[0], 16)] = int(fields[2], 16)
    groups: Dict[int, Set[int]] = {}
    for src, dst in folds.items():
        groups.setdefault(dst, {dst}).add(src)
    classes = sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1)
    seen: Set[int] = set()
    for cls in classes:  # a code point is in at most one class
        for c in cls:
            assert c not in seen, hex(c)
            seen.add(c)
    return classes


def parse_property_aliases(path: str) -> Dict[str, str]:
    """normalized alias -> canonical (long) property name, for every UCD property."""
    out: Dict[str, str] = {}
    for fields in data_fields(read_lines(path)):
        long_name = fields[1]
        for alias in fields:
            out[symbolic_name_normalize(alias)] = long_name
    return out


def parse_value_aliases(path: str, prop: str) -> Tuple[Dict[str, str], Dict[str, str], Dict[str, List[str]]]:
    """For property `prop` (short name, e.g. 'gc'): normalized alias -> long value name,
    short value -> long value, and the group definitions read from the comments
    (e.g. 'L' -> ['Ll', 'Lm', 'Lo', 'Lt', 'Lu'])."""
    aliases: Dict[str, str] = {}
    short_to_long: Dict[str, str] = {}
    groups: Dict[str, List[str]] = {}
    for line in read_lines(path):
        body, _, comment = line.partition("#")
        fields = [f.strip() for f in body.split(";")]
        if len(fields) < 3 or fields[0] != prop:
            continue
        short, long_name = fields[1], fields[2]
        short_to_long[short] = long_name
        for alias in fields[1:]:
            aliases[symbolic_name_normalize(alias)] = long_name
        if comment.strip() and "|" in comment:
            groups[short] = [m.strip() for m in comment.split("|")]
    return aliases, short_to_long, groups


# ----------------------------------------------------------------------------- output

def flat(pairs: Pairs) -> List[int]:
    out: List[int] = []
    for lo, hi in pairs:
        out.append(lo)
        out.append(hi)
    return out


def wrap_ints(ints: Sequence[int], indent: str, width: int = 99) -> List[str]:
    lines: List[str] = []
    cur = indent
    for v in ints:
        tok = "%d," % v
        if len(cur) + len(tok) > width and cur.strip():
            lines.append(cur)
            cur = indent
        cur += tok
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def emit_range_dict(out: List[str], var: str, comment: str, table: Dict[str, Pairs]) -> None:
    out.append("")
    out.append("# " + comment)
    out.append("%s = {" % var)
    for name in sorted(table):
        ints = flat(table[name])
        out.append("    %r: (" % name)
        out.extend(wrap_ints(ints, "        "))
        out.append("    ),")
    out.append("}")


def emit_str_dict(out: List[str], var: str, comment: str, table: Dict[str, str]) -> None:
    out.append("")
    out.append("# " + comment)
    out.append("%s = {" % var)
    out.extend(wrap_items([" %r: %r," % (k, table[k]) for k in sorted(table)]))
    out.append("}")


def wrap_items(items: Sequence[str], width: int = 99) -> List[str]:
    """The items, packed into lines of at most `width` columns, indented by 3."""
    lines: List[str] = []
    line = "   "
    for tok in items:
        if len(line) + len(tok) > width:
            lines.append(line)
            line = "   "
        line += tok
    if line.strip():
        lines.append(line)
    return lines


HEADER = '''\
"""Unicode Character Database tables for refimpl.regex.unicode.  GENERATED: do not edit.

Generated by tools/gen_unicode.py from the Unicode Character Database, version {version}
(the version used by the Rust regex-syntax crate 0.8.x, hence by llguidance).
Input files:
{files}
Source of the files: the Unicode Consortium's UCD {version} release (unicode.org/Public/{version}/ucd/),
as mirrored in the public repository unicode-org/unicodetools under unicodetools/data/ucd/{version}/.
Data derived from the UCD, (c) 2024 Unicode, Inc., used under the Unicode License v3
(SPDX: Unicode-3.0); the full copyright and permission notice is in tools/README.md.

Layout: every range table is a flat tuple (lo0, hi0, lo1, hi1, ...) of inclusive,
sorted, non-overlapping, non-adjacent code point ranges that never include the
surrogates U+D800..U+DFFF.  Names are the canonical (long) UCD names; the alias
tables map names normalized by UAX44-LM3 loose matching to them.
"""
'''


UCD_FILES = ["UnicodeData.txt", "Scripts.txt", "PropList.txt", "DerivedCoreProperties.txt",
             "emoji-data.txt", "CaseFolding.txt", "PropertyAliases.txt",
             "PropertyValueAliases.txt"]


def ucd_version(paths: Dict[str, str]) -> str:
    """The one UCD version of the input files (exit if they are of mixed versions)."""
    versions = {}
    for name, path in paths.items():
        head = first_line(path)
        m = re.search(r"-(\d+\.\d+\.\d+)\.txt", head)
        versions[name] = m.group(1) if m else None
    for line in read_lines(paths["emoji-data.txt"])[:20]:
        m = re.search(r"Emoji Version (\d+\.\d+)", line)
        if m:
            versions["emoji-data.txt"] = m.group(1) + ".0"
    found = sorted({v for v in versions.values() if v})
    if len(found) != 1:
        raise SystemExit("UCD files of mixed or unknown versions: %r" % versions)
    version = found[0]
    if version != PINNED_VERSION:
        sys.stderr.write("warning: UCD version %s, pinned version is %s\n" % (version, PINNED_VERSION))
    return version


def general_categories(paths: Dict[str, str]) -> Tuple[Dict[str, Pairs], Dict[str, str], Pairs]:
    """(long General_Category name -> ranges, the value aliases, the Bidi_Mirrored ranges)."""
    gc_raw, mirrored = parse_unicode_data(paths["UnicodeData.txt"])
    gc_aliases, gc_short_to_long, gc_groups = parse_value_aliases(paths["PropertyValueAliases.txt"], "gc")
    gc_two: Dict[str, Pairs] = {k: canonical(v) for k, v in gc_raw.items()}
    assigned = canonical([p for k, v in gc_raw.items() for p in v] + [SURROGATES])
    gc_two["Cn"] = complement(assigned)
    gc_two.pop("Cs", None)  # surrogates are never in any class (Rust: --exclude surrogate)
    general: Dict[str, Pairs] = {}
    for short, pairs in gc_two.items():
        general[gc_short_to_long[short]] = pairs
    for group, members in gc_groups.items():
        general[gc_short_to_long[group]] = canonical(p for m in members for p in gc_two.get(m, []))
    for short, long_name in gc_short_to_long.items():
        assert long_name in general or short == "Cs", short
    return general, gc_aliases, mirrored


def binary_properties(paths: Dict[str, str], mirrored: Pairs,
                      prop_aliases: Dict[str, str]) -> Dict[str, Pairs]:
    """Binary properties: long property name -> ranges."""
    binary: Dict[str, Pairs] = {}
    for fname in BINARY_FROM_FILES:
        for name, pairs in parse_ranges_by_value(paths[fname]).items():
            assert name not in binary, name
            binary[name] = canonical(pairs)
    binary["Bidi_Mirrored"] = canonical(mirrored)
    for name in binary:
        assert prop_aliases.get(symbolic_name_normalize(name)) == name, name
    return binary


def emit_case_folding(out: List[str], classes: List[Tuple[int, ...]]) -> None:
    """Append CASE_FOLDING_CLASSES, wrapped at 99 columns."""
    out.append("# Simple case folding equivalence classes (CaseFolding.txt statuses C and S):")
    out.append("# each tuple is every code point that simple-folds to the same code point, and it.")
    out.append("CASE_FOLDING_CLASSES = (")
    out.extend(wrap_items([" (%s)," % ",".join("%d" % c for c in cls) for cls in classes]))
    out.append(")")


def generate(ucd: str) -> str:
    """The text of refimpl/regex/unicode_data.py from the UCD files under `ucd`."""
    files = UCD_FILES
    paths = {name: find_file(ucd, name) for name in files}
    version = ucd_version(paths)
    general, gc_aliases, mirrored = general_categories(paths)

    # Scripts (only those with code points: Unknown/Zzzz and Katakana_Or_Hiragana have none).
    sc_aliases, _, _ = parse_value_aliases(paths["PropertyValueAliases.txt"], "sc")
    scripts = {k: canonical(v) for k, v in parse_ranges_by_value(paths["Scripts.txt"]).items()}
    for name in scripts:
        assert symbolic_name_normalize(name) in sc_aliases, name

    prop_aliases = parse_property_aliases(paths["PropertyAliases.txt"])
    binary = binary_properties(paths, mirrored, prop_aliases)

    # Perl classes (regex-syntax: perl-word = Alphabetic + M + Nd + Pc + Join_Control).
    perl_word = canonical(binary["Alphabetic"] + general["Mark"] + general["Decimal_Number"]
                          + general["Connector_Punctuation"] + binary["Join_Control"])

    classes = parse_case_folding(paths["CaseFolding.txt"])

    out: List[str] = []
    out.append(HEADER.format(version=version, files="\n".join(
        "    %-26s sha256 %s" % (n, sha256_of(paths[n])) for n in files)).rstrip("\n"))
    out.append("")
    out.append("UNICODE_VERSION = %r" % version)
    emit_range_dict(out, "GENERAL_CATEGORY",
                    "General_Category: long value name -> ranges (Surrogate left out; "
                    "the groups Letter, Cased_Letter, Mark, Number, Punctuation, Symbol, "
                    "Separator, Other included).", general)
    emit_range_dict(out, "SCRIPT", "Script (not Script_Extensions): long value name -> ranges.",
                    scripts)
    emit_range_dict(out, "BINARY", "Binary properties: long property name -> ranges.", binary)
    out.append("")
    out.append("# Rust regex \\w: Alphabetic | Mark | Decimal_Number | Connector_Punctuation | Join_Control.")
    out.append("PERL_WORD = (")
    out.extend(wrap_ints(flat(perl_word), "    "))
    out.append(")")
    emit_str_dict(out, "PROPERTY_NAMES",
                  "Every UCD property alias, normalized (UAX44-LM3) -> long property name.",
                  prop_aliases)
    emit_str_dict(out, "GENERAL_CATEGORY_VALUES",
                  "General_Category value aliases, normalized -> long value name.", gc_aliases)
    emit_str_dict(out, "SCRIPT_VALUES", "Script value aliases, normalized -> long value name.",
                  sc_aliases)
    out.append("")
    emit_case_folding(out, classes)
    out.append("")
    return "\n".join(out)


def main(argv: Sequence[str]) -> int:
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    ucd = argv[1]
    if len(argv) == 3:
        target = argv[2]
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        target = os.path.join(root, "refimpl", "regex", "unicode_data.py")
    text = generate(ucd)
    with open(target, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    sys.stderr.write("wrote %s (%d bytes)\n" % (target, len(text.encode("utf-8"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
