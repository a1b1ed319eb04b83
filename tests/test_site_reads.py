"""The serve cache keys a page on what its run read (issue 20): an edit re-runs exactly the pages that read it.

Each way a block can read a kit file is one case: a python import, an open(), a data file through
importlib.resources, sed and cat in a bash block, pytest started from a python block (subprocess), and a
file read by a test that a count block's pytest runs. In each, the page that reads the file runs again
when it changes (and shows the new output: never a stale page), the page beside it that does not read
it is reused, and undoing the edit re-runs nothing (the run from before the edit is still kept).
"""

from __future__ import annotations

import re
import shutil
import sys

import pytest

from sitebuild.run import reads
from tests.conftest import fence, page

pytestmark = pytest.mark.site

COUNT = "python -m pytest -q {} | tail -n 1 | sed 's/ in [0-9.]*s//'"
SUBPROCESS = """\
import re, subprocess, sys
done = subprocess.run([sys.executable, "-m", "pytest", "-q", "kit/tests/test_sub.py"], capture_output=True, text=True)
print(re.sub(r" in [0-9.]+s", "", done.stdout.strip().splitlines()[-1]))
"""
READ_BY_TEST = """\
from pathlib import Path


def test_the_limit_is_read():
    assert int(Path("kit/data/limit.txt").read_text()) > 0
"""
KIT = {
    "kit/__init__.py": "",
    "kit/alpha.py": "def value():\n    return 'alpha one'\n",
    "kit/other.py": "def value():\n    return 'other one'\n",
    "kit/data/__init__.py": "",
    "kit/data/opened.txt": "opened one\n",
    "kit/data/resource.txt": "resource one\n",
    "kit/data/limit.txt": "5\n",
    "kit/sed_source.txt": "sed one\nsecond line\n",
    "kit/cat_source.txt": "cat one\n",
    "kit/tests/__init__.py": "",
    "kit/tests/test_sub.py": "def test_one():\n    assert True\n",
    "kit/tests/test_count.py": READ_BY_TEST,
    "pyproject.toml": "[project]\nname = 'fixture'\n",
    "requirements.lock": "pydantic==2.0\n",
}
# name: (the reading page's block, the file edited, the edit, what the page shows after it)
WAYS = {
    "import": (fence("from kit.alpha import value\nprint(value())"), "kit/alpha.py",
               "def value():\n    return 'alpha two'\n", "alpha two"),
    "open": (fence("print(open('kit/data/opened.txt').read())"), "kit/data/opened.txt", "opened two\n", "opened two"),
    "importlib-resources": (fence("import importlib.resources\n"
                                  "print(importlib.resources.files('kit.data').joinpath('resource.txt').read_text())"),
                            "kit/data/resource.txt", "resource two\n", "resource two"),
    "sed": (fence("sed -n 1p kit/sed_source.txt", "bash"), "kit/sed_source.txt", "sed two\nsecond line\n", "sed two"),
    "cat": (fence("cat kit/cat_source.txt", "bash"), "kit/cat_source.txt", "cat two\n", "cat two"),
    "pytest-subprocess": (fence(SUBPROCESS), "kit/tests/test_sub.py",
                          "def test_one():\n    assert True\n\n\ndef test_two():\n    assert True\n", "2 passed"),
    "read-by-a-counted-test": (fence(COUNT.format("kit/tests/test_count.py"), "bash"), "kit/data/limit.txt", "0\n",
                               "1 failed"),
}
BESIDE = page(fence("from kit.other import value\nprint(value())"), title="Beside")


def ran(run) -> tuple[int, int]:
    """(pages that ran, pages reused) from a build's one-line summary."""
    found = re.search(r"blocks: (\d+) page\(s\) ran, (\d+) reused", run.output)
    assert found, run
    return int(found[1]), int(found[2])


def serve(site):
    return site.build("--no-strict", mode="serve")


def test_strace_is_there_to_record_reads():
    assert shutil.which("strace"), "these tests need strace (Debian: apt-get install strace; .ci/run installs it)"
    assert reads.tracer() is not None


@pytest.mark.parametrize("way", WAYS, ids=WAYS)
def test_an_edit_reruns_only_the_page_that_read_the_file_and_undoing_it_reruns_nothing(way, make_site):
    block, path, edit, shown = WAYS[way]
    site = make_site({"index.md": page(block), "beside.md": BESIDE}, KIT)  # no approved outputs: none needed here
    assert ran(serve(site)) == (2, 0)
    first_html = site.html()
    before = (site.root / path).read_text(encoding="utf-8")

    site.write(path, edit)
    edited = serve(site)
    edited_html = site.html()
    site.write(path, before)
    undone = serve(site)

    assert ran(edited) == (1, 1), edited  # the reading page ran again; the page beside it was reused
    assert shown in edited_html and shown not in first_html  # the output of the edited file, not the stored one
    assert ran(undone) == (0, 2), undone  # the run from before the edit is still kept
    assert shown not in site.html()


@pytest.mark.parametrize(("edit", "reruns"), [
    (("kit/new_module.py", "x = 1\n"), (1, 1)),  # a new file where the import system listed the folder
    (("requirements.lock", "pydantic==2.1\n"), (2, 0)),  # the lock counts for every page, read or not
    (("README.md", "notes\n"), (1, 1)),  # a new file at the site root, which the import system listed too
    (("docs/notes.txt", "notes\n"), (0, 2)),  # a new file in a folder no run read or listed
])
def test_a_new_file_in_a_listed_folder_and_the_lock_rerun_pages(edit, reruns, make_site):
    site = make_site({"index.md": page(WAYS["import"][0]), "beside.md": page(fence("print('beside')"))}, KIT)
    assert ran(serve(site)) == (2, 0)

    site.write(*edit)

    assert ran(serve(site)) == reruns


def test_without_a_record_of_reads_a_page_keeps_the_key_of_every_input(make_site, monkeypatch):
    monkeypatch.setenv(reads.TRACE_ENV, "0")
    site = make_site({"index.md": page(WAYS["import"][0]), "beside.md": BESIDE}, KIT)
    assert ran(serve(site)) == (2, 0)

    site.write("kit/alpha.py", "def value():\n    return 'alpha two'\n")

    assert ran(serve(site)) == (2, 0)  # neither page is known not to read it
    assert "alpha two" in site.html()


def test_a_record_that_does_not_end_with_its_program_s_exit_is_incomplete(tmp_path):
    (tmp_path / "abc.main").write_text("7")
    record = 'openat(AT_FDCWD</r>, "kit/a.py", O_RDONLY) = 3</r/kit/a.py>\n+++ exited with 0 +++\n'
    (tmp_path / "abc.7").write_text(record)
    assert reads.paths(tmp_path) == {"/r/kit/a.py": True}

    (tmp_path / "abc.7").write_text('openat(AT_FDCWD</r>, "kit/a.py", O_RDONLY) = 3</r/kit/a.py>\n')

    assert reads.paths(tmp_path) is None
    assert reads.paths(tmp_path / "nothing") is None
    (tmp_path / "abc.7").write_text('stat("relative", 0x1) = 0\n+++ exited with 0 +++\n')
    assert reads.paths(tmp_path) is None  # a relative path with no folder to resolve it in


def test_a_page_run_records_what_its_python_and_bash_blocks_read(tmp_path):
    from sitebuild.run.runner import PageSession, run_bash

    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "a.txt").write_text("a\n")
    (tmp_path / "kit" / "b.txt").write_text("b\n")
    records = tmp_path / "records"
    records.mkdir()
    trace = (reads.tracer(), records)
    with PageSession(tmp_path, trace=trace) as session:
        assert session.run("print(open('kit/a.txt').read())", "<a>", 60).output == "a\n\n"
    assert run_bash("cat kit/b.txt; ls kit >/dev/null", tmp_path, 60, trace=trace).output == "b\n"

    read = reads.paths(records)

    assert read is not None
    assert read[str(tmp_path / "kit" / "a.txt")] and read[str(tmp_path / "kit" / "b.txt")]
    assert read[str(tmp_path / "kit")]  # ls listed it
    assert any(path.startswith(sys.base_prefix) for path in read)  # the interpreter's own, outside the inputs
