"""Short knowledge, paraphrased chat replies: the chat around a claim ("Oh wow, I believe ...",
"..., right?", "back in 1889") is not a claim, and a reply that adds a fact is still unsupported.
Sentences written for these tests."""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.chat_frames import strip_chat
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.tasks import faithfulness_single


@pytest.mark.parametrize(
    ("reply", "claim"),
    [
        ("Oh wow, I believe it was finished in 1889!", "It was finished in 1889!"),
        ("Yeah I think they formed in Liverpool back in 1960.", "They formed in Liverpool in 1960."),
        ("The tower was completed in 1889, right?", "The tower was completed in 1889."),
        ("Haha, the museum opens at ten on Sundays.", "The museum opens at ten on Sundays."),
        ("I'm pretty sure that penguins cannot fly.", "Penguins cannot fly."),
        ("Did you know that the bridge opened in 1962?", "The bridge opened in 1962."),
    ],
)
def test_the_chat_around_a_claim_is_cut_off(reply: str, claim: str) -> None:
    assert strip_chat(reply) == claim


@pytest.mark.parametrize(
    "sentence",
    [
        "Yes, it is.",  # a short echo of a yes/no question: read with the question
        "No.",
        "Yes I think so.",
        "Wow, I love that!",  # nothing but chat: judged as it is
        "I think my favourite was the second album.",  # about the speaker: a claim no knowledge backs
        "Well known artists live on the island.",  # "well" without a mark is not an interjection
        "Me too, I went there last summer.",
    ],
)
def test_what_the_speaker_says_or_a_short_answer_stays(sentence: str) -> None:
    assert strip_chat(sentence) == sentence


TOWER = ["The Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair in Paris."]
BAND = ["The Beatles were an English rock band formed in Liverpool in 1960."]
BIRDS = ["Penguins are a group of flightless aquatic birds that live almost only in the Southern Hemisphere."]


@pytest.mark.parametrize(
    ("reply", "knowledge"),
    [
        ("Oh wow, I believe it was finished in 1889 for the World's Fair!", TOWER),
        ("Yeah, I think the Eiffel Tower was completed back in 1889, right?", TOWER),
        ("Yeah, I think they formed in Liverpool back in 1960!", BAND),
        ("Oh yeah, penguins can't fly and they live almost only in the Southern Hemisphere!", BIRDS),
    ],
)
def test_a_chatty_reply_restating_its_knowledge_passes(
    scorer: LocalScorer, reply: str, knowledge: list[str]
) -> None:
    verdict = faithfulness_single(scorer, {"answer": reply, "contexts": knowledge})
    assert verdict["score"] == 5, verdict["reasoning"]
    assert "conversational" in verdict["reasoning"]


@pytest.mark.parametrize(
    ("reply", "knowledge"),
    [
        ("Oh wow, I believe it was finished in 1889 and it was painted bright red at first!", TOWER),
        ("Yeah, I think the Eiffel Tower was completed back in 1889 by Italian engineers.", TOWER),
        ("Yeah, I think they formed in Liverpool back in 1960 and split up in 1975!", BAND),
        ("Oh yeah, penguins can't fly, and they can hold their breath for twenty minutes!", BIRDS),
    ],
)
def test_a_chatty_reply_that_adds_a_fact_still_fails(
    scorer: LocalScorer, reply: str, knowledge: list[str]
) -> None:
    assert faithfulness_single(scorer, {"answer": reply, "contexts": knowledge})["score"] < 4
