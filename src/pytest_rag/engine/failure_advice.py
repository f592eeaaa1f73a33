"""What to do when a judge call keeps failing: the option that helps, by kind of failure.

A message that says "gave up after 5 attempts" must say what to change next time, and the advice
differs: a refused or unreachable server needs its address checked, a slow one a longer timeout, a
rate limit less concurrency. Each hint names the option.
"""

from __future__ import annotations

from ..judges.faults import url_settings
from ..judges.protocol import Judge
from .limits import EngineSettings


def remedy(kind: str, judge: Judge, settings: EngineSettings) -> str:
    """The advice for a judge call that failed every attempt with faults of ``kind``."""
    timeout = getattr(judge, "timeout_s", None)
    now = f" (now {timeout:g}s)" if isinstance(timeout, (int, float)) else ""
    settings_of_url = url_settings(judge.spec.label)
    hints = {
        "rate limit": "The judge is rate-limiting this run: lower --rag-concurrency "
        f"(now {settings.concurrency}) or set --rag-rpm/--rag-tpm below your quota; raise "
        "--rag-max-attempts or --rag-deadline to wait longer",
        "server error": "The judge server kept failing; raise --rag-max-attempts "
        f"(now {settings.max_attempts}) or --rag-deadline to keep trying, or run again later",
        "timeout": f"Each request ran out of time: raise --rag-timeout{now} for a slow judge, or "
        "lower --rag-concurrency if it is overloaded",
        "deadline": f"The judgment took longer than --rag-deadline (now {settings.deadline_s:g}s); raise "
        "it, or --rag-timeout for a slow judge",
        "connection": "The connection kept failing: check that the judge server is up and that the "
        f"base URL is right ({settings_of_url}); raise --rag-max-attempts to ride out a flaky network",
        "unreadable": "Something that is not the judge's API answered (a proxy or gateway error "
        f"page?): check the base URL ({settings_of_url}) and any proxy between",
    }
    return hints.get(kind, f"Raise --rag-max-attempts (now {settings.max_attempts}) or --rag-deadline")
