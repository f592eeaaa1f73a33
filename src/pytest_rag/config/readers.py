"""Reading one setting: from the command line, else the ini file (else the environment, where one
applies), checked as a number or resolved as a path, and named in errors by where it was set.

Every feature's options (:mod:`.regression`, :mod:`.batch`, :mod:`.pass_on`, :mod:`.cases`, and the
judge options of :mod:`pytest_rag.config` itself) are read with these. They live in a module of their
own, imported by the feature modules and by the package alike, so that the package can import the
feature modules without any of them importing the package back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..errors import ConfigError


def on_command_line(option: str) -> str:
    """How an error names a setting given on the command line."""
    return f"{option} (command line)"


def in_ini_file(key: str, config: Any) -> str:
    """How an error names a setting of the ini file: with the file it is in (``rag_cache (ini file
    pytest.ini)``), or as ``-o KEY=VALUE`` of the command line, which overrides the file."""
    overrides = config.getoption("override_ini") or []
    if any(str(given).split("=", 1)[0].strip() == key for given in overrides):
        return f"{key} (-o on the command line)"
    inipath = getattr(config, "inipath", None)
    if inipath is None:
        return f"{key} (ini file)"
    try:
        shown = Path(inipath).relative_to(Path.cwd())
    except ValueError:
        shown = Path(inipath)
    return f"{key} (ini file {shown})"


def option_source(config: Any, option: str) -> str:
    """Where the option ``option`` (``rag_html``) was set: its command-line flag when given there,
    else its ini key, as errors name it."""
    if config.getoption(option):
        return on_command_line(f"--{option.replace('_', '-')}")
    return in_ini_file(option, config)


def in_environment(variable: str) -> str:
    """How an error names a setting taken from an environment variable."""
    return f"{variable} (environment)"


_KINDS = {int: "a whole number", float: "a number"}


def ini_value(config: Any, name: str) -> str | None:
    """The ini file's value of ``name``, stripped; None when it is not set (or empty)."""
    value = config.getini(name)
    if value in (None, "", []):
        return None
    return str(value).strip()


def ini_flag(config: Any, key: str) -> bool:
    """A true/false ini key; a value pytest cannot read as one (``yes please``) is an error naming the
    key and its file, where pytest's own says only "invalid truth value"."""
    try:
        return bool(config.getini(key))
    except (ValueError, TypeError, pytest.UsageError) as exc:
        raise ConfigError(
            f"{in_ini_file(key, config)} must be true or false (also 1/0, yes/no, on/off): {exc}"
        ) from None


def read_number(text: str | None, source: str, kind: type[int] | type[float], minimum: float) -> Any:
    """``text`` as a number of ``kind``, at least ``minimum`` (None for no text); an error names
    ``source``, where the setting was given."""
    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(f"{source} must be {_KINDS[kind]}, got {text!r}") from None
    if value != value:  # NaN passes every 'at least' check below and then fails every comparison
        raise ConfigError(f"{source} must be a number, got {text!r}; write e.g. 0.8")
    if value < minimum:
        raise ConfigError(f"{source} must be at least {minimum}, got {value}")
    return value


def pick_number(
    config: Any, option: str, ini: str, kind: type[int] | type[float], default: Any, minimum: float
) -> Any:
    """A number from the command line ``option``, else the ini key ``ini``, else ``default``."""
    cli = config.getoption(option)
    if cli is not None:
        return read_number(str(cli), on_command_line(f"--{option.replace('_', '-')}"), kind, minimum)
    from_ini = read_number(ini_value(config, ini), in_ini_file(ini, config), kind, minimum)
    return default if from_ini is None else from_ini


def lines_option(config: Any, option: str, ini: str) -> tuple[list[str], str]:
    """The values of a repeatable command-line ``option`` (``action="append"``), else the lines of
    the ini key ``ini`` (a ``linelist``), and where they were set, for errors about them."""
    given = config.getoption(option)
    if given:
        return [str(item) for item in given], on_command_line(f"--{option.replace('_', '-')}")
    return [str(line) for line in config.getini(ini)], in_ini_file(ini, config)


def path_option(config: Any, option: str, ini: str) -> Path | None:
    """A path from the command line (relative to the working directory) or ini (relative to rootdir)."""
    cli = config.getoption(option)
    if cli:
        return Path(str(cli)).absolute()
    text = ini_value(config, ini)
    if not text:
        return None
    path = Path(text)
    return path if path.is_absolute() else Path(str(config.rootpath)) / path


def ini_keys(config: Any) -> list[str]:
    """The keys the ini file (and ``-o``) set, registered or not."""
    # pytest 9 keeps them in _inicfg and deprecates the public inicfg of earlier versions
    raw = getattr(config, "_inicfg", None)
    return list(raw if raw is not None else getattr(config, "inicfg", {}))
