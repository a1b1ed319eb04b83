"""Messages that point the right way (issue 26, case 9): each failure names what went wrong, not a side effect.

- A thread that raises fails its block as that exception, with a traceback of the block's own frames.
- A diff whose lines differ only in what cannot be seen (trailing spaces, tabs, a no-break space,
  look-alike characters) shows the difference, and says how.
- `mkdocs build --dirty` verifies the pages MkDocs rebuilds, says so, and calls no approved file stale
  whose page exists.
- A carriage return is approved as a terminal shows it: later text overwrites the line.
- Bytes that are not UTF-8 fail the block, naming where the first one is, shown as \\xNN.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from sitebuild.verify.approved import clean, diff
from tests.conftest import failure_line, fence, label, page, run_command, subprocess_env

pytestmark = pytest.mark.site

HELPER = "def fail():\n    raise RuntimeError('kit broke')\n"


# 1. Threads -------------------------------------------------------------------------------------------


def test_a_thread_that_raises_fails_the_block_as_its_exception(make_site):
    markdown = page(fence("import threading\n\ndef work():\n    raise ValueError('boom')\n\n"
                          "threading.Thread(target=work).start()\nprint('started')"))
    site = make_site({"index.md": markdown})

    built = site.build()

    line = failure_line(built, "docs/index.md", label(markdown, 1))
    assert line.split(": ", 2)[-1] == "raised ValueError: boom (in thread Thread-1 (work))", built
    assert "build-machine values" not in built.output, built
    assert 'File "<docs/index.md python-' in built.output and "line 4, in work" in built.output, built
    assert "threading.py" not in built.output, built
    assert site.accept().code != 0


def test_a_thread_raising_inside_helper_code_names_the_helper_frames(make_site):
    markdown = page(fence("import threading, helper\nthreading.Thread(target=helper.fail, name='loader').start()\n"
                          "print('started')"))
    site = make_site({"index.md": markdown}, {"helper.py": HELPER})

    built = site.build()

    line = failure_line(built, "docs/index.md", label(markdown, 1))
    assert line.endswith("raised RuntimeError: kit broke (in thread loader)"), built
    assert 'File "helper.py", line 2, in fail' in built.output, built
    assert "threading.py" not in built.output and "build-machine values" not in built.output, built


def test_a_daemon_thread_that_raises_during_a_later_block_names_the_block_that_started_it(make_site):
    first = fence("import threading, helper\ngo = threading.Event()\n"
                  "worker = threading.Thread(target=lambda: (go.wait(), helper.fail()), daemon=True)\n"
                  "worker.start()\nprint('started')")
    second = fence("go.set()\nworker.join()\nprint('joined')")
    markdown = page(first, second)
    site = make_site({"index.md": markdown}, {"helper.py": HELPER})

    built = site.build()

    second_line = failure_line(built, "docs/index.md", label(markdown, 2))
    assert "raised RuntimeError: kit broke (in thread Thread-1 (<lambda>), started by <docs/index.md python-" \
        in second_line, built
    assert "raised" not in failure_line(built, "docs/index.md", label(markdown, 1)), built  # new, not raised


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        pytest.param("import _thread, time\n_thread.start_new_thread(lambda: 1 / 0, ())\ntime.sleep(0.5)",
                     "raised ZeroDivisionError: division by zero (ignored in thread started by <lambda>)",
                     id="a-low-level-thread"),
        pytest.param("class Handle:\n    def __del__(self):\n        raise OSError('close failed')\n\nHandle()",
                     "raised OSError: close failed (ignored in Handle.__del__)", id="an-exception-in-del"),
    ],
)
def test_an_exception_python_cannot_raise_fails_the_block_as_itself(code, reason, make_site):
    markdown = page(fence(code + "\nprint('went on')"))
    site = make_site({"index.md": markdown})

    built = site.build()

    assert failure_line(built, "docs/index.md", label(markdown, 1)).endswith(reason), built
    assert "build-machine values" not in built.output and "0x" not in built.output, built


def test_a_thread_that_ends_itself_with_sys_exit_is_not_a_failure(make_site):
    site = make_site({"index.md": page(fence("import sys, threading\nt = threading.Thread(target=sys.exit)\n"
                                             "t.start()\nt.join()\nprint('ended quietly')"))})

    assert site.accept().code == 0
    assert site.build().code == 0


# 2. Diffs show what cannot be seen ---------------------------------------------------------------------


def test_a_diff_of_trailing_spaces_shows_them_and_says_how():
    lines = diff("total: 3  \nnext", "total: 3\nnext", "data/a.txt").splitlines()

    assert lines[3:5] == ["-total: 3\u2420\u2420", "+total: 3"]
    assert lines[-1].startswith("(shown in the - and + lines") and "\u2420 a trailing space" in lines[-1]


@pytest.mark.parametrize(
    ("approved_text", "actual", "removed", "added", "note"),
    [
        pytest.param("a\tb", "a    b", "-a\u2409b", "+a    b", "\u2409 a tab", id="tab-against-spaces"),
        pytest.param("row\t", "row", "-row\u2409", "+row", "\u2409 a tab", id="trailing-tab"),
        pytest.param("a\u00a0b", "a b", "-a\u27e8U+00A0\u27e9b", "+a b", "U+00A0 no-break space", id="no-break-space"),
        pytest.param("a\u200bb", "ab", "-a\u27e8U+200B\u27e9b", "+ab", "U+200B zero width space", id="zero-width"),
        pytest.param("caf\u00e9", "cafe\u0301", "-caf\u27e8U+00E9\u27e9", "+cafe\u27e8U+0301\u27e9",
                     "U+0301 combining acute accent", id="composed-against-combining"),
        pytest.param("p\u0430ss", "pass", "-p\u27e8U+0430\u27e9ss", "+pass", "U+0430 cyrillic small letter a",
                     id="cyrillic-look-alike"),
        pytest.param("mark\u2420", "mark ", "-mark\u27e8U+2420\u27e9", "+mark\u2420", "U+2420 symbol for space",
                     id="a-printed-mark-is-not-a-space"),
    ],
)
def test_a_diff_shows_invisible_differences(approved_text, actual, removed, added, note):
    lines = diff(approved_text, actual, "data/a.txt").splitlines()

    assert lines[3:5] == [removed, added]
    assert note in lines[-1]


def test_a_line_separator_inside_an_output_is_no_line_end_in_the_diff():
    lines = diff("a\u2028b", "a\nb", "data/a.txt").split("\n")

    assert lines[3:6] == ["-a\u27e8U+2028\u27e9b", "+a", "+b"]


def test_an_ordinary_diff_is_unchanged():
    assert diff("Zoë → 3 tokens", "Zoë → 4 tokens", "data/a.txt").splitlines()[3:] == \
        ["-Zoë → 3 tokens", "+Zoë → 4 tokens"]


def test_the_build_shows_a_trailing_space_change_in_its_diff(make_site):
    markdown = page(fence("import helper\nprint('total: 3' + ' ' * helper.PAD)"))
    site = make_site({"index.md": markdown}, {"helper.py": "PAD = 2\n"})
    assert site.accept().code == 0
    site.write("helper.py", "PAD = 0\n")

    built = site.build()

    assert "output differs from the approved output" in failure_line(built, "docs/index.md", label(markdown, 1))
    assert "    -total: 3\u2420\u2420\n    +total: 3\n" in built.output, built
    assert "\u2420 a trailing space" in built.output
    site.build("--no-strict", mode="serve")  # a failed build empties the site folder; serve shows the page
    assert "-total: 3\u2420\u2420" in site.html()  # the page's red box shows the same diff


# 3. --dirty ---------------------------------------------------------------------------------------------


def dirty_build(site):
    """`mkdocs build --dirty` of the site into its last build's folder, as the CLI runs it (not strict: MkDocs
    itself warns that a dirty build may leave links inaccurate)."""
    command = [sys.executable, "-m", "mkdocs", "build", "--dirty", "--no-strict", "-f", str(site.config),
               "-d", str(site.out)]
    return run_command(command, site.root, subprocess_env())


def touch(path):
    later = time.time() + 5  # newer than the built HTML, whatever the file system's time resolution
    os.utime(path, (later, later))


@pytest.fixture
def built_two_pages(make_site):
    pages = {"index.md": page(fence("print('home')")), "other.md": page(fence("print('other')"), title="Other")}
    site = make_site(pages)
    assert site.accept().code == 0
    assert site.build().code == 0
    return site


def test_a_dirty_build_verifies_the_pages_it_rebuilds_and_says_so(built_two_pages):
    site = built_two_pages
    touch(site.docs / "other.md")

    run = dirty_build(site)

    assert run.code == 0, run
    assert "a page that does not exist" not in run.output, run
    assert "--dirty: ran and verified only the 1 page(s) MkDocs rebuilt (docs/other.md); the other 1 page(s) " \
        "were not run or checked against data/" in run.output, run
    assert "blocks: 1 page(s) ran" in run.output, run


def test_a_dirty_build_still_fails_a_changed_output_on_a_page_it_rebuilds(built_two_pages):
    site = built_two_pages
    markdown = page(fence("print('other, changed')"), title="Other")
    site.page("other.md", markdown)
    touch(site.docs / "other.md")

    run = dirty_build(site)

    assert run.code != 0, run
    assert "its code changed since its output was approved" in failure_line(run, "docs/other.md", label(markdown, 1))
    assert "docs/index.md" not in run.output.split("--dirty:")[0], run  # index.md was not run


def test_a_dirty_build_reports_the_approved_file_of_a_page_that_is_gone(built_two_pages):
    site = built_two_pages
    (site.docs / "other.md").unlink()

    run = dirty_build(site)

    assert run.code != 0, run
    assert "data/other.txt holds approved outputs of a page that does not exist" in run.output, run
    assert "data/index.txt" not in run.output, run


def test_a_full_build_after_a_dirty_one_in_the_same_process_verifies_every_page(built_two_pages, monkeypatch):
    monkeypatch.setenv("SITEBUILD_DIRTY", "1")  # as the hook's on_startup leaves it for `mkdocs build --dirty`
    site = built_two_pages

    built = site.build()  # sitebuild.build_site: on_startup(dirty=False) first

    assert built.code == 0 and "--dirty" not in built.output and "blocks: 2 page(s) ran" in built.output, built


# 4. Carriage returns, as a terminal shows them --------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "shown"),
    [
        pytest.param("10%\r20%\r100%\n", "100%", id="progress"),
        pytest.param("abcdef\rxy", "xycdef", id="shorter-text-overwrites-the-start"),
        pytest.param("done\r", "done", id="a-carriage-return-at-the-very-end"),
        pytest.param("id,name\r\n1,Ada\r\n", "id,name\n1,Ada", id="crlf-stays-a-line-end"),
        pytest.param("a\r\r\nb", "a\nb", id="cr-before-crlf"),
        pytest.param("one\ntwo 50%\rtwo 99%\rtwo done\nthree", "one\ntwo done\nthree", id="only-its-own-line"),
        pytest.param("\rstart", "start", id="a-carriage-return-first"),
    ],
)
def test_a_carriage_return_overwrites_the_line_as_a_terminal_shows_it(output, shown):
    assert clean(output) == shown


def test_a_progress_line_is_approved_as_the_terminal_shows_it(make_site):
    markdown = page(
        fence("printf 'downloading 10%%\\rdownloading 20%%\\rdownloading 100%%\\n'", "bash"),
        fence("import time\nfor done in (0, 50, 100):\n    print(f'\\r{done}%', end='')\nprint()"),
        fence("printf 'saved\\r'", "bash"),
    )
    site = make_site({"index.md": markdown})

    assert site.accept().code == 0

    text = site.approved()
    assert "(1 line)\ndownloading 100%\n" in text and "(1 line)\n100%\n" in text and "(1 line)\nsaved\n" in text
    assert "10%" not in text and "50%" not in text
    assert site.build().code == 0
    assert "<code>downloading 100%\n</code>" in site.html()


# 5. Bytes that are not UTF-8 -----------------------------------------------------------------------------


def test_output_that_is_not_utf8_fails_naming_the_first_invalid_byte(make_site):
    markdown = page(fence("import sys\nprint('fine')\nsys.stdout.flush()\nsys.stdout.buffer.write(b'caf\\xe9\\n')"))
    site = make_site({"index.md": markdown})

    built = site.build()

    line = failure_line(built, "docs/index.md", label(markdown, 1))
    assert line.split(": ", 2)[-1].startswith(
        "printed bytes that are not valid UTF-8: \\xe9 on line 2, byte 4 of the line (byte 9 of the output"), built
    assert "    caf\\xe9" in built.output and "\ufffd" not in built.output, built
    accepted = site.accept()
    assert accepted.code != 0 and not site.approved_file().exists(), accepted


def test_invalid_utf8_on_stderr_of_a_bash_block_fails_too(make_site):
    markdown = page(fence("echo fine\nprintf 'bad \\xff\\xfe\\n' >&2", "bash"))
    site = make_site({"index.md": markdown})

    built = site.build()

    line = failure_line(built, "docs/index.md", label(markdown, 1))
    assert "printed bytes that are not valid UTF-8: \\xff on line 2, byte 5 of the line" in line, built
    assert "bad \\xff\\xfe" in built.output and "\ufffd" not in built.output, built


def test_invalid_utf8_fails_even_when_the_block_expects_its_exit_code(make_site):
    markdown = page(fence("printf '\\xed\\xa0\\x80 surrogate\\n'\nexit 1", "bash", returncode="1"))
    site = make_site({"index.md": markdown})

    built = site.build()

    assert "not valid UTF-8: \\xed on line 1, byte 1" in failure_line(built, "docs/index.md", label(markdown, 1))
