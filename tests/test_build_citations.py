"""Citations: every {cite} key used in the chapters, the pages and memnb's generated Markdown is
in book/references.bib, the bibliography parses and holds the works the book cites, and a Jupyter
Book build resolves every citation (an unresolved key fails the build)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from script_loader import load_script

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
BIB = BOOK / "references.bib"
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
#: Works the book relies on (papers, bounds, models, datasets, tools).
REQUIRED: tuple[str, ...] = (
    "dana2025", "mahdavi2024", "kajitsuka2025", "kim2023", "park2021", "vardi2022", "bietti2023",
    "cabannes2024", "huben2024", "madden2024", "yun2020", "williams2018", "maas2011", "deng2009",
    "dosovitskiy2021", "oquab2024", "radford2019", "devlin2019", "wang2020", "allenzhu2024",
    "morris2025", "kingma2015", "akiba2019", "vaswani2017", "kruskal1977", "kajitsuka2024",
    "bartlett2019")


def _load_build():
    return load_script("book/build.py", "memnb_book_build")


def _bib_entries() -> dict:
    from pybtex.database import parse_file

    return dict(parse_file(str(BIB)).entries)


def cited_keys(text: str) -> set[str]:
    """Keys cited with {cite}, {cite:p}, {cite:t}, ... roles (several keys: comma-separated)."""
    keys = {k.strip() for m in CITE.finditer(text) for k in m.group(1).split(",")}
    return {k for k in keys if k.strip(".")}  # "..." in a docstring is a placeholder


def _sources() -> dict[str, str]:
    """Text that reaches a page: static pages, notebooks' Markdown, and memnb's generated
    Markdown (captions, tables), which may cite too."""
    texts = {p.name: p.read_text() for p in sorted(BOOK.glob("*.md"))}
    texts |= {str(p.relative_to(REPO)): p.read_text()
              for p in sorted((REPO / "memnb").rglob("*.py"))}
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        texts[path.name] = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return texts


def test_cited_keys_parses_every_role_form():
    text = "A {cite:p}`a2020,b2021` and {cite:t}`c` and {cite}`d` but not `e` or {ref}`f`."
    assert cited_keys(text) == {"a2020", "b2021", "c", "d"}


def test_bibliography_holds_the_required_works_with_authors_titles_and_years():
    entries = _bib_entries()
    missing = [k for k in REQUIRED if k not in entries]
    assert not missing, f"book/references.bib lacks {missing}"
    for key, entry in entries.items():
        assert entry.persons.get("author"), f"{key}: no authors"
        assert entry.fields.get("title"), f"{key}: no title"
        assert re.fullmatch(r"(19|20)\d\d", entry.fields.get("year", "")), f"{key}: bad year"
        venue = ("booktitle", "journal", "institution", "eprint")
        assert any(entry.fields.get(f) for f in venue), f"{key}: no venue"


def test_every_cited_key_is_in_the_bibliography():
    entries = _bib_entries()
    unknown = {name: sorted(cited_keys(text) - set(entries))
               for name, text in _sources().items()}
    unknown = {name: keys for name, keys in unknown.items() if keys}
    assert not unknown, f"cited keys missing from book/references.bib: {unknown}"
    assert cited_keys(_sources()["intro.md"]) >= {"dana2025", "mahdavi2024", "kajitsuka2025"}


def test_citation_warnings_are_recognised():
    build = _load_build()
    log = ("reading sources... [100%] intro\n"
           "/book/intro.md:3: WARNING: could not find bibtex key \"nosuch2020\"\n"
           "/book/a.md:1: WARNING: undefined label: 'x'\n")
    assert build.citation_warnings(log) == [
        '/book/intro.md:3: WARNING: could not find bibtex key "nosuch2020"']


@pytest.mark.notebook
def test_static_pages_build_with_every_citation_resolved(tmp_path):
    """A Jupyter Book build of the static pages: citations resolve, an unknown key is reported."""
    book = tmp_path / "book"
    book.mkdir()
    for name in ("_config.yml", "references.bib", *(p.name for p in BOOK.glob("*.md"))):
        shutil.copy(BOOK / name, book / name)
    pages = sorted(p.stem for p in book.glob("*.md") if p.stem != "intro")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   + "".join(f"  - file: {p}\n" for p in pages))
    (book / "_vendor").mkdir()  # the static path the configuration names
    # the book's own Sphinx extension the configuration loads (buildtools.sphinx_scripts)
    shutil.copytree(BOOK / "buildtools", book / "buildtools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if (BOOK / "generated").is_dir():  # Markdown the pages include
        shutil.copytree(BOOK / "generated", book / "generated")
    build = _load_build()
    command = [*build.jupyter_book_command(), "build", str(book)]

    def run() -> str:
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stdout + done.stderr

    assert build.citation_warnings(run()) == []
    assert build.unresolved_citations(book / "_build" / "html") == {}
    html = (book / "_build" / "html" / "intro.html").read_text()
    assert "Dana <em>et al.</em>, 2025" in html  # an (author, year) citation, linked
    bibliography = (book / "_build" / "html" / "bibliography.html").read_text()
    assert bibliography.count('class="citation"') == len(_bib_entries())

    with (book / "intro.md").open("a") as page:
        page.write("\nA work we do not have {cite:p}`nosuchwork2099`.\n")
    warnings = build.citation_warnings(run())
    assert len(warnings) == 1 and "nosuchwork2099" in warnings[0]
    # the page shows it as a citation without a reference, which the HTML check finds too
    assert build.unresolved_citations(book / "_build" / "html") == {"intro.html": 1}

