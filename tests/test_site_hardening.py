"""What an attacker of the build found, pinned: each case fails loudly with page, block and reason."""

from __future__ import annotations

import os
import re
import sys

import pytest

from sitebuild.verify.outputs import EDITED_SAME, MAX_OUTPUT_CHARS, UNSTABLE
from tests.conftest import REPO_ROOT, approved_entries, failure_line, fence, label, page, run_command, subprocess_env

pytestmark = pytest.mark.site


def test_a_block_in_a_blockquote_runs_and_renders_inside_the_quote(make_site):
    quoted = '> ```python exec="on"\n> print("in a quote")\n> ```\n'
    site = make_site({"index.md": page(quoted)})

    assert site.accept().code == 0
    built = site.build()

    assert built.code == 0, built
    quote = site.html().split("<blockquote>", 1)[1].split("</blockquote>", 1)[0]
    assert '<span class="filename">Python</span>' in quote and "\"in a quote\"" in quote
    assert '<span class="filename">Output</span>' in quote and "in a quote\n</code>" in quote


def test_a_fence_markdown_reads_as_an_indented_code_block_fails_and_cannot_be_approved(make_site):
    indented = '    ```python exec="on"\n    print("shown as text")\n    ```\n'
    site = make_site({"index.md": page("Some text.\n", indented)})

    built = site.build()

    assert built.code != 0
    assert "Markdown shows this fence as text" in built.output
    assert site.accept().code != 0


def test_a_bash_block_leaves_no_process_running_and_ends_with_its_shell(make_site, monkeypatch):
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")  # the reaper alone, and the block writes its pid into the repo
    site = make_site({"index.md": page(fence("sleep 300 > /dev/null & echo $! > sleeper.pid\necho started", "bash"))})

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert approved_entries(site.approved())[0].splitlines()[1:] == ["started"]
    assert "timed out" not in accepted.output
    pid = int((site.root / "sleeper.pid").read_text())
    assert not alive(pid)


def alive(pid: int) -> bool:
    """True while pid runs; a killed process that no one has reaped yet (a zombie) does not count."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_output_of_a_thread_stays_with_the_block_that_started_it(make_site):
    first = fence("import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.3), print('late'))).start()\n"
                  "print('first')")
    second = fence("print('second')")
    site = make_site({"index.md": page(first, second)})

    assert site.accept().code == 0

    entries = [entry.splitlines()[1:] for entry in approved_entries(site.approved())]
    assert entries == [["first", "late"], ["second"]]


@pytest.mark.parametrize("value", ["²", "١٢", "0", "99999"])
def test_a_timeout_option_must_be_plain_ascii_digits_in_range(value, make_site):
    site = make_site({"index.md": page(fence("print(1)", timeout=value))})

    built = site.build()

    assert built.code != 0
    assert f"option timeout={value!r} is not valid" in built.output
    assert "Traceback" not in built.output


@pytest.mark.parametrize("value", [".inf", ".nan", "true", "0", "-5"])
def test_the_site_wide_timeout_is_checked(value, make_site):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(block_timeout=value)

    built = site.build()

    assert built.code != 0
    assert "Plugin 'verified-blocks' option 'block_timeout': expected a number of seconds from 1 to 3600" \
        in built.output, built


def test_an_approved_file_that_is_not_utf8_fails_naming_it(make_site):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.data.mkdir()
    site.approved_file().write_bytes(b"# \xff\n")

    built = site.build()

    assert built.code != 0
    assert "data/index.txt cannot be read" in built.output and "Traceback" not in built.output


def test_a_syntax_error_is_reported_in_one_line(make_site):
    markdown = page(fence("print('unclosed'"))
    site = make_site({"index.md": markdown})

    line = failure_line(site.build(), "docs/index.md", label(markdown, 1))

    assert re.search(r": raised SyntaxError: .+$", line)


def test_accept_refuses_an_output_that_changes_between_runs(make_site):
    site = make_site({"index.md": page(fence("import os\nprint(os.urandom(8).hex())"))})

    accepted = site.accept()

    assert accepted.code != 0
    assert UNSTABLE in accepted.output and "+++ second run" in accepted.output
    assert not site.approved_file().exists()
    assert "failure(s) remain" in accepted.output


def test_an_output_too_large_for_a_page_fails(make_site):
    markdown = page(fence(f"print('x' * {MAX_OUTPUT_CHARS + 1})"))
    site = make_site({"index.md": markdown})

    line = failure_line(site.build(), "docs/index.md", label(markdown, 1))

    assert f"printed {MAX_OUTPUT_CHARS + 1} characters" in line


def test_a_block_whose_key_changed_but_not_its_output_says_so(make_site):
    site = make_site({"index.md": page(fence("print('same')"))})
    assert site.accept().code == 0
    markdown = page(fence("print('same')  # a comment changes the key"))
    site.page("index.md", markdown)

    line = failure_line(site.build(), "docs/index.md", label(markdown, 1))

    assert EDITED_SAME in line
    assert "new key" in site.accept().output


def test_serve_mode_shows_a_broken_link_and_anchor_on_the_page(make_site):
    markdown = page(fence("print(1)"), "See [nowhere](missing.md) and [no heading](#no-such-heading).\n")
    site = make_site({"index.md": markdown})
    assert site.accept().code == 0

    built = site.build("--no-strict", mode="serve")

    assert built.code == 0, built
    html = site.html()
    assert html.count('<p class="admonition-title">This page has a broken link</p>') == 2
    assert "contains a link &#x27;missing.md&#x27;" in html and "#no-such-heading" in html


def test_bench_prints_one_line_per_page_with_blocks(make_site):
    site = make_site({"index.md": page(fence("print(1)"), fence("echo 2", "bash")), "plain.md": page("No blocks.")})

    result = run_command([sys.executable, "-m", "sitebuild", "bench", "-f", str(site.config), "--runs", "1"],
                         REPO_ROOT, subprocess_env())

    assert result.code == 0, result
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("docs/index.md") and " 2 blocks " in lines[0]


# CPU-seconds, not a clock: the count is what is tested
BURN = "import time\nwhile time.process_time() < {seconds}:\n    pass\n"


def test_bench_counts_make_tests_waited_processes_and_apart_those_it_left_unwaited(tmp_path):
    """The CPU figure of `bench --compare` (bench.test_cpu_per_page): a recipe that burns 0.3 CPU-s in a process
    make waits for and 0.4 in one it leaves behind (as Playwright's driver leaves Chromium) counts 0.3 as waited
    and at least 0.7 in all; the course pages are the nav's pages inside Beginner and Advanced chapters."""
    (tmp_path / "waited.py").write_text(BURN.format(seconds=0.3))
    (tmp_path / "left.py").write_text(BURN.format(seconds=0.4))
    (tmp_path / "Makefile").write_text(f"test:\n\t{sys.executable} waited.py\n\t({sys.executable} left.py &)\n")
    (tmp_path / "mkdocs.yml").write_text(
        "nav:\n- Home: index.md\n- Beginner:\n  - Chapter 1:\n    - a.md\n    - b.md\n"
        "- Advanced:\n  - Chapter 1:\n    - c.md\n")
    measure = "import sys\nfrom pathlib import Path\nfrom sitebuild.bench import test_cpu_per_page\n" \
              "print(*test_cpu_per_page(Path(sys.argv[1])))"  # in a process of its own: it becomes a subreaper

    result = run_command([sys.executable, "-c", measure, str(tmp_path)], REPO_ROOT, subprocess_env())

    assert result.code == 0, result
    whole, waited, pages = result.output.split()
    assert pages == "3"
    assert 0.3 <= float(waited) < 0.7
    assert float(whole) >= float(waited) + 0.4


def test_the_page_with_the_most_blocks_runs_first(make_site, tmp_path, monkeypatch):
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")  # its blocks log their order outside their run's folders
    # one worker: the runs' order is the queue's; the longest page queued last would run alone at the end
    order = tmp_path / "order.txt"
    stamp = f"with open({str(order)!r}, 'a') as log:\n    log.write({{name!r}})\nprint('ran')"
    site = make_site({"a.md": page(fence(stamp.format(name="a"))),
                      "b.md": page(*[fence(stamp.format(name="b"))] * 3),
                      "index.md": page(fence(stamp.format(name="i")), fence("print(2)"))})
    site.options(block_jobs=1)

    built = site.build("--no-strict")

    assert order.read_text() == "b" * 3 + "i" + "a", built  # most blocks first; ties in the nav's order
