# The Memorization Book. Two entry points: `make book` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROFILE ?= quick
DEVICE  ?= cpu

.PHONY: book test lint venv bench clean

$(STAMP): pyproject.toml requirements-lock.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c requirements-lock.txt -e '.[book,test]'
	$(PY) -m ipykernel install --sys-prefix --name memnb --display-name "memnb (.venv)" > /dev/null
	touch $(STAMP)

venv: $(STAMP)

# Executes only the chapters whose key changed (book/buildtools/keys.py): the notebook, the memnb
# code, the profile, the device, the experiments and cached results it reads, or the inputs from
# outside the checkout (the dataset files, the papers' files, the installed packages).
# BOOKFLAGS=--force executes them all again. DEVICE=cuda trains on a GPU.
book: $(STAMP)
	$(PY) book/build.py --profile $(PROFILE) --device $(DEVICE) $(BOOKFLAGS)

test: $(STAMP)
	$(VENV)/bin/ruff check memnb tests benchmarks scripts book/build.py book/buildtools notebooks
	$(PY) -m pytest -n 2 --dist loadfile -q tests

bench: $(STAMP)
	$(PY) benchmarks/bench_train.py

clean:
	rm -rf book/_build book/chapters book/_vendor book/reproducibility.md
