"""The ``nli`` judge (``--rag-judge=nli:PATH`` or ``nli:ORG/NAME[@REVISION]``): the offline judge
with grounding decided by an NLI cross-encoder, kept in a folder of the user's or fetched once from
the Hugging Face hub into its cache. pytest-rag ships no NLI weights.

The modules:

* :mod:`.judge`: :class:`~.judge.NliJudge`, the offline judge's task handlers with an
  entailment model behind grounding (:class:`~.judge.NliScorer`);
* :mod:`.model`: the model directory, its label map, and loading it on CPU;
* :mod:`.formats`: the two formats (ONNX, transformers), the files each reads and what runs it;
* :mod:`.hub`: a model named by its hub id: found in the hub cache or downloaded there;
* :mod:`.errors`: the set-up error all of them raise;
* :mod:`.prices`: what it costs (nothing).

Everything else (the task handlers, alignment, the embedder) is the offline judge's, in
:mod:`pytest_rag.judges.local`.
"""
