"""How far a snapshotted score may move, and how syrupy is told which extension compares it.

Every suite with syrupy installed starts with pytest-rag's extension as the default of the
``snapshot`` fixture (:func:`snapshot_default_args`). That happens at start-up, before anyone asks
for a snapshot, so it needs only this module: the extension itself (:mod:`.snapshot`, which imports
syrupy's Amber extension) is imported by syrupy when a test first uses ``snapshot``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import pytest

from ..errors import ConfigError

SNAPSHOT_MODULE = "pytest_rag.regression.snapshot"
EXTENSION_CLASS = "RagSnapshotExtension"
BY_TOLERANCE = EXTENSION_CLASS + "Within"


class Scored(Protocol):
    """A stored or new snapshot entry, as far as a tolerance looks at it."""

    @property
    def score(self) -> float: ...

    @property
    def repeat_range(self) -> tuple[float, float]: ...


@dataclass(frozen=True)
class Tolerance:
    """How far a score may move before the snapshot fails (see :mod:`.snapshot`)."""

    absolute: float = 0.0
    repeats: bool = False

    def __str__(self) -> str:
        if self.repeats:
            return "within the range of the repeated judgments"
        return f"±{self.absolute:g}"

    def allows(self, old: Scored, new: Scored) -> bool:
        if self.repeats:
            return _within(new.score, old.repeat_range) or _within(old.score, new.repeat_range)
        return abs(new.score - old.score) <= self.absolute + 1e-9


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] - 1e-9 <= value <= bounds[1] + 1e-9


def parse_tolerance(value: str | float | Tolerance) -> Tolerance:
    """Read a tolerance from a number or the word ``repeats``; anything else is a ConfigError."""
    if isinstance(value, Tolerance):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        text = str(value).strip().lower()
        if text == "repeats":
            return Tolerance(repeats=True)
        try:
            number = float(text)
        except ValueError:
            raise ConfigError(
                f"snapshot tolerance {value!r} is not understood; write a number of score points "
                "(e.g. 0.5) or 'repeats' (within the range of the repeated judgments)"
            ) from None
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f"snapshot tolerance must be a finite number >= 0, got {value!r}")
    return Tolerance(absolute=number)


def class_name(tolerance: Tolerance) -> str:
    """A class name that spells the tolerance (a dot cannot stand in an import path's last part)."""
    if tolerance.repeats:
        return f"{BY_TOLERANCE}Repeats"
    return f"{BY_TOLERANCE}{round(tolerance.absolute * 1_000_000)}ppm"


def extension_path(tolerance: str | float | Tolerance | None) -> str:
    """The import path of the extension for ``tolerance``, for syrupy's ``--snapshot-default-extension``.

    The tolerance is part of the class name (resolved by the snapshot module's ``__getattr__``), so the
    run's ``--rag-snapshot-tolerance`` travels with syrupy's own option, to pytest-xdist workers too,
    and no module state has to carry it.
    """
    name = EXTENSION_CLASS if tolerance is None else class_name(parse_tolerance(tolerance))
    return f"{SNAPSHOT_MODULE}.{name}"


def snapshot_default_args(early_config: Any, args: list[str]) -> None:
    """Make pytest-rag's tolerant extension the default of syrupy's ``snapshot`` fixture, through
    syrupy's own ``--snapshot-default-extension`` option, unless the run chose a default itself or
    ``rag_snapshot_default = false``. The extension's class name carries the run's tolerance.

    A run that chose pytest-rag's own extension by its plain name gets the class of the run's
    tolerance in its place: that name compares exactly, and the tolerance the run was given would
    otherwise be dropped without a word."""
    try:
        wanted = early_config.getini("rag_snapshot_default")
    except (ValueError, TypeError, pytest.UsageError):
        return  # a value that is no true/false is reported by the settings, with the option's name
    if not wanted or not early_config.pluginmanager.has_plugin("syrupy"):
        return
    tolerance = getattr(early_config.known_args_namespace, "rag_snapshot_tolerance", None)
    tolerance = tolerance or early_config.getini("rag_snapshot_tolerance") or None
    try:
        ours = extension_path(tolerance)
    except ConfigError:
        return  # a malformed tolerance is reported by the settings, with the option's name
    chosen = False
    for index, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if name != "--snapshot-default-extension":
            continue
        chosen = True
        if equals and value == extension_path(None):
            args[index] = f"{name}={ours}"
        elif not equals and index + 1 < len(args) and args[index + 1] == extension_path(None):
            args[index + 1] = ours
    if not chosen:
        args.append(f"--snapshot-default-extension={ours}")
