"""Re-run the tried-and-not-kept variants of the offline judge (`local-judge-5` and `-6` rounds).

    python benchmarks/offline_judge_trials.py [--datasets ../shared/datasets]

Each variant changes one thing against the shipped judge and prints the held-out figures the
team's protocol gives (file-out for LFQA and BEGIN, grouped 5-fold for nq301; balanced accuracy /
AUROC), so the "tried" list in docs/offline-judge.md can be checked and extended. Nothing here
is shipped: the variants live in this file only, on top of scripts/fit_local_judge.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytest_rag.judges.local.alignment import index_contexts  # noqa: E402
from pytest_rag.judges.local.context_index import ContextIndex  # noqa: E402
from pytest_rag.judges.local.conversational_register import CONVERSATIONAL_WORDS  # noqa: E402
from pytest_rag.judges.local.embedder import load_embedder  # noqa: E402
from pytest_rag.judges.local.scorer import EDIT_CAP, changes_a_fact  # noqa: E402
from pytest_rag.scoring.text import NEGATION_WORDS, STOPWORDS, content_words, numbers_in, stem, tokenize  # noqa: E402

Array = npt.NDArray[np.float64]
EDIT_CAP_LOGIT = math.log(EDIT_CAP / (1.0 - EDIT_CAP))
Extra = Callable[[str, ContextIndex], tuple[float, ...]]
DATASETS = ("lfqa_answer", "lfqa_sentence", "begin")


def load_fit_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_local_judge", ROOT / "scripts" / "fit_local_judge.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fit_local_judge"] = module
    spec.loader.exec_module(module)
    return module


fit = load_fit_script()


# -- grounding variants ------------------------------------------------------------------------


def record_contexts(root: Path) -> list[list[str]]:
    """The contexts of every grounding record, in load_grounding's order."""
    lfqa = root / "lfqa_verification"
    rows = [
        *fit.read_jsonl(lfqa / "sentence_level.jsonl"),
        *fit.read_jsonl(lfqa / "answer_level.jsonl"),
        *fit.read_jsonl(root / "begin_grounded_dialogue" / "data.jsonl"),
    ]
    return [row["contexts"] for row in rows]


def with_extra_features(records: list[Any], indexes: list[ContextIndex], extra: Extra) -> list[Any]:
    """Records whose sentence (and whole-answer) features end with ``extra``'s numbers."""

    def extend(unit: Any, index: ContextIndex) -> Any:
        return dataclasses.replace(unit, features=unit.features + extra(unit.sentence, index))

    return [
        dataclasses.replace(
            r,
            units=[extend(u, index) for u in r.units],
            whole=r.whole and extend(r.whole, index),
        )
        for r, index in zip(records, indexes, strict=True)
    ]


def file_out(records: list[Any]) -> str:
    cells = []
    for dataset in DATASETS:
        y, p, threshold = fit.file_out_predictions(records, dataset)
        bacc = fit.balanced_accuracy(y, p >= threshold)
        cells.append(f"{dataset} {bacc:.3f} / {fit.auroc(y, p):.3f}")
    return "   ".join(cells)


@contextmanager
def patched(name: str, value: Any) -> Iterator[None]:
    """Swap one attribute of the fit script for the duration of a variant."""
    old = getattr(fit, name)
    setattr(fit, name, value)
    try:
        yield
    finally:
        setattr(fit, name, old)


_FILLER_EXTRA_TEXT = """
    true definitely absolutely right exactly totally agree agreed oh well ok okay much too indeed
    course thanks thank lol haha wow nice good great cool awesome sure yep nope yup certainly
"""
_FILLER_EXTRA = frozenset(_FILLER_EXTRA_TEXT.split())


def is_filler(sentence: str) -> bool:
    """A reply opener such as "Definitely." or "I agree.": at most six words, none of substance."""
    tokens = tokenize(sentence)
    allowed = STOPWORDS | CONVERSATIONAL_WORDS | _FILLER_EXTRA
    return 0 < len(tokens) <= 6 and all(t in allowed for t in tokens)


def skip_fillers(answer_row: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def row(sentence_model: Any, record: Any) -> Any:
        kept = [u for u in record.units if not is_filler(u.sentence)]
        if kept and len(kept) < len(record.units):
            record = dataclasses.replace(record, units=kept)
        return answer_row(sentence_model, record)

    return row


def char_grams(words: Sequence[str], n: int) -> set[str]:
    grams: set[str] = set()
    for word in words:
        padded = f"#{word}#"
        grams.update(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
    return grams


def char_gram_precision(sentence: str, index: ContextIndex) -> tuple[float, ...]:
    words = content_words(tokenize(sentence))
    context_words = sorted(index.tokens - STOPWORDS)
    out = []
    for n in (4, 5):
        mine, theirs = char_grams(words, n), char_grams(context_words, n)
        out.append(len(mine & theirs) / len(mine) if mine else 1.0)
    return tuple(out)


_CLAUSE_SPLIT = re.compile(r",|;|\band\b|\bbut\b|\bwhile\b|\bwhich\b|\bso\b")


def all_new_clause(sentence: str, index: ContextIndex) -> tuple[float, ...]:
    """1 when a clause of at least two content words has none the contexts hold."""
    parts = _CLAUSE_SPLIT.split(sentence)
    if len(parts) < 2:
        return (0.0,)
    for part in parts:
        words = [
            w
            for w in content_words(tokenize(part))
            if w not in CONVERSATIONAL_WORDS and w not in NEGATION_WORDS
        ]
        if (
            len(words) >= 2
            and not ({stem(w) for w in words} & index.content)
            and not (set(words) & index.tokens)
        ):
            return (1.0,)
    return (0.0,)


def grounding_trials(root: Path) -> None:
    embedder = load_embedder()
    records = fit.load_grounding(root, embedder)
    indexes = [index_contexts(embedder, contexts) for contexts in record_contexts(root)]
    base = fit.SENTENCE_FEATURES
    print("grounding, file-out balanced accuracy / AUROC")
    print(f"  {'shipped':<34} {file_out(records)}")

    with patched("answer_row", skip_fillers(fit.answer_row)):
        print(f"  {'skip filler sentences':<34} {file_out(records)}")

    grams = with_extra_features(records, indexes, char_gram_precision)
    with patched("SENTENCE_FEATURES", (*base, "char4_precision", "char5_precision")):
        print(f"  {'+ char 4/5-gram precision':<34} {file_out(grams)}")

    clauses = with_extra_features(records, indexes, all_new_clause)
    with patched("SENTENCE_FEATURES", (*base, "all_new_clause")):
        print(f"  {'+ all-new clause (feature)':<34} {file_out(clauses)}")

    # As a cap: the flag rides on the units but is cut off before the sentence model sees it.
    width = len(base)
    capped_logit, fit_logistic = fit.capped_logit, fit.fit_logistic

    def cap(logit: float, unit: Any) -> float:
        logit = capped_logit(logit, unit)
        return min(logit, EDIT_CAP_LOGIT) if unit.features[width] > 0.5 else logit

    def fit_base(x: Array, y: Array, w: Array, features: Sequence[str], l2: float = fit.L2) -> Any:
        model = fit_logistic(x[:, :width] if len(features) == width else x, y, w, features, l2)
        return _Truncating(model, len(features))

    with patched("capped_logit", cap), patched("fit_logistic", fit_base):
        print(f"  {'all-new clause (cap at 0.2)':<34} {file_out(clauses)}")

    fit_grounding = fit.fit_grounding

    def cut_at_training_threshold(train: list[Any]) -> tuple[Any, Any]:
        x, y, w = fit.sentence_training_set(train)
        sentence_model = fit.fit_logistic(x, y, w, fit.SENTENCE_FEATURES)
        cut = fit.best_threshold(np.array([sentence_model.logit(row) for row in x]), y, w)
        sentence_model = dataclasses.replace(sentence_model, intercept=sentence_model.intercept - cut)
        ax = np.array([fit.answer_row(sentence_model, r) for r in train])
        ay = np.array([r.label for r in train], dtype=np.float64)
        answer_model = fit.fit_logistic(
            ax, ay, fit.balanced_weights(ay, [r.dataset for r in train]), fit.ANSWER_FEATURES
        )
        return sentence_model, answer_model

    with patched("fit_grounding", cut_at_training_threshold):
        print(f"  {'sentence cut at training threshold':<34} {file_out(records)}")
    assert fit.fit_grounding is fit_grounding

    for l2 in (0.1, 3.0, 10.0, 30.0, 100.0):

        def fit_l2(x: Array, y: Array, w: Array, features: Sequence[str], l2: float = l2) -> Any:
            return fit_logistic(x, y, w, features, l2)

        with patched("fit_logistic", fit_l2):
            print(f"  {f'L2 = {l2:g}':<34} {file_out(records)}")


@dataclasses.dataclass(frozen=True)
class _Truncating:
    """A fitted model that reads only its own leading features of a longer row."""

    model: Any
    width: int

    def logit(self, row: Sequence[float]) -> float:
        return float(self.model.logit(tuple(row)[: self.width]))

    def probability(self, row: Sequence[float]) -> float:
        return float(self.model.probability(tuple(row)[: self.width]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


# -- local-judge-6: added content, swapped nouns, the grade's cut --------------------------------


def short_claim_trials(root: Path) -> None:
    """The added-content and noun-swap checks at other sentence lengths, and switched off; the
    faithfulness grade's pass mark by the old rule (three quarters of the sentences at 0.5)."""
    from pytest_rag.judges.local import alignment

    embedder = load_embedder()
    print("local-judge-6 checks, file-out balanced accuracy / AUROC")
    shipped = alignment.SHORT_CLAIM_WORDS
    for limit in (shipped, 8, 1000):
        alignment.SHORT_CLAIM_WORDS = limit  # type: ignore[misc]
        try:
            records = fit.load_grounding(root, embedder)
        finally:
            alignment.SHORT_CLAIM_WORDS = shipped  # type: ignore[misc]
        label = "shipped" if limit == shipped else f"limit {limit}" if limit < 1000 else "no limit"
        print(f"  {'added/swapped checks, ' + label:<34} {file_out(records)}")
    records = fit.load_grounding(root, embedder)
    capped_logit = fit.capped_logit

    def without_new_checks(logit: float, unit: Any) -> float:
        return capped_logit(logit, dataclasses.replace(unit, swapped_words=(), added_words=()))

    with patched("capped_logit", without_new_checks):
        print(f"  {'added/swapped checks off':<34} {file_out(records)}")

    print(
        "faithfulness 'grade >= 4', file-out balanced accuracy: old rule (3/4 sentences) / calibrated cut"
        " / cut and 3/4 sentences / cut and no sentence that changes a fact"
    )
    for dataset in DATASETS:
        groups = {r.group for r in records if r.dataset == dataset}
        test = [r for r in records if r.dataset == dataset]
        sentence_model, answer_model = fit.fit_grounding(
            [r for r in records if r.dataset != dataset and r.group not in groups]
        )
        y = np.array([r.label for r in test], dtype=np.float64)
        p = np.array([answer_model.probability(fit.answer_row(sentence_model, r)) for r in test])
        share = np.array(
            [
                np.mean([capped_logit(sentence_model.logit(u.features), u) >= 0 for u in r.units] or [1.0])
                for r in test
            ]
        )
        old = (share >= 0.75) | ((share >= 1.0) & (p >= 0.5))
        cut = p >= answer_model.threshold
        edited = np.array([any(changes_a_fact(u) for u in r.units) for r in test])
        print(
            f"  {dataset:<34} {fit.balanced_accuracy(y, old):.3f} / "
            f"{fit.balanced_accuracy(y, cut):.3f} / {fit.balanced_accuracy(y, cut & (share >= 0.75)):.3f}"
            f" / {fit.balanced_accuracy(y, cut & ~edited):.3f}"
        )


# -- correctness variants ----------------------------------------------------------------------

_NUMBER_WORDS_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty
"""
_ORDINALS_TEXT = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(_NUMBER_WORDS_TEXT.split())}
_ORDINALS = {w: str(i + 1) for i, w in enumerate(_ORDINALS_TEXT.split())}


def normalised_tokens(text: str) -> list[str]:
    out = []
    for token in tokenize(text):
        if token in {"a", "an", "the"}:
            continue
        token = _NUMBER_WORDS.get(token, _ORDINALS.get(token, token))
        token = re.sub(r"^(\d+)(st|nd|rd|th)$", r"\1", token)
        out.append(stem({"bce": "bc", "ce": "ad"}.get(token, token)))
    return out


def prefix_match(a: str, b: str) -> bool:
    """Same word, or a shared prefix of at least three letters and 60% of the shorter ("Dave" ~ "David")."""
    if a == b:
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return a.isalpha() and b.isalpha() and shared >= max(3, 0.6 * min(len(a), len(b)))


def correctness_extras(row: dict[str, Any]) -> tuple[float, float, float, float]:
    """Year clash with every reference, number clash with every reference, prefix recall, and
    token F1 with number words read as digits (each against the best reference)."""
    question = {stem(t) for t in content_words(tokenize(row["question"]))}
    answer = normalised_tokens(row["answer"])
    trimmed = [t for t in answer if t not in question] or answer
    years = {t for t in answer if re.fullmatch(r"1\d{3}|20\d{2}", t)}
    year_clash = number_clash = True
    any_year = any_numbers = False
    recall = f1 = 0.0
    for reference in row["references"]:
        tokens = normalised_tokens(reference)
        ref_years = {t for t in tokens if re.fullmatch(r"1\d{3}|20\d{2}", t)}
        any_year |= bool(ref_years)
        if not ref_years or not years or years & ref_years:
            year_clash = False
        ref_numbers, ans_numbers = set(numbers_in(tokens)), set(numbers_in(trimmed))
        any_numbers |= bool(ref_numbers and ans_numbers)
        if not (ref_numbers and ans_numbers) or ref_numbers & ans_numbers:
            number_clash = False
        wanted = [t for t in tokens if t not in STOPWORDS] or tokens
        if wanted and trimmed:
            recall = max(recall, sum(any(prefix_match(t, a) for a in trimmed) for t in wanted) / len(wanted))
        f1 = max(f1, token_f1(trimmed, tokens))
    return (
        float(bool(years) and any_year and year_clash),
        float(any_numbers and number_clash),
        recall,
        f1,
    )


def token_f1(candidate: Sequence[str], reference: Sequence[str]) -> float:
    pool = list(reference)
    common = 0
    for token in candidate:
        if token in pool:
            pool.remove(token)
            common += 1
    if not common:
        return 0.0
    precision, recall = common / len(candidate), common / len(reference)
    return 2 * precision * recall / (precision + recall)


def correctness_trials(root: Path) -> None:
    embedder = load_embedder()
    x, y, questions = fit.load_correctness(root, embedder)
    rows = fit.read_jsonl(root / "nq301_answer_correctness" / "data.jsonl")
    extras = np.array([correctness_extras(r) for r in rows])
    names = ("year_clash", "number_clash_all", "prefix_recall", "number_word_f1")
    base = fit.CORRECTNESS_FEATURES

    def figure(columns: Sequence[int], seed: int = fit.SEED) -> str:
        xx = np.column_stack([x, extras[:, list(columns)]]) if columns else x
        with patched("SEED", seed):
            oof, thr = fit.grouped_cv_predictions(xx, y, questions, (*base, *(names[c] for c in columns)))
        return f"{fit.balanced_accuracy(y, oof >= thr):.3f} / {fit.auroc(y, oof):.3f}"

    print("nq301, grouped 5-fold balanced accuracy / AUROC")
    print(f"  {'shipped':<34} {figure(())}")
    for c, name in enumerate(names):
        print(f"  {'+ ' + name:<34} {figure((c,))}")
    print(f"  {'+ all four':<34} {figure((0, 1, 2, 3))}")
    for seed in (1, 2, 3):
        print(
            f"  {f'fold seed {seed}: shipped / all four':<34} {figure((), seed)}   {figure((0, 1, 2, 3), seed)}"
        )
    print(
        "  year clash among acceptable / wrong answers: "
        f"{extras[y == 1, 0].mean():.3f} / {extras[y == 0, 0].mean():.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    args = parser.parse_args(argv)
    if not (args.datasets / "lfqa_verification").is_dir():
        parser.error(f"no datasets under {args.datasets}; pass --datasets PATH/TO/shared/datasets")
    grounding_trials(args.datasets)
    short_claim_trials(args.datasets)
    correctness_trials(args.datasets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
