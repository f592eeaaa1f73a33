"""The offline judge (``--rag-judge=local``, the default): no key, no network, CPU only.

It reads the request's task inputs rather than its prose, computes the verdict with the task
handlers of :mod:`.tasks`, and answers in the schema the metric asked for, so metrics need not know
which judge they have. It is not cached: recomputing is cheaper than a disk lookup and just as
deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import JudgeError, UnsupportedMetricError
from ..protocol import JudgeReply, JudgeSpec
from ..request import JudgeRequest

LLM_SUGGESTION = (
    "use an LLM judge for it, e.g. --rag-judge=openai:gpt-4o-mini, anthropic:MODEL or ollama:MODEL "
    "(a local model through Ollama keeps it offline)"
)


class LocalJudge:
    offline = True
    cacheable = False

    def __init__(self, spec: JudgeSpec) -> None:
        self.spec = JudgeSpec("local", "", None) if not spec.model else spec
        self._scorer: Any = None

    def _get_scorer(self) -> Any:
        if self._scorer is None:
            from .embedder import EmbedderUnavailableError
            from .scorer import CalibrationError, LocalScorer

            try:
                self._scorer = LocalScorer.load()
            except (EmbedderUnavailableError, CalibrationError) as exc:
                raise JudgeError(
                    f"the offline judge could not load its model: {exc}. Reinstall pytest-rag "
                    "(pip install --force-reinstall pytest-rag) or choose another judge with --rag-judge",
                    judge="local",
                ) from None
        return self._scorer

    def identity(self) -> Mapping[str, Any]:
        return {
            "provider": "local",
            "model": self.spec.model,
            "version": self._get_scorer().version,
        }

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        return self.answer(request)

    def answer(self, request: JudgeRequest) -> JudgeReply:
        from .tasks import HANDLERS

        handler = HANDLERS.get(request.task.kind)
        if handler is None:
            raise UnsupportedMetricError(
                f"the offline judge cannot compute {request.metric} ({request.task.kind}): it needs text "
                f"generation, which no offline model here can do honestly; {LLM_SUGGESTION}"
            )
        fields = handler(self._get_scorer(), request.task.inputs)
        verdict = request.response_model.model_validate(fields)
        return JudgeReply(text=verdict.model_dump_json(), model="local")

    async def aclose(self) -> None:
        return None
