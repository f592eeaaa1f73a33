"""What every built-in metric asks a judge is pinned, request by request, to the byte.

A judgment's cache key hashes its template id and version, the rendered messages, the verdict
model's JSON schema (field names, descriptions, nested class names, docstrings) and the sampling
parameters. Moving a template or a verdict model between modules must leave all of that as it was:
otherwise every judgment cached by a user's suite, and every store replayed in their CI, misses at
once. So each built-in (metric, mode), and each option that changes what it asks, is driven here on a
fixed sample by an asker that records every request and answers it with a valid verdict built from
the request's own schema; the sha256 of each request's key material is compared with the digest
pinned below. The task inputs the offline judge reads are pinned the same way, one digest a variant.

A deliberate change of a prompt bumps its template version and updates its digests here, in the
same commit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import pytest
from pydantic import create_model

from fake_llm.schema_instance import InstanceOptions, minimal_instance
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.base import Metric
from pytest_rag.metrics.catalog import builtin_metrics
from stand_in_asker import StandInAsker, V

T = TypeVar("T")

SAMPLE = Sample(
    question="How long do refunds take, and where is the money sent?",
    answer="Refunds take five business days. The money goes back to the original card.",
    contexts=(
        Chunk("Refunds are processed within five business days of approval.", id="policy-7"),
        Chunk("Approved refunds are paid to the card used for the purchase."),
        Chunk("Our office is closed on public holidays.", id="hours"),
    ),
    reference="Refunds take five business days and are paid to the original card.",
)

#: Three statements, the reply to every request for a list of texts (claims, questions, nuggets).
STATEMENTS = [
    "Refunds take five business days.",
    "The money goes back to the original card.",
    "Refunds need approval first.",
]

#: The earlier messages the conversation metrics read (a statement of the user's, an answer).
HISTORY = [
    {"role": "user", "content": "I bought a lamp on 3 May. How do refunds work?"},
    {"role": "assistant", "content": "Refunds are approved first and then paid back."},
]

#: (label, metric name, mode, options): every catalog entry once with the options it needs, then the
#: options that change what a metric asks.
_EVERY_ENTRY: list[tuple[str, str, dict[str, Any]]] = [
    ("faithfulness", "default", {}),
    ("faithfulness", "claims", {}),
    ("answer_relevancy", "default", {}),
    ("answer_relevancy", "questions", {}),
    ("context_recall", "default", {}),
    ("context_recall", "attribution", {}),
    ("context_precision", "default", {}),
    ("umbrela", "default", {}),
    ("retrieval_precision", "default", {}),
    ("augmentation_precision", "default", {}),
    ("augmentation_accuracy", "default", {}),
    ("answer_consistency", "default", {}),
    ("answer_consistency_binary", "default", {}),
    ("answer_similarity", "default", {}),
    ("semantic_similarity", "default", {}),
    ("factual_correctness", "default", {}),
    ("nuggets", "default", {}),
    ("citation", "default", {"citations": [(SAMPLE.answer, ["policy-7", "2"])]}),
    ("hallucination", "default", {}),
    ("no_answer", "default", {}),
    ("answer_accuracy", "default", {}),
    ("context_relevance", "default", {}),
    ("response_groundedness", "default", {}),
    ("consistency", "default", {"answers": [SAMPLE.answer, "Five business days, to your card."]}),
    ("consistency", "lexical", {"answers": [SAMPLE.answer, "Five business days, to your card."]}),
    ("rubric", "default", {"rubric": {1: "wrong", 3: "incomplete", 5: "right and complete"}}),
    ("turn_faithfulness", "default", {"history": HISTORY}),
    ("turn_relevancy", "default", {"history": HISTORY}),
    ("knowledge_retention", "default", {"history": HISTORY}),
    ("conversation_consistency", "default", {"history": HISTORY}),
    (
        "passage_recall",
        "default",
        {"expected": ["policy-7", {"text": "Our office is closed on holidays."}]},
    ),
    ("abstention", "default", {}),
]
VARIANTS: list[tuple[str, str, str, dict[str, Any]]] = [
    (f"{name}[{mode}]", name, mode, options) for name, mode, options in _EVERY_ENTRY
] + [
    ("faithfulness[claims] batch_size=2", "faithfulness", "claims", {"batch_size": 2}),
    ("answer_relevancy[questions] n_questions=2", "answer_relevancy", "questions", {"n_questions": 2}),
    ("context_precision[default] per_passage", "context_precision", "default", {"per_passage": True}),
    ("nuggets[default] umbrela_grades", "nuggets", "default", {"umbrela_grades": [3, 1, 0]}),
    (
        "rubric[default] criteria",
        "rubric",
        "default",
        {"rubric": {0: "off topic", 2: "on topic"}, "criteria": "Does it say where the money goes?"},
    ),
]


def valid_verdict(request: JudgeRequest) -> dict[str, Any]:
    """A verdict valid against the request's schema, shaped so that every step of a multi-step metric
    runs: lists of texts hold :data:`STATEMENTS`, numbered verdicts name each numbered item once, a
    fact is attributed to the first context, and grades and flags take their highest value (every
    passage relevant, every statement supported)."""
    schema = request.response_schema()
    verdict = minimal_instance(schema, InstanceOptions(prefer="max"))
    assert isinstance(verdict, dict)
    grades = schema["properties"].get("score", {}).get("enum")
    if grades and all(isinstance(g, int) for g in grades):
        verdict["score"] = max(grades)  # a grade that is an enum of its scale takes its highest too
    numbered = next(
        (request.task.inputs[k] for k in ("claims", "facts", "nuggets") if k in request.task.inputs), ()
    )
    for name, value in verdict.items():
        if isinstance(value, list) and value and isinstance(value[0], dict) and "index" in value[0]:
            verdict[name] = [{**value[0], "index": i} for i in range(1, len(numbered) + 1)]
            for item in verdict[name]:
                if "source_context" in item:
                    item["source_context"] = 1
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            verdict[name] = list(STATEMENTS)
    return verdict


class RecordingAsker(StandInAsker):
    """Answers every request, kept in the order asked, with a valid verdict."""

    judge_label = "recording"

    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        return model.model_validate(valid_verdict(request))


def sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def asked(name: str, mode: str, options: Mapping[str, Any]) -> list[JudgeRequest]:
    metric_class: type[Metric] = next(m for m in builtin_metrics() if (m.name, m.mode) == (name, mode))
    metric = metric_class()
    metric.check_options(options)
    asker = RecordingAsker()
    asyncio.run(metric.score(asker, SAMPLE, options))
    return asker.requests


def key_digests(requests: Sequence[JudgeRequest]) -> list[tuple[str, str]]:
    """(template id, sha256 of the request's key material) for each request, in the order asked."""
    return [(r.template_id, sha256(r.key_material({}))) for r in requests]


def task_digest(requests: Sequence[JudgeRequest]) -> str:
    """One sha256 over the task kind and inputs of every request (what the offline judge reads)."""
    return sha256([[r.task.kind, dict(r.task.inputs)] for r in requests])


#: label -> [(template id, key digest)] in the order asked. Written from the code as it was before the
#: metric families moved into one module each, then moved on purpose once, when every prompt came to
#: grade what it claims (issue #35: new template versions, only answer accuracy's and the requests
#: without a prompt kept); a digest that changes is a cache key that moved.
PINNED_KEYS: dict[str, list[tuple[str, str]]] = {
    "faithfulness[default]": [
        ("faithfulness.single", "950e32de72be7edbdb6d953602279c4b0b15e4b459ffa32e189345fc5e911389"),
    ],
    "faithfulness[claims]": [
        ("faithfulness.claims.extract", "8e20020e0e1a39305637ecf3b71e025877b1823798f91b1d0d5f48dde57a500b"),
        ("faithfulness.claims.verify", "5d39dde9013f5ce0060e007df836fcb8506f178c6f403d7640d7f0aaf45448d4"),
    ],
    "answer_relevancy[default]": [
        ("answer_relevancy.single", "7b8eb192557ac3d3180c6bd2df18688268835a6e597d25688e4fdee35e537a40"),
    ],
    "answer_relevancy[questions]": [
        (
            "answer_relevancy.questions.generate",
            "d0b9694c66ea2ef6ceae9e6b9ce4a97e0c3a79c359413c5268c1d13f7c413d48",
        ),
    ],
    "context_recall[default]": [
        ("context_recall.single", "1b4af7468638990542bd280b4f2d674de4ebbb369973076b8b2b88eb9062b107"),
    ],
    "context_recall[attribution]": [
        (
            "context_recall.attribution.extract",
            "c05fb6f4547b5dbf395730179d3c3deda86dbd3614fea501aaf7e55c3da7e7f9",
        ),
        (
            "context_recall.attribution.attribute",
            "e87069be2ba248a2846a47dc686ff8b155bb3b160b1507933eadb552fe8841d7",
        ),
    ],
    "context_precision[default]": [
        (
            "context_precision.usefulness_all",
            "a1e30a49ce9dcb84f97eb2d9f73ff00a505c77c25a40a88d25e10c2c6457b1b4",
        ),
    ],
    "umbrela[default]": [
        ("umbrela.grade", "7c7aca84b9bc057e7e3c79aed46916b752c4b256c166bf48575514bcaf473e2d"),
        ("umbrela.grade", "5c542e3f55e430f09abcb42d365601d01e23bc48d8e3833574775327ffb13854"),
        ("umbrela.grade", "15f5b3b4afada6b80f123f5527458e6008dad4c18261dcb34bee3a50df627fb0"),
    ],
    "retrieval_precision[default]": [
        ("retrieval_precision.relevance", "156750220e36554f68ca2716b80f562573469cc915409031de4223e29ba34a6e"),
        ("retrieval_precision.relevance", "30bedc247bb956a143a906f29cc175e789ec9bec778685583bb8d9835e00d087"),
        ("retrieval_precision.relevance", "f98976f04e7c3402619c5d40196f7f03a548c002e22ef8f700612a181315c31d"),
    ],
    "augmentation_precision[default]": [
        ("retrieval_precision.relevance", "720e9932f95adff167e273aa2d881c1081f3cf68d377ebd6529d4d3e2a8298e7"),
        ("retrieval_precision.relevance", "730123836e42c01aaeb19fc6c49ea7185264705bd77b6874a2fa0716dbc5ef52"),
        ("retrieval_precision.relevance", "47b14835fb9e0fb2510af77a0a5b87d6234853417eff3841e62d6ac49394c52e"),
        ("augmentation.context_used", "879008a783aed2071bac9e6f16e997ad4b27b1ad61d82b8689716442cbed5100"),
        ("augmentation.context_used", "eaba61b9655374f6a92f997aa8460903ba0faca31e8b02d3301d8cff09cb5800"),
        ("augmentation.context_used", "dab299a23019e6c42529c0e3c7b34584915fbef934947cb32facb979f7bb9ebe"),
    ],
    "augmentation_accuracy[default]": [
        ("augmentation.context_used", "99fc9d6756c64631cb9decb23802750d1bb2e2da9242cc16bd37929f2c64996f"),
        ("augmentation.context_used", "9163829dad0cdef450e4c3d7698ceb5a66da2ef520deddb9006904c712d2fcad"),
        ("augmentation.context_used", "7a7d57c92c0526680c9451f2a37a51189aa874d1b1b2c1c5ae4708dcd0d75039"),
    ],
    "answer_consistency[default]": [
        ("answer_consistency.points", "64b6da9c083f852ce58ba51442498b97e9b530f8e7f3c751c5f260889b7c24ea"),
        ("answer_consistency.attribute", "c43cb62f79991f31a16563b1d8fcb516327c2cb291aa745d8385a0fa6d26b706"),
        ("answer_consistency.attribute", "ffb1186a70bc4354aef166dd6636f7446df7e0f27c97f4b6eb7f4357ca58db57"),
        ("answer_consistency.attribute", "48566118817fcd0e6e643ad97950e059b8a533788380c64deb03a8f2a8f8a6f5"),
    ],
    "answer_consistency_binary[default]": [
        (
            "answer_consistency_binary.check",
            "e287d9cc2baf5fafb48deb0dbf0c6dca2f2d443eaf2ea0be573de03c89469577",
        ),
    ],
    "answer_similarity[default]": [
        ("answer_similarity.score", "580375ec37f5f429bd267d1aaeae3e36af20338293b3c25264fb9591eb7fe7bf"),
    ],
    "semantic_similarity[default]": [],
    "factual_correctness[default]": [
        (
            "factual_correctness.claims.extract",
            "c45fad3060f0e81cb7cc3372bcdb586091f1b3934491f98d36893b2b8bc8fa0d",
        ),
        (
            "factual_correctness.claims.extract",
            "ccff875c390d4ee34c1cdf02bef62da53382886d967dab0920164337f7cd33d2",
        ),
        (
            "factual_correctness.claims.verify",
            "67622382aecca9a5ce2076b7e73c064b9632f1dfa6bc132ae60636cdb2fcbb31",
        ),
        (
            "factual_correctness.claims.verify",
            "a07d8dd37d19e1675da96918cec1cd159666c8bbce3a3330d3bca73c7f5f5aa8",
        ),
    ],
    "nuggets[default]": [
        ("umbrela.grade", "2a67b024389b6b72fe53ead46cde22acb8c2506826aa0b7e2eaa05d3b87d2e63"),
        ("umbrela.grade", "6ef7c7caf71853f6cf95bf66852431b76836dfafff77ee01c86dfae08bd57fef"),
        ("umbrela.grade", "af1636b3781fa6dcc7b806d7d8c920844956878b624191d94db23c3f2edf815c"),
        ("nuggets.create", "fd361d5815451e034812ae70e070582a2353caa3654f45bf98a39e38130b11d7"),
        ("nuggets.create", "214e2aa29e7dc5ea62aa2bcaae8f181782d13f32b0254a03965dd5f7cf855dc9"),
        ("nuggets.importance", "2860f3813cc92e9b9e7c7dd5c5c5b8be49090bdbdb94d58b31775e0a0780c92c"),
        ("nuggets.assign", "9756aafd5f2d2844ab648fc800a492b7b1a032449e60a6e014aa87c9419f1503"),
    ],
    "citation[default]": [
        ("citation.support", "402fe6df1024b8f3bb9065f6b7164caa1b3023ad6e1b760126511bc3a1fc266d"),
        ("citation.support", "033ff66758809b0c36f3921452dbd078cd49ab542f341fd53f74db5d02eb9f04"),
    ],
    "hallucination[default]": [
        ("hallucination.consistency", "cec8c65123a8f11798057cd3d954ed0b3be7ac9449e352c0a620a82be0e3fd8d"),
    ],
    "no_answer[default]": [
        ("no_answer.attempted", "2f818a1c29b3953ed85ff81510ad3a18d0659266f4645093035f0eb8441ca021"),
    ],
    "answer_accuracy[default]": [
        ("answer_accuracy.template1", "78a11716e7466bc5740f18dacc483f934308b2b1a327ddc804d24d7c54b7c963"),
        ("answer_accuracy.template2", "3ba0919c9fb328b465a7c6562f34208ae3f6568db264731be43c076741e6ae49"),
    ],
    "context_relevance[default]": [
        ("context_relevance.template1", "42dfb25827d811c20ed42d9105cb3659ace64c8194b488d735ab58809204be31"),
        ("context_relevance.template2", "30ff47bfd465650c6c1c11ea4407d71088005071bfeea797af544213823a4776"),
    ],
    "response_groundedness[default]": [
        (
            "response_groundedness.template1",
            "275797d38ba77770fb3be3c32c54a83523bf655ee8ce8bf9ebbf3ae88fd43535",
        ),
        (
            "response_groundedness.template2",
            "40da070134f16824c67d0bc9c80520caf8d6cafc477238c6936376a1ab75b0bb",
        ),
    ],
    "consistency[default]": [],
    "consistency[lexical]": [],
    "rubric[default]": [
        ("rubric.score", "74823d3c2a46c894905ac7b611af60ecb22b292279fc61e29a66ccc9d1a1d1a5"),
    ],
    "turn_faithfulness[default]": [
        ("turn_faithfulness.single", "7c82ccd3619d6035df69777ec8c94983c5105ed96da197d2840aaf6340a40ab2"),
    ],
    "turn_relevancy[default]": [
        ("turn_relevancy.single", "3828820007103317dcbc0fcadc604dc5fc68aaca4c20058bf2c2ab1c8100a1dd"),
    ],
    "knowledge_retention[default]": [
        ("knowledge_retention.check", "44b079543fa23cae615404dc70873134b8de9c61de697fc90008cb26bfbceb7a"),
    ],
    "conversation_consistency[default]": [
        (
            "conversation_consistency.check",
            "7ae43431d832bc66631c1e651be3cfa77437aedcd9aa807871c77d2d10a3249e",
        ),
    ],
    "passage_recall[default]": [],
    "abstention[default]": [
        ("no_answer.attempted", "5dbb113146747cd8ede7d1b09477a6897d784764d1bcce889ccb7ac97e94b6c6"),
    ],
    "faithfulness[claims] batch_size=2": [
        ("faithfulness.claims.extract", "8e20020e0e1a39305637ecf3b71e025877b1823798f91b1d0d5f48dde57a500b"),
        ("faithfulness.claims.verify", "c9b9326c2a472e2907f2864f7e2ee49fb08e0f4de59f4e290081b44273c3e7c9"),
        ("faithfulness.claims.verify", "d57ad8a4ae26ff0152d5c316adcaf38507cebcdf97bf0b65068cdfc9381bb9ad"),
    ],
    "answer_relevancy[questions] n_questions=2": [
        (
            "answer_relevancy.questions.generate",
            "6c1d51d5800a4569c9af636994ad97806f61f473c42d9415a5bc9d74fa180df3",
        ),
    ],
    "context_precision[default] per_passage": [
        ("context_precision.usefulness", "e31a668c8f11b51b6ba4f74bc4d68d6d3c72e9707d260628b9ae8db03613e144"),
        ("context_precision.usefulness", "8bbca4b9968c042013a37457bfb03e075597ceab47736726bf395ae8905731c6"),
        ("context_precision.usefulness", "27d32f1d4bfaab49190e4352562291d6c8c1c7bdde006b6e2a46ba9ff3ebef0a"),
    ],
    "nuggets[default] umbrela_grades": [
        ("nuggets.create", "2825a9f3b8b6f851aafc2e059b91e8d2417dd253f4ddf744e7fb6d294ca32ef9"),
        ("nuggets.create", "7636ddff41bf9fcf4af62ac7e93c7c9f177b330ba3a4e832b979479e1115dd80"),
        ("nuggets.importance", "2860f3813cc92e9b9e7c7dd5c5c5b8be49090bdbdb94d58b31775e0a0780c92c"),
        ("nuggets.assign", "9756aafd5f2d2844ab648fc800a492b7b1a032449e60a6e014aa87c9419f1503"),
    ],
    "rubric[default] criteria": [
        ("rubric.score", "bf5f74f18008a2512641d4191014b1a63c21254087bc93a16ebab16600c915d3"),
    ],
}

#: label -> digest of the task kinds and inputs of every request the variant asks.
PINNED_TASKS: dict[str, str] = {
    "faithfulness[default]": "3f0308415499084cdfc5b0bc68abc7e8e74dcc88022d149e98616955d91677ef",
    "faithfulness[claims]": "18993a0b2361dc3761024092798cb950e4c3ac668c1b721dc9d77288ad46a37b",
    "answer_relevancy[default]": "7072c4bbb5c37e5340d7ce35c6bdb50f4a8fd4a622a97d8fd57e60f841b88523",
    "answer_relevancy[questions]": "277accfc3ab80c1643f67ee7900dc9f655fd3852dd0bcc63eb39a036c5c9ce1d",
    "context_recall[default]": "10d0fe184c366fb9ab0b090dd4e0eecf04567d8f9c0de9355369bbbb7a9f4073",
    "context_recall[attribution]": "67a8425935d5e25661c306c89282b47a7831e7a6e4cedde0faa659849fb64297",
    "context_precision[default]": "de4c810e0fdf6beade6125ce464f6504543ff381c519df104c1c8a3102adb04a",
    "umbrela[default]": "bad41dafbc632d5efd7c0f8d53deabf4f7e06bf8a7bf49218185772ee82d7989",
    "retrieval_precision[default]": "d7af2b9f9833c6c1391ef4fccffadb394f0b4e353de422852d1844ad2f21b741",
    "augmentation_precision[default]": "162291f48280a18e3f66ba1dd3ad9c1794032c11f56294d85c8e2f6a4143c935",
    "augmentation_accuracy[default]": "98d851dfd449beb140c1f240b50f3f38a42d73f8f8ff9703e61c57948f1e7e49",
    "answer_consistency[default]": "304935835cb1590224d386c2b7dfa758800575820088c544ced02fc7c0cebe94",
    "answer_consistency_binary[default]": "0441d1ce6d36da0874a475d605d4dd0bb3295bab174d5f87461f9fd164746acd",
    "answer_similarity[default]": "326f9c0cb9925a6a11b48553da12f6860ecf51001456fcb31a7e400eec20bfa1",
    "semantic_similarity[default]": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "factual_correctness[default]": "36a753a43999120f7d278ee3a0a051b60be2ced4d1c17b90277c8be4a00fdfed",
    "nuggets[default]": "08ce984f17fe8e2cd7cc2c9e5fbd2f7227eb6c31523aafa445bef27ebebcbd58",
    "citation[default]": "b942195a513d9592b32e9e1b3805c789d62f17a900a3051444bc572454aaa4f3",
    "hallucination[default]": "d57c95f68c025efdaa0496d55a6a42d9f3e92fa4d195276009edada07af510b0",
    "no_answer[default]": "9e08a5ebe02aaefc61119c876003d0188840fe91af17432b6f22e99b5425cf55",
    "answer_accuracy[default]": "e2918f105dda9a784436898d049b1bc3a6c87e9823061df6e381f3ae86e76f81",
    "context_relevance[default]": "b4087d4410c1dfdaaba475e389d108ba085cae40c1a85ea163bd76cf6d4d24fc",
    "response_groundedness[default]": "6b704bde8ef112635e90abeb80503b91d0329a0b0750b4d4107aa682de70e0fc",
    "consistency[default]": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "consistency[lexical]": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "rubric[default]": "d507bb7bbd1c0a29f1e862395a6015d9763862c62a3335aeb12adc2ff71c8a20",
    "faithfulness[claims] batch_size=2": "5b50ea2dbb1fe1e2c839cbce4bf594314225ec5922d7541b572b76e46b11acb8",
    "answer_relevancy[questions] n_questions=2": "e733e3925bc7e06b7daa7c2debc34d1012c1fff3835e95afc38af248dcf323f5",
    "context_precision[default] per_passage": "237d135d869bb77a4e18f27dcde2e6cd0f51f9fc512636314687fe6f3cee5d72",
    "nuggets[default] umbrela_grades": "d1b5fd6b232450bd8c564450048fc1aaa10547875a057503d103ac5a51cc02e7",
    "rubric[default] criteria": "823dea555404652de95c8858f4080ad5b43963435195a957d55a0861cc080bae",
    "turn_faithfulness[default]": "fc60598b5cd6a219cfb8963e0d076022447b9b7a70bec8be80cffcb6da350cc4",
    "turn_relevancy[default]": "155ca2c968a1f54a1f95cf3740159308390741cb1c62aab53549f82773d284c0",
    "knowledge_retention[default]": "c341b997e9bc2414ffe705ba6c4c6444e1f5b2dac658586687d2ed64b48351e9",
    "conversation_consistency[default]": "0406398b66cf08709276c3a07d5db2666f8cc8822c638dc3148a3e3f94849ddb",
    "passage_recall[default]": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "abstention[default]": "9e08a5ebe02aaefc61119c876003d0188840fe91af17432b6f22e99b5425cf55",
}


def test_every_catalog_entry_is_pinned() -> None:
    pinned = {(name, mode) for _, name, mode, _ in VARIANTS}
    assert pinned == {(m.name, m.mode) for m in builtin_metrics()}
    assert set(PINNED_KEYS) == set(PINNED_TASKS) == {label for label, *_ in VARIANTS}


@pytest.mark.parametrize("label,name,mode,options", VARIANTS, ids=[label for label, *_ in VARIANTS])
def test_the_requests_a_metric_asks_keep_their_cache_keys(
    label: str, name: str, mode: str, options: dict[str, Any]
) -> None:
    requests = asked(name, mode, options)
    assert key_digests(requests) == PINNED_KEYS[label]
    assert task_digest(requests) == PINNED_TASKS[label]


def test_a_reworded_docstring_of_a_nested_verdict_model_changes_the_digest() -> None:
    """The pin is worth its name only if what the cache key covers moves a digest: here the docstring
    of the model nested in a verdict's schema, the kind of edit a move between modules could slip in."""
    verify = next(r for r in asked("faithfulness", "claims", {}) if r.template_id.endswith(".verify"))
    verdicts = verify.response_model.model_fields["verdicts"]
    item = typing.get_args(verdicts.annotation)[0]
    reworded_item = create_model(item.__name__, __base__=item, __doc__="One claim's verdict.")
    reworded = create_model(
        verify.response_model.__name__,
        __base__=verify.response_model,
        verdicts=(list[reworded_item], verdicts),  # type: ignore[valid-type]
    )
    assert key_digests([dataclasses.replace(verify, response_model=reworded)]) != key_digests([verify])
