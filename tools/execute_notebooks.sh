#!/usr/bin/env bash
# Execute the course notebooks in place (outputs are committed and checked by nbval),
# keeping committed outputs that did not really change (tools/execute_notebooks.py).
# Usage: tools/execute_notebooks.sh [notebooks/NN_name.ipynb ...]   (default: all, in order)
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python tools/execute_notebooks.py "$@"
