"""``python -m hyperskill_lite.runner restore OUT [CHECKPOINT]``: put a damaged run folder
back to a checkpoint (`restore_checkpoint`), so that rerunning the same `run` command
resumes after it. One line on success, one ``error:`` line and exit 2 otherwise.

Not here: running (``python -m hyperskill_lite run``).
"""

from __future__ import annotations

import sys

from hyperskill_lite.runner.files import RunError, restore_checkpoint


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (2, 3) or args[0] != "restore":
        print("usage: python -m hyperskill_lite.runner restore OUT [CHECKPOINT]",
              file=sys.stderr)
        return 2
    try:
        kept = restore_checkpoint(args[1], args[2] if len(args) == 3 else None)
    except (RunError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args[1]}: restored to its checkpoint after episode {kept}; rerun the same "
          "command to resume from episode " + str(kept + 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
