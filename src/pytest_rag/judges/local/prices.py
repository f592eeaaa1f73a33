"""What the offline judge costs: nothing. It runs on this machine's CPU and bills no tokens."""

from __future__ import annotations

FREE_PROVIDERS = frozenset({"local"})
