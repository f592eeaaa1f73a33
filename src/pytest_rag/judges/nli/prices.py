"""What the ``nli`` judge costs: nothing. The user's model runs on this machine's CPU."""

from __future__ import annotations

FREE_PROVIDERS = frozenset({"nli"})
