"""The metric catalog: one module per family of metrics, with every prompt in :mod:`.templates`, every
typed reply in :mod:`.verdicts` and every evidence type in :mod:`.evidence` (see docs/metrics.md)."""
