"""The ``nli`` judge: the offline judge with grounding decided by the user's own NLI model.

``--rag-judge=nli:/path/to/model_dir`` (or ``nli:ORG/NAME[@REVISION]`` for a model on the Hugging
Face hub, fetched once into the hub cache by :mod:`.hub`) keeps everything the offline judge does
(same task handlers, same verdict shapes, no network while judging) but replaces the calibrated
support probability of each answer sentence with the entailment probability of a
natural-language-inference cross-encoder. Premises are the sentence's best-matching context span
(found by the offline judge's alignment) and each whole context; the sentence counts as
entailed by the best of them. Relevance, correctness and the other tasks fall back to the
offline scorer, since an NLI model says nothing about them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...scoring.text import tokenize
from ..local.judge import LocalJudge
from ..local.scorer import GroundingInput, GroundingReport, LocalScorer, SentenceSupport
from ..protocol import JudgeSpec
from .hub import HubModel, fetch_hub_model, hub_name_of
from .model import ModelDir, NliModel, describe_model_dir, load_nli_model

__all__ = ["NliJudge", "NliScorer"]


class NliScorer(LocalScorer):
    """A LocalScorer whose grounding (support, claims_support, coverage) asks an NLI model."""

    def __init__(self, base: LocalScorer, model: NliModel) -> None:
        super().__init__(base.embedder, base.calibration)
        self.nli = model

    @property
    def version(self) -> str:
        return f"nli:{self.nli.model_dir.fingerprint()}+{self.calibration.version}"

    def _ground_units(self, given: GroundingInput) -> GroundingReport:
        # A short answer arrives already rewritten as the claim it makes with its question; the
        # NLI model judges that claim, so the slot and polarity rules of the offline judge (which
        # read ``given.asked``) are not needed here.
        per_unit, _ = self.evidence(given.units, given.whole, given.contexts)
        usable = [c for c in given.contexts if tokenize(c)]
        if not usable:
            return GroundingReport(tuple(SentenceSupport.from_evidence(e, 0.0) for e in per_unit), 0.0)
        premises: list[str] = []
        hypotheses: list[str] = []
        owners: list[int] = []
        for i, e in enumerate(per_unit):
            for premise in dict.fromkeys([e.span, *usable]):
                if premise:
                    premises.append(premise)
                    hypotheses.append(e.sentence)
                    owners.append(i)
        entailment = self.nli.entailment(premises, hypotheses)
        best = [0.0] * len(per_unit)
        for owner, p in zip(owners, entailment, strict=True):
            best[owner] = max(best[owner], float(p))
        sentences = tuple(SentenceSupport.from_evidence(e, p) for e, p in zip(per_unit, best, strict=True))
        # An answer is supported only if every sentence is: the weakest sentence decides.
        return GroundingReport(sentences, min(best))


class NliJudge(LocalJudge):
    """``nli:PATH`` or ``nli:ORG/NAME[@REVISION]``: the offline judge's handlers, with an NLI model
    behind grounding.

    The directory (or the hub model, fetched into the cache if needed), its format, the installed
    extra and the label map are checked when the judge is built, so a wrong name is a set-up error;
    the weights load on first use. A hub model's label carries the commit it was read at.
    """

    def __init__(self, spec: JudgeSpec) -> None:
        hub_name = hub_name_of(spec.model)
        self._hub: HubModel | None = None if hub_name is None else fetch_hub_model(hub_name)
        self._model_dir: ModelDir = (
            describe_model_dir(spec.model) if self._hub is None else self._hub.model_dir
        )
        super().__init__(spec)
        self.spec = JudgeSpec("nli", spec.model if self._hub is None else self._hub.label, None)

    def _get_scorer(self) -> Any:
        if self._scorer is None:
            self._scorer = NliScorer(LocalScorer.load(), load_nli_model(self._model_dir))
        return self._scorer

    def identity(self) -> Mapping[str, Any]:
        model_dir = self._model_dir
        if self._hub is None:
            source = {
                "model": str(model_dir.path),
                "format": model_dir.format,
                "fingerprint": model_dir.fingerprint(),
            }
        else:
            source = {
                "model": self._hub.name.repo_id,
                "revision": self._hub.commit,
                "format": model_dir.format,
            }
            if model_dir.format == "onnx":
                source["graph"] = model_dir.onnx_file
        return {"provider": "nli", **source, "labels": model_dir.labels.__dict__}
