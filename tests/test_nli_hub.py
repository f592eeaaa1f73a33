"""``--rag-judge=nli:ORG/NAME``: an NLI model fetched from a fake Hugging Face hub.

The real ``huggingface_hub`` library talks to :class:`fake_hub.FakeHub` on 127.0.0.1, which serves
the tiny rigged models of :mod:`nli_models`. In-process tests point the library's settings at the
fake hub and a fresh cache folder; the end-to-end runs set ``HF_ENDPOINT`` and ``HF_HOME`` for a
pytest subprocess, as a user would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fake_hub import FakeHub
from nli_models import CONTEXT, build_onnx_model, build_transformers_model
from pytest_rag.judges.nli import hub as hub_module
from pytest_rag.judges.nli.errors import NliModelError
from pytest_rag.judges.nli.formats import ONNX, TRANSFORMERS, choose_files, installed_runtimes
from pytest_rag.judges.nli.hub import HubName, HubPlace, fetch_hub_model, hub_name_of
from pytest_rag.judges.nli.model import load_nli_model
from pytest_rag.judges.protocol import JudgeSpec

pytest_plugins = ["pytester"]

huggingface_hub = pytest.importorskip("huggingface_hub")
hub_constants = pytest.importorskip("huggingface_hub.constants")

REPO = "tiny-org/tiny-nli"
SECRET = "hf_fake_secret_token_0123456789"
SUPPORTED = "The Eiffel Tower was completed in 1889."
FLIPPED_LABELS = {"0": "ENTAILMENT", "1": "NEUTRAL", "2": "CONTRADICTION"}


def _read_files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def _as_hub_repo(directory: Path) -> dict[str, bytes]:
    """A model folder laid out as hub repositories often are: the graph in onnx/, next to a
    quantised variant and PyTorch weights, none of which the ONNX runtime should download."""
    files = _read_files(directory)
    files["onnx/model.onnx"] = files.pop("model.onnx")
    files["onnx/model_qint8_avx512.onnx"] = b"a quantised variant"
    files["pytorch_model.bin"] = b"weights of the other format"
    files["README.md"] = b"# tiny rigged NLI model\n"
    return files


@pytest.fixture(scope="module")
def repo_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return _as_hub_repo(build_onnx_model(tmp_path_factory.mktemp("hub_onnx")))


@pytest.fixture(scope="module")
def flipped_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The same model with the label map turned around: it reads supported sentences as contradicted."""
    return _as_hub_repo(build_onnx_model(tmp_path_factory.mktemp("hub_flipped"), id2label=FLIPPED_LABELS))


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as server:
        yield server


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "hf-cache"


@pytest.fixture(autouse=True)
def no_ambient_token_or_telemetry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No token from this machine, and none of the library's telemetry, which would otherwise ask
    the real hub (named in the library's settings) for its list of coding agents."""
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hub_constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    monkeypatch.setattr(hub_constants, "HF_HUB_DISABLE_TELEMETRY", True)


@pytest.fixture
def judge_place(hub: FakeHub, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> HubPlace:
    """What a judge built in this process takes for the library's settings: the fake hub, a fresh cache."""
    place = HubPlace(hub.url, cache_dir, offline=False)
    monkeypatch.setattr(HubPlace, "from_library", classmethod(lambda cls, library: place))
    return place


@pytest.fixture
def a_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests that fail before any model loads: a runtime counts as installed even where none is."""
    monkeypatch.setattr(hub_module, "installed_runtimes", lambda: (ONNX,))


def _place(hub: FakeHub, cache_dir: Path, *, offline: bool = False) -> HubPlace:
    return HubPlace(hub.url, cache_dir, offline)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cross-encoder/nli-deberta-v3-base", HubName("cross-encoder/nli-deberta-v3-base")),
        ("org/model.v2@v1.0", HubName("org/model.v2", "v1.0")),
        ("org/model@refs/pr/3", HubName("org/model", "refs/pr/3")),
        ("./org/model", None),
        ("../models/nli", None),
        ("/models/nli", None),
        ("~/models/nli", None),
        ("C:\\models\\nli", None),
        ("models/nli/deberta", None),
        ("model-without-org", None),
        ("org--x/model", None),  # not a name the hub allows
        ("org/model.", None),
        ("", None),
    ],
)
def test_only_a_bare_org_slash_name_asks_the_hub(text: str, expected: HubName | None) -> None:
    assert hub_name_of(text) == expected


def test_an_existing_folder_wins_over_a_hub_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "model").mkdir(parents=True)
    assert hub_name_of("org/model") is None
    assert hub_name_of("org/other") == HubName("org/other")


@pytest.mark.parametrize(
    ("available", "runtimes", "expected"),
    [
        # both formats present, both runtimes installed: ONNX, and only its files
        (
            ["config.json", "tokenizer.json", "onnx/model.onnx", "onnx/model_O4.onnx", "pytorch_model.bin"],
            (ONNX, TRANSFORMERS),
            ("onnx", "onnx/model.onnx", {"config.json", "tokenizer.json", "onnx/model.onnx"}),
        ),
        # a top-level graph is taken before the onnx/ folder's; external weights come along
        (
            ["config.json", "tokenizer.json", "model.onnx", "model.onnx_data", "onnx/model.onnx"],
            (ONNX,),
            ("onnx", "model.onnx", {"config.json", "tokenizer.json", "model.onnx", "model.onnx_data"}),
        ),
        # ONNX without tokenizer.json cannot run there; transformers takes safetensors over .bin
        (
            ["config.json", "spm.model", "tokenizer_config.json", "model.onnx", "model.safetensors", "pytorch_model.bin"],
            (ONNX, TRANSFORMERS),
            ("transformers", "model.onnx", {"config.json", "spm.model", "tokenizer_config.json", "model.safetensors"}),
        ),
        # a sharded checkpoint is its index and every shard
        (
            ["config.json", "vocab.txt", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
             "model-00002-of-00002.safetensors", "flax_model.msgpack"],
            (TRANSFORMERS,),
            ("transformers", "model.onnx", {"config.json", "vocab.txt", "model.safetensors.index.json",
                                            "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}),
        ),
    ],
)  # fmt: skip
def test_choose_files_takes_one_complete_format(
    available: list[str], runtimes: tuple[object, ...], expected: tuple[str, str, set[str]]
) -> None:
    files = choose_files(available, runtimes)  # type: ignore[arg-type]
    assert files is not None
    assert (files.runtime.format, files.onnx_file, set(files.files)) == expected


@pytest.mark.parametrize(
    ("available", "runtimes"),
    [
        (["config.json", "tokenizer.json", "pytorch_model.bin"], (ONNX,)),
        (["config.json", "model.onnx"], (ONNX, TRANSFORMERS)),  # no tokenizer at all
        (["README.md", "model.safetensors", "tokenizer.json"], (TRANSFORMERS,)),  # no config.json
    ],
)
def test_choose_files_refuses_an_incomplete_format(
    available: list[str], runtimes: tuple[object, ...]
) -> None:
    assert choose_files(available, runtimes) is None  # type: ignore[arg-type]


def test_first_fetch_downloads_only_what_the_runtime_reads(
    hub: FakeHub, cache_dir: Path, repo_files: dict[str, bytes]
) -> None:
    commit = hub.add_commit(REPO, repo_files)
    model = fetch_hub_model(HubName(REPO), _place(hub, cache_dir))
    assert model.commit == commit
    assert model.label == f"{REPO}@{commit[:12]}"
    assert model.model_dir.path == cache_dir / "models--tiny-org--tiny-nli" / "snapshots" / commit
    assert (model.model_dir.format, model.model_dir.onnx_file) == ("onnx", "onnx/model.onnx")
    assert set(_read_files(model.model_dir.path)) == {"config.json", "tokenizer.json", "onnx/model.onnx"}
    downloaded = " ".join(r.path for r in hub.requests if r.method == "GET")
    assert "pytorch_model.bin" not in downloaded and "qint8" not in downloaded and "README" not in downloaded
    entailment = load_nli_model(model.model_dir).entailment(
        [CONTEXT, CONTEXT], [SUPPORTED, "It is not tall."]
    )
    assert entailment[0] > 0.5 > entailment[1]


def test_a_transformers_model_is_fetched_when_that_is_the_runtime(
    hub: FakeHub, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _read_files(build_transformers_model(tmp_path / "saved"))
    files["pytorch_model.bin"] = b"older weights of the same model, not needed beside safetensors"
    hub.add_commit(REPO, files)
    monkeypatch.setattr(hub_module, "installed_runtimes", lambda: (TRANSFORMERS,))
    model = fetch_hub_model(HubName(REPO), _place(hub, cache_dir))
    assert model.model_dir.format == "transformers"
    assert set(_read_files(model.model_dir.path)) == set(files) - {"pytorch_model.bin"}
    entailment = load_nli_model(model.model_dir).entailment(
        [CONTEXT, CONTEXT], [SUPPORTED, "It is not tall."]
    )
    assert entailment[0] > 0.5 > entailment[1]


def test_a_cached_model_is_used_without_any_request(
    hub: FakeHub, cache_dir: Path, repo_files: dict[str, bytes]
) -> None:
    commit = hub.add_commit(REPO, repo_files)
    fetch_hub_model(HubName(REPO), _place(hub, cache_dir))
    asked = len(hub.requests)
    # The same server under another name: a request, had there been one, would reach it.
    same_server = HubPlace(hub.url.replace("127.0.0.1", "localhost"), cache_dir, offline=False)
    again = fetch_hub_model(HubName(REPO), same_server)
    assert len(hub.requests) == asked
    assert again.commit == commit
    offline = fetch_hub_model(HubName(REPO, commit), _place(hub, cache_dir, offline=True))
    assert offline.commit == commit and len(hub.requests) == asked


@pytest.mark.usefixtures("a_runtime")
def test_offline_with_an_empty_cache_names_model_cache_and_command(hub: FakeHub, cache_dir: Path) -> None:
    with pytest.raises(NliModelError) as caught:
        fetch_hub_model(HubName(REPO, "v1"), _place(hub, cache_dir, offline=True))
    message = str(caught.value)
    assert "HF_HUB_OFFLINE is set" in message and f"{REPO}@v1" in message
    assert str(cache_dir) in message and f"`hf download {REPO} --revision v1`" in message
    assert hub.requests == []


def test_offline_with_a_partial_copy_says_what_the_cache_holds(
    hub: FakeHub, cache_dir: Path, repo_files: dict[str, bytes]
) -> None:
    hub.add_commit(REPO, repo_files)
    huggingface_hub.hf_hub_download(REPO, "config.json", cache_dir=cache_dir, endpoint=hub.url)
    with pytest.raises(NliModelError, match=r"holds only config\.json of it, not a complete model"):
        fetch_hub_model(HubName(REPO), _place(hub, cache_dir, offline=True))


def test_unknown_model_and_unknown_revision_are_named(
    hub: FakeHub, cache_dir: Path, repo_files: dict[str, bytes]
) -> None:
    hub.add_commit(REPO, repo_files, refs=("main", "v1"))
    with pytest.raises(
        NliModelError, match=r"has no model 'tiny-org/missing'.*set HF_TOKEN.*no \./tiny-org/missing"
    ):
        fetch_hub_model(HubName("tiny-org/missing"), _place(hub, cache_dir))
    with pytest.raises(NliModelError, match=r"has no revision 'v9'"):
        fetch_hub_model(HubName(REPO, "v9"), _place(hub, cache_dir))
    assert not cache_dir.exists() or not list(cache_dir.rglob("*.onnx"))


@pytest.mark.usefixtures("a_runtime")
def test_unreachable_hub_is_one_error_with_the_way_out(cache_dir: Path) -> None:
    with FakeHub() as gone:
        endpoint = gone.url
    with pytest.raises(NliModelError) as caught:
        fetch_hub_model(HubName(REPO), HubPlace(endpoint, cache_dir, offline=False))
    message = str(caught.value)
    assert f"the Hugging Face hub at {endpoint} could not be reached" in message
    assert str(cache_dir) in message and f"`hf download {REPO}`" in message


def test_repository_without_a_usable_format(
    hub: FakeHub, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_commit(REPO, {"config.json": b"{}", "pytorch_model.bin": b"w", "tokenizer.json": b"{}"})
    monkeypatch.setattr(hub_module, "installed_runtimes", lambda: (ONNX,))
    with pytest.raises(NliModelError) as caught:
        fetch_hub_model(HubName(REPO), _place(hub, cache_dir))
    message = str(caught.value)
    assert "installed runtime (onnx)" in message and "pip install pytest-rag[transformers]" in message
    assert "The repository has config.json, pytorch_model.bin, tokenizer.json" in message
    assert not [r for r in hub.requests if "/resolve/" in r.path]  # nothing downloaded


def test_without_a_runtime_the_error_names_both_extras(
    hub: FakeHub, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub_module, "installed_runtimes", tuple)
    with pytest.raises(
        NliModelError, match=r'neither is installed; pip install "pytest-rag\[hub,onnx\]" \(or'
    ):
        fetch_hub_model(HubName(REPO), _place(hub, cache_dir))
    assert hub.requests == []


def test_a_private_model_needs_the_token_which_stays_out_of_the_cache(
    hub: FakeHub, tmp_path: Path, repo_files: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_commit(REPO, repo_files, token=SECRET)
    with pytest.raises(NliModelError, match="if the model is private or gated, set HF_TOKEN"):
        fetch_hub_model(HubName(REPO), _place(hub, tmp_path / "first"))
    monkeypatch.setenv("HF_TOKEN", SECRET)
    model = fetch_hub_model(HubName(REPO), _place(hub, tmp_path / "second"))
    assert model.model_dir.format == "onnx"
    from_hub = [r for r in hub.requests if not r.path.startswith("/blobs/")]
    assert from_hub[-1].authorised and all(
        not r.authorised for r in hub.requests if r.path.startswith("/blobs/")
    )
    for path in (tmp_path / "second").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_a_gated_model_says_how_to_get_access(
    hub: FakeHub, cache_dir: Path, repo_files: dict[str, bytes]
) -> None:
    hub.add_commit(REPO, repo_files, token=SECRET, gated=True)
    with pytest.raises(NliModelError, match=r"is gated .*accept its terms on its page .*set HF_TOKEN"):
        fetch_hub_model(HubName(REPO), _place(hub, cache_dir))


@pytest.mark.usefixtures("judge_place")
def test_a_pinned_revision_is_the_model_judged_and_named(
    hub: FakeHub, repo_files: dict[str, bytes], flipped_files: dict[str, bytes]
) -> None:
    from pytest_rag.judges.nli.judge import NliJudge

    v1 = hub.add_commit(REPO, repo_files, refs=("v1",))
    latest = hub.add_commit(REPO, flipped_files, refs=("main",))
    judges = {
        "tag": NliJudge(JudgeSpec("nli", f"{REPO}@v1")),
        "commit": NliJudge(JudgeSpec("nli", f"{REPO}@{v1}")),
        "main": NliJudge(JudgeSpec("nli", REPO)),
    }
    assert judges["tag"].spec.label == judges["commit"].spec.label == f"nli:{REPO}@{v1[:12]}"
    assert judges["main"].spec.label == f"nli:{REPO}@{latest[:12]}"
    assert [j.identity()["revision"] for j in judges.values()] == [v1, v1, latest]
    support = {name: j._get_scorer().support(SUPPORTED, [CONTEXT]).probability for name, j in judges.items()}
    assert support["tag"] == support["commit"] > 0.5 > support["main"]


@pytest.mark.usefixtures("judge_place")
def test_a_path_like_name_never_asks_the_hub(hub: FakeHub, repo_files: dict[str, bytes]) -> None:
    from pytest_rag.judges.nli.judge import NliJudge

    hub.add_commit(REPO, repo_files)
    with pytest.raises(NliModelError, match="does not exist"):
        NliJudge(JudgeSpec("nli", f"./{REPO}"))
    assert hub.requests == []


def test_without_the_hub_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from pytest_rag.judges.nli.judge import NliJudge

    real = importlib.util.find_spec

    def without_hub(name: str, *args: object) -> object:
        return None if name == "huggingface_hub" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_hub)
    with pytest.raises(NliModelError, match=r'pip install "pytest-rag\[hub,onnx\]"'):
        NliJudge(JudgeSpec("nli", "tiny-org/not-a-folder"))


SUITE = f"""
CONTEXT = {CONTEXT!r}

def test_supported(rag_judge):
    result = rag_judge.faithfulness({SUPPORTED!r}, [CONTEXT])
    assert result.judge == LABEL, result.judge
    assert result.score == 5, result.reasons

def test_contradicted(rag_judge):
    result = rag_judge.faithfulness("The Eiffel Tower in Paris was not completed in 1889.", [CONTEXT])
    assert result.score == 1, result.reasons
"""


def _hub_env(monkeypatch: pytest.MonkeyPatch, home: Path, endpoint: str) -> None:
    for name in ("HF_HUB_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")


def test_first_run_downloads_and_judges_then_the_cache_judges_with_the_hub_gone(
    pytester: pytest.Pytester, hub: FakeHub, repo_files: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = hub.add_commit(REPO, repo_files, token=SECRET)
    home = pytester.path / "hf-home"
    _hub_env(monkeypatch, home, hub.url)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    pytester.makepyfile(f"LABEL = 'nli:{REPO}@{commit[:12]}'\n" + SUITE)
    args = (f"--rag-judge=nli:{REPO}", "--rag-report=results.json", "-p", "no:cacheprovider", "-rA")

    first = pytester.runpytest_subprocess(*args)
    first.assert_outcomes(passed=2)
    assert (
        home / "hub" / "models--tiny-org--tiny-nli" / "snapshots" / commit / "onnx" / "model.onnx"
    ).is_file()
    assert any(r.path.endswith("/onnx/model.onnx") for r in hub.requests)
    outputs = [first.stdout.str(), first.stderr.str()]

    hub.stop()
    second = pytester.runpytest_subprocess(*args)
    second.assert_outcomes(passed=2)
    outputs += [second.stdout.str(), second.stderr.str()]
    assert all(SECRET not in text for text in outputs)
    written = [p for p in pytester.path.rglob("*") if p.is_file() and not p.name.endswith(".py")]
    assert pytester.path / "results.json" in written
    assert [p for p in written if SECRET.encode() in p.read_bytes()] == []


def test_offline_with_an_empty_cache_fails_set_up_with_the_command(
    pytester: pytest.Pytester, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not installed_runtimes():
        pytest.skip("the run stops at the missing runtime first; needs onnxruntime or transformers")
    home = pytester.path / "hf-home"
    _hub_env(monkeypatch, home, hub.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pytester.makepyfile("LABEL = None\n" + SUITE)
    result = pytester.runpytest_subprocess(f"--rag-judge=nli:{REPO}", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines([f"*the NLI model {REPO} cannot be fetched: HF_HUB_OFFLINE is set*"])
    output = result.stdout.str()
    assert str(home / "hub") in output and f"hf download {REPO}" in output
    assert "Traceback" not in output
    assert hub.requests == []
