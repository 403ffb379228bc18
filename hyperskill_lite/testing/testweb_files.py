"""Attachments for the hermetic web, made by the real libraries that write each format.

`make_files(folder)` writes a PDF (fpdf2), an XLSX (openpyxl), a DOCX (python-docx), a
PPTX (python-pptx), a PNG (Pillow), a short WAV (the standard library's ``wave``), a ZIP
holding two of them, a JSON-LD file and a CSV, each carrying a known fact (`FACTS`), so a
test can check that the fact reaches the agent through the real converter. Nothing is
committed: the files are generated in a temporary folder when a test or the live smoke
needs them. fpdf2 is a development dependency (the ``dev`` extra); the others are what
the tools read with.

Not here: the server that serves them (testweb.py).
"""

from __future__ import annotations

import io
import json
import math
import struct
import wave
import zipfile
from pathlib import Path

__all__ = ["make_files", "FACTS", "PNG_SIZE", "PNG_CORNER", "WAV_TRANSCRIPT"]

FACTS = {
    "report.pdf": "The 2019 survey of Lake Varne counted 23 species of fish.",
    "report.pdf#2": "The survey team had 7 divers.",
    "sales.xlsx": "1530.5",  # cell C2, North's 2022 sales
    "members.docx": "Ana Kovac",  # table cell (row 2, column 1)
    "slides.pptx": "The Ferro Hill Railway is 27 kilometres long.",
    "orchard.jsonld": "1987",
    "harvest.csv": "3790",
}
"""A fact each generated file holds (a sentence, a cell value, a table cell)."""
PNG_SIZE = (64, 32)
PNG_CORNER = (200, 30, 40)
"""The PNG's size and the colour of its top-left pixel (what the fake vision model reads)."""
WAV_TRANSCRIPT = "The Harbor Street Maritime Museum is closed on Mondays."
"""What the fake transcription endpoint answers for the generated WAV (its bytes)."""


def _pdf(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Lake Varne survey")
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "Lake Varne survey report\n" + FACTS["report.pdf"])
    pdf.add_page()
    pdf.multi_cell(0, 8, FACTS["report.pdf#2"])
    pdf.output(str(path))


def _xlsx(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    for row in (["Region", 2021, 2022], ["North", 1200, 1530.5], ["South", 980, 1011]):
        ws.append(row)
    wb.create_sheet("Notes").append(["Figures in loaves per week"])
    wb.save(path)


def _docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.core_properties.title = "Northgate Chess Club"
    d.add_heading("Northgate Chess Club presidents", level=1)
    d.add_paragraph("The club has had three presidents since 1990.")
    t = d.add_table(rows=3, cols=2)
    for r, (name, years) in enumerate([("Name", "Years"), ("Ana Kovac", "1994-2016"),
                                       ("Piet Mol", "2016-2021")]):
        t.cell(r, 0).text, t.cell(r, 1).text = name, years
    d.add_paragraph("Ana Kovac served longest.")
    d.save(path)


def _pptx(path: Path) -> None:
    from pptx import Presentation

    p = Presentation()
    s = p.slides.add_slide(p.slide_layouts[1])
    s.shapes.title.text = "Ferro Hill Railway"
    s.placeholders[1].text = FACTS["slides.pptx"]
    s.notes_slide.notes_text_frame.text = "Opened in 1903."
    p.save(path)


def _png(path: Path) -> None:
    from PIL import Image

    img = Image.new("RGB", PNG_SIZE, (255, 255, 255))
    img.putpixel((0, 0), PNG_CORNER)
    img.save(path, format="PNG")


def _wav(path: Path, seconds: float = 0.5, rate: int = 16000) -> None:
    n = int(seconds * rate)
    frames = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                      for i in range(n))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)


def make_files(folder: str | Path) -> dict[str, Path]:
    """Write every attachment into `folder`; their paths by file name."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for name, make in (("report.pdf", _pdf), ("sales.xlsx", _xlsx), ("members.docx", _docx),
                       ("slides.pptx", _pptx), ("chart.png", _png), ("greeting.wav", _wav)):
        out[name] = folder / name
        make(out[name])
    out["orchard.jsonld"] = folder / "orchard.jsonld"
    out["orchard.jsonld"].write_text(json.dumps({
        "@context": "https://schema.org", "@type": "Organization",
        "name": "Orchard Valley Growers Cooperative", "foundingDate": "1987"}))
    out["harvest.csv"] = folder / "harvest.csv"
    out["harvest.csv"].write_text("fruit,tonnes_2021\napples,2650\npears,1140\ntotal,3790\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(out["sales.xlsx"], "data/sales.xlsx")
        z.writestr("readme.txt", "Two files: the sales table and this note.")
    out["bundle.zip"] = folder / "bundle.zip"
    out["bundle.zip"].write_bytes(buf.getvalue())
    return out
