"""Bodies from a hostile web stay bounded: stacked encodings and decompression bombs are
refused before they inflate, a slow drip ends at the whole-fetch deadline (in the body
and in the headers), an endless body is cut at the cap, and an unknown charset is read
as UTF-8 with a note; all through the real HTTP client against loopback servers."""

from __future__ import annotations

import gzip
import json
import sys
import zlib

import pytest

from hyperskill_lite.agent.tools import ContentRefused, HttpClient, Toolbox
from hyperskill_lite.agent.tools.body import BOMB_RATIO, BodyRefused, Inflater, parse_encodings
from hyperskill_lite.testing.testweb_hostile import INFLATED_BYTES, HostileWeb


@pytest.fixture(scope="module")
def web():
    with HostileWeb(files=False) as w:
        yield w


def inflate(raw: bytes, encodings: list[str], cap: int, step: int = 4096) -> tuple[bytes, bool]:
    inf = Inflater(encodings, cap)
    out = b"".join(inf.feed(raw[i:i + step]) for i in range(0, len(raw), step))
    return out + inf.flush(), inf.truncated


def test_inflater_decodes_gzip_deflate_and_several_gzip_members():
    text = b"harbour " * 1000
    assert inflate(gzip.compress(text), ["gzip"], 10**6) == (text, False)
    assert inflate(zlib.compress(text), ["deflate"], 10**6) == (text, False)
    raw = zlib.compressobj(wbits=-15)
    assert inflate(raw.compress(text) + raw.flush(), ["deflate"], 10**6) == (text, False)
    two = gzip.compress(b"first ") + gzip.compress(b"second")
    assert inflate(two, ["gzip"], 10**6) == (b"first second", False)
    assert parse_encodings("identity") == [] and inflate(text, [], 100) == (text[:100], True)


def test_inflater_refuses_stacked_unknown_and_bomb_encodings_and_cuts_the_rest():
    with pytest.raises(BodyRefused, match="encoded twice .* stacked encodings are refused"):
        Inflater(["gzip", "gzip"], 100)
    with pytest.raises(BodyRefused, match="encoded with 'br', which was not asked for"):
        Inflater(["br"], 100)
    bomb = gzip.compress(b"\0" * 2_000_000)  # about 1000 : 1
    assert len(bomb) * BOMB_RATIO < 2_000_000
    with pytest.raises(BodyRefused, match="inflates past 100,000 bytes .* decompression bomb"):
        inflate(bomb, ["gzip"], 100_000)
    page = "".join(f"<p>row {i} of the harbour's ledger</p>" for i in range(20000)).encode()
    body, cut = inflate(gzip.compress(page), ["gzip"], 100_000)  # compresses well, not a bomb
    assert cut and body == page[:100_000]
    empty_members = gzip.compress(b"") * 50_000  # never inflates: stopped by its raw size
    assert inflate(empty_members, ["gzip"], 10_000) == (b"", True)


def test_the_client_refuses_stacked_gzip_and_a_gzip_bomb(web):
    http = HttpClient()
    with pytest.raises(ContentRefused, match="stacked encodings are refused"):
        http.request("GET", web.url("/hostile/gzip-stacked"))
    with pytest.raises(ContentRefused, match="inflates past 10,000,000 bytes .* bomb"):
        http.request("GET", web.url("/hostile/gzip-bomb"))
    assert INFLATED_BYTES > 10 * 10_000_000


@pytest.mark.parametrize("path", ["/hostile/drip", "/hostile/drip-headers"])
def test_a_one_byte_a_second_server_ends_at_the_deadline(web, path):
    http = HttpClient(deadline=1.5, timeout=20, retries=2)
    with pytest.raises(ContentRefused, match=r"did not finish sending .* within 1.5 s \(the "
                                             "deadline for a whole fetch\\)"):
        http.request("GET", web.url(path))


def test_an_endless_body_is_cut_at_the_cap_and_said_so(web):
    got = HttpClient(max_bytes=300_000).request("GET", web.url("/hostile/huge-page"))
    assert got.truncated and len(got.body) == 300_000
    tb = Toolbox(python=False, allow_http=True, allow_hosts=[web.host], max_page_bytes=300_000)
    page = tb.call("crawl_page", {"url": web.url("/hostile/huge-page")})
    assert "(the download was cut at 300,000 bytes: max_page_bytes)" in page
    assert "More text." in page
    binary = tb.call("crawl_page", {"url": web.url("/hostile/huge")})
    assert binary.startswith("Error: ") and "\n" not in binary


def test_an_unknown_charset_is_read_as_utf8_with_a_note(web):
    tb = Toolbox(python=False, allow_http=True, allow_hosts=[web.host])
    page = tb.call("crawl_page", {"url": web.url("/hostile/charset")})
    assert "names the charset 'x-no-such-charset', which is not known here: read as UTF-8" in page
    assert "The quay is 400 metres long." in page
    assert tb.log == []


# -- every IPv6 form that carries an IPv4 address ---------------------------------------------

EMBEDDED = {  # the form -> the address it carries (loopback or the metadata address)
    "2002:7f00:1::": "the 6to4 form of 127.0.0.1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe": "the Teredo client form of 127.0.0.1",
    "64:ff9b::7f00:1": "the NAT64 form of 127.0.0.1",
    "64:ff9b::a9fe:a9fe": "the NAT64 form of 169.254.169.254",
    "64:ff9b:1:7f00:1::": "the local-use NAT64 form of 127.0.1.0",
    "::127.0.0.1": "the IPv4-compatible form of 127.0.0.1",
    "::ffff:127.0.0.1": "the IPv4-mapped form of 127.0.0.1",
    "::ffff:0:a9fe:a9fe": "the IPv4-translated form of 169.254.169.254",
    "2002:a9fe:a9fe::1": "the 6to4 form of 169.254.169.254",
}
_CONNECTS: list[tuple] = []
_WATCH: list[bool] = []
_HOOKED: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    if event == "socket.connect" and _WATCH:
        _CONNECTS.append(args[1])


def test_an_address_embedded_in_ipv6_is_judged_as_the_ipv4_it_carries():
    from hyperskill_lite.agent.tools.net import address_problem, embedded_ipv4

    for form, said in EMBEDDED.items():
        assert said in (address_problem(form) or ""), form
    assert address_problem("2002:5db8:d822::1") is None  # 6to4 of a public address
    assert address_problem("64:ff9b::5db8:d822") is None  # NAT64 of a public address
    assert address_problem("2606:4700::1111") is None and embedded_ipv4.__doc__


def test_every_embedded_form_is_refused_through_the_cli_before_any_connection(tmp_path,
                                                                             monkeypatch):
    """A live run (scripted model on loopback, no --allow-local-urls) whose model asks
    crawl_page for each form at once: each result is the guard's refusal naming the
    address carried, and no socket of the process ever connects anywhere but to the
    model server (a stdlib audit hook sees every connect)."""
    from hyperskill_lite.agent.framing import unframe
    from hyperskill_lite.cli import main
    from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text, tool_calls
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    urls = {form: f"http://[{form}]:8080/metadata" for form in EMBEDDED}

    def responder(request):
        msgs = request.get("messages") or [{}]
        if msgs[0].get("role") != "system":
            return prompt_aware_responder(request)
        if any(m.get("role") == "tool" for m in msgs):
            return text("FINAL ANSWER: refused")
        return tool_calls([("crawl_page", {"url": u}) for u in urls.values()])

    if not _HOOKED:  # an audit hook stays for the process: added once, inert unless watched
        sys.addaudithook(_audit)
        _HOOKED.append(True)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-embedded-000000000000")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "question": "Read the metadata.", "answer": "x"})
                     + "\n")
    with ScriptedServer(responder=responder, model="scripted") as srv:
        _CONNECTS.clear()
        _WATCH.append(True)
        try:
            assert main(["run", "--backend", "openai", "--base-url", srv.base_url, "--model",
                         "scripted", "--tasks", str(tasks), "--method", "no-memory",
                         "--protocol", "tools", "--search", "none", "--sandbox", "process",
                         "--judge", "exact", "--no-progress",
                         "--out", str(tmp_path / "run")]) == 0
        finally:
            _WATCH.clear()
        port = int(srv.base_url.split(":")[2].split("/")[0])
        results = [m["content"] for r in srv.requests for m in r.get("messages", [])
                   if m.get("role") == "tool"]
    assert len(results) >= len(EMBEDDED)
    for (form, said), seen in zip(EMBEDDED.items(), results[-len(EMBEDDED):]):
        body = unframe(seen)
        assert body.startswith(f"Error: refused {urls[form]}: {form} is a "), body
        assert f"({said})" in body and "--allow-local-urls" in body, body
    assert _CONNECTS and all(addr[1] == port for addr in _CONNECTS), _CONNECTS
