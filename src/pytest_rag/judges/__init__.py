"""Judge providers: one small protocol (:mod:`.protocol`) and one module per implementation."""
