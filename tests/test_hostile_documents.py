"""Documents made hostile by real libraries stay bounded in the converter's child process:
a sheet is read by its cells, a ZIP-based document whose members inflate past the cap
is refused before parsing, a PDF bomb and a deeply nested JSON are one line, the CPU,
wall-clock and memory limits of the worker each stop a document with one line naming
the setting, and a converted document (or a failure) is kept by content hash."""

from __future__ import annotations

import io
import zipfile

import pytest

from hyperskill_lite.agent.tools import Caps, Converter, DocumentError, Toolbox
from hyperskill_lite.testing.testweb_hostile import (
    _bomb_docx,
    _bomb_pdf,
    _bomb_zip,
    _deep_json,
    _far_xlsx,
)


@pytest.fixture(scope="module")
def conv():
    c = Converter()
    yield c
    c.close()


def test_a_far_cell_gives_a_small_table_and_a_note(tmp_path, conv):
    _far_xlsx(tmp_path / "far.xlsx")
    data = (tmp_path / "far.xlsx").read_bytes()
    assert len(data) < 6000
    title, text = conv.document("far.xlsx", data)
    assert text.startswith("## Sheet: Sheet (1 rows x 1 columns)\n|  | A |")
    assert "| 1 | A sheet with one far cell |" in text
    assert ("the sheet declares 1048576 rows x 16384 columns; only rows 1-10,000 and columns "
            "A-GR are read: max_sheet_rows, max_sheet_cols") in text
    _, small = conv.document("far.xlsx", data, Caps(max_sheet_rows=5, max_sheet_cols=3))
    assert "only rows 1-5 and columns A-C are read" in small


def test_a_docx_whose_body_inflates_past_the_cap_is_refused_before_parsing(tmp_path, conv):
    _bomb_docx(tmp_path / "bomb.docx", inflated=30_000_000)
    with pytest.raises(DocumentError, match=r"bomb.docx declares 30,[\d,]+ inflated bytes \(word/"
                       r"document.xml: .*over the limit of 10,000,000 \(max_inflated_bytes\): "
                       "refused before reading"):
        conv.document("bomb.docx", (tmp_path / "bomb.docx").read_bytes(),
                      Caps(max_inflated_bytes=10_000_000))


def test_a_zip_bomb_is_listed_but_its_member_is_not_read(tmp_path):
    _bomb_zip(tmp_path / "bomb.zip", inflated=40_000_000)
    tb = Toolbox(python=False, files_root=tmp_path, max_file_bytes=10_000_000,
                 caps=Caps(max_zip_members=1))
    listing = tb.call("inspect_file_as_text", {"path": "bomb.zip"})
    assert "ZIP archive with 2 files" in listing and "| readme.txt |" in listing
    assert "(1 more members not listed: max_zip_members is 1)" in listing
    member = tb.call("inspect_file_as_text", {"path": "bomb.zip/zeros.bin"})
    assert member == ("Error: bomb.zip/zeros.bin is 39,845,888 bytes once inflated, over the "
                      "limit of 10,000,000 (max_file_bytes)")


def test_a_pdf_bomb_and_deep_json_are_one_line_each(tmp_path, conv):
    _bomb_pdf(tmp_path / "bomb.pdf")
    _deep_json(tmp_path / "deep.json")
    with pytest.raises(DocumentError, match=r"^bomb.pdf could not be read as PDF \(LimitReached"):
        conv.document("bomb.pdf", (tmp_path / "bomb.pdf").read_bytes())
    with pytest.raises(DocumentError, match=r"^deep.json could not be read as JSON \(Recursion"):
        conv.document("deep.json", (tmp_path / "deep.json").read_bytes())


def _slow_pdf() -> bytes:
    """A one-page PDF whose 1 MB of text operators take pypdf seconds of CPU."""
    import zlib

    import pypdf
    from pypdf.generic import DictionaryObject, EncodedStreamObject, NameObject

    w = pypdf.PdfWriter()
    page = w.add_blank_page(612, 792)
    font = w._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica")}))
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    s = EncodedStreamObject()
    s._data = zlib.compress(b"BT /F1 12 Tf 72 712 Td (All work) Tj ET\n" * 60000)
    s[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = w._add_object(s)
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def test_the_cpu_limit_stops_a_slow_document_and_the_next_one_is_read():
    c = Converter(cpu_seconds=1, timeout=120)
    try:
        with pytest.raises(DocumentError, match=r"converting slow.pdf used more than 1 s of CPU "
                                                r"time \(convert_cpu_seconds\): stopped"):
            c.document("slow.pdf", _slow_pdf())
        assert c.document("a.csv", b"x,y\n1,2\n") == ("a.csv", "x,y\n1,2\n")
        assert c.starts == 2  # a new worker after the stopped one
    finally:
        c.close()


def test_the_wall_clock_limit_stops_a_document():
    c = Converter(cpu_seconds=600, timeout=0.5)
    try:
        with pytest.raises(DocumentError, match=r"converting slow.pdf took longer than 0.5 s "
                                                r"\(convert_timeout\): stopped"):
            c.document("slow.pdf", _slow_pdf())
    finally:
        c.close()


def test_the_memory_limit_stops_a_document_with_one_line():
    data = b"[" + b"0," * 12_000_000 + b"0]"  # 24 MB of JSON: a list of 12 million items
    c = Converter(memory_mb=256)
    try:
        with pytest.raises(DocumentError, match=r"^big.json needs more memory than the converter "
                                                r"may use \(256 MB: convert_memory_mb\); not read$"):
            c.document("big.json", data)
    finally:
        c.close()


def test_a_document_is_converted_once_and_a_failure_is_kept(tmp_path, conv):
    doc = io.BytesIO()
    with zipfile.ZipFile(doc, "w") as z:
        z.writestr("a.txt", "alpha")
    before = conv.conversions
    for _ in range(3):
        assert "| a.txt | 5 |" in conv.document("pack.zip", doc.getvalue())[1]
    with pytest.raises(DocumentError):
        conv.document("broken.pdf", b"%PDF-1.4 not really")
    with pytest.raises(DocumentError):
        conv.document("broken.pdf", b"%PDF-1.4 not really")
    assert conv.conversions - before == 2


def test_paging_through_a_file_converts_it_once(tmp_path):
    (tmp_path / "long.json").write_text("[" + ",".join(f'"line {i}"' for i in range(3000)) + "]")
    conv = Converter()
    try:
        tb = Toolbox(python=False, files_root=tmp_path, converter=conv)
        first = tb.call("inspect_file_as_text", {"path": "long.json"})
        assert "Page 1 of " in first
        tb.call("inspect_file_as_text", {"path": "long.json", "page": 2})
        tb.call("inspect_file_as_text", {"path": "long.json", "page": 3})
        assert conv.conversions == 1
    finally:
        conv.close()
