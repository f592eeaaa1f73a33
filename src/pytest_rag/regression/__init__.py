"""Regression suites: what makes a judged suite fail when quality drops.

Snapshots of scores with a tolerance (:mod:`.snapshot`, :mod:`.tolerance`), suite-level gates and
the baseline comparison (:mod:`.gates`, with the bars as written in :mod:`.gate_bars`), agreement
with human gold labels (:mod:`.gold`), the judgment store as a committed JSONL file for replay CI
(:mod:`.store_io`), and the verdict of a suite split across CI shards (:mod:`.shards`). The end of a
pytest run calls them from :mod:`pytest_rag.run.run_end`.
"""
