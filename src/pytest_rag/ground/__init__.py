"""The ground every part stands on: small tools that import nothing of pytest-rag, only the standard library.

- :mod:`.command_options`: options, ini keys and ``pytest-rag`` sub-commands declared as rows, each kind
  registered by one loop;
- :mod:`.integer_keys`: the one reader of mappings keyed by whole numbers (rubric levels, ``id2label``);
- :mod:`.redaction`: the guard that keeps keys and secrets out of anything written.

``errors`` and ``deprecation`` stand on the same layer but stay at the package root: users name them
(``pytest_rag.errors.ConfigError``, ``-W ignore::pytest_rag.deprecation.RagDeprecationWarning``).
"""
