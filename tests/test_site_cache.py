"""The serve cache (sitebuild/run/cache.py): what re-runs a page, what does not, and who never reads it."""

from __future__ import annotations

import logging
import multiprocessing
import re
from pathlib import Path

import pytest

from sitebuild.find.blocks import page_blocks
from sitebuild.find.inputs import DEFAULT_INPUTS, Inputs
from sitebuild.run.cache import MAX_RUNS, OutputCache, environment_digest, page_key
from sitebuild.run.runner import Result
from tests.conftest import fence, page

PAGE = page("Some prose.\n", fence("from kit.greet import greet\nprint(greet())", title="Greeting"))
KIT = {
    "kit/__init__.py": "",
    "kit/greet.py": "def greet():\n    return 'hello'\n",
    "kit/data/names.json": '["Ada"]\n',
    "pyproject.toml": "[project]\nname = 'fixture'\n",
    "requirements.lock": "pydantic==2.0\n",
}
EDITS = {  # name: (file, new text, whether the page's run changes)
    "kit-code": ("kit/greet.py", "def greet():\n    return 'hello'  # edited\n", True),
    "kit-data": ("kit/data/names.json", '["Ada", "Grace"]\n', True),
    "lock": ("requirements.lock", "pydantic==2.1\n", True),
    "pyproject": ("pyproject.toml", "[project]\nname = 'fixture-2'\n", True),
    "page-code": ("docs/index.md", PAGE.replace("print(greet())", "print(greet(), '!')"), True),
    "page-prose": ("docs/index.md", PAGE.replace("Some prose.", "Some other prose, longer."), False),
    "page-title": ("docs/index.md", PAGE.replace('title="Greeting"', 'title="Hello"'), False),
    "page-highlight": ("docs/index.md", PAGE.replace('title="Greeting"', 'title="Greeting" hl_lines="2"'), False),
    "page-show": ("docs/index.md", PAGE.replace('title="Greeting"', 'show="output"'), False),
}


def key_of(site) -> tuple[str, str]:
    """The page's key and, for a run whose reads are not known, the digest of every input, as the hook has them."""
    blocks = page_blocks((site.docs / "index.md").read_text(encoding="utf-8"))
    return page_key(blocks, 60.0, environment_digest(site.root, DEFAULT_INPUTS, 60.0)), \
        Inputs(site.root, DEFAULT_INPUTS).full


@pytest.mark.parametrize("edit", EDITS, ids=EDITS)
def test_the_cache_key_changes_exactly_when_a_run_could_print_something_else(edit, make_site):
    site = make_site({"index.md": PAGE}, KIT)
    before = key_of(site)
    path, text, reruns = EDITS[edit]

    site.write(path, text)

    assert (key_of(site) != before) is reruns


def test_an_edit_outside_the_block_inputs_or_in_a_cache_folder_changes_no_key(make_site):
    site = make_site({"index.md": PAGE}, KIT)
    before = key_of(site)

    site.write("README.md", "notes\n")
    site.write("kit/__pycache__/greet.cpython-311.pyc", "bytes")
    site.write("kit/.pytest_cache/v/cache/lastfailed", "{}")

    assert key_of(site) == before


def test_the_timeout_option_is_in_the_key():
    short, long_ = (page_blocks(page(fence("print(1)", timeout=t))) for t in ("5", "9"))

    assert page_key(short, 60.0, "env") != page_key(long_, 60.0, "env")


NONE = Inputs(Path("/nonexistent-site"), [])


def test_an_entry_is_read_back_only_under_its_own_key(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    results = [Result("hello\n"), Result("1 killed\n", "", 0, ("sleep",))]

    cache.put("docs/a.md", "key-1", results, NONE, None)

    assert cache.get("docs/a.md", "key-1", NONE) == results
    assert cache.get("docs/a.md", "key-2", NONE) is None and cache.get("docs/b.md", "key-1", NONE) is None
    next((tmp_path / "cache").glob("*.json")).write_text("{not json", encoding="utf-8")
    assert cache.get("docs/a.md", "key-1", NONE) is None


def test_a_page_keeps_its_last_runs_each_under_what_it_read(tmp_path):
    (tmp_path / "kit").mkdir()
    module = tmp_path / "kit" / "a.py"
    cache = OutputCache(tmp_path / "cache")
    for n in range(MAX_RUNS + 1):
        module.write_text(f"x = {n}\n")
        cache.put("docs/a.md", "key", [Result(f"run {n}\n")], Inputs(tmp_path, ["kit"]), {str(module): True})

    module.write_text("x = 1\n")  # back to the second run's input
    assert cache.get("docs/a.md", "key", Inputs(tmp_path, ["kit"])) == [Result("run 1\n")]
    module.write_text("x = 0\n")  # the first run: the oldest, dropped for the newest
    assert cache.get("docs/a.md", "key", Inputs(tmp_path, ["kit"])) is None


def ran(run) -> tuple[int, int]:
    """(pages that ran, pages reused) from a build's one-line summary."""
    found = re.search(r"blocks: (\d+) page\(s\) ran, (\d+) reused", run.output)
    assert found, run
    return int(found[1]), int(found[2])


@pytest.mark.site
def test_serve_reuses_an_unchanged_page_and_a_build_never_does(make_site):
    site = make_site({"index.md": PAGE, "other.md": page(fence("print('other page')"))}, KIT)
    assert site.accept().code == 0

    assert ran(site.build("--no-strict", mode="serve")) == (2, 0)
    assert ran(site.build("--no-strict", mode="serve")) == (0, 2)
    site.write(*EDITS["page-prose"][:2])
    prose = site.build("--no-strict", mode="serve")
    assert ran(prose) == (0, 2) and "Some other prose, longer." in site.html()
    assert "hello" in site.html()  # the reused output is on the page
    site.write(*EDITS["kit-code"][:2])
    assert ran(site.build("--no-strict", mode="serve")) == (1, 1)  # other.md does not read kit/greet.py
    assert (site.root / ".cache" / "sitebuild").is_dir()

    built, accepted = site.build(), site.accept()

    assert built.code == 0 and ran(built) == (2, 0)
    assert "nothing to rewrite" in accepted.output


@pytest.mark.site
def test_serve_reruns_a_page_when_a_file_it_read_outside_the_block_inputs_changes(make_site):
    site = make_site({"index.md": page(fence("grep -c Ada notes.txt", "bash")), "other.md": PAGE}, KIT)
    site.write("notes.txt", "Ada\n")  # under the site root, not a block input
    assert site.accept().code == 0
    assert ran(site.build("--no-strict", mode="serve")) == (2, 0)
    assert ran(site.build("--no-strict", mode="serve")) == (0, 2)

    site.write("notes.txt", "Ada\nAda Lovelace\n")
    rebuilt = site.build("--no-strict", mode="serve")

    assert ran(rebuilt) == (1, 1), rebuilt  # index.md, which grepped it; other.md never read it
    assert "docs/index.md, block 1 (bash, line" in rebuilt.output, rebuilt  # its new output, 2, is not approved
    site.write("notes.txt", "Ada\n")  # undone: the run from before is still kept
    assert ran(site.build("--no-strict", mode="serve")) == (0, 2)


def test_hidden_files_and_linked_folders_of_the_inputs_are_in_the_key(make_site, tmp_path):
    # A link counts by where it points: the walk never follows one (issue 35: out of the inputs, or back into a
    # folder it walks, where two links to their own folder never ended), and names it in an INFO line.
    site = make_site({"index.md": PAGE}, {**KIT, "kit/.settings": "v1\n"})
    outside, elsewhere = tmp_path / "shared-data", tmp_path / "other-data"
    for folder in (outside, elsewhere):
        folder.mkdir()
        (folder / "rates.json").write_text("[1]\n", encoding="utf-8")
    (site.root / "kit" / "linked").symlink_to(outside, target_is_directory=True)
    first = key_of(site)

    site.write("kit/.settings", "v2\n")
    second = key_of(site)
    (site.root / "kit" / "linked").unlink()
    (site.root / "kit" / "linked").symlink_to(elsewhere, target_is_directory=True)

    assert len({first, second, key_of(site)}) == 3
    assert Inputs(site.root, DEFAULT_INPUTS).skipped == ["kit/linked (a symbolic link, not walked)"]


def test_a_well_formed_json_entry_with_wrong_types_is_a_miss(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    cache.put("docs/a.md", "k", [Result("fine\n")], NONE, None)
    entry = next((tmp_path / "cache").glob("*.json"))
    entry.write_text(entry.read_text(encoding="utf-8").replace('"fine\\n"', "null"), encoding="utf-8")

    assert cache.get("docs/a.md", "k", NONE) is None


# Stores from several processes at once, and stores that fail ------------------------------------------

WRITERS, STORES = 4, 200


def _store_many(folder: str, writer: int, start, errors) -> None:
    """One process: STORES stores of the same page, each with a result of its own; exceptions counted."""
    cache = OutputCache(Path(folder))
    start.wait()
    for n in range(STORES):
        try:
            cache.put("docs/a.md", "key", [Result(f"writer {writer} store {n}\n")], NONE, None)
        except Exception as error:  # noqa: BLE001 - counted, then reported by the test
            errors.append(f"{type(error).__name__}: {error}")


def test_stores_of_one_page_from_several_processes_at_once_all_succeed_and_leave_a_whole_entry(tmp_path):
    folder = tmp_path / "cache"
    context = multiprocessing.get_context("spawn")  # no fork of a threaded pytest worker
    with context.Manager() as manager:
        start, errors = manager.Barrier(WRITERS), manager.list()
        writers = [context.Process(target=_store_many, args=(str(folder), w, start, errors)) for w in range(WRITERS)]
        for process in writers:
            process.start()
        for process in writers:
            process.join(timeout=120)
        raised = list(errors)

    assert [p.exitcode for p in writers] == [0] * WRITERS
    assert not raised, f"{len(raised)} of {WRITERS * STORES} stores raised, e.g. {raised[:3]}"
    stored = {f"writer {w} store {n}\n" for w in range(WRITERS) for n in range(STORES)}
    results = OutputCache(folder).get("docs/a.md", "key", NONE)
    assert results is not None and len(results) == 1 and results[0].output in stored
    assert [p.name for p in folder.iterdir()] == [next(folder.glob("*.json")).name]  # no temporary file left


def test_a_store_that_cannot_write_is_a_warning_not_an_error(tmp_path, caplog):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache's parent folder should be\n", encoding="utf-8")
    cache = OutputCache(blocked / "cache")  # root or not, nothing can be created under a regular file

    with caplog.at_level(logging.WARNING, logger="sitebuild.cache"):
        stored = cache.put("docs/a.md", "key", [Result("hi\n")], NONE, None)

    assert stored is False and cache.get("docs/a.md", "key", NONE) is None
    [record] = [r for r in caplog.records if r.name == "sitebuild.cache"]
    assert record.levelno == logging.WARNING
    assert "docs/a.md" in record.getMessage() and "NotADirectoryError" in record.getMessage()


def test_a_store_whose_entry_is_taken_by_a_folder_keeps_nothing_half_done(tmp_path, caplog):
    cache = OutputCache(tmp_path / "cache")
    cache.put("docs/a.md", "key", [Result("first\n")], NONE, None)
    entry = next((tmp_path / "cache").glob("*.json"))
    entry.unlink()
    entry.mkdir()  # the entry's own name is a folder now (say, a stray tool's): the rename cannot replace it
    (entry / "inside").write_text("x", encoding="utf-8")

    with caplog.at_level(logging.WARNING, logger="sitebuild.cache"):
        assert cache.put("docs/a.md", "key", [Result("second\n")], NONE, None) is False

    assert "docs/a.md" in caplog.text
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [entry.name]  # the temporary file is gone


@pytest.mark.site
def test_a_build_whose_cache_cannot_be_written_warns_and_still_passes(make_site):
    site = make_site({"index.md": PAGE}, KIT)
    assert site.accept().code == 0
    site.write(".cache", "a file where the cache folder should be\n")

    built = site.build("--strict")

    assert built.code == 0, built
    warning = next((line for line in built.output.splitlines() if "serve cache" in line), "")
    assert warning.startswith("WARNING") and "docs/index.md" in warning, built
    assert "hello" in site.html()


def test_every_field_of_a_result_comes_back_from_the_cache(tmp_path):
    from dataclasses import fields

    from sitebuild.run.cache import OutputCache
    from sitebuild.run.runner import Result

    values = {"output": "out", "problem": "a problem", "exit_code": 3, "killed": ("sleep",), "undecodable": "bytes"}
    assert {f.name for f in fields(Result)} == set(values), "a new Result field: store it, and give it a value here"
    cache = OutputCache(tmp_path)
    cache.put("docs/a.md", "key", [Result(**values)], NONE, None)

    assert cache.get("docs/a.md", "key", NONE) == [Result(**values)]


def test_a_run_whose_reads_are_not_known_is_held_to_every_file_of_the_site_root(tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "notes.txt").write_text("v1\n", encoding="utf-8")  # outside the block inputs
    cache = OutputCache(tmp_path / ".cache" / "sitebuild")
    cache.put("docs/a.md", "key", [Result("v1\n")], Inputs(tmp_path, ["kit"]), None)  # None: reads not known
    assert cache.get("docs/a.md", "key", Inputs(tmp_path, ["kit"])) == [Result("v1\n")]

    (tmp_path / "notes.txt").write_text("v2\n", encoding="utf-8")

    assert cache.get("docs/a.md", "key", Inputs(tmp_path, ["kit"])) is None
