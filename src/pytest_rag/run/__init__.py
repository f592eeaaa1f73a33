"""The life of one pytest run, from its first hook to its last, in the order it happens.

* ``startup``: the configuration checked once, before any test runs;
* ``session``: :class:`~pytest_rag.run.session.RagSession`, which the plugin's hooks delegate to
  (settings, registry, judges, engine and loop, built lazily);
* ``check_plan`` and ``thresholds``: each check on its way from a test to a verdict, and the bar it
  is held to;
* ``session_results``: every check of the run as a record, the one source every report reads;
* ``unjudged``: a test whose check ended without a verdict is an error;
* ``workers``: the pytest-xdist controller's count of its workers' checks (what a crash lost);
* ``run_end``: the end of the run (reports, results files, batches, gates, the summary).

What a run *was* (``run_record.py``) stays with the records: reports and regression read it, and
they stand below the run.
"""
