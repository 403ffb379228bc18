"""`python -m hyperskill_lite ...`: see cli/.

The package's first import (``hyperskill_lite/_startup.py``) has already checked that
every package the commands need is installed (one line and exit 2 when not, before any
folder is made); a package of an extra that a command imports and does not find is one
line naming the extra, exit 2.
"""

import sys

from hyperskill_lite._startup import EXIT_MISSING, missing_extra
from hyperskill_lite.cli import main

if __name__ == "__main__":
    try:
        code = main()
    except ModuleNotFoundError as e:
        print(missing_extra(e), file=sys.stderr)
        code = EXIT_MISSING
    raise SystemExit(code)
