"""GAIA-style attachments: for each type, a known fact made by the real library reaches the
agent; questions go to the model; images reach a model's image input and audio the
transcription endpoint; a server without the capability gives a tool error and the
episode goes on; files stay inside the allowed folders."""

from __future__ import annotations

import base64

import pytest

from hyperskill_lite.agent.framing import unframe
from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools import DocumentError, Toolbox, convert
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.testing.scripted_replies import text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.testing.testweb import TestWeb
from hyperskill_lite.testing.testweb_files import FACTS, WAV_TRANSCRIPT
from hyperskill_lite.types import MemoryContext, Task


@pytest.fixture(scope="module")
def web():
    with TestWeb() as w:
        yield w


@pytest.fixture(scope="module")
def folder(web):
    return web.files["report.pdf"].parent


def read(tb: Toolbox, path: str, **kw) -> str:
    return tb.call("inspect_file_as_text", {"path": path, **kw})


@pytest.mark.parametrize(("name", "facts"), [
    ("report.pdf", ["## Page 1", FACTS["report.pdf"], "## Page 2", FACTS["report.pdf#2"]]),
    ("sales.xlsx", ["## Sheet: Sales (3 rows x 3 columns)", "|  | A | B | C |",
                    "| 2 | North | 1200 | 1530.5 |", "## Sheet: Notes"]),
    ("members.docx", ["Title: Northgate Chess Club", "# Northgate Chess Club presidents",
                      "| Ana Kovac | 1994-2016 |"]),
    ("slides.pptx", ["## Slide 1", "Ferro Hill Railway", FACTS["slides.pptx"],
                     "Notes: Opened in 1903."]),
    ("orchard.jsonld", ['"foundingDate": "1987"']),
    ("harvest.csv", ["total,3790"]),
    ("bundle.zip", ["ZIP archive with 2 files", "| data/sales.xlsx |", "| readme.txt | 41 |"]),
    ("bundle.zip/data/sales.xlsx", ["| 2 | North | 1200 | 1530.5 |"]),
    ("bundle.zip/readme.txt", ["Two files: the sales table and this note."]),
])
def test_each_attachment_type_brings_its_fact_to_the_agent(folder, name, facts):
    out = read(Toolbox(python=False, files_root=folder), name)
    assert out.startswith(f"File: {name}")
    for fact in facts:
        assert fact in out, (fact, out)


def test_an_xlsx_cell_is_found_by_its_column_and_row(folder):
    out = read(Toolbox(python=False, files_root=folder), "sales.xlsx")
    header = next(ln for ln in out.splitlines() if ln.startswith("|  | A |"))
    row2 = next(ln for ln in out.splitlines() if ln.startswith("| 2 |"))
    cells = dict(zip(header.strip("|").split("|"), row2.strip("|").split("|")))
    assert cells[" C "].strip() == FACTS["sales.xlsx"]  # C2


def test_a_damaged_or_unknown_file_is_one_clear_line(tmp_path):
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    tb = Toolbox(python=False, files_root=tmp_path)
    out = read(tb, "broken.pdf")
    assert out.startswith("Error: broken.pdf could not be read as PDF (") and "\n" not in out
    assert read(tb, "blob.bin").startswith("Error: cannot read .bin files as text; supported:")
    with pytest.raises(DocumentError, match="is audio: read it with inspect_file_as_audio"):
        convert("a.mp3", b"ID3")


def test_files_stay_inside_the_allowed_folders(folder, tmp_path):
    outside = tmp_path / "private.txt"
    outside.write_text("not for the agent")
    tb = Toolbox(python=False, files_root=folder)
    for path in (str(outside), f"../{outside.name}", "/etc/passwd",
                 str(outside.parent / "bundle.zip/readme.txt")):
        assert read(tb, path).endswith("is outside the folders this agent may read") or \
            read(tb, path).startswith("Error: no such file"), path
    assert read(tb, str(outside)).endswith("is outside the folders this agent may read")
    tb.attachments = {outside.resolve()}  # a task's attachment may be read wherever it is
    assert read(tb, str(outside)).endswith("not for the agent")
    assert read(tb, "bundle.zip/missing.txt") == "Error: no member 'missing.txt' in bundle.zip"


def test_a_question_about_a_file_is_answered_by_the_model(folder):
    with ScriptedServer([text("1530.5 loaves (cell C2).")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", "sk-x", retry_base_delay=0.001, timeout=5)
        tb = Toolbox(python=False, files_root=folder, llm=llm)
        out = read(tb, "sales.xlsx", question="What did North sell in 2022?")
    prompt = srv.requests[0]["messages"][0]["content"]
    assert "| 2 | North | 1200 | 1530.5 |" in prompt and "What did North sell in 2022?" in prompt
    assert out.startswith("File: sales.xlsx\nAnswer from the model, which read")
    assert out.endswith("1530.5 loaves (cell C2).")
    assert llm.usage.by_op["tool:inspect_file_as_text"]["calls"] == 1


def _image_in(request: dict) -> bytes:
    parts = request["body"]["messages"][0]["content"]
    url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
    assert url.startswith("data:image/png;base64,")
    return base64.b64decode(url.split(",", 1)[1])


def test_an_image_question_reaches_the_models_image_input(web, folder):
    llm = PromptedLLM(web.url("/vision/v1"), "fake-vision", "sk-x", retry_base_delay=0.001,
                      timeout=5, max_retries=1)
    tb = Toolbox(python=False, files_root=folder, llm=llm)
    out = tb.call("inspect_file_as_image", {"path": "chart.png", "question": "Which colour?"})
    assert out == "The image is 64x32 pixels; its top-left pixel is RGB(200, 30, 40)."
    req = web.seen("/vision/v1/chat/completions")[-1]
    assert _image_in(req) == web.files["chart.png"].read_bytes()
    assert req["body"]["messages"][0]["content"][0] == {"type": "text", "text": "Which colour?"}
    assert req["body"]["model"] == "fake-vision"
    assert llm.usage.by_op["tool:inspect_file_as_image"]["calls"] == 1


def test_a_vision_model_elsewhere_reads_the_image_and_its_tokens_count(web, folder):
    with ScriptedServer([]) as srv:  # the run's own model is never asked
        llm = PromptedLLM(srv.base_url, "text-model", "sk-x", retry_base_delay=0.001, timeout=5)
        tb = Toolbox(python=False, files_root=folder, llm=llm, vision_model="fake-vision",
                     vision_base_url=web.url("/vision/v1"))
        out = tb.call("inspect_file_as_image", {"file_path": "chart.png"})
        assert srv.requests == []
    assert "64x32 pixels" in out
    req = web.seen("/vision/v1/chat/completions")[-1]
    assert req["body"]["messages"][0]["content"][0]["text"].startswith("Describe this image")
    assert llm.usage.by_op["tool:inspect_file_as_image"] == {
        "calls": 1, "prompt_tokens": 50, "completion_tokens": 12}


def test_an_audio_question_reaches_the_transcription_endpoint(web, folder):
    with ScriptedServer([text("On Mondays.")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", "sk-x", retry_base_delay=0.001, timeout=5)
        tb = Toolbox(python=False, files_root=folder, llm=llm,
                     audio_base_url=web.url("/vision/v1"), audio_model="whisper-large-v3")
        plain = tb.call("inspect_file_as_audio", {"path": "greeting.wav"})
        asked = tb.call("inspect_file_as_audio", {"path": "greeting.wav",
                                                  "question": "When is it closed?"})
    req = web.seen("/vision/v1/audio/transcriptions")[-1]
    assert req["method"] == "POST" and req["headers"]["content-type"].startswith("multipart/form-data")
    assert req["body"]["model"] == "whisper-large-v3"
    assert req["body"]["file"]["filename"] == "greeting.wav"
    assert req["body"]["file"]["bytes"] == web.files["greeting.wav"].read_bytes()
    assert plain == f"Transcript of greeting.wav:\n{WAV_TRANSCRIPT}"
    assert asked.startswith("Answer: On Mondays.") and WAV_TRANSCRIPT in asked
    assert WAV_TRANSCRIPT in srv.requests[0]["messages"][0]["content"]


def test_a_server_without_transcription_gives_a_tool_error(web, folder):
    llm = PromptedLLM(web.url("/textonly/v1"), "text-model", "sk-x", timeout=5, max_retries=0)
    out = Toolbox(python=False, files_root=folder, llm=llm).call(
        "inspect_file_as_audio", {"path": "greeting.wav"})
    assert out.startswith("Error: inspect_file_as_audio failed: the server at "
                          f"{web.url('/textonly/v1')} has no /audio/transcriptions")
    assert "--audio-base-url" in out and "\n" not in out


def test_a_server_without_vision_answers_with_a_tool_error_and_the_episode_goes_on(web, folder):
    script = [tool_call("inspect_file_as_image", {"path": "chart.png", "question": "colour?"}),
              tool_call("inspect_file_as_text", {"path": "harvest.csv"}),
              text("FINAL ANSWER: 3790")]
    with ScriptedServer(script) as srv:
        llm = PromptedLLM(srv.base_url, "m", "sk-x", retry_base_delay=0.001, timeout=5,
                          max_retries=0)
        tools = Toolbox(python=False, files_root=folder, llm=llm, vision_model="text-model",
                        vision_base_url=web.url("/textonly/v1"))
        ep = AgentExecutor(llm, tools, protocol="tools").run(
            Task("g1", "How many tonnes in total?"), MemoryContext())
    assert (ep.success, ep.answer, ep.error) == (True, "3790", None)
    assert ep.meta["tools_used"] == ["inspect_file_as_image", "inspect_file_as_text"]
    framed = srv.requests[1]["messages"][-1]["content"]
    assert framed.startswith('<tool_output tool="inspect_file_as_image" source="chart.png">')
    observation = unframe(framed)
    assert observation.startswith("Error: inspect_file_as_image failed: the model 'text-model' "
                                  "did not take the image (HTTP 400: text-model is not a "
                                  "multimodal model)")
    assert "--vision-model" in observation
    names = {t["function"]["name"] for t in srv.requests[0]["tools"]}
    assert {"inspect_file_as_image", "inspect_file_as_audio"} <= names
