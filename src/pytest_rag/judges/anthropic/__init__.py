"""The Anthropic provider: ``anthropic:MODEL`` judges, through Anthropic's Messages API (or a gateway
that speaks it at ``ANTHROPIC_BASE_URL``). The SDK is imported when a call is made, never here.
Anthropic has no embeddings API: a metric that embeds needs ``embedding_model=`` with this judge.

The modules:

* :mod:`.messages`: :class:`~.messages.AnthropicJudge`, the judge (structured output through a
  forced tool call);
* :mod:`.batch`: Message Batches (``--rag-batch``);
* ``prices.json``: its built-in prices and batch discount (package data).
"""
