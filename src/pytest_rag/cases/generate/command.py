"""``pytest-rag generate``: from a folder of documents to a case file a person reviews.

    pytest-rag generate DOCS -o tests/rag/generated.rag.jsonl [--count 20] [--kinds K=W,...] [--seed 0]
                       [--judge SPEC] [--generator auto|offline|llm] [--dry-run] [--batch] [--budget USD]

The documents are read and cut into passages (:mod:`.documents`, :mod:`.passages`), a plan of
targets is drawn with the seed (:mod:`.kinds`), and every target becomes a check of
:class:`~.metric.CaseGeneration` scored by a session of its own: the same engine, cache, judges,
dry run, budget and batch rounds as a test run, without pytest. Cases whose check fails are dropped,
and so are near-duplicate questions; the rest are written with their provenance, marked
``generated`` and not ``reviewed``.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pluggy

from ... import builtin, hookspecs
from ...config import RagSettings
from ...config.readers import read_number
from ...engine.cache import CACHE_DIR_OPTION
from ...engine.limits import BatchSettings, EngineSettings
from ...errors import ConfigError, JudgeUnavailableError, NotJudgedError, RagError, WaitingForBatchError
from ...ground.command_options import CommandOption, SubCommand, SwitchOption, ValueOption
from ...helper_forms import Check
from ...inputs import Sample
from ...results import MetricResult
from ...scoring.text import content_words, stem, tokenize
from ..files import write_cases
from ..model import Case, ContextRef, Provenance
from .documents import read_documents
from .kinds import KINDS, Fits, Target, allocate, parse_kinds, plan_targets
from .llm import METRIC
from .metric import CaseGeneration, GeneratedEvidence
from .offline import KINDS as OFFLINE_KINDS
from .offline import corpus_names, linked_questions, quantity_questions, single_questions
from .passages import DEFAULT_WORDS, Passage, split_passages
from .unanswerable import corpus_facts

TEST_ID = "pytest-rag generate"
SAME_QUESTION = 0.75
"""Share of content words two questions must have in common (Jaccard) to count as the same."""


class _GenerationPlugin:
    """Registers the generation metric in the command's own session (never in a test run)."""

    @staticmethod
    @pluggy.HookimplMarker("pytest")
    def pytest_rag_metrics() -> list[type[CaseGeneration]]:
        return [CaseGeneration]


class CommandConfig:
    """What a session reads of pytest's config, for a session outside pytest: the plugin hooks."""

    def __init__(self) -> None:
        manager = pluggy.PluginManager("pytest")
        manager.add_hookspecs(hookspecs)
        manager.register(builtin)
        manager.register(_GenerationPlugin())
        self.hook = manager.hook


GENERATE_OPTIONS: tuple[CommandOption, ...] = (
    ValueOption("docs", "DOCS", "the folder of documents (or one document)"),
    ValueOption(
        ("-o", "--output"), "FILE", "the case file to write (.rag.jsonl or .rag.yaml)", required=True
    ),
    ValueOption("--count", "N", "questions to plan (default 20)", int, 20),
    ValueOption(
        "--kinds",
        "K=W,...",
        f"kinds and weights, e.g. single_fact=3,numbers=1 (kinds: {', '.join(KINDS)}; default: all equally)",
    ),
    ValueOption("--seed", None, "seed of the plan: the same seed, the same cases", int, 0),
    ValueOption(
        "--judge", "SPEC", "judge that writes and checks, as --rag-judge (default local)", None, "local"
    ),
    ValueOption(
        "--generator",
        None,
        "who writes the questions: the judge's model (llm), extractive rules (offline); "
        "auto: the model unless the judge is offline",
        default="auto",
        choices=("auto", "offline", "llm"),
    ),
    ValueOption("--passage-words", "N", f"words per passage (default {DEFAULT_WORDS})", int, DEFAULT_WORDS),
    SwitchOption("--dry-run", "write nothing and make no live call: count and price them"),
    ValueOption("--budget", "USD", "stop live calls once this many dollars are spent", float),
    SwitchOption("--batch", "send the calls through the providers' batch APIs (half price) and wait"),
    ValueOption(
        "--batch-poll", "SECONDS", "seconds between batch status checks", float, BatchSettings().poll_s
    ),
    ValueOption("--batch-timeout", "SECONDS", "longest wait for the batches", float, BatchSettings().wait_s),
    ValueOption("--concurrency", "N", "most calls in flight at once", int, EngineSettings().concurrency),
    CACHE_DIR_OPTION,
    SwitchOption("--force", "replace the output file if it exists"),
)
"""The options of ``pytest-rag generate``, in ``--help`` order."""


MIN_PASSAGE_WORDS = 20
"""Fewer words than this rarely hold a fact and what it is about."""


def check_numbers(args: argparse.Namespace) -> None:
    """Each number option within the bounds its ``--rag-*`` twin of a test run has (a negative
    budget, a zero concurrency, NaN): an error naming the option, never a crash or a silent clamp."""
    for option, value, kind, minimum in (
        ("--count", args.count, int, 1),
        ("--passage-words", args.passage_words, int, MIN_PASSAGE_WORDS),
        ("--budget", args.budget, float, 0),
        ("--batch-poll", args.batch_poll, float, 0.001),
        ("--batch-timeout", args.batch_timeout, float, 0),
        ("--concurrency", args.concurrency, int, 1),
    ):
        read_number(None if value is None else str(value), option, kind, minimum)


def generate_command(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if not output.name.endswith((".rag.jsonl", ".rag.yaml", ".rag.yml")):
        raise ConfigError(f"-o {output}: a generated case file is written as NAME.rag.jsonl or NAME.rag.yaml")
    if output.exists() and not args.force and not args.dry_run:
        raise ConfigError(
            f"{output} exists (it may hold reviewed cases); choose another file or pass --force"
        )
    check_numbers(args)
    if not args.judge.strip():  # as an empty --rag-judge= of a test run
        raise ConfigError(
            "--judge is empty; name a judge (local, openai:gpt-4o, ...) or leave it out for the offline "
            "local judge"
        )
    settings = RagSettings(
        judge=args.judge,
        judge_source="--judge",
        base_url=None,
        cache_dir=Path(args.cache_dir),
        limits=EngineSettings(concurrency=args.concurrency),
        dry_run=args.dry_run,
        budget_usd=args.budget,
        batch=BatchSettings(poll_s=args.batch_poll, wait_s=args.batch_timeout),
    )
    from ...run.session import RagSession

    session = RagSession(CommandConfig(), settings=settings)
    try:
        return _generate(session, args, output)
    finally:
        session.close()


def _generate(session: Any, args: argparse.Namespace, output: Path) -> int:
    judges = session.judges()
    if len(judges) != 1:
        raise ConfigError(
            "--judge takes one judge for generate (an ensemble would write several cases per target)"
        )
    judge = judges[0]
    generator = _generator(args.generator, judge)
    reading = read_documents(Path(args.docs))
    documents = reading.documents
    if reading.skipped:
        print(f"skipped {len(reading.skipped)} file(s):")
        for line in reading.skipped_lines():
            print(line)
    if not documents:
        raise ConfigError(
            f"{args.docs}: no document was read ({len(reading.skipped)} file(s) skipped, listed above); "
            "give a folder of text, Markdown, reStructuredText, HTML or PDF documents"
        )
    passages = [p for d in documents for p in split_passages(d, args.passage_words)]
    available = OFFLINE_KINDS if generator == "offline" else tuple(KINDS)
    counts = allocate(args.count, parse_kinds(args.kinds, available))
    names = corpus_names(d.text for d in documents)
    fits = _offline_fits(set(names)) if generator == "offline" else {}
    targets, notes = plan_targets(passages, counts, args.seed, fits)
    print(f"read {len(documents)} document(s), {len(passages)} passage(s) from {args.docs}")
    print("planned " + ", ".join(f"{kind} {n}" for kind, n in counts.items()) + f" (seed {args.seed})")
    for note in notes:
        print(f"  {note}")
    corpus: dict[str, Any] = {"names": names, "offline_judge": bool(getattr(judge, "offline", False))}
    if generator == "offline":
        corpus["facts"] = corpus_facts([d.text for d in documents])
    jobs = [(_check(target, generator, corpus), Sample()) for target in targets]
    outcomes = session.score_many(TEST_ID, jobs, batch=args.batch)
    _check_key(judge, outcomes)
    kept, dropped, waiting = _kept(targets, outcomes)
    cases = _cases(kept, judge.spec.label, generator, args.seed)
    duplicates = len(kept) - len(cases)
    from ...report.summary import calls_line, spending_lines, total_calls

    records = list(session.results)
    for line in spending_lines(records, dry_run=args.dry_run, budget_usd=args.budget):
        print(line)
    print(calls_line(total_calls(records)))
    for reason, n in sorted(dropped.items()):
        print(f"dropped {n}: {reason}")
    if duplicates:
        print(f"dropped {duplicates}: near-duplicate question")
    if waiting:
        print(f"{waiting} case(s) wait for their provider batch: run the same command again to collect them")
        return 1
    if args.dry_run:
        print(
            f"dry run: {len(cases)} of {len(targets)} case(s) written offline or from the cache; nothing written"
        )
        return 0
    if not cases:
        print(f"no case was kept: nothing written to {output}")
        return 1
    write_cases(output, cases)
    print(f'wrote {len(cases)} of {len(targets)} case(s) to {output}: review them, then set "reviewed": true')
    return 0


def _generator(choice: str, judge: Any) -> str:
    offline = bool(getattr(judge, "offline", False))
    if choice == "auto":
        return "offline" if offline else "llm"
    if choice == "llm" and offline:
        raise ConfigError(
            f"--generator llm needs a judge with a language model; {judge.spec.label} is offline "
            "(use --judge openai:MODEL, anthropic:MODEL or ollama:MODEL, or --generator offline)"
        )
    return str(choice)


def _check_key(judge: Any, outcomes: Sequence[MetricResult | RagError]) -> None:
    """A judge that could not be called for want of an API key (no request left this machine) is
    one error naming the options of this command, not a dropped case per target naming those of a
    test run (``--rag-judge-base-url``, ``--rag-cache``)."""
    if any(isinstance(o, JudgeUnavailableError) and not o.sent for o in outcomes):
        key = getattr(judge, "key_env", None) or "its API key"
        raise ConfigError(
            f"{key} is not set, so {judge.spec.label} cannot write or check cases. Export it, give a "
            "server that needs no key with --judge PROVIDER:MODEL@URL, or use the offline judge "
            "(--judge local, the default)"
        )


def _passage_rows(passages: Sequence[Passage]) -> list[dict[str, str]]:
    return [{"id": p.id, "document": p.document, "title": p.title, "text": p.text} for p in passages]


def _offline_fits(names: set[str]) -> Fits:
    """For each kind, whether the offline generator can ask a question of those passages, so the
    plan draws from the passages it can use (each passage's questions are read once)."""
    singles: dict[str, list[tuple[str, str]]] = {}

    def single(passage: Passage) -> list[tuple[str, str]]:
        if passage.id not in singles:
            singles[passage.id] = single_questions(passage, names)
        return singles[passage.id]

    return {
        "single_fact": lambda ps: bool(single(ps[0])),
        "numbers": lambda ps: bool(quantity_questions(ps[0], names)),
        "multi_hop": lambda ps: bool(linked_questions(single(ps[0]), single(ps[1]), names)),
    }


def _check(target: Target, generator: str, corpus: dict[str, Any]) -> Check:
    """The check that writes and checks ``target``; ``corpus`` is what is read of the whole corpus
    (its names, what the unanswerable questions are made from, whether the judge is offline)."""
    options = {
        "kind": target.kind,
        "passages": _passage_rows(target.passages),
        "nearest": _passage_rows(target.nearest),
        "generator": generator,
        "pick": target.pick,
        **(corpus if generator == "offline" else {"offline_judge": corpus["offline_judge"]}),
    }
    return Check(metric=METRIC, options=options)


def _kept(
    targets: Sequence[Target], outcomes: Sequence[MetricResult | RagError]
) -> tuple[list[tuple[Target, GeneratedEvidence]], dict[str, int], int]:
    kept: list[tuple[Target, GeneratedEvidence]] = []
    dropped: dict[str, int] = {}
    waiting = 0
    for target, outcome in zip(targets, outcomes, strict=True):
        if isinstance(outcome, WaitingForBatchError):
            waiting += 1
        elif isinstance(outcome, NotJudgedError):
            continue  # counted by the dry run's lines
        elif isinstance(outcome, RagError):
            first_line = str(outcome).splitlines()[0] if str(outcome) else type(outcome).__name__
            reason = f"judge error ({type(outcome).__name__}: {shorten(first_line, REASON_WIDTH)})"
            dropped[reason] = dropped.get(reason, 0) + 1
        else:
            evidence = outcome.evidence
            assert isinstance(evidence, GeneratedEvidence)
            if evidence.kept:
                kept.append((target, evidence))
            else:
                reason = f"{target.kind}: {shorten(evidence.check, REASON_WIDTH)}"
                dropped[reason] = dropped.get(reason, 0) + 1
    return kept, dropped, waiting


REASON_WIDTH = 240
"""Longest drop reason printed; a longer one is cut between words, never inside one."""


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``width`` characters ("..." marks a cut)."""
    return textwrap.shorten(text, width=width, placeholder=" ...")


def _words(question: str) -> set[str]:
    return {stem(w) for w in content_words(tokenize(question))}


def _case_id(kind: str, question: str, taken: set[str]) -> str:
    words = content_words(tokenize(question))
    slug = "-".join(re.sub(r"[^a-z0-9]+", "", w) for w in words[:6]).strip("-")
    base = f"{kind.replace('_', '-')}-{re.sub(r'-+', '-', slug) or 'case'}"
    ident, n = base, 1
    while ident in taken:
        n += 1
        ident = f"{base}-{n}"
    taken.add(ident)
    return ident


def _cases(
    kept: Sequence[tuple[Target, GeneratedEvidence]], judge: str, generator: str, seed: int
) -> list[Case]:
    """The kept cases in plan order, without near-duplicate questions (the first of each stays)."""
    cases: list[Case] = []
    seen: list[set[str]] = []
    taken: set[str] = set()
    for target, evidence in kept:
        words = _words(evidence.question)
        if any(len(words & other) >= SAME_QUESTION * len(words | other) for other in seen if words | other):
            continue
        seen.append(words)
        answerable = target.kind != "unanswerable"
        cases.append(
            Case(
                id=_case_id(target.kind, evidence.question, taken),
                question=evidence.question,
                reference=evidence.reference,
                expected_contexts=[ContextRef(id=p.id, text=p.text) for p in target.passages]
                if answerable
                else [],
                answerable=answerable,
                generated=Provenance(
                    by="offline" if generator == "offline" else judge,
                    kind=target.kind,
                    documents=sorted({p.document for p in target.passages}),
                    seed=seed,
                    template=evidence.template,
                    support=evidence.support,
                    verified_by=judge,
                    checks=list(evidence.checks),
                ),
                reviewed=False,
            )
        )
    return cases


GENERATE_COMMAND = SubCommand(
    "generate",
    "write a case file of questions and reference answers from a folder of documents",
    "Read a folder of documents (text, HTML; Markdown, MyST and reStructuredText with the docs extra; "
    "PDF with the pdf extra), write questions with reference answers and the passages they rest on, "
    "keep those whose checks hold (supported, answerable, answering the question), and write them as "
    "a case file to review. Files that cannot be read are listed with the reason.",
    GENERATE_OPTIONS,
    generate_command,
)
"""``pytest-rag generate``: its options and the function that runs it."""
