"""A block never changes what the build reads or `make serve` watches (issue 26, case 2).

The tools the site runs keep their caches in a scratch folder of the run (runner.scratch_env), and a block
that still writes into a guarded folder fails the build, naming the page, the block and the file
(guard.py); under `make serve` such a page stops re-running after the rebuild its own write started.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from sitebuild.run.guard import WriteGuard
from sitebuild.verify.approved import parse
from tests.conftest import failure_line, fence, label, page
from tests.test_site_serve import WAIT, serving, wait_for

pytestmark = pytest.mark.site


@pytest.fixture(autouse=True)
def no_sandbox(monkeypatch):
    """The guard is the net where bubblewrap cannot start; in the sandbox these writes fail as read-only
    (tests/test_site_sandbox.py)."""
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")

APPEND = "with open('kit/data/log.txt', 'a') as f:\n    f.write('one more line\\n')\nprint('appended')"
PROPERTY_TEST = """\
from hypothesis import given, strategies as st


@given(st.integers())
def test_integers_are_integers(n):
    assert isinstance(n, int)
"""


@pytest.mark.parametrize(
    ("code", "language", "written"),
    [
        (APPEND, "python", "kit/data/log.txt (created)"),  # the example
        ("echo 'late' >> docs/notes.md && echo done", "bash", "docs/notes.md (created)"),
        ("import pathlib\npathlib.Path('docs/made').mkdir()\npathlib.Path('docs/made/x.txt').write_text('x')\n"
         "print('wrote')", "python", "docs/made (created), docs/made/x.txt (created)"),
        ("rm kit/data/seed.txt && echo removed", "bash", "kit/data/seed.txt (removed)"),
        ("import subprocess\nsubprocess.run(['touch', 'mkdocs.yml'])\nprint('touched')", "python",
         "mkdocs.yml (changed)"),
        ("touch kit/data/.lock && rm kit/data/.lock && echo locked", "bash",
         "kit/data/ (a file made and removed in it)"),
    ],
)
def test_a_block_that_writes_into_a_guarded_folder_fails_naming_page_block_and_file(code, language, written,
                                                                                     make_site):
    markdown = page(fence(code, language))
    site = make_site({"index.md": markdown}, {"kit/data/seed.txt": "seed\n"})

    accepted = site.accept()

    assert accepted.code != 0
    line = failure_line(accepted, "docs/index.md", label(markdown, 1))
    assert f"wrote into {written}" in line, accepted
    assert not site.approved_file().exists()


def test_pytest_with_hypothesis_in_a_kit_folder_block_leaves_no_cache_there(make_site):
    markdown = page(fence("python -m pytest -q test_props.py | tail -n 1 | sed 's/ in [0-9.]*s//'", "bash",
                          workdir="kit"))
    site = make_site({"index.md": markdown}, {"kit/test_props.py": PROPERTY_TEST})

    accepted = site.accept()
    built = site.build()

    assert accepted.code == 0, accepted
    assert built.code == 0, built
    assert sorted(p.name for p in (site.root / "kit").iterdir()) == ["test_props.py"]  # no .hypothesis, .pytest_cache


def test_each_page_runs_with_a_temporary_folder_of_its_own(make_site):
    # Pages run at the same time: with one shared temporary folder, two pages' pytest runs clean up each
    # other's tmp_path folders and a count line gains ", 1 warning" ("(rm_rf) error removing ...").
    where = ("import tempfile\nfrom pathlib import Path\nhere = Path(tempfile.gettempdir())\n"
             "(here / 'mine.txt').write_text('{name}')\nprint(sorted(p.name for p in here.iterdir()))")
    bash = 'echo "$TMPDIR" > "$TMPDIR/bash.txt"; ls "$TMPDIR"'
    pages = {f"{name}.md": page(fence(where.format(name=name)), fence(bash, "bash"), title=name)
             for name in ("a", "b")}
    site = make_site(pages)

    accepted = site.accept()

    assert accepted.code == 0, accepted
    for name in ("a", "b"):
        entries = list(parse(site.approved(f"{name}.md"), name).values())
        assert entries == ["['mine.txt']", "bash.txt\nmine.txt"], entries  # nothing of the other page's


def test_the_guard_names_each_block_that_ran_while_a_file_changed(tmp_path):
    (tmp_path / "kit").mkdir()
    guard = WriteGuard(tmp_path, [tmp_path / "kit"])
    other, other_before = guard.start("docs/b.md, block 2 (bash, line 9)")
    window, before = guard.start("docs/a.md, block 1 (python, line 3)")
    (tmp_path / "kit" / "x.txt").write_text("x")

    problem = guard.finish(window, before)

    assert problem.startswith("wrote into kit/x.txt (created), which the build reads")
    assert "(or docs/b.md, block 2 (bash, line 9), which ran at the same time, did" in problem
    other_problem = guard.finish(other, other_before)  # it saw the change too: a block that wrote never passes
    assert other_problem.startswith("wrote into kit/x.txt (created)")
    assert "(or docs/a.md, block 1 (python, line 3), which ran at the same time, did" in other_problem


def wait_for_log(log, text: str, server: subprocess.Popen) -> None:
    """Poll the server's log until it holds text; fail after WAIT seconds or if the server ends."""
    deadline = time.monotonic() + WAIT
    while text not in log.read_text():
        assert server.poll() is None and time.monotonic() < deadline, f"no {text!r} in the log:\n{log.read_text()}"
        time.sleep(0.25)


def test_serve_stops_running_a_page_whose_block_writes_into_a_watched_folder(make_site, tmp_path):
    site = make_site({"index.md": page(fence(APPEND), "Version one.")}, {"kit/data/seed.txt": "seed\n"})
    site.write("mkdocs.yml", site.config.read_text() + "watch:\n  - kit\n")
    log = tmp_path / "serve.log"
    with serving(site, log) as (url, server):
        wait_for(url, "wrote into kit/data/log.txt", server, log)  # the first build, before serve watches
        site.page("index.md", page(fence(APPEND), "Version two."))
        wait_for(url, "Version two.", server, log)  # the page ran again and wrote again, which starts a rebuild:
        wait_for_log(log, "0 page(s) ran, 1 reused from the cache", server)  # that one reuses the failing run
        site.page("index.md", page(fence(APPEND), "Version three."))
        shown = wait_for(url, "Version three.", server, log)
    assert "wrote into kit/data/log.txt" in shown
    assert (site.root / "kit/data/log.txt").read_text().count("\n") == 2, log.read_text()  # two runs, no loop


def test_accept_writing_approved_files_into_new_folders_is_no_blocks_write(make_site):
    # Pages in folders of their own run at the same time, while accept writes data/secN/ for each: those writes
    # are the build's, and no block that is running then is blamed for them.
    pages = {f"sec{n}/p{n}.md": page(fence(f"import time\ntime.sleep(0.3)\nprint({n})")) for n in range(4)}
    site = make_site({"index.md": page(fence("print(0)")), **pages})
    (site.root / "data").mkdir()

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert sorted(p.name for p in site.data.iterdir()) == ["index.txt", "sec0", "sec1", "sec2", "sec3"]
