"""Rebuild the Urdu web font: Noto Nastaliq Urdu cut down to the Urdu alphabet (``make fonts``).

The vendored file (quizzes/static/vendor/noto-nastaliq-urdu/) is the source and stays whole;
the student and staff pages load the subset written next to fonts.css. The subset keeps the
whole Urdu alphabet, its diacritics, digits and punctuation, not only the letters today's
content uses, so that new questions and translations still render in it. Nastaliq's
contextual forms make even the alphabet alone weigh about 100 KB, so only the regular weight
is cut: bold text in Urdu is emboldened by the browser.

Run twice, it writes the same bytes (fontTools keeps the source's timestamps, and WOFF2's
Brotli stream is deterministic); ``--check`` fails when the committed subset is out of date.
"""

import argparse
import hashlib
import sys
from pathlib import Path

from fontTools import subset

PROJECT_DIR = Path(__file__).resolve().parent.parent
SOURCE = PROJECT_DIR / "quizzes/static/vendor/noto-nastaliq-urdu/noto-nastaliq-urdu-arabic-400-normal.woff2"
TARGET = PROJECT_DIR / "quizzes/static/quizzes/fonts/noto-nastaliq-urdu-400-urdu.woff2"

# The characters kept, as CSS unicode-range values: fonts.css must declare the same ranges.
URDU_RANGES = [
    "U+0020",  # space
    "U+00A0",  # no-break space
    "U+060C",  # Arabic comma
    "U+061B",  # Arabic semicolon
    "U+061F",  # Arabic question mark
    "U+0621-063A",  # hamza to ghain
    "U+0640-0655",  # tatweel, fa to yeh, the harakat, hamza above and below
    "U+0656",  # subscript alef
    "U+0658",  # noon ghunna mark
    "U+0660-066D",  # Arabic-Indic digits, percent, decimal and thousands separators
    "U+0670",  # superscript alef
    "U+0679",  # tteh
    "U+067E",  # peh
    "U+0686",  # tcheh
    "U+0688",  # ddal
    "U+0691",  # rreh
    "U+0698",  # jeh
    "U+06A9",  # keheh
    "U+06AF",  # gaf
    "U+06BA",  # noon ghunna
    "U+06BE",  # heh doachashmee
    "U+06C0-06C3",  # heh with yeh above, heh goal and its forms, teh marbuta goal
    "U+06CC",  # Farsi yeh
    "U+06D2-06D4",  # yeh barree, with hamza above; Urdu full stop
    "U+06F0-06F9",  # Urdu (extended Arabic-Indic) digits
    "U+200C-200F",  # zero-width non-joiner and joiner, direction marks
    "U+2010-2011",  # hyphens
]


def unicodes() -> list[int]:
    codepoints = []
    for value in URDU_RANGES:
        first, _, last = value.removeprefix("U+").partition("-")
        codepoints.extend(range(int(first, 16), int(last or first, 16) + 1))
    return codepoints


def build() -> bytes:
    options = subset.Options()
    options.flavor = "woff2"
    # Nastaliq is all contextual forms: keep every layout feature the source has.
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    font = subset.load_font(str(SOURCE), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes())
    subsetter.subset(font)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    scratch = TARGET.with_suffix(".tmp")
    subset.save_font(font, str(scratch), options)
    data = scratch.read_bytes()
    scratch.unlink()
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed subset differs from a rebuild")
    arguments = parser.parse_args()
    data = build()
    digest = hashlib.sha256(data).hexdigest()[:12]
    relative = TARGET.relative_to(PROJECT_DIR)
    if arguments.check:
        if not TARGET.exists() or TARGET.read_bytes() != data:
            print(f"{relative} is out of date: run make fonts", file=sys.stderr)
            return 1
        print(f"{relative} is up to date ({len(data)} bytes, sha256 {digest})")
        return 0
    TARGET.write_bytes(data)
    print(f"{relative}: {len(data)} bytes from {SOURCE.stat().st_size}, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
