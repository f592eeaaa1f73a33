"""The ``nli`` judge (``--rag-judge=nli:PATH``): the offline judge with grounding decided by an NLI
model the user keeps on disk. pytest-rag ships no NLI weights and never downloads any.

The modules:

* :mod:`.judge`: :class:`~.judge.NliJudge`, the offline judge's task handlers with an
  entailment model behind grounding (:class:`~.judge.NliScorer`);
* :mod:`.model`: the model directory (ONNX or transformers), its label map, and loading it on CPU;
* :mod:`.prices`: what it costs (nothing).

Everything else (the task handlers, alignment, the embedder) is the offline judge's, in
:mod:`pytest_rag.judges.local`.
"""
