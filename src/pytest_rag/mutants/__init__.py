"""Mutants: wrong answers built from a suite's passing ones, to see whether its checks would catch them.

``pytest --rag-mutants`` takes every answer-level check that passed (faithfulness, correctness, recall
of the reference, turn faithfulness), builds mutated answers from the answer and its contexts with
the sentence edits of :mod:`.edits` (a changed number or unit, a swapped name or role, a negation, an
added claim, two facts recombined, a dropped condition) and judges each with the check's own metric,
judge, bar, cache and budget. A mutant the check still passes has survived; the end of the run prints
the suite's catch rate per mutation class and ``--rag-min-catch`` gates on it.

Nothing is imported here: the start-up reads the option's classes from :mod:`.classes` alone.
"""
