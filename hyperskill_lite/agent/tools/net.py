"""HTTP for the tools: one client (httpx) with timeouts, redirects, a size cap and
retries, and the guard that keeps the agent off the user's own network.

`HttpClient.request` follows redirects itself (at most `max_redirects`), so every hop is
checked; retries 429 and 5xx answers (honouring Retry-After, capped) and connection
failures; inflates a compressed body as a stream and stops at `max_bytes` of inflated
bytes (the reply says it was cut; stacked encodings and decompression bombs are refused,
body.py); ends the whole request, redirects and retries included, at `deadline` seconds
however slowly the server sends (body.py `Deadline`; `timeout` is per connect and read);
reads a body whose charset Python does not know as UTF-8 and says so; and turns every
failure into a `FetchError` with one line naming the host and what to do.

`UrlGuard` (used for the URLs the agent chooses: crawl_page, never the endpoints the user
configured) resolves the host and refuses loopback, private, link-local (the cloud
metadata address 169.254.169.254), carrier-grade NAT, multicast and reserved addresses;
an IPv6 address that embeds an IPv4 address (IPv4-mapped, -translated and -compatible,
6to4, Teredo, NAT64: `embedded_ipv4`) is judged as the IPv4 address it embeds, so
``[2002:7f00:1::]`` is the loopback it carries. Unless `allow_local` is set or the host
is in `allow_hosts`, a refused URL fails before any connection; the request then connects to the address that was checked (the name is
kept for the Host header and TLS), so a name cannot resolve to a public address for the
check and a private one for the connection.

Not here: what a page's bytes mean (pages.py, files.py), search APIs (providers/).
"""

from __future__ import annotations

import codecs
import email.utils
import ipaddress
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hyperskill_lite.agent.tools.body import (
    ACCEPT_ENCODING,
    BodyRefused,
    Deadline,
    DeadlinePassed,
    Inflater,
    parse_encodings,
    read_capped,
)

__all__ = ["HttpClient", "UrlGuard", "Fetched", "FetchError", "UrlRefused", "ContentRefused",
           "address_problem", "embedded_ipv4", "USER_AGENT", "known_charset"]

USER_AGENT = "Mozilla/5.0 (compatible; hyperskill-lite agent; +https://pypi.org/)"
_REDIRECTS = (301, 302, 303, 307, 308)


class FetchError(RuntimeError):
    """A request failed (connection, timeout, too many redirects); the message is one
    line naming the host."""


class UrlRefused(FetchError):
    """The guard refused a URL (a local or private address, a scheme other than http(s))."""


class ContentRefused(FetchError):
    """A body that is not read: stacked or unknown encodings, a decompression bomb, a
    whole-fetch deadline passed (never retried)."""


def known_charset(name: str | None) -> str | None:
    """`name` when Python has a codec of that name, else None.

    >>> known_charset("UTF-8"), known_charset("x-no-such-charset")
    ('UTF-8', None)
    """
    if not name:
        return None
    try:
        codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    return name


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
"""RFC 6052's well-known NAT64 prefix: the IPv4 address is the last 32 bits."""
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
"""RFC 8215's local-use NAT64 prefix: an operator embeds the IPv4 address at /48, /56,
/64 or /96 (RFC 6052 section 2.2), so every one of those readings is judged."""
_COMPATIBLE = ipaddress.ip_network("::/96")
"""IPv4-compatible addresses (RFC 4291, deprecated): ``::a.b.c.d``."""
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
"""IPv4-translated addresses (RFC 2765, SIIT): ``::ffff:0:a.b.c.d``."""


def _rfc6052(value: int, prefix: int) -> ipaddress.IPv4Address:
    """The IPv4 address RFC 6052 embeds after a `prefix`-bit prefix (bits 64-71, the
    u-octet, are skipped)."""
    bits = f"{value:0128b}"
    body = (bits[prefix:64] + bits[72:]) if prefix < 64 else bits[prefix:]
    return ipaddress.IPv4Address(int(body[:32], 2))


def embedded_ipv4(addr: ipaddress.IPv6Address) -> list[tuple[str, ipaddress.IPv4Address]]:
    """The IPv4 addresses an IPv6 address carries, each with the form's name: mapped
    (``::ffff:a.b.c.d``), translated (``::ffff:0:a.b.c.d``), compatible
    (``::a.b.c.d``), 6to4 (2002::/16), Teredo (2001::/32: its server and its client),
    NAT64 (64:ff9b::/96, and 64:ff9b:1::/48 read at every RFC 6052 length). [] for a
    plain IPv6 address.

    >>> [(f, str(a)) for f, a in embedded_ipv4(ipaddress.IPv6Address("2002:7f00:1::"))]
    [('6to4', '127.0.0.1')]
    """
    out: list[tuple[str, ipaddress.IPv4Address]] = []
    value = int(addr)
    if addr.ipv4_mapped is not None:
        out.append(("IPv4-mapped", addr.ipv4_mapped))
    if addr in _TRANSLATED:
        out.append(("IPv4-translated", ipaddress.IPv4Address(value & 0xFFFFFFFF)))
    if addr in _COMPATIBLE and value > 1:  # :: and ::1 are IPv6's own
        out.append(("IPv4-compatible", ipaddress.IPv4Address(value)))
    if addr.sixtofour is not None:
        out.append(("6to4", addr.sixtofour))
    if addr.teredo is not None:
        server, client = addr.teredo
        out += [("Teredo server", server), ("Teredo client", client)]
    if addr in _NAT64:
        out.append(("NAT64", ipaddress.IPv4Address(value & 0xFFFFFFFF)))
    if addr in _NAT64_LOCAL:
        out += [("local-use NAT64", _rfc6052(value, n)) for n in (48, 56, 64, 96)]
    return out


def _kind(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    for kind in ("loopback", "link_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(addr, f"is_{kind}"):
            return kind.replace("_", "-")
    if not addr.is_global:
        return "non-public"
    return None


def address_problem(ip: str) -> str | None:
    """Why an address is off limits for the agent, or None for a public address. An
    IPv6 address that embeds an IPv4 address (`embedded_ipv4`) is judged as the IPv4
    address it embeds (every one, when it carries several), whatever its own prefix.

    >>> [address_problem(a) for a in ("127.0.0.1", "10.1.2.3", "169.254.169.254",
    ...                               "::1", "93.184.216.34")]
    ['loopback', 'private', 'link-local', 'loopback', None]
    >>> address_problem("2002:7f00:1::"), address_problem("64:ff9b::5db8:d822")
    ('loopback (the 6to4 form of 127.0.0.1)', None)
    """
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address):
        inner = embedded_ipv4(addr)
        for form, v4 in inner:
            kind = _kind(v4)
            if kind:
                return f"{kind} (the {form} form of {v4})"
        if inner:
            return None
    return _kind(addr)


class UrlGuard:
    """Refuses URLs whose host resolves to a local or private address (see the module
    docstring). `allow_hosts` holds hosts ("name" or "name:port") read even so."""

    def __init__(self, allow_local: bool = False, allow_hosts: Iterable[str] = (),
                 resolver: Callable[..., Any] = socket.getaddrinfo) -> None:
        self.allow_local = allow_local
        self.allow_hosts = {h.lower() for h in allow_hosts}
        self._resolve = resolver

    def addresses(self, url: str) -> list[str]:
        """The addresses `url` may be fetched from (its host resolved and checked).

        Raises
        ------
        UrlRefused
            For a non-http(s) URL, or a host with a local or private address.
        FetchError
            When the host does not resolve.
        """
        p = urllib.parse.urlsplit(url)
        if p.scheme not in ("http", "https") or not p.hostname:
            raise UrlRefused(f"only http(s) URLs can be read, got {url!r}")
        host = p.hostname.lower()
        port = p.port or (443 if p.scheme == "https" else 80)
        try:
            infos = self._resolve(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as e:
            raise FetchError(f"cannot resolve host {host!r} ({e})") from None
        ips = list(dict.fromkeys(info[4][0] for info in infos))
        if not ips:
            raise FetchError(f"cannot resolve host {host!r}")
        if self.allow_local or host in self.allow_hosts or f"{host}:{port}" in self.allow_hosts:
            return ips
        for ip in ips:
            problem = address_problem(ip)
            if problem:
                shown = host if host == ip else f"{host} ({ip})"
                raise UrlRefused(
                    f"refused {url}: {shown} is a {problem} address; the agent reads "
                    "public pages only (allow local addresses with --allow-local-urls)")
        return ips


@dataclass
class Fetched:
    """A finished request: the final URL (after redirects), status, content type (no
    parameters, lower case), charset, the body (cut at the size cap) and whether it was
    cut."""

    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool = False
    headers: dict[str, str] | None = None
    note: str = ""

    def text(self) -> str:
        return self.body.decode(known_charset(self.charset) or "utf-8", "replace")

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _retry_after(value: str | None, cap: float) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, min(cap, float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, min(cap, when.timestamp() - time.time()))


class HttpClient:
    """GET/POST with timeouts, checked redirects, a size cap and retries (module docstring).

    Parameters
    ----------
    guard
        A `UrlGuard` for URLs the agent chose; None for endpoints the user configured.
    timeout
        Seconds per attempt (connecting and each read).
    max_bytes
        Bodies are cut here, counted in inflated bytes (`Fetched.truncated`).
    deadline
        Seconds for the whole request: redirects, retries and every read.
    retries
        Further attempts after a 429, a 5xx or a connection failure.
    max_retry_wait
        Retry-After values are capped at this many seconds.
    """

    def __init__(self, *, guard: UrlGuard | None = None, timeout: float = 20.0,
                 max_bytes: int = 10_000_000, retries: int = 2, max_redirects: int = 5,
                 max_retry_wait: float = 10.0, user_agent: str = USER_AGENT,
                 deadline: float = 60.0) -> None:
        self.guard = guard
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.retries = retries
        self.max_redirects = max_redirects
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            import httpx

            # no kept-alive connections: every request opens its own, so the deadline's
            # timer always knows the socket to shut (body.py `Deadline`)
            self._client = httpx.Client(
                timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                follow_redirects=False, headers={"User-Agent": self.user_agent},
                limits=httpx.Limits(max_keepalive_connections=0))
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def request(self, method: str, url: str, *, params: dict[str, Any] | None = None,
                json: Any = None, headers: dict[str, str] | None = None) -> Fetched:
        """One request, redirects followed and retried as the class docstring says.

        Raises
        ------
        UrlRefused, FetchError
        """
        with Deadline(self.deadline) as deadline:
            for _ in range(self.max_redirects + 1):
                got = self._with_retries(method, url, params, json, headers, deadline)
                location = (got.headers or {}).get("location")
                if got.status not in _REDIRECTS or not location:
                    return got
                url = urllib.parse.urljoin(got.url, location)
                params = None
                if got.status == 303 or (got.status in (301, 302) and method != "GET"):
                    method, json = "GET", None
        raise FetchError(f"more than {self.max_redirects} redirects from {url}")

    def _with_retries(self, method: str, url: str, params: Any, json: Any,
                      headers: dict[str, str] | None, deadline: Deadline) -> Fetched:
        last = ""
        for attempt in range(self.retries + 1):
            try:
                got = self._once(method, url, params, json, headers, deadline)
            except (UrlRefused, ContentRefused):
                raise
            except FetchError as e:
                last = str(e)
                if attempt < self.retries and deadline.remaining() > 0:
                    deadline.sleep(min(self.max_retry_wait, 0.5 * 2**attempt))
                    continue
                raise FetchError(f"{last} (after {attempt + 1} attempts)") from None
            if got.status == 429 or got.status >= 500:
                if attempt < self.retries and deadline.remaining() > 0:
                    wait = _retry_after((got.headers or {}).get("retry-after"),
                                        self.max_retry_wait)
                    deadline.sleep(0.5 * 2**attempt if wait is None else wait)
                    continue
            return got
        raise FetchError(last or f"{url} failed")  # pragma: no cover (loop returns or raises)

    def _once(self, method: str, url: str, params: Any, json: Any,
              headers: dict[str, str] | None, deadline: Deadline) -> Fetched:
        import httpx

        hdrs = {"Accept-Encoding": ACCEPT_ENCODING, **(headers or {})}
        extensions: dict[str, Any] = {"trace": deadline.trace}
        try:
            target = httpx.URL(url, params=params) if params else httpx.URL(url)
        except httpx.InvalidURL as e:  # a model wrote it: a newline, a space, a bad port
            raise UrlRefused(f"not a valid URL: {url!r} ({e})") from None
        host = target.host
        if self.guard is not None:
            ips = self.guard.addresses(str(target))
            if not _is_ip(host):  # connect to the checked address, keep the name
                hdrs.setdefault("Host", target.netloc.decode("ascii"))
                if target.scheme == "https":
                    extensions["sni_hostname"] = host
                target = target.copy_with(host=ips[0])
        try:
            deadline.check()
            with self.client.stream(method, target, headers=hdrs, json=json,
                                    extensions=extensions) as r:
                deadline.watch(r.extensions.get("network_stream"))
                inflater = Inflater(parse_encodings(r.headers.get("content-encoding")),
                                    self.max_bytes)
                body = read_capped(r.iter_raw(), inflater, deadline)
                ctype = r.headers.get("content-type", "")
                mime = ctype.split(";", 1)[0].strip().lower()
                charset = r.charset_encoding
                status = r.status_code
                headers_out = {k.lower(): v for k, v in r.headers.items()}
        except BodyRefused as e:
            raise ContentRefused(f"{_shown(url)}: {e}") from None
        except (DeadlinePassed, httpx.HTTPError) as e:
            if deadline.passed:
                raise ContentRefused(
                    f"{host} did not finish sending {_shown(url)} within {self.deadline:g} s "
                    "(the deadline for a whole fetch); the page was not read") from None
            if isinstance(e, httpx.TimeoutException):
                raise FetchError(f"no answer from {host} within {self.timeout:g} s") from None
            raise FetchError(f"could not read {_shown(url)} ({type(e).__name__}: "
                             f"{' '.join(str(e).split())[:160]})") from None
        note = ""
        if charset and known_charset(charset) is None:
            note = (f"(the page names the charset {' '.join(charset.split())[:40]!r}, which is "
                    "not known here: read as UTF-8)")
            charset = None
        return Fetched(url, status, mime, charset, body, inflater.truncated, headers_out, note)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def _shown(url: str) -> str:
    """A URL without its query string (which may hold a key), for messages."""
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((p.scheme, p.netloc, p.path, "", ""))
