"""When to try a model call again: backoff with full jitter, and the server's Retry-After.

Many sweep cells retrying against one server with a fixed 1/2/4/8 s schedule retry in
lock-step and hit it together again; full jitter (the AWS Architecture Blog's
"Exponential Backoff And Jitter": sleep ``uniform(0, min(cap, base * 2**i))``) spreads
them out. The random draws come from a `random.Random` owned by each client (`Backoff`),
never from the global generator, so nothing else's randomness is disturbed and a test
can seed it. A server's own ``Retry-After`` (RFC 9110 §10.2.3: delay-seconds or an HTTP
date), or OpenAI's ``retry-after-ms``, is a floor under the jittered wait.

>>> b = Backoff(base=1.0, cap=30.0, seed=0)
>>> [round(b.delay(i), 3) for i in range(4)]
[0.844, 1.516, 1.682, 2.071]
>>> b.delay(0, floor=5.0)
5.0
>>> retry_after_seconds({"retry-after": "7"})
7.0

Not here: which errors are worth a retry, and the loop itself (client.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = ["Backoff", "retry_after_seconds", "MAX_SERVER_WAIT"]

MAX_SERVER_WAIT = 600.0
"""The longest Retry-After honoured (seconds); a larger value is read as this."""


class Backoff:
    """Full-jitter exponential backoff from a generator of its own.

    Parameters
    ----------
    base, cap
        Attempt ``i`` (0 for the first retry) waits ``uniform(0, min(cap, base * 2**i))``.
    seed
        Seeds this client's generator; None draws the seed from the OS, so clients built
        alike still retry at different moments (what jitter is for: give the cells of one
        sweep the same seed and they retry in lock-step again).
    """

    def __init__(self, base: float = 1.0, cap: float = 30.0, seed: int | None = None) -> None:
        if base < 0 or cap < 0:
            raise ValueError(f"backoff base and cap must be >= 0, got {base}, {cap}")
        self.base, self.cap = float(base), float(cap)
        self._rng = random.Random(seed)

    def ceiling(self, attempt: int) -> float:
        """The longest wait of retry `attempt` (0-based): ``min(cap, base * 2**attempt)``.

        >>> Backoff(base=1, cap=10).ceiling(5)
        10.0
        """
        return min(self.cap, self.base * 2.0 ** min(attempt, 60))

    def delay(self, attempt: int, floor: float = 0.0) -> float:
        """Seconds to wait before retry `attempt`: the jittered draw, but never less than
        `floor` (the server's Retry-After: an explicit wait is honoured in full, up to
        `MAX_SERVER_WAIT`, even above `cap`)."""
        floor = min(max(0.0, floor), MAX_SERVER_WAIT)
        return max(self._rng.uniform(0.0, self.ceiling(attempt)), floor)


def retry_after_seconds(headers: Mapping[str, Any] | None, now: float | None = None) -> float:
    """The wait a response's headers ask for, in seconds (0.0 when none or unreadable):
    ``retry-after-ms`` (OpenAI), else ``Retry-After`` as delay-seconds or an HTTP date.

    >>> retry_after_seconds({"retry-after-ms": "1500"})
    1.5
    >>> retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"},
    ...                     now=1445412480.0)  # 07:28:00 GMT that day
    10.0
    >>> retry_after_seconds({"retry-after": "soon"})
    0.0
    """
    if not headers:
        return 0.0
    low = {str(k).lower(): v for k, v in dict(headers).items()}
    ms = low.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except (TypeError, ValueError):
            pass
    value = low.get("retry-after")
    if value is None:
        return 0.0
    text = str(value).strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return 0.0
    if when is None:
        return 0.0
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
