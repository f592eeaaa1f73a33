"""pytest-rag: judged assertions for retrieval-augmented generation, as plain pytest tests."""

__version__ = "0.1.0"
