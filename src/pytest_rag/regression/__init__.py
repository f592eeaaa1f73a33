"""Regression suites: what makes a judged suite fail when quality drops.

Snapshots of scores with a tolerance (:mod:`.snapshot`), suite-level gates and baseline comparison
(:mod:`.gates`), agreement with human gold labels (:mod:`.gold`), the spread of repeated and ensemble
judgments (:mod:`.repeats`), and the judgment store as a committed JSONL file for replay CI
(:mod:`.store_io`). :mod:`.lifecycle` ties them to the start and end of a pytest run.
"""
