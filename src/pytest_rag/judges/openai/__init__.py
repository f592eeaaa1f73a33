"""The OpenAI provider: ``openai:MODEL`` and ``ollama:MODEL`` judges, OpenAI itself and every server
that speaks its Chat Completions API (vLLM, llama.cpp, LM Studio, Azure-style gateways, Ollama's
``/v1``). The SDK is imported when a call is made, never here.

The modules:

* :mod:`.chat`: :class:`~.chat.OpenAIChatJudge`, the judge (structured output, and the parameters a
  model refuses);
* :mod:`.batch`: the Batch API (``--rag-batch``) for its chat requests and its embeddings;
* :mod:`.embeddings`: :class:`~.embeddings.OpenAIEmbedder`, the embeddings API;
* ``prices.json``: its built-in prices, batch discount and the free ``ollama`` (package data);
* :mod:`.server`: where the server is and which key it takes, one rule for all of the above.
"""
