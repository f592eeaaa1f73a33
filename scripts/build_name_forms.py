"""Build ``src/pytest_rag/judges/local/name_forms.json``: the offline judge's table of name and date forms.

    pip download --no-deps countryinfo==1.0.1 -d /tmp/ci && unzip -q /tmp/ci/*.whl -d /tmp/ci/x
    python scripts/build_name_forms.py --countryinfo /tmp/ci/x/countryinfo

The judge must not call "born in Germany" unsupported against "German-born", nor "Jan 15" against
"January 15". It reads the forms from a small JSON file shipped in the package, built here:

* countries and their demonyms (adjective forms) from the ``countryinfo`` package (MIT licence,
  (c) 2018 Porimol Chandro; its ``data`` and ``data_no_iso`` folders, fields ``name`` and
  ``demonym``), read at build time only: the package is not a dependency;
* a short hand-written supplement of continents, regions, nations of the UK, US states and large
  cities whose adjective differs from their name (``SUPPLEMENT`` below), and of languages;
* month and weekday abbreviations and ordinal words, written out here.

Only single-word forms are kept as demonyms ("New Zealander" is skipped; "Zealand" would be
ambiguous), places may be several words ("United Kingdom"). Rerun after changing the supplement.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "pytest_rag" / "judges" / "local" / "name_forms.json"

# place: adjective forms, for places the country list lacks (written for this project).
SUPPLEMENT = {
    "europe": ["european"],
    "africa": ["african"],
    "asia": ["asian"],
    "america": ["american"],
    "north america": ["north american"],
    "south america": ["south american"],
    "latin america": ["latin american"],
    "scandinavia": ["scandinavian"],
    "england": ["english"],
    "scotland": ["scottish", "scots"],
    "wales": ["welsh"],
    "britain": ["british"],
    "ireland": ["irish"],
    "catalonia": ["catalan"],
    "bavaria": ["bavarian"],
    "sicily": ["sicilian"],
    "tuscany": ["tuscan"],
    "flanders": ["flemish"],
    "texas": ["texan"],
    "california": ["californian"],
    "florida": ["floridian"],
    "quebec": ["quebecois", "québécois"],
    "paris": ["parisian"],
    "london": ["londoner"],
    "rome": ["roman"],
    "venice": ["venetian"],
    "naples": ["neapolitan"],
    "milan": ["milanese"],
    "florence": ["florentine"],
    "vienna": ["viennese"],
    "berlin": ["berliner"],
    "madrid": ["madrilenian"],
    "moscow": ["muscovite"],
    "athens": ["athenian"],
    "new york": ["new yorker"],
    "boston": ["bostonian"],
    "sydney": ["sydneysider"],
    "hong kong": ["hongkonger"],
    "kyoto": ["kyotoite"],
}

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
EXTRA_ABBREVIATIONS = {"sept": "september", "tues": "tuesday", "thur": "thursday", "thurs": "thursday"}
ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]
NUMBER_WORDS = {
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "sixty": "60", "seventy": "70", "eighty": "80",
    "ninety": "90", "thirtieth": "30", "fortieth": "40", "fiftieth": "50", "hundredth": "100",
}  # fmt: skip


def demonyms(folder: Path) -> dict[str, list[str]]:
    """place -> single-word demonyms, from countryinfo's per-country JSON files."""
    places: dict[str, set[str]] = {}
    for path in sorted([*folder.glob("data/*.json"), *folder.glob("data_no_iso/*.json")]):
        record = json.loads(path.read_text(encoding="utf-8"))
        name, demonym = record.get("name"), record.get("demonym")
        if not isinstance(name, str) or not isinstance(demonym, str):
            continue
        forms = {f.strip().lower() for f in re.split(r",|/| or ", demonym) if f.strip()}
        forms = {f for f in forms if " " not in f and f != name.lower()}
        if forms:
            places.setdefault(name.lower(), set()).update(forms)
    return {place: sorted(forms) for place, forms in sorted(places.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--countryinfo", type=Path, required=True, help="the unpacked countryinfo package folder"
    )
    args = parser.parse_args()
    if not (args.countryinfo / "data").is_dir():
        parser.error(f"{args.countryinfo} has no data/ folder; pass the unpacked countryinfo package folder")
    places = demonyms(args.countryinfo)
    for place, forms in SUPPLEMENT.items():
        places[place] = sorted(set(places.get(place, [])) | set(forms))
    abbreviations = {m[:3]: m for m in MONTHS if m != "may"}
    abbreviations.update({d[:3]: d for d in WEEKDAYS})
    abbreviations.update(EXTRA_ABBREVIATIONS)
    numbers = {word: str(i) for i, word in enumerate(ORDINALS, start=1)}
    numbers.update(NUMBER_WORDS)
    table = {
        "about": "Name and date forms the offline judge treats as the same word; built by "
        "scripts/build_name_forms.py. Demonyms of countries from the countryinfo package (MIT, "
        "(c) 2018 Porimol Chandro); regions, cities, abbreviations and ordinals written for pytest-rag.",
        "abbreviations": dict(sorted(abbreviations.items())),
        "numbers": numbers,
        "places": {p: f for p, f in sorted(places.items()) if f},
    }
    OUT.write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(table['places'])} places, {len(abbreviations)} abbreviations")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
