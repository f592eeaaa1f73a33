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
    verdict = minimal_instance(request.response_schema(), InstanceOptions(prefer="max"))
    assert isinstance(verdict, dict)
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
#: metric families moved into one module each; a digest that changes is a cache key that moved.
PINNED_KEYS: dict[str, list[tuple[str, str]]] = {
    "faithfulness[default]": [
        ("faithfulness.single", "af43b0f10e5ec2674b79c0e014870b2c8a4d3ced1984e0e5d6f796b44169f5f9"),
    ],
    "faithfulness[claims]": [
        ("faithfulness.claims.extract", "5e7d1e0e4f719fcb84f37ffe14bf6d61ca906b5ebeb3fdab2de75cf5a27f909c"),
        ("faithfulness.claims.verify", "8aefdf812038a5082c99088f52fb097de8771a729a82a6c0517d222bdd391987"),
    ],
    "answer_relevancy[default]": [
        ("answer_relevancy.single", "a05311560e3ec8b3d76fb8a7b54508e7f9ba96ac6e9b83ce3b98f6ea9b7f197b"),
    ],
    "answer_relevancy[questions]": [
        (
            "answer_relevancy.questions.generate",
            "83a259a899e0c399f7e1a1deadaee4502197eb2bb6d371385b063a6b89e14ea7",
        ),
    ],
    "context_recall[default]": [
        ("context_recall.single", "ec26b690929613c1b77cf6bcc6c6ef1c6877670860ec1c5045d95f3fe140f51e"),
    ],
    "context_recall[attribution]": [
        (
            "context_recall.attribution.extract",
            "22c9cf951b5eddc28f43b4282a360dfa4fbfbb9eee470773abd6ab4c10b20c44",
        ),
        (
            "context_recall.attribution.attribute",
            "4f938c102cb18097bae51b42ba43e9ee2f88a7223b2e1dc37c0756f577a11e30",
        ),
    ],
    "context_precision[default]": [
        (
            "context_precision.usefulness_all",
            "1697ba7d1d4f6569595fd6282b8815759d68ab7658c8cbac9c3dfefcf48c019f",
        ),
    ],
    "umbrela[default]": [
        ("umbrela.grade", "745783c95da7cc04464824914d85a733ae8d89b752cffd95752f9e30f3e7155d"),
        ("umbrela.grade", "273fb0057faa0a75ce53e65492dc214d0452118025c19071d39914af4323eff4"),
        ("umbrela.grade", "7547aa0fa4b3e31edd7964d4ab28dc97407f7f956e250e6273e03c897b0fed6f"),
    ],
    "retrieval_precision[default]": [
        ("retrieval_precision.relevance", "b9b12aaba71d639533382f4ea17a23720298dc07a65b6f5a0da9765a9d7f0f52"),
        ("retrieval_precision.relevance", "adb74b623ab4f46ffd8e2f008843b145b6835963bb9e623442200374fbd2c4f3"),
        ("retrieval_precision.relevance", "8c475e5bbc2ecfc94ad4cb032a6d3d678c3c0c42ac4187c41fa2d7656630de0f"),
    ],
    "augmentation_precision[default]": [
        ("retrieval_precision.relevance", "3647aced0327c07d2c79f6ee154987b470a3e759dd406f891aafa0a0a942ede6"),
        ("retrieval_precision.relevance", "89f0663707e07fc331b48459d6f7b67a4aaa143d0b58b42327f1e5de2aa16e02"),
        ("retrieval_precision.relevance", "30d3662fe3175a6ec7c9ed35ebb483bc7991f77a91b3ba7edd17184006c3f67d"),
        ("augmentation.context_used", "fb31506eacf5714d49e831eca755a844ed866fb14f44d9513c4e8df52cf00965"),
        ("augmentation.context_used", "19d7d26a93b1d764a83c822c2e1c67ae1df268a7c97a054a43bb3ec8f1fa96c3"),
        ("augmentation.context_used", "ec97a76871af95574a0716574ca1ce2367d55905990cb315c51fc636eed9e280"),
    ],
    "augmentation_accuracy[default]": [
        ("augmentation.context_used", "1391f46756c2481b79d70c7e73cd69c03224670943a3d594b246b2fa31777450"),
        ("augmentation.context_used", "9dd0833cbe15616a7670f11c2df70673c5de7ab08ebde65e783d37179abb2c1f"),
        ("augmentation.context_used", "5f187190317dda81b810c8c70eb9c6d99c00be83033b075fc454c9a3d5be0a99"),
    ],
    "answer_consistency[default]": [
        ("answer_consistency.points", "34e9a5486b215d623194ab84957d9243c14570152cac4911ad4e4fc1560a234c"),
        ("answer_consistency.attribute", "2249983c708de82dcaf327bb80b85e69e2e34941713d9bdbe18bdd0f106c68a5"),
        ("answer_consistency.attribute", "c4a97df6da229382836bde1a35b4589697d9753cc743e098bbd76b3ea6745652"),
        ("answer_consistency.attribute", "3a25bd04384dc020421b29d623b79dc7bf16378429871ba2ac11432e96e4d537"),
    ],
    "answer_consistency_binary[default]": [
        (
            "answer_consistency_binary.check",
            "ed10b1c47ba3ae79430fc0d02dce577596dcd75d78c1a07978e4fca015386b51",
        ),
    ],
    "answer_similarity[default]": [
        ("answer_similarity.score", "7295d5dca70d799429eed26c7885e2a6c49f7cc6c7d28377e12b0085c7b27bcd"),
    ],
    "semantic_similarity[default]": [],
    "factual_correctness[default]": [
        (
            "factual_correctness.claims.extract",
            "d5dda424fef786466c1a4b61526540cb5957a6a977fce808537b9da317bedd45",
        ),
        (
            "factual_correctness.claims.extract",
            "71b9c167a39e76a319f6703695d9dd34f1d7c6d9c79babc859780d502691efb2",
        ),
        (
            "factual_correctness.claims.verify",
            "454e1ec1b4a973294b781806ec21fe4d25fd73780eb045e3d6334336cd1ef6bb",
        ),
        (
            "factual_correctness.claims.verify",
            "ac82f7a6bdaa261784f00d6f22ae93b84b34f7751f13c3d65928b68cdcff2cab",
        ),
    ],
    "nuggets[default]": [
        ("umbrela.grade", "3ed9be476e4a1a47d7139333d3aff1f543fa67d0f94d8a84bea96c957b99d5f4"),
        ("umbrela.grade", "2cb95ccfc7a05beda53c0ddca88c4a1093b38ae14a17a3fdd81b57ceb4ae055d"),
        ("umbrela.grade", "c0e8cd946eba4ce06d6194916d81d4a44cb4df37266de0885fa39a42bec5d41a"),
        ("nuggets.create", "00c6c6b83890efeddf9f74480ad5e53592627f8b90c7cf6f7215b83028c1bbf7"),
        ("nuggets.create", "688edfd1038bf274fb38dedd6edafda890809613b5402dcc06d5d57080fa1d7a"),
        ("nuggets.importance", "85c73f5f424ea414856643b0bfc790b1f2602036690f7d57dbb307a136bcacd1"),
        ("nuggets.assign", "1eceee96680af7fbba869e24ffb1829c55f69af16818d2207d925ebccd0eb920"),
    ],
    "citation[default]": [
        ("citation.support", "993ba3a5aa7f94e3ba1305a76e3b5762930d3713548f351d4463522b762b5356"),
        ("citation.support", "bd2175647d720726d3107722f37c0c2f9a747592879a24d21a2265cfdb54bd8b"),
    ],
    "hallucination[default]": [
        ("hallucination.consistency", "6a8c3c4eb04cb95d630da8d88ff0e32866184a4315e29d23de7c8f794e67d070"),
    ],
    "no_answer[default]": [
        ("no_answer.attempted", "175278b168c6f3e3d5fea55e930b94bb595738a1d2db0a9cf50e7bee02dcfbbf"),
    ],
    "answer_accuracy[default]": [
        ("answer_accuracy.template1", "78a11716e7466bc5740f18dacc483f934308b2b1a327ddc804d24d7c54b7c963"),
        ("answer_accuracy.template2", "3ba0919c9fb328b465a7c6562f34208ae3f6568db264731be43c076741e6ae49"),
    ],
    "context_relevance[default]": [
        ("context_relevance.template1", "d924f3fd414ac30af186a1fe446bd91893848c4d9dfe1a16b38f38462f51e26d"),
        ("context_relevance.template2", "e6e949db3f474b12328b52ed6a14ff07886f6c78fa011e527aef09dcabce1a37"),
    ],
    "response_groundedness[default]": [
        (
            "response_groundedness.template1",
            "1c74c644019b0fe6c0072d3a90616d1fb81a8cf55ae788cbfd46e9bf529c51db",
        ),
        (
            "response_groundedness.template2",
            "59b089f65cce019cb0173bad09276a14f3e444ef6b171c7d215b6d8531d95d19",
        ),
    ],
    "consistency[default]": [],
    "consistency[lexical]": [],
    "rubric[default]": [
        ("rubric.score", "1973261926a142eda85c18a8c7988d9c2e0347349eb5dbc9c6ffb9970a5cdb56"),
    ],
    "faithfulness[claims] batch_size=2": [
        ("faithfulness.claims.extract", "5e7d1e0e4f719fcb84f37ffe14bf6d61ca906b5ebeb3fdab2de75cf5a27f909c"),
        ("faithfulness.claims.verify", "fd55f42facd9ff3303a0baac726fdbfba7f55f03e80ad947d2105b088fc902f9"),
        ("faithfulness.claims.verify", "aa3e716eda9dacc64cdea3961c0da74d438e6d34780d1d71f0b320ed5b13e3a1"),
    ],
    "answer_relevancy[questions] n_questions=2": [
        (
            "answer_relevancy.questions.generate",
            "750f88ac4d056f5b8cb62418ef22354d61b6c109fed8c3dd2053bfa8805903de",
        ),
    ],
    "context_precision[default] per_passage": [
        ("context_precision.usefulness", "a4e25b1cbaeb077416367cbba5d565d272bb84b8227993775638b66204360b1f"),
        ("context_precision.usefulness", "a91684e835ffa9c17d45f3571de417c76d8d0df046440a1bc3818850421c4cec"),
        ("context_precision.usefulness", "35e7fd7b2068931a801cfb8efa84096a5d75943d8024af59f927cf97c56dc11a"),
    ],
    "nuggets[default] umbrela_grades": [
        ("nuggets.create", "836a04203f37411ca9b8d39343ef9d0d81f90ecf587a2a3b08fdb7dfb6d48403"),
        ("nuggets.create", "aa729d6d0496f52812dcbd2caffc063c54da9a22aa959a0fdaadac6130addb05"),
        ("nuggets.importance", "85c73f5f424ea414856643b0bfc790b1f2602036690f7d57dbb307a136bcacd1"),
        ("nuggets.assign", "1eceee96680af7fbba869e24ffb1829c55f69af16818d2207d925ebccd0eb920"),
    ],
    "rubric[default] criteria": [
        ("rubric.score", "0f691c0265aecb27ebbe4657437f51d3bb4e06666b77a76a3f7dcb66d8f5f16c"),
    ],
    "turn_faithfulness[default]": [
        ("turn_faithfulness.single", "683ac4b68e4aadde6b2768df2fb763649efc23aa4716cd674344742963a48e8d"),
    ],
    "turn_relevancy[default]": [
        ("turn_relevancy.single", "dd9a37183a877cc49676944b55bda00ead96098e07ac348de1cd68bbc9bedc22"),
    ],
    "knowledge_retention[default]": [
        ("knowledge_retention.check", "716ed3e203fa22c66c7862a834d0c7c9fb3299e185cd90546cc82df0db01f94e"),
    ],
    "conversation_consistency[default]": [
        (
            "conversation_consistency.check",
            "5cd5d339626039fd295c9aa1133c37f82bba050ed7bc56b32615f9b3cf523e84",
        ),
    ],
    "passage_recall[default]": [],
    "abstention[default]": [
        ("no_answer.attempted", "bd269a8e9e152b1c33fa2fda1c3e0b05be7fc893f03fd4f28e7e68cbbf6d061a"),
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
