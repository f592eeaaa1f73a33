"""Everything a person reads about a run, all of it computed from the session's check records.

The terminal summary (:mod:`.summary`, with the repeats and ensembles block of :mod:`.repeats`),
the progress line of long batches (:mod:`.progress`), results files, read back as records, and JUnit
properties (:mod:`.results_file`), the self-contained HTML report (:mod:`.html`), runs side by side
(:mod:`.comparison`) and their PNG plots (:mod:`.png_plot`).
"""
