"""`export-skills`: a memory's skills as Agent Skills folders, every SKILL.md parsed back
with a YAML parser; ranking, filters, and files it did not write left alone."""

from __future__ import annotations

import re

import pytest

yaml = pytest.importorskip("yaml")

from hyperskill_lite.cli import main  # noqa: E402
from hyperskill_lite.core.embed import HashingEncoder  # noqa: E402
from hyperskill_lite.core.records import Skill  # noqa: E402
from hyperskill_lite.serve.agent_skills import (  # noqa: E402
    DESCRIPTION_MAX,
    MANIFEST,
    export_skills,
    skill_folder_name,
)
from hyperskill_lite.serve.records import LearnItem  # noqa: E402
from hyperskill_lite.serve.shared import SharedMemory  # noqa: E402

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

HOSTILE = [
    ("Quote \"Everything\": carefully", 'Say "yes": then --- no.\n---\nname: evil'),
    ("Ünïcödé Ŝkill — naïve ✓", "Handle 東京 and émigré text. Tabs\tand \x07 bells."),
    ("#!/bin/sh & {{x}} [link](y)", "'single' and \\backslash\\ and `code`: a: b: c"),
    ("", "A skill without a name. " + "Very long content. " * 120),
]


def _memory(tmp_path, served: bool = False):
    """A served memory with hostile skill texts; the first skill credited twice."""
    sm = SharedMemory(tmp_path / "mem", HashingEncoder(dim=64), checkpoint_every=0)
    for i, (name, content) in enumerate(HOSTILE):
        pol = "success" if i % 2 == 0 else "failure"
        sm.learn(LearnItem(f"Task {i}: find the answer", [f"step {i}"],
                           [Skill(name, content, pol)], f"lesson {i}", pol == "success", i + 2))
    first = sm.memory.node_ids(kind="skill")[0]
    for j in range(2):
        sm.learn(LearnItem(f"Later task {j}", [], [], "later", True, 2, used_ids=[first]))
    if not served:
        sm.close()
    return sm


def _parse(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(front), body


def test_every_exported_skill_parses_and_follows_the_specification(tmp_path):
    sm = _memory(tmp_path, served=True)  # journal not checkpointed: export reads it too
    out = tmp_path / "skills"
    assert main(["export-skills", str(sm.path), "--to", str(out)]) == 0
    folders = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(folders) == len(HOSTILE)
    for folder in folders:
        meta, body = _parse(folder / "SKILL.md")
        assert set(meta) == {"name", "description", "metadata"}
        assert meta["name"] == folder.name and NAME.match(meta["name"])
        assert 1 <= len(meta["name"]) <= 64
        assert isinstance(meta["description"], str) and 0 < len(meta["description"]) <= 1024
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta["metadata"].items())
        node = meta["metadata"]["node"]
        view = sm.memory.node(node)
        assert meta["metadata"]["polarity"] == ("strategy" if view.polarity == "success"
                                                else "mistake to avoid")
        assert float(meta["metadata"]["utility"]) == pytest.approx(view.gamma, abs=1e-4)
        assert view.content.split("\n")[0].replace("\x07", "").strip() in body
        assert f"skill node `{node}`" in body and "## Learned from" in body
    sm.close()


def test_ranked_by_utility_and_filtered(tmp_path):
    sm = _memory(tmp_path)
    memory = SharedMemory(sm.path, readonly=True).memory
    gammas = {v: memory.node(v).gamma for v in memory.node_ids(kind="skill")}
    best = max(gammas, key=gammas.get)
    report = export_skills(memory, tmp_path / "top", top=1)
    assert report.written == [skill_folder_name(memory.node(best).name, best)]
    report = export_skills(memory, tmp_path / "min", min_utility=0.6)
    assert report.selected == sum(g >= 0.6 for g in gammas.values()) < len(gammas)
    report = export_skills(memory, tmp_path / "fail", polarity="failure")
    assert report.selected == 2
    long = next(p for p in (tmp_path / "fail").iterdir() if p.name.startswith("skill-"))
    assert len(_parse(long / "SKILL.md")[0]["description"]) <= DESCRIPTION_MAX


def test_never_overwrites_what_it_did_not_write(tmp_path):
    sm = _memory(tmp_path)
    memory = SharedMemory(sm.path, readonly=True).memory
    out = tmp_path / "skills"
    first = export_skills(memory, out)
    theirs = out / first.written[0]
    edited = out / first.written[1] / "SKILL.md"
    # a user's own skill that happens to have the same folder name, and an edit of ours
    user = out / "user-skill"
    user.mkdir()
    (user / "SKILL.md").write_text("---\nname: user-skill\ndescription: mine\n---\nmine\n")
    edited.write_text(edited.read_text() + "\nMy own note.\n")
    manifest = (out / MANIFEST).read_text()
    (out / MANIFEST).write_text(manifest.replace(f'"{theirs.name}/SKILL.md"', '"gone/SKILL.md"'))
    before = (theirs / "SKILL.md").read_bytes()
    again = export_skills(memory, out)
    skipped = dict(again.skipped)
    assert "not written by export-skills" in skipped[theirs.name]
    assert "edited since" in skipped[first.written[1]]
    assert (theirs / "SKILL.md").read_bytes() == before
    assert edited.read_text().endswith("My own note.\n")
    assert (user / "SKILL.md").read_text().endswith("mine\n")
    assert again.stale == ["gone"]
    assert set(again.written) == set(first.written) - {theirs.name, first.written[1]}


def test_command_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "notmem").mkdir()
    (tmp_path / "file").write_text("x")
    sm = _memory(tmp_path)
    for argv, want in (
        ([str(tmp_path / "notmem"), "--to", str(tmp_path / "o")], "not a saved memory"),
        ([str(sm.path), "--to", str(tmp_path / "file")], "not a folder"),
        ([str(tmp_path / "missing"), "--to", str(tmp_path / "o")], "no such folder"),
    ):
        assert main(["export-skills", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and want in err
    with pytest.raises(SystemExit) as stop:
        main(["export-skills", str(sm.path), "--to", str(tmp_path / "o"), "--min-utility", "2"])
    assert stop.value.code == 2
    assert not (tmp_path / "o").exists()


def test_a_run_folder_exports_its_saved_memory(tmp_path):
    """A run folder (OUT/state/memory beside progress.json) is read, never written."""
    sm = _memory(tmp_path)
    run = tmp_path / "run"
    (run / "state").mkdir(parents=True)
    (run / "state" / "progress.json").write_text("{}")
    sm.path.rename(run / "state" / "memory")
    sm.journal.unlink()  # a run keeps no journal
    before = sorted(p.name for p in (run / "state").iterdir())
    assert main(["export-skills", str(run), "--to", str(tmp_path / "out"), "--top", "2"]) == 0
    assert len([p for p in (tmp_path / "out").iterdir() if p.is_dir()]) == 2
    assert sorted(p.name for p in (run / "state").iterdir()) == before
