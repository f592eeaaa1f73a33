"""The metric catalog: each module owns one family of metrics (see docs/metrics.md)."""
