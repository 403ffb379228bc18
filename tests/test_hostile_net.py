"""Bodies from a hostile web stay bounded: stacked encodings and decompression bombs are
refused before they inflate, a slow drip ends at the whole-fetch deadline (in the body
and in the headers), an endless body is cut at the cap, and an unknown charset is read
as UTF-8 with a note; all through the real HTTP client against loopback servers."""

from __future__ import annotations

import gzip
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
