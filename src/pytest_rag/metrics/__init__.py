"""The metric catalog: one module (or small package) per family of metrics, holding each metric's
prompt templates, verdict models, evidence, scoring and ``rag_judge`` helpers (see docs/metrics.md)."""
