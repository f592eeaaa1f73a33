"""(Re)build every public dev set of the offline judge from the fetched repositories.

    python benchmarks/dev_suite/build.py [--only a,b]

Runs each ``benchmarks/dev_suite/<set>/convert.py`` with its defaults: the repository's git folder
from ``$PYTEST_RAG_MIRRORS`` (default /work/.mirror, as ``<owner>+<name>/repo``), the records to
``$PYTEST_RAG_DEV_SUITE`` (default ``dev_suite/`` beside ``shared/``). Each converter reads its
repository at a pinned commit, so a rebuild writes the same records. See README.md beside this file.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONVERTERS = sorted(path.parent.name for path in HERE.glob("*/convert.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"comma-separated sets (default all: {', '.join(CONVERTERS)})")
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",")] if args.only else CONVERTERS
    unknown = sorted(set(names) - set(CONVERTERS))
    if unknown:
        parser.error(f"no converter for {', '.join(unknown)}; the sets: {', '.join(CONVERTERS)}")
    failed = [
        name for name in names if subprocess.run([sys.executable, str(HERE / name / "convert.py")]).returncode
    ]
    if failed:
        print(f"not rebuilt: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
