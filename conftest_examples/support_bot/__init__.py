"""A tiny but real RAG app to copy from: a corpus, a retriever and an answerer."""
