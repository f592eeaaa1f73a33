"""Judges: one small protocol, the pieces every provider shares, and one folder per provider.

The shared pieces know no provider:

* :mod:`.protocol`: the :class:`~.protocol.Judge` protocol; :mod:`.request`: what is asked, and its
  cache key; :mod:`.schema`: the verdict schema every provider accepts; :mod:`.spec`:
  ``--rag-judge`` parsing; :mod:`.escaping`: data blocks that cannot be broken out of;
* :mod:`.faults`: SDK exceptions as faults worth a retry or final; :mod:`.adapting`: the one loop
  that sends again without a parameter the model refused (both take the SDK module as an argument
  and never import one); :mod:`.clients`: one SDK client per judge and event loop;
* :mod:`.embeddings`: what every embedder offers, and the judge that carries embedding calls;
* :mod:`.batch_api`: what a provider's batch API offers, and the batch records kept on disk.

Each provider is a folder holding its judge and, where it has them, its batch API, its embedder and
its prices: :mod:`.openai` (``openai:`` and ``ollama:``), :mod:`.anthropic`, :mod:`.local` (the
offline judge, the default) and :mod:`.nli`. :mod:`pytest_rag.builtin` registers them; a plugin adds
its own provider through the ``pytest_rag_judge_providers`` hook.
"""
