"""Every failure a build of the site must catch, pinned on small fixture sites.

Each block failure fails `mkdocs build` with a line naming the page, the block ("block N (python,
line L)") and the reason. A block that fails on its own cannot be approved: `accept` exits non-zero
and writes no approved output for it. Mistakes in how a page is written (an unknown fence option, a
duplicate id, exec on a language the site does not run) and broken links fail the build too.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

import pytest

from tests.conftest import create_site, failure_line, fence, label, page

pytestmark = pytest.mark.site

HELPER = "def present():\n    return 1\n"


@dataclass(frozen=True)
class Case:
    """A page whose blocks fail: for each failing block, its number and the start of its reason."""

    markdown: str
    expected: list[tuple[int, str]]
    details: list[str] = field(default_factory=list)  # text the failure's logged output must hold


RUN_FAILURES = {
    "python-raises": Case(
        page(fence("x = 1\nraise ValueError(f'bad value {x}')")),
        [(1, "raised ValueError: bad value 1")],
        ["Traceback (most recent call last):", "raise ValueError(f'bad value {x}')"],
    ),
    "python-raises-system-exit": Case(page(fence("raise SystemExit")), [(1, "raised SystemExit")]),
    "python-raises-system-exit-0": Case(
        page(fence("print('before')"), fence("raise SystemExit(0)")), [(2, "raised SystemExit: 0")]
    ),
    "python-ends-the-interpreter": Case(
        page(fence("print('before')"), fence("import os\nos._exit(3)"), fence("print('after')")),
        [
            (2, "ended the Python interpreter (exit code 3)"),
            (3, "not run: an earlier block ended the page's Python interpreter"),
        ],
    ),
    "bash-exits-non-zero": Case(
        page(fence("echo 'checking'\nls no-such-file", "bash")), [(1, "exited with code 2")], ["checking"]
    ),
    "bash-failing-command-before-a-pipe": Case(page(fence("false | cat", "bash")), [(1, "exited with code 1")]),
    "bash-failing-python-piped-to-tail": Case(
        page(fence("python -c 'import sys; print(\"1 failed\"); sys.exit(1)' | tail -n 1", "bash")),
        [(1, "exited with code 1")],
        ["1 failed"],
    ),
    "python-times-out": Case(
        page(fence("print('started')\nimport time\ntime.sleep(60)", timeout="1"), fence("print('later')"),
             fence("echo 'bash still runs'", "bash"), fence("print('later still')")),
        [
            (1, "timed out after 1 s"),
            (2, "not run: an earlier block of this page timed out"),
            (4, "not run: an earlier block of this page timed out"),
        ],
        ["started"],
    ),
    "bash-times-out": Case(
        page(fence("echo started\nsleep 60", "bash", timeout="1")), [(1, "timed out after 1 s")], ["started"]
    ),
    "python-prints-nothing": Case(page(fence("total = 1 + 2")), [(1, "printed nothing")]),
    "bash-excerpt-matches-nothing": Case(
        page(fence("sed -n '/^def missing/,/^$/p' helper.py", "bash")), [(1, "printed nothing")]
    ),
    "python-prints-a-memory-address": Case(
        page(fence("print(object())")), [(1, "output holds build-machine values that differ on every machine: 0x")]
    ),
    "python-prints-a-temporary-path": Case(
        page(fence("import os, tempfile\nprint(os.path.join(tempfile.gettempdir(), 'evidencedesk', 'cache.db'))")),
        [(1, f"output holds build-machine values that differ on every machine: {tempfile.gettempdir()}{os.sep}...")],
    ),
}


@pytest.fixture(scope="module")
def failing_site(tmp_path_factory):
    """Every case above as a page of one site: built, accepted, built again (site, build, accept, rebuild)."""
    pages = {f"{name}.md": case.markdown for name, case in RUN_FAILURES.items()}
    site = create_site(tmp_path_factory.mktemp("run-failures") / "site", pages, {"helper.py": HELPER})
    built = site.build()
    accepted = site.accept()
    return site, built, accepted, site.build()


def logged(run, page_path: str) -> str:
    """The lines a run logged about one page: its failure lines and the detail lines indented under them."""
    kept, keep = [], False
    for line in run.output.splitlines():
        if not line.startswith(" "):
            keep = f"{page_path}, " in line or f"{page_path}: " in line
        if keep:
            kept.append(line)
    return "\n".join(kept)


@pytest.mark.parametrize("name", RUN_FAILURES)
def test_a_failing_block_fails_the_build_and_cannot_be_approved(name, failing_site):
    site, built, accepted, rebuilt = failing_site
    case, page_path = RUN_FAILURES[name], f"docs/{name}.md"

    assert built.code != 0 and "verification failure(s)" in built.output, built
    for n, reason in case.expected:
        line = failure_line(built, page_path, label(case.markdown, n))
        assert line.split(": ", 2)[-1].startswith(reason), built
    for text in case.details:
        assert text in logged(built, page_path), built

    assert accepted.code != 0, accepted
    for n, reason in case.expected:
        assert reason in failure_line(accepted, page_path, label(case.markdown, n)), accepted
    failing_keys = {failure_line(built, page_path, label(case.markdown, n)).split(", key ")[1].split(":")[0]
                    for n, _ in case.expected}
    approved = site.approved(f"{name}.md") if site.approved_file(f"{name}.md").exists() else ""
    assert not any(key in approved for key in failing_keys), approved
    assert rebuilt.code != 0 and failure_line(rebuilt, page_path, label(case.markdown, case.expected[0][0]))


def test_a_failure_names_files_relative_to_the_site_root(make_site):
    markdown = page(fence("import helper\nhelper.fail()"))
    site = make_site({"index.md": markdown}, {"helper.py": "def fail():\n    raise RuntimeError('kit broke')\n"})

    built = site.build()

    assert "raised RuntimeError: kit broke" in failure_line(built, "docs/index.md", label(markdown, 1))
    assert 'File "helper.py", line 2, in fail' in built.output
    assert f'File "{site.root}' not in built.output


BAD_PAGES = {
    "unknown-option": (
        page(fence("print(1)", colour="red")),
        "docs/index.md: block 1 (python, line 3): unknown option colour='red'; this site's blocks accept: exec, id,",
    ),
    "bad-option-value": (
        page(fence("print(1)"), fence("print(2)", show="sometimes")),
        "docs/index.md: block 2 (python, line 7): option show='sometimes' is not valid: expected all",
    ),
    "bad-timeout": (
        page(fence("print(1)", timeout="soon")),
        "docs/index.md: block 1 (python, line 3): option timeout='soon' is not valid: expected seconds",
    ),
    "duplicate-id": (
        page(fence("print(1)", id="total"), fence("echo 2", "bash", id="total")),
        "docs/index.md: block 2 (bash, line 7): id 'total' is already used by another block of this page",
    ),
    "exec-on-pycon": (
        page(fence(">>> print(1)", "pycon")),
        "docs/index.md: block 1 (pycon, line 3): exec is on for language 'pycon'; this site runs python and bash "
        "blocks",
    ),
    "exec-on-console": (
        page(fence("$ echo 1", "console")),
        "docs/index.md: block 1 (console, line 3): exec is on for language 'console'; this site runs python and "
        "bash blocks",
    ),
    "exec-on-pycon-raising-system-exit": (
        page(fence("print('fine')"), fence(">>> raise SystemExit(0)", "pycon")),
        "docs/index.md: block 2 (pycon, line 7): exec is on for language 'pycon'",
    ),
}


@pytest.mark.parametrize(("markdown", "message"), BAD_PAGES.values(), ids=BAD_PAGES.keys())
def test_a_badly_written_block_fails_the_build_with_a_clear_message(markdown, message, make_site):
    site = make_site({"index.md": markdown})

    built = site.build()

    assert built.code != 0, built
    assert message in built.output, built
    accepted = site.accept()
    assert accepted.code != 0, accepted
    assert message in accepted.output
    assert not site.data.exists()


@pytest.mark.parametrize("language", ["pycon", "console"])
def test_a_block_in_a_language_the_site_does_not_run_is_never_run(language, make_site, tmp_path):
    marker = tmp_path / "ran"
    code = f">>> open({str(marker)!r}, 'w').close()" if language == "pycon" else f"$ touch {marker}"
    site = make_site({"index.md": page(fence(code, language))})

    built = site.build()

    assert built.code != 0, built
    assert not marker.exists(), "a block the site refuses was run anyway, in the MkDocs process or its shell"


def test_a_broken_internal_link_fails_the_strict_build(make_site):
    site = make_site({"index.md": page("See [the next page](next.md).")})

    built = site.build()

    assert built.code != 0, built
    assert "'index.md' contains a link 'next.md', but the target is not found" in built.output, built


def test_a_broken_anchor_fails_the_strict_build(make_site):
    site = make_site({"index.md": page("## Setup", "See [setup](#setup) and [usage](#usage).")})

    built = site.build()

    assert built.code != 0, built
    assert "'index.md' contains a link '#usage', but there is no such anchor on this page" in built.output, built
    assert "'#setup'" not in built.output


def test_the_log_keeps_the_start_and_the_end_of_a_long_failing_output(make_site):
    code = "echo 'the first line says what went wrong' >&2\nseq 1 100\nexit 1"
    site = make_site({"index.md": page(fence(code, "bash"))})

    built = site.build()

    assert built.code != 0
    assert "the first line says what went wrong" in built.output and "    100" in built.output, built
    assert "... 61 more lines not shown here (the page's red box shows them all) ..." in built.output, built
