"""The dataset files a result was computed from (memnb.dataset_files): their digests, the
experiments' declarations of what they read, the provenance record, and the refusal to reuse
points cached from other contents of the same file."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from memnb import cli, dataset_files, paths, results
from memnb.experiments.registry import get, load_all
from memnb.planner import capture_sweep
from memnb.profiles import PROFILES

ROOT = Path(__file__).resolve().parent.parent


def test_the_dataset_names_are_the_loaders_paths():
    from memnb.data.images import IMAGENET_SAMPLES
    from memnb.data.text import IMDB_FILE, MNLI_FILE

    assert dataset_files.DATASETS == {"mnli": MNLI_FILE, "imdb": IMDB_FILE,
                                      "imagenet": IMAGENET_SAMPLES}
    with pytest.raises(ValueError, match=r"datasets must be names among \['imagenet', 'imdb', "
                                         r"'mnli'\]; got \['cifar'\]"):
        dataset_files.check_datasets(["mnli", "cifar"])


def test_a_file_digest_is_its_sha256_and_a_folder_digest_its_listing(tmp_path):
    """A file's digest is what sha256sum prints; a folder's is that of the sha256sum listing of
    its images, so a changed, added or renamed image changes it."""
    (tmp_path / "a.JPEG").write_bytes(b"first")
    (tmp_path / "b.png").write_bytes(b"second")
    sha = {name: hashlib.sha256(data).hexdigest() for name, data in
           (("a.JPEG", b"first"), ("b.png", b"second"))}
    assert dataset_files.path_digest(tmp_path / "a.JPEG") == sha["a.JPEG"]
    listing = f"{sha['a.JPEG']}  a.JPEG\n{sha['b.png']}  b.png\n"
    folder = dataset_files.path_digest(tmp_path)
    assert folder == hashlib.sha256(listing.encode()).hexdigest()
    (tmp_path / "b.png").rename(tmp_path / "c.png")
    renamed = dataset_files.path_digest(tmp_path)
    assert renamed != folder
    (tmp_path / "c.png").write_bytes(b"changed, other size")
    assert dataset_files.path_digest(tmp_path) not in (folder, renamed)


def test_the_shared_files_have_the_digests_the_data_readme_gives():
    """data/README.md lists the SHA-256 of the shared text files; the digests recorded in
    provenance are the same numbers, so a reader can compare a run's data with the README's."""
    found = dataset_files.digests(["mnli", "imdb", "imagenet"])
    if len(found) < 3:
        pytest.skip("the shared MultiNLI, IMDb and ImageNet files are not here")
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for relative, digest in found.items():
        [row] = [line for line in readme.splitlines() if line.startswith(f"| `{relative}`")
                 and re.search(r"\| `[0-9a-f]{64}` \|$", line)]
        assert row.endswith(f"| `{digest}` |"), row


TEXT = {"mnli": dataset_files.DATASETS["mnli"], "imdb": dataset_files.DATASETS["imdb"]}


@pytest.mark.parametrize("name", sorted(load_all()))
def test_every_text_dataset_an_experiments_grid_names_is_declared(name):
    """A point naming a text dataset (Kajitsuka & Sato's ``dataset``) reads its file: every
    such dataset of every profile's grid is among the experiment's declared ``datasets``."""
    exp = get(name)
    named: set[str] = set()
    for profile in PROFILES:
        captured = capture_sweep(name, profile, seeds=1)
        if captured is not None:
            named |= {p["dataset"] for p in captured.points if p.get("dataset") in TEXT}
    assert named <= set(exp.datasets)


def _reading(monkeypatch) -> list[str]:
    """Record every dataset path the loaders look up (both ways they reach find_dataset)."""
    import memnb.data.images as images

    seen: list[str] = []
    original = paths.find_dataset

    def find(relative):
        seen.append(relative)
        return original(relative)

    monkeypatch.setattr(paths, "find_dataset", find)
    monkeypatch.setattr(images, "find_dataset", find)
    return seen


def test_the_declared_datasets_are_those_the_experiments_read(monkeypatch):
    """Run what reads the data for one point of each experiment that declares a dataset (the
    models that would follow stood in for), and compare the files looked up with the
    declaration."""
    from memnb import representations
    from memnb.experiments import kajitsuka, mahdavi

    if len(dataset_files.digests(["mnli", "imdb", "imagenet"])) < 3:
        pytest.skip("the shared datasets are not here")
    declared = {n: e for n, e in load_all().items() if e.datasets}
    assert set(declared) == {"kajitsuka.mnli_curves", "kajitsuka.imdb_curves",
                             "kajitsuka.capacity", "mahdavi.table1", "mahdavi.table3"}

    def unavailable(*args, **kwargs):
        raise representations.RepresentationUnavailable("stood in for by the test")

    monkeypatch.setattr(representations, "image_hidden_states", unavailable)
    monkeypatch.setattr(representations, "text_hidden_states", unavailable)
    for name, exp in declared.items():
        seen = _reading(monkeypatch)
        kajitsuka._text_dataset.cache_clear()
        point = capture_sweep(name, "ci", seeds=1).points[0]
        if name.startswith("kajitsuka."):
            kajitsuka.training_data(point)
        else:
            mahdavi.assumption_group([point])
        assert set(seen) == {dataset_files.DATASETS[d] for d in exp.datasets}, name
    kajitsuka._text_dataset.cache_clear()


def _tiny_reader(monkeypatch, data: Path, calls: list) -> None:
    """Register ``tiny.reads``: three points whose rows are the length of the MultiNLI file
    found in the data folder, declared as reading it."""
    from memnb import sweep
    from memnb.experiments import registry
    from memnb.sweep import grid

    def group(points):
        calls.extend(p["x"] for p in points)
        size = paths.find_dataset(dataset_files.DATASETS["mnli"]).stat().st_size
        return [[{"bytes": size}] for _ in points]

    def fn(params, *, seeds, device, cache_dir, executor=None):
        return sweep.run_sweep(grid(x=[0, 1, 2], seed=[0]), group, cache_dir=cache_dir,
                               progress=False)

    profiles = {p: {"seeds": 1} for p in PROFILES}
    monkeypatch.setitem(registry._REGISTRY, "tiny.reads", registry.Experiment(
        "tiny.reads", "reads MultiNLI", "none", profiles, fn, ("mnli",)))
    monkeypatch.setenv("MEMNB_DATA_DIR", str(data))


def test_a_run_records_its_data_and_never_reuses_points_of_other_data(
        tmp_path, monkeypatch, capsys):
    """The digests of the files read go into the provenance (and each invocation's record); a
    changed file refuses a run that would reuse the cached points of the old contents, with
    the files, both digests and the way on; the old file back, the run reuses them again."""
    data = tmp_path / "data"
    (data / "mnli").mkdir(parents=True)
    mnli = data / dataset_files.DATASETS["mnli"]
    mnli.write_text('{"premise": "a", "hypothesis": "b", "label": "neutral"}\n')
    first_digest = hashlib.sha256(mnli.read_bytes()).hexdigest()
    calls: list = []
    _tiny_reader(monkeypatch, data, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))

    first = results.run_experiment("tiny.reads", "quick")
    assert first.provenance["data_files"] == {"mnli/dev_matched.jsonl": first_digest}
    assert first.provenance["invocations"][-1]["data_files"] == first.provenance["data_files"]
    assert calls == [0, 1, 2]
    assert results.data_change_error("tiny.reads", "quick", first.provenance["data_files"]) is None

    mnli.write_text('{"premise": "c", "hypothesis": "d", "label": "entailment"}\n')
    now = dataset_files.digests(["mnli"])
    why = results.data_change_error("tiny.reads", "quick", now)
    assert why is not None and why.startswith(
        f"data: tiny.reads (quick) was computed from other contents of its dataset files "
        f"(mnli/dev_matched.jsonl was {first_digest[:12]}…, is now "
        f"{now['mnli/dev_matched.jsonl'][:12]}…), and 3 points of that run are in the point "
        "cache")
    assert "MEMNB_RESULTS_DIR=PATH memnb run tiny.reads --profile quick" in why
    with pytest.raises(ValueError, match="was computed from other contents"):
        results.run_experiment("tiny.reads", "quick")
    assert cli.main(["run", "tiny.reads", "--profile", "quick"]) == 2
    assert "memnb run: error: data: tiny.reads (quick)" in capsys.readouterr().err
    assert calls == [0, 1, 2]  # nothing computed, nothing overwritten
    assert json.loads(first.provenance_path.read_text()) == first.provenance

    # a results folder of its own computes from the new file
    other = results.run_experiment("tiny.reads", "quick", root=tmp_path / "other")
    assert other.provenance["data_files"] == now and calls == [0, 1, 2, 0, 1, 2]

    # the recorded file back: the cached points are reused
    mnli.write_text('{"premise": "a", "hypothesis": "b", "label": "neutral"}\n')
    again = results.run_experiment("tiny.reads", "quick")
    # (a call that computed nothing keeps the provenance of the run that computed the points)
    assert again.provenance == first.provenance and len(calls) == 6


def test_a_run_recorded_before_data_files_is_continued_unchecked(tmp_path, monkeypatch):
    """A provenance without ``data_files`` (written before they were recorded) has no digest to
    compare: the run goes on and records today's."""
    data = tmp_path / "data"
    (data / "mnli").mkdir(parents=True)
    (data / dataset_files.DATASETS["mnli"]).write_text(
        '{"premise": "a", "hypothesis": "b", "label": "neutral"}\n')
    calls: list = []
    _tiny_reader(monkeypatch, data, calls)
    root = tmp_path / "results"
    first = results.run_experiment("tiny.reads", "quick", root=root)
    legacy = {k: v for k, v in first.provenance.items() if k != "data_files"}
    first.provenance_path.write_text(json.dumps(legacy))
    (data / dataset_files.DATASETS["mnli"]).write_text(
        '{"premise": "a", "hypothesis": "c", "label": "entailment"}\n')
    assert results.data_change_error("tiny.reads", "quick", dataset_files.digests(["mnli"]),
                                     root) is None
    again = results.run_experiment("tiny.reads", "quick", root=root)
    assert again.provenance["data_files"] == dataset_files.digests(["mnli"])


def test_a_folder_digest_reads_only_its_images(tmp_path):
    """The ImageNet folder's digest covers the images list_images reads, directly inside it:
    a README or a .git folder beside them changes nothing."""
    (tmp_path / "a.JPEG").write_bytes(b"image a")
    (tmp_path / "b.png").write_bytes(b"image b")
    before = dataset_files.path_digest(tmp_path)
    (tmp_path / "README.md").write_text("notes")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    assert dataset_files.path_digest(tmp_path) == before
    (tmp_path / "c.jpg").write_bytes(b"image c")
    assert dataset_files.path_digest(tmp_path) != before


def test_recorded_digests_hold_only_when_every_invocation_recorded_them():
    digests = {"mnli/dev_matched.jsonl": "a" * 64}
    assert dataset_files.recorded_digests({"data_files": digests}) == digests
    assert dataset_files.recorded_digests({"data_files": digests, "invocations": [
        {"data_files": digests}, {"data_files": digests}]}) == digests
    assert dataset_files.recorded_digests({"data_files": digests, "invocations": [
        {"points_done": 70}, {"data_files": digests}]}) is None  # resumed from older points
    assert dataset_files.recorded_digests({}) is None


def test_a_multinli_file_of_labels_the_loader_drops_is_refused_before_a_run(
        tmp_path, monkeypatch, capsys):
    """memnb.data.text.load_mnli keeps only rows labelled by name and drops the others without
    a word, so the hub's integer labels (0, 1, 2) left it no row and the run failed later with
    "N must be <= 0": the file is now refused before anything is computed, naming the file, the
    rows the loader would drop, the labels it reads (its own MNLI_LABELS) and the conversion."""
    from memnb.data.text import MNLI_LABELS

    data = tmp_path / "data"
    (data / "mnli").mkdir(parents=True)
    mnli = data / dataset_files.DATASETS["mnli"]
    rows = [{"premise": "a", "hypothesis": "b", "label": i % 3} for i in range(7)]
    mnli.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    calls: list = []
    _tiny_reader(monkeypatch, data, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    why = dataset_files.mnli_label_error(mnli)
    assert why == (
        f"{mnli}: 7 of 7 rows have a label the MultiNLI loader does not read (found: 0 (3 "
        "rows), 1 (2 rows), 2 (2 rows)); it reads only rows whose label is one of entailment, "
        "neutral, contradiction. Convert the labels to those names (the hub's glue/mnli integer "
        "labels: map 0 to entailment, 1 to neutral, 2 to contradiction) and drop rows without "
        "a gold label (-1 or '-'); see data/README.md")
    assert MNLI_LABELS == ("entailment", "neutral", "contradiction")  # the names it quotes
    with pytest.raises(ValueError, match="7 of 7 rows have a label"):
        dataset_files.check_contents(["mnli", "imdb"])
    assert cli.main(["run", "tiny.reads", "--profile", "quick"]) == 2
    assert capsys.readouterr().err == f"memnb run: error: data: {why}\n"
    assert calls == [] and not (tmp_path / "results").exists()

    # one row of another label (a missing gold label) is also one the loader cannot read
    named = [{**r, "label": MNLI_LABELS[r["label"]]} for r in rows]
    mnli.write_text("".join(json.dumps(r) + "\n" for r in [*named, {"label": "-"}]))
    assert dataset_files.mnli_label_error(mnli).startswith(
        f'{mnli}: 1 of 8 rows have a label the MultiNLI loader does not read (found: "-" (1 '
        'rows))')
    # converted as the message says, the file runs
    mnli.write_text("".join(json.dumps(r) + "\n" for r in named))
    assert dataset_files.mnli_label_error(mnli) is None
    dataset_files.check_contents(["mnli"])
    assert cli.main(["run", "tiny.reads", "--profile", "quick"]) == 0 and calls == [0, 1, 2]


def test_a_text_file_the_loaders_would_misread_is_refused_naming_the_line(tmp_path, monkeypatch):
    """A file the text loaders would fail on midway (a line that is not JSON, a missing field,
    an IMDb label other than 0 or 1, no rows) or read as no data (the hub's integer MultiNLI
    labels) is refused with the file and line named: by the loader itself, and by the check a
    run makes before it computes (so the CLI exits 2, not as a failure of the code)."""
    from memnb.data import text

    (tmp_path / "imdb").mkdir()
    (tmp_path / "mnli").mkdir()
    imdb = {'{"text": "bad", "label": 2}\n': "line 1: label 2; IMDb labels must be 0",
            '{"text": "good", "label": "positive"}\n': 'line 1: label "positive"',
            '{"text": "a", "label": 1}\n\n{"text": oops}\n': "line 3: not JSON",
            '{"review": "a", "label": 1}\n': "line 1: no field text (fields found: review, label)",
            "\n": "no rows; one JSON object a line with the fields text, label expected",
            "[1, 2]\n": "line 1: a JSON object with the fields text, label expected",
            '{"text": null, "label": 1}\n': "line 1: text must be text (a JSON string); found null"}
    for rows, words in imdb.items():
        (tmp_path / text.IMDB_FILE).write_text(rows)
        with pytest.raises(ValueError, match=re.escape(words)):
            text.load_imdb(data_dir=tmp_path, download=False)
        assert words in dataset_files.format_error("imdb", tmp_path / text.IMDB_FILE)
    (tmp_path / text.IMDB_FILE).write_text('{"text": "fine", "label": 1}\n')
    assert len(text.load_imdb(data_dir=tmp_path, download=False)) == 1
    (tmp_path / text.MNLI_FILE).write_text('{"premise": "a", "hypothesis": "b", "label": 0}\n')
    with pytest.raises(ValueError, match="map 0 to entailment"):
        text.load_mnli(data_dir=tmp_path, download=False)  # not read as an empty dataset
    (tmp_path / text.MNLI_FILE).write_text('{"premise": "a", "label": "neutral"}\n')
    with pytest.raises(ValueError, match="line 1: no field hypothesis"):
        text.load_mnli(data_dir=tmp_path, download=False)
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path))
    with pytest.raises(ValueError, match=r"^data: .*line 1: no field hypothesis"):
        dataset_files.check_contents(["mnli"])
    dataset_files.check_contents(["imdb"])  # the valid IMDb file above passes
