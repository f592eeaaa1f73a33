"""The judgment engine: how a metric's question becomes a typed verdict.

A request is keyed and looked up in the cache (:mod:`.cache`); a miss is sent to the judge under the
concurrency, rate (:mod:`.ratelimit`) and spending (:mod:`.spending`, :mod:`.pricing`) limits, with
retries and one repair of an invalid reply (:mod:`.judgment`, :mod:`.parsing`). One metric is run over
every judge and repeat by :mod:`.evaluation`, on pytest-rag's own event loop (:mod:`.loop`);
embedding requests travel the same road (:mod:`.embeddings`). Under ``--rag-batch`` a miss goes to
the providers' batch APIs instead of the judge (:mod:`.batch`).
"""
