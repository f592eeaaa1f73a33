"""How big is the HTML report of a large run, how long does it take to write, and how fast does it
open in headless Chromium?

    python benchmarks/html_report.py [--checks 10000] [--repeat 3]

Builds synthetic check records (three metrics, two judges, texts on every check, one judge error in
fifty), writes the report, then opens it in Debian's chromium (``apt-get install -y chromium``) over
the DevTools pipe and prints: file size, write time, navigation-to-load time, the report script's
own render time, the time to sort every check by a column and to open a detail view.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "testkit"))  # shared with the tests

from chromium_cdp import CHROMIUM, Chromium
from pytest_rag.report.html.page import write_html
from report_records import records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        checks = records(args.checks)
        started = time.perf_counter()
        path = write_html(Path(work) / "report.html", checks)
        print(
            f"{args.checks:,} checks: {path.stat().st_size:,} bytes, written in {time.perf_counter() - started:.2f} s"
        )
        if not CHROMIUM.exists():
            print("chromium not installed; skipping the browser timings (apt-get install -y chromium)")
            return 0
        with Chromium(Path(work) / "profile") as browser:
            for _ in range(args.repeat):
                started = time.perf_counter()
                browser.open(path.as_uri())
                load_ms = (time.perf_counter() - started) * 1000
                print(
                    f"navigation to load {load_ms:.0f} ms; report script {browser.js('ragReport.renderMs'):.0f} ms"
                )
            started = time.perf_counter()
            browser.js("document.querySelector('th[data-key=score] button').click(); 1")
            print(f"sort all checks by score {(time.perf_counter() - started) * 1000:.0f} ms")
            started = time.perf_counter()
            browser.js("ragReport.showDetail(5); 1")
            print(f"open a detail view {(time.perf_counter() - started) * 1000:.0f} ms")
            print(
                f"checks with full detail: {browser.js('ragReport.details'):,}; console errors: {browser.errors}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
