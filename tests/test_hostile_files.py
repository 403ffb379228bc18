"""Attachments stay inside the data folder: the GAIA loader and the task-file loader refuse
an attachment named with '..', an absolute path or a symlink leading out (one line naming
the row), a Hugging Face cache's symlinks into its blobs are fine, and the file tool of a
live run reads the task's attachments and nothing beside them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperskill_lite.agent.tools import (
    FileAccess,
    OutsideFolder,
    Toolbox,
    ToolSettings,
    build_toolbox,
    contained,
)
from hyperskill_lite.bench import BenchmarkDataError, load_gaia, load_tasks_jsonl


def gaia_folder(tmp_path, file_name: str):
    folder = tmp_path / "gaia"
    folder.mkdir(exist_ok=True)
    row = {"task_id": "t1", "Question": "What does the file say?", "Level": 1,
           "Final answer": "x", "file_name": file_name}
    (folder / "metadata.jsonl").write_text(json.dumps(row) + "\n")
    return folder


@pytest.fixture()
def secret(tmp_path):
    s = tmp_path / "outside" / "secret.txt"
    s.parent.mkdir()
    s.write_text("SECRET-OUTSIDE-7731")
    return s


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "symlinked-folder"])
def test_gaia_refuses_an_attachment_that_leads_out(tmp_path, secret, kind):
    folder = gaia_folder(tmp_path, "")
    name = {"dotdot": "../outside/secret.txt", "absolute": str(secret),
            "symlink": "notes.txt", "symlinked-folder": "sub/secret.txt"}[kind]
    if kind == "symlink":
        os.symlink(secret, folder / "notes.txt")
    if kind == "symlinked-folder":
        os.symlink(secret.parent, folder / "sub")
    gaia_folder(tmp_path, name)
    with pytest.raises(BenchmarkDataError) as e:
        load_gaia(folder)
    msg = str(e.value)
    assert "\n" not in msg and "row 1" in msg
    assert "refused: attachments must stay inside the benchmark's folder" in msg
    assert {"dotdot": "through '..'", "absolute": "is an absolute path",
            "symlink": "is a symlink", "symlinked-folder": "is a symlink"}[kind] in msg


def test_a_hugging_face_cache_entry_may_link_into_its_blobs(tmp_path):
    repo = tmp_path / "datasets--gaia-benchmark--GAIA"
    snap = repo / "snapshots" / "abc123" / "2023" / "validation"
    snap.mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "blobs" / "9f2e").write_text("ferry,departs\nA,09:00\n")
    os.symlink(repo / "blobs" / "9f2e", snap / "times.csv")
    row = {"task_id": "t1", "Question": "When?", "Level": 1, "Final answer": "09:00",
           "file_name": "times.csv"}
    (snap / "metadata.jsonl").write_text(json.dumps(row) + "\n")
    task = load_gaia(repo)[0]
    assert task.meta["file_path"].endswith("validation/times.csv")
    files = FileAccess(None, {Path(task.meta["file_path"]).resolve()}, scope="attachments")
    assert files.read(task.meta["file_path"]) == ("times.csv", b"ferry,departs\nA,09:00\n")


def test_a_task_file_names_its_attachments_inside_its_folder(tmp_path, secret):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "data.csv").write_text("a,b\n")
    (folder / "tasks.jsonl").write_text(json.dumps(
        {"question": "q", "meta": {"file": "data.csv"}}) + "\n")
    task = load_tasks_jsonl(folder / "tasks.jsonl")[0]
    assert task.meta["file"] == str(folder.resolve() / "data.csv")
    for bad, why in (("../outside/secret.txt", "through '..'"),
                     (str(secret), "is an absolute path"), ("~/.ssh/id_rsa", "absolute path")):
        (folder / "tasks.jsonl").write_text(json.dumps(
            {"question": "q", "meta": {"attachment": bad}}) + "\n")
        with pytest.raises(BenchmarkDataError, match=f"row 1.*meta.attachment: .*{why}.*refused"):
            load_tasks_jsonl(folder / "tasks.jsonl")


def test_contained_names_how_a_path_leads_out(tmp_path):
    (tmp_path / "a").mkdir()
    assert contained(tmp_path, "a/../a/x.txt") == (tmp_path / "a" / "x.txt").resolve()
    with pytest.raises(OutsideFolder, match="through '..'"):
        contained(tmp_path, "a/../../x")


def test_a_live_runs_file_tool_reads_the_tasks_attachments_only(tmp_path, secret):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / ".env").write_text("DATABASE_URL=postgres://app:SECRET-ENV-5521@db/prod")
    (folder / "data.csv").write_text("fruit,tonnes\napples,2650\n")
    (folder / "other.csv").write_text("not this task's\n")
    os.symlink(secret, folder / "link.txt")
    box = build_toolbox(ToolSettings(python=False, search="none", http=False),
                        files_root=folder)
    box.attachments = {(folder / "data.csv").resolve()}
    read = lambda p: box.call("inspect_file_as_text", {"path": p})  # noqa: E731
    assert "apples,2650" in read("data.csv") and "apples,2650" in read(str(folder / "data.csv"))
    for path in (".env", "other.csv", "link.txt", "../outside/secret.txt", str(secret),
                 "~/.ssh/id_rsa", "/proc/self/environ", "/etc/passwd"):
        out = read(path)
        assert out == f"Error: {path} is outside the files of this task", out
    assert [e["exception"] for e in box.log] == ["OutsideFolder"] * 8
    assert not any(e["unexpected"] for e in box.log)


def test_the_folder_scope_still_refuses_what_leads_out(tmp_path, secret):
    root = tmp_path / "data"
    root.mkdir()
    os.symlink(secret, root / "link.txt")
    tb = Toolbox(python=False, files_root=root)
    for path in ("link.txt", "../outside/secret.txt", "/proc/self/environ"):
        assert tb.call("inspect_file_as_text", {"path": path}) == (
            f"Error: {path} is outside the folders this agent may read")
