"""The odds of a judge's grade: read from the alternatives at the grade's token, combined, compared.

Worked by hand: P(4) = 0.6, P(5) = 0.3, P(3) = 0.1 gives an expected score of 3(0.1) + 4(0.6) + 5(0.3)
= 4.2 and a probability of 0.9 of reaching 4.
"""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel, Field

from pytest_rag.engine.grade_tokens import grade_odds, score_alternatives
from pytest_rag.judges.protocol import JudgeReply, TokenLogprob
from pytest_rag.judges.schema import verdict_grades
from pytest_rag.metrics.dual_rating import ThreeLevelRating
from pytest_rag.metrics.grounding import ConsistencyScore, FaithfulnessVerdict
from pytest_rag.metrics.reference.agreement import AccuracyRating, SimilarityVerdict
from pytest_rag.metrics.retrieval import UmbrelaVerdict
from pytest_rag.scoring.grade_odds import MIN_GRADE_MASS, GradeOdds, against_bar, grade_of_token, pooled

ln = math.log
ONE_TO_FIVE = (1, 2, 3, 4, 5)


def odds(**by_grade: float) -> GradeOdds:
    """Odds from probabilities keyed ``g1``, ``g2`` ... (the grade after the ``g``)."""
    made = GradeOdds.from_alternatives([(name[1:], ln(p)) for name, p in by_grade.items()], range(10))
    assert made is not None
    return made


# -- GradeOdds ---------------------------------------------------------------------------------


def test_expected_score_and_pass_probability_worked_by_hand() -> None:
    made = GradeOdds.from_alternatives([("4", ln(0.6)), ("5", ln(0.3)), ("3", ln(0.1))], ONE_TO_FIVE)
    assert made is not None
    assert dict(made.probabilities) == pytest.approx({3.0: 0.1, 4.0: 0.6, 5.0: 0.3})
    assert made.expected == pytest.approx(4.2)
    assert made.pass_probability(4) == pytest.approx(0.9)
    assert made.pass_probability(5) == pytest.approx(0.3)
    assert made.pass_probability(1) == pytest.approx(1.0)


def test_spellings_of_one_grade_add_up_and_other_tokens_are_renormalised_away() -> None:
    # " 4" and "4" are the same grade; '"' (the start of a string) and "4.5" are no grade at all.
    alternatives = [("4", ln(0.4)), (" 4", ln(0.2)), ("5", ln(0.2)), ('"', ln(0.1)), ("4.5", ln(0.1))]
    made = GradeOdds.from_alternatives(alternatives, ONE_TO_FIVE)
    assert made is not None
    assert dict(made.probabilities) == pytest.approx({4.0: 0.75, 5.0: 0.25})  # 0.6 and 0.2 of 0.8


def test_grades_outside_the_scale_do_not_count() -> None:
    made = GradeOdds.from_alternatives([("2", ln(0.7)), ("0", ln(0.2)), ("9", ln(0.1))], (0, 1, 2))
    assert made is not None
    assert dict(made.probabilities) == pytest.approx({0.0: 2 / 9, 2.0: 7 / 9})


def test_too_little_mass_on_valid_grades_gives_no_odds() -> None:
    below = [("4", ln(MIN_GRADE_MASS - 0.01)), ('"', ln(1 - MIN_GRADE_MASS + 0.01))]
    assert GradeOdds.from_alternatives(below, ONE_TO_FIVE) is None
    at = [("4", ln(MIN_GRADE_MASS)), ('"', ln(1 - MIN_GRADE_MASS))]
    assert GradeOdds.from_alternatives(at, ONE_TO_FIVE) is not None
    assert GradeOdds.from_alternatives([], ONE_TO_FIVE) is None


@pytest.mark.parametrize(
    ("token", "grade"),
    [("4", 4), (" 4", 4), ('":4', 4), ("4,", 4), ("4}", 4), ('"4"', 4), ("\n4", 4), ("7", None), ("a", None)],
)
def test_a_token_writes_a_grade_whatever_json_punctuation_it_carries(token: str, grade: int | None) -> None:
    assert grade_of_token(token, ONE_TO_FIVE) == grade


def test_the_mean_of_two_independent_ratings() -> None:
    # Two 0/1/2 ratings: P(first = 2) = 0.8, P(first = 1) = 0.2; the second is 1 for sure.
    # Mean 1.5 with 0.8, mean 1.0 with 0.2.
    mean = GradeOdds.mean_of([odds(g2=0.8, g1=0.2), odds(g1=1.0)])
    assert mean is not None
    assert dict(mean.probabilities) == pytest.approx({1.0: 0.2, 1.5: 0.8})
    assert mean.expected == pytest.approx(1.4)
    assert mean.pass_probability(1.5) == pytest.approx(0.8)  # exactly at the bar counts


def test_the_mean_of_three_grades_convolves_them() -> None:
    fair = odds(g0=0.5, g3=0.5)
    mean = GradeOdds.mean_of([fair, fair, fair])
    assert mean is not None
    assert dict(mean.probabilities) == pytest.approx({0.0: 1 / 8, 1.0: 3 / 8, 2.0: 3 / 8, 3.0: 1 / 8})
    assert sum(p for _, p in mean.probabilities) == pytest.approx(1.0)


def test_a_mean_with_an_unknown_part_has_no_odds() -> None:
    assert GradeOdds.mean_of([odds(g2=1.0), None]) is None
    assert GradeOdds.mean_of([]) is None
    single = odds(g1=0.5, g2=0.5)
    assert GradeOdds.mean_of([single]) == single


def test_judgments_of_one_check_are_pooled_by_their_means() -> None:
    first, second = odds(g4=0.6, g5=0.3, g3=0.1), odds(g4=1.0)
    expected, chance = pooled([first, second], 5)
    assert expected == pytest.approx((4.2 + 4.0) / 2)
    assert chance == pytest.approx((0.3 + 0.0) / 2)
    expected, chance = pooled([first, second], None)
    assert expected == pytest.approx(4.1) and chance is None
    assert pooled([first, None], 4) == (None, None)
    assert pooled([], 4) == (None, None)


def test_the_bar_is_held_to_the_expected_score_when_one_is_given() -> None:
    assert against_bar(4, None, 4) == (True, "score")
    assert against_bar(4, 3.6, 4) == (False, "expected_score")
    assert against_bar(3, 3.9999999999, 4) == (True, "expected_score")  # rounding of sums of odds
    assert against_bar(4, 3.6, None) == (None, "score")


# -- which verdicts have a grade ---------------------------------------------------------------


class TenPoint(BaseModel):
    score: int = Field(ge=0, le=10)


class Worded(BaseModel):
    score: str


@pytest.mark.parametrize(
    ("model", "grades"),
    [
        (FaithfulnessVerdict, (1, 2, 3, 4, 5)),
        (SimilarityVerdict, (0, 1, 2, 3, 4, 5)),
        (UmbrelaVerdict, (0, 1, 2, 3)),
        (ThreeLevelRating, (0, 1, 2)),
        (AccuracyRating, (0, 2, 4)),
        (ConsistencyScore, None),  # a 0-1 float
        (TenPoint, None),  # "1" would not tell 1 from 10
        (Worded, None),
    ],
)
def test_the_grades_of_a_verdict_come_from_its_schema(model: type[BaseModel], grades: object) -> None:
    assert verdict_grades(model) == grades


# -- the token that wrote the grade ------------------------------------------------------------


def tokens(*pieces: str | tuple[str, list[tuple[str, float]]]) -> tuple[TokenLogprob, ...]:
    """Tokens of a reply; a piece given with alternatives carries them (the others carry none)."""
    made = []
    for piece in pieces:
        text, top = piece if isinstance(piece, tuple) else (piece, [])
        made.append(TokenLogprob(text, len(text.encode("utf-8")), top[0][1] if top else 0.0, tuple(top)))
    return tuple(made)


GRADE_TOP = [("4", ln(0.6)), ("5", ln(0.3)), ("3", ln(0.1))]


def reply_of(*pieces: str | tuple[str, list[tuple[str, float]]]) -> JudgeReply:
    made = tokens(*pieces)
    return JudgeReply(text="".join(t.token for t in made), logprobs=made)


def test_the_grade_token_of_compact_json() -> None:
    reply = reply_of('{"', "reasoning", '":"', "fine", '","', "score", '":', ("4", GRADE_TOP), "}")
    assert reply.text == '{"reasoning":"fine","score":4}'
    assert score_alternatives(reply) == tuple(GRADE_TOP)


@pytest.mark.parametrize(
    "pieces",
    [
        ('{"score":', (" 4", [(" 4", ln(0.6)), (" 5", ln(0.4))]), "}"),  # merged with the space before
        ('{"score"', (":4", [(":4", ln(0.6)), (":5", ln(0.4))]), "}"),  # merged with the colon
        ('{"score": ', ("4,", [("4,", ln(0.6)), ("5,", ln(0.4))]), ' "x": 1}'),  # and with the comma
        ('{"score": "', ("4", [("4", ln(0.6)), ("5", ln(0.4))]), '"}'),  # a grade written as a string
    ],
)
def test_the_grade_token_wherever_a_tokeniser_cuts(pieces: tuple[object, ...]) -> None:
    reply = reply_of(*pieces)  # type: ignore[arg-type]
    odds_read = grade_odds(FaithfulnessVerdict, score_alternatives(reply))
    assert odds_read is not None
    assert dict(odds_read.probabilities) == pytest.approx({4.0: 0.6, 5.0: 0.4})


def test_only_the_top_level_score_counts() -> None:
    # A nested "score" and a reasoning that quotes one come before the verdict's own grade.
    reply = reply_of(
        '{"reasoning": "it said \\"score\\": ',
        ("1", [("1", 0.0)]),
        '", "detail": {"score": ',
        ("2", [("2", 0.0)]),
        '}, "score": ',
        ("4", GRADE_TOP),
        "}",
    )
    assert score_alternatives(reply) == tuple(GRADE_TOP)


def test_offsets_are_counted_in_bytes_past_wide_characters_and_fences() -> None:
    reply = reply_of(
        "Here it is:\n```json\n", '{"reasoning": "caf', "é ☕", '", "score": ', ("4", GRADE_TOP), "}\n```"
    )
    assert score_alternatives(reply) == tuple(GRADE_TOP)


def test_no_alternatives_when_the_grade_is_not_one_token_or_nothing_was_reported() -> None:
    split = reply_of('{"score": ', ("1", [("1", 0.0)]), ("0", [("0", 0.0)]), "}")  # a 10 in two tokens
    assert score_alternatives(split) is None
    bare = reply_of('{"score": ', "4", "}")  # no top_logprobs asked for
    assert score_alternatives(bare) is None
    assert score_alternatives(JudgeReply(text='{"score": 4}')) is None  # a provider without logprobs
    assert score_alternatives(reply_of('{"reasoning": ', ("4", GRADE_TOP), "}")) is None  # no score
    assert grade_odds(ConsistencyScore, GRADE_TOP) is None  # a verdict without a grade
