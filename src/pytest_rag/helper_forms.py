"""Every helper of ``rag_judge`` from one path: the score form is written once, the rest derived.

A metric's helper is written once, as a method that turns its own typed parameters into a
:class:`Check` (the sample's texts, the options, the mode and the threshold), decorated with
:func:`score_form`. That method's signature is the metric's documentation; the decorator makes it
the score form, and :meth:`SyncForm.other_forms` derives the assert form and the two async forms
with the very same parameters::

    @score_form("faithfulness")
    def faithfulness(self, answer: str, contexts: ContextLike, threshold: float | None = None,
                     *, mode: str | None = None) -> Check:
        "Is the answer supported by the contexts?"
        return Check(answer=answer, contexts=contexts, threshold=threshold, mode=mode)

    assert_faithful, afaithfulness, aassert_faithful = faithfulness.other_forms()

The parameters travel as a ``ParamSpec``, so IDE completion and ``mypy --strict`` see every one of
them on all four forms, and a new metric needs no hand-copied wrappers. Metrics that read the same
texts and take no options of their own share one builder (:func:`answer_and_contexts`,
:func:`answer_and_question`, :func:`question_and_contexts`), each form with its own docstring::

    hallucination = shared_form(answer_and_contexts, "hallucination", "0-1 factual consistency ...") The forms of a metric family
are declared in the family's helpers class, which :class:`~pytest_rag.rag_judge.RagJudge` inherits.
What a form does with the check is its owner's (:class:`CheckRunner`, implemented by ``RagJudge``):
one sync and one async way to score, each asked whether to enforce the threshold. A form renamed
later keeps its old name as ``old_name = new_form.deprecated_alias()``, which works as before and
warns once (:mod:`pytest_rag.deprecation`).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from .deprecation import warn_renamed
from .errors import InputError, RagError, handing_errors_to
from .inputs import (
    OTHER_NAMES,
    RENAMED_INPUTS,
    ContextLike,
    Sample,
    meant_input,
    read_threshold,
    require_text,
    warn_renamed_input,
)
from .results import MetricResult

P = ParamSpec("P")
F = TypeVar("F", bound="_Form[Any]")
S = TypeVar("S")
R = TypeVar("R")


def given(**options: Any) -> dict[str, Any]:
    """The options a caller gave: ``None`` means "use the metric's default", so it is left out."""
    return {name: value for name, value in options.items() if value is not None}


@dataclass(frozen=True)
class Check:
    """What one call of a helper asks for: the texts of the sample, the metric options, and the bar.

    ``metric`` and ``mode`` are filled in from the form's declaration unless the caller names them
    (the generic ``score`` forms, and helpers whose ``mode=`` parameter picks one).
    """

    answer: str | None = None
    question: str | None = None
    contexts: ContextLike = None
    reference: str | None = None
    threshold: float | None = None
    mode: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    metric: str | None = None

    def sample(self) -> Sample:
        """The texts as a :class:`~pytest_rag.inputs.Sample`; a text that is not a string (or an empty
        question) is an input error naming the argument."""
        return Sample(
            question=require_text(self.question, "question") if self.question is not None else "",
            answer=require_text(self.answer, "answer", allow_empty=True) if self.answer is not None else "",
            contexts=self.contexts,
            reference=self.reference,
        )


class CheckRunner(Protocol):
    """What a form is bound to: scores a check, and with ``enforce`` fails below its threshold;
    ``refuse`` hears of a call refused before it became a check (its test proves nothing)."""

    def run_check(self, check: Check, *, enforce: bool) -> MetricResult: ...

    async def arun_check(self, check: Check, *, enforce: bool) -> MetricResult: ...

    def refuse(self, error: RagError) -> None: ...


Build = Callable[Concatenate[Any, P], Check]


class _Form(Generic[P]):
    """A helper derived from one builder: its name, the metric it serves and how it runs."""

    def __init__(
        self, build: Build[P], metric: str | None, mode: str | None, *, enforce: bool, doc: str | None = None
    ) -> None:
        self.build = build
        self.metric = metric
        self.mode = mode
        self.enforce = enforce
        self.name = build.__name__
        self.own_doc = (inspect.getdoc(build) or "") if doc is None else doc
        """What the metric's helper is for: the builder's docstring, or the ``doc`` of a form made from
        a builder several metrics share (:func:`shared_form`)."""
        self.module = build.__module__
        """The module of the class that declares the form (set when it is declared there)."""
        parameters = list(inspect.signature(build).parameters.values())[1:]  # without self
        self.signature = inspect.Signature(parameters, return_annotation=MetricResult)
        self.source: _Form[P] = self
        self.renamed_to: _Form[P] | None = None
        """The form whose name replaces this one's, when this name is a deprecated alias."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.module = owner.__module__

    def deprecated_alias(self: F) -> F:
        """This form under an old name (the one it is assigned to) that warns once, naming this one."""
        alias = copy.copy(self)
        alias.renamed_to = self
        return alias

    def resolve(self, runner: CheckRunner, args: Any, kwargs: Any) -> Check:
        """The builder's check, with the metric and mode this form was declared for. Arguments the
        form does not take are an input error that names the form's parameters (and the likely one
        for a typo such as ``treshold=``), raised before anything is judged."""
        if self.renamed_to is not None:
            warn_renamed(f"rag_judge.{self.name}", f"rag_judge.{self.renamed_to.name}")
        with handing_errors_to(runner.refuse):
            kwargs = self._current_names(kwargs)
            try:
                self.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise InputError(self._misuse(str(exc), kwargs)) from None
            check = self.build(runner, *args, **kwargs)
            check = replace(check, threshold=read_threshold(check.threshold, f"{self.name}()"))
        metric = self.metric or check.metric
        if metric is None:
            raise TypeError(f"{self.name} names no metric; declare it with score_form('NAME')")
        return replace(check, metric=metric, mode=check.mode if check.mode is not None else self.mode)

    def _current_names(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` with the inputs' old names (``output=``, ``context=``, ``prompt=``) replaced by
        this form's, warning once per old name. Another tool's name for an input (``response=``) is an
        error pointing at this form's, even where unknown keywords are the metric's options."""
        parameters = self.signature.parameters
        renamed = dict(kwargs)
        for key in kwargs:
            if key in parameters:
                continue
            new = RENAMED_INPUTS.get(key)
            if new is not None and new in parameters:
                if new in renamed:
                    raise InputError(f"{self.name}(): {key}= is the old name of {new}=; pass {new}= only")
                warn_renamed_input(key, new)
                renamed[new] = renamed.pop(key)
            elif OTHER_NAMES.get(key) in parameters:
                raise InputError(self._misuse(f"{key}= is not one of its inputs", kwargs))
        return renamed

    def _misuse(self, problem: str, kwargs: Mapping[str, Any]) -> str:
        names = [p.name for p in self.signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        unknown = [key for key in kwargs if key not in names]
        meant = [(key, meant_input(key, names)) for key in unknown]
        hint = "".join(f" (did you mean {new}= instead of {key}=?)" for key, new in meant[:1] if new)
        shown = self.signature.replace(
            parameters=[
                p.replace(annotation=inspect.Parameter.empty) for p in self.signature.parameters.values()
            ],
            return_annotation=inspect.Signature.empty,
        )
        return f"{self.name}(): {problem}{hint}. It takes {self.name}{shown}"

    def dress(self, runner: CheckRunner, function: Any) -> Any:
        """Give the bound helper the builder's name, documentation and parameters, and keep it on
        the instance so the next lookup costs nothing."""
        function.__name__ = function.__qualname__ = self.name
        function.__doc__ = self.doc()
        function.__signature__ = self.signature
        function.__module__ = self.module
        runner.__dict__[self.name] = function
        return function

    def doc(self) -> str:
        own = self.own_doc
        if self.source is self:
            return own
        parts = [f"Deprecated: use ``{self.renamed_to.name}``."] if self.renamed_to is not None else []
        parts.append(f"The {self.kind} form of ``{self.source.name}``.")
        if self.enforce:
            parts.append(
                "Fails the test with a readable message when the score is below the threshold; "
                "a check without any threshold is refused before a judge is called."
            )
        return " ".join(parts) + ("\n\n" + own if own else "")

    @property
    def kind(self) -> str:
        prefix = "async " if isinstance(self, AsyncForm) else ""
        return prefix + ("assert" if self.enforce else "score")


class SyncForm(_Form[P]):
    @overload
    def __get__(self, runner: None, owner: type | None = None) -> SyncForm[P]: ...

    @overload
    def __get__(self, runner: CheckRunner, owner: type | None = None) -> Callable[P, MetricResult]: ...

    def __get__(self, runner: CheckRunner | None, owner: type | None = None) -> Any:
        if runner is None:
            return self
        enforce = self.enforce

        def form(*args: P.args, **kwargs: P.kwargs) -> MetricResult:
            __tracebackhide__ = True
            return runner.run_check(self.resolve(runner, args, kwargs), enforce=enforce)

        return self.dress(runner, form)

    def other_forms(self) -> tuple[SyncForm[P], AsyncForm[P], AsyncForm[P]]:
        """The assert form and the async score and assert forms, with this form's parameters."""
        derived = (
            SyncForm(self.build, self.metric, self.mode, enforce=True, doc=self.own_doc),
            AsyncForm(self.build, self.metric, self.mode, enforce=False, doc=self.own_doc),
            AsyncForm(self.build, self.metric, self.mode, enforce=True, doc=self.own_doc),
        )
        for form in derived:
            form.source = self
        return derived


class AsyncForm(_Form[P]):
    @overload
    def __get__(self, runner: None, owner: type | None = None) -> AsyncForm[P]: ...

    @overload
    def __get__(
        self, runner: CheckRunner, owner: type | None = None
    ) -> Callable[P, Coroutine[Any, Any, MetricResult]]: ...

    def __get__(self, runner: CheckRunner | None, owner: type | None = None) -> Any:
        if runner is None:
            return self
        enforce = self.enforce

        async def form(*args: P.args, **kwargs: P.kwargs) -> MetricResult:
            __tracebackhide__ = True
            return await runner.arun_check(self.resolve(runner, args, kwargs), enforce=enforce)

        return self.dress(runner, form)


def score_form(metric: str | None = None, *, mode: str | None = None) -> Callable[[Build[P]], SyncForm[P]]:
    """Make a builder of checks the score form of ``metric`` (in ``mode``, when the form is for one
    mode only). ``metric=None`` is for the generic forms, whose caller names the metric."""

    def declare(build: Build[P]) -> SyncForm[P]:
        return SyncForm(build, metric, mode, enforce=False)

    return declare


def shared_form(build: Build[P], metric: str, doc: str) -> SyncForm[P]:
    """The score form of ``metric`` made from a builder that metrics with the same inputs share (such
    as :func:`answer_and_contexts`), documented with the metric's own ``doc``. The parameters, their
    names and defaults are the builder's: metrics that read the same texts take them the same way."""
    return SyncForm(build, metric, None, enforce=False, doc=doc)


# -- builders shared by metrics with the same inputs (with shared_form) ------------------------------


def answer_and_contexts(
    self: Any, answer: str, contexts: ContextLike, threshold: float | None = None
) -> Check:
    """The check of a metric that judges an answer against the retrieved contexts."""
    return Check(answer=answer, contexts=contexts, threshold=threshold)


def answer_and_question(self: Any, answer: str, question: str, threshold: float | None = None) -> Check:
    """The check of a metric that judges an answer as a reply to the question."""
    return Check(answer=answer, question=question, threshold=threshold)


def question_and_contexts(
    self: Any, question: str, contexts: ContextLike, threshold: float | None = None
) -> Check:
    """The check of a metric that judges the retrieved contexts against the question."""
    return Check(question=question, contexts=contexts, threshold=threshold)


# -- async twins of the helpers that score many checks at once ----------------------------------------


def on_a_thread(
    sync: Callable[Concatenate[S, P], R], doc: str
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """The async twin of a blocking helper (``evaluate`` gives ``aevaluate``): the same parameters,
    seen by ``help()``, IDEs and ``mypy``, with its own ``doc``. The helper runs on a worker thread,
    its judgments still concurrent on pytest-rag's own loop, so the test's event loop keeps running.
    The helper is looked up on the instance when called, so a subclass that overrides it is
    followed by its twin too."""
    name = sync.__name__

    @functools.wraps(sync)
    async def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        __tracebackhide__ = True
        helper: Callable[P, R] = getattr(self, name)
        return await asyncio.to_thread(helper, *args, **kwargs)

    owner = sync.__qualname__.rpartition(".")[0]
    twin.__name__ = "a" + name
    twin.__qualname__ = f"{owner}.a{name}" if owner else twin.__name__
    twin.__doc__ = doc
    return twin
