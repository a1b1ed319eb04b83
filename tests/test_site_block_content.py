"""What a block can hold, print or leave behind, as an author or a kit can throw it at the build.

Each kind of fault has the example that found it and at least one more input of the same kind:
1. an output is shown as text, whatever it holds; 2. fence options render as written, or fail with
page and line; 3. Markdown and the build agree on every block and its code; 4. lines count as an
editor shows them; 5. colour codes never reach a page; 6. the block environment is the site's, not
the builder's; 7. a block ends when its shell ends; 8. Material's code options; 9. markdown-exec's
options, honoured or refused with a reason.

Most cases share one fixture site, accepted once and built once (`shown`); failures build their own.
"""

from __future__ import annotations

import html as html_lib
import os
import re
from pathlib import Path

import pytest

from sitebuild.run.capture import plain_text
from sitebuild.run.runner import FIXED_ENV, block_env
from tests.conftest import REPO_ROOT, create_site, failure_line, fence, page

pytestmark = pytest.mark.site

BACKTICKS = "`" * 8
PAYLOADS = {  # (code of a python block, the exact output it prints)
    "backtick-fence-and-html": (
        'print("````````")\nprint("<img src=x onerror=alert(1)> **bold**")\nprint("`" * 8)',
        f"{BACKTICKS}\n<img src=x onerror=alert(1)> **bold**\n{BACKTICKS}",
    ),
    "tilde-fence-and-script": (
        'print("~" * 12)\nprint("</code></pre><script>alert(2)</script>")\nprint("~" * 12)',
        "~" * 12 + "\n</code></pre><script>alert(2)</script>\n" + "~" * 12,
    ),
    "markdown-and-entities": (
        'print("# not a heading\\n[not a link](x.md) &amp; </div>")',
        "# not a heading\n[not a link](x.md) &amp; </div>",
    ),
}
TAB = "\t"
SHOWN_PAGES = {
    **{f"payload-{name}.md": page(fence(code)) for name, (code, _) in PAYLOADS.items()},
    "payload-in-source.md": page(fence(f'text = """\n{BACKTICKS}\n<b>in the source</b>\n"""\nprint(len(text))')),
    "quoted-title.md": page('```python exec="on" title=\'Say "hi"\'\nprint("hi")\n```\n'),
    "html-title.md": page('```python exec="on" title="<b>bold</b> & co"\nprint("titled")\n```\n'),
    "tabs.md": page(f'```python exec="on"\nfor n in range(2):\n{TAB}print("tab", n)\n```\n'),
    "crlf.md": page(
        fence("print('crlf page')"), '\n!!! note\n\n    ```python exec="on"\n    print(\'in a note\')\n    ```\n'
    ).replace("\n", "\r\n"),
    "list.md": page("1. First step:\n\n    ```bash exec=\"on\"\n    echo 'in a list'\n    ```\n\n2. Second step.\n"),
    "ansi.md": page(fence(r"printf '\033[32mgreen\033[0m plain\n'", "bash"),
                    fence(r"print('\x1b[1mbold\x1b[0m, \x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\, "
                          r"bell\x07')")),
    "stderr-order.md": page(fence("python -c \"import sys; print('out'); print('err', file=sys.stderr)\"", "bash")),
    "background.md": page(fence("sleep 30 &\necho started", "bash", timeout="20"),
                          fence("sleep 30 > /dev/null &\necho also started", "bash", timeout="20"),
                          fence("import subprocess\nsubprocess.Popen(['sleep', '30'])\nprint('python started')",
                                timeout="20")),
    "material.md": page(fence("a = 1\nb = 2\nprint(a + b)", hl_lines="2"), fence("print('numbered')", linenums="1")),
    "returncode.md": page(fence("echo 'one test failed'\nexit 1", "bash", returncode="1")),
    "layouts.md": page(
        fence("print('tabbed')", source="tabbed-left", tabs="Code|What it printed"),
        fence("print('below')", source="below"),
        fence("echo console", "bash", source="console"),
        fence("print('in a result block')", source="material-block"),
        fence('import json\nprint(json.dumps({"ok": True}))', result="json"),
    ),
    "run-options.md": page(
        fence("pwd; cat note.txt", "bash", workdir="sub"),
        fence("import os, shutil\nprint(os.environ['COLUMNS'], shutil.get_terminal_size().columns)", width="60"),
        fence("secret = 'set up' # markdown-exec: hide\nprint(secret)"),
    ),
}


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """The fixture site with every page above, accepted once and built once: (site, accept run, build run)."""
    site = create_site(tmp_path_factory.mktemp("content") / "site", SHOWN_PAGES, {"sub/note.txt": "a note\n"})
    for name, markdown in SHOWN_PAGES.items():
        if "\r\n" in markdown:
            (site.docs / name).write_bytes(markdown.encode())
    accepted = site.accept()
    assert accepted.code == 0, accepted
    built = site.build()
    assert built.code == 0, built
    return site, accepted, built


def reader_text(fragment: str) -> str:
    """HTML as a reader sees it: tags removed, entities decoded."""
    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))


def boxes(html: str, title: str) -> list[str]:
    """The text of each code box whose title reads title, as a reader sees it."""
    found = re.findall(r'<span class="filename">(.*?)</span><pre>(.*?)</pre>', html, re.S)
    return [reader_text(box) for shown_title, box in found if reader_text(shown_title) == title]


def article(html: str) -> str:
    return html[html.index("<article"): html.index("</article>")]


# 1. An output is text, whatever it holds ---------------------------------------------------------------


@pytest.mark.parametrize("name", PAYLOADS)
def test_an_output_is_shown_verbatim_as_text_and_never_as_markup(name, shown):
    site, _, _ = shown
    html = article(site.html(f"payload-{name}.md"))

    assert boxes(html, "Output") == [PAYLOADS[name][1] + "\n"]
    assert "<img" not in html and "<script" not in html and "<strong>" not in html
    assert "<h1" not in html.split('<span class="filename">Output</span>', 1)[1]


def test_source_holding_a_backtick_fence_stays_in_its_box(shown):
    site, _, _ = shown
    html = article(site.html("payload-in-source.md"))

    (source,) = boxes(html, "Python")
    assert f"{BACKTICKS}\n<b>in the source</b>" in source and "<b>" not in html


# 2. Fence options render as written, or fail naming page and line -------------------------------------


def test_a_title_with_quotes_or_markup_renders_as_written_and_escaped(shown):
    site, _, _ = shown
    quoted, marked = article(site.html("quoted-title.md")), article(site.html("html-title.md"))

    assert boxes(quoted, 'Say "hi"') == ['print("hi")\n'] and "exec=" not in quoted
    assert boxes(marked, "<b>bold</b> & co") == ['print("titled")\n'] and "<b>" not in marked


@pytest.mark.parametrize(
    ("fence_line", "message"),
    [
        pytest.param('```python exec="on" hl-lines="2"',
                     "block 1 (python, line 3): unknown option hl='hl' (a word without a",
                     id="option-name-with-a-dash"),
        pytest.param('```python exec="on" title="unclosed', "line 3: this fence asks to run, but Markdown reads it",
                     id="unclosed-quote"),
        pytest.param('```python exec="on" colour="red"', "block 1 (python, line 3): unknown option colour='red'",
                     id="unknown-option"),
    ],
)
def test_a_fence_the_site_cannot_honour_fails_naming_page_and_line(fence_line, message, make_site):
    site = make_site({"index.md": page(f"{fence_line}\nprint(1)\n```\n")})

    built = site.build()

    assert built.code != 0
    assert f"docs/index.md: {message}" in built.output, built


# 3. Markdown and the build agree on every block and its code -------------------------------------------


def test_a_tab_indented_block_runs_and_renders(shown):
    site, _, _ = shown

    assert boxes(article(site.html("tabs.md")), "Output") == ["tab 0\ntab 1\n"]


@pytest.mark.parametrize(
    ("name", "expected"), [("crlf.md", ["crlf page\n", "in a note\n"]), ("list.md", ["in a list\n"])]
)
def test_blocks_in_crlf_pages_notes_and_lists_run_and_render(name, expected, shown):
    site, _, _ = shown

    assert boxes(article(site.html(name)), "Output") == expected


def test_an_exec_fence_inside_an_indented_code_block_fails_before_it_runs(make_site, tmp_path):
    marker = tmp_path / "ran.txt"
    indented = f'Text.\n\n    ```bash exec="on"\n    touch {marker}\n    ```\n'
    site = make_site({"index.md": page(indented)})

    built = site.build()

    assert built.code != 0
    assert "docs/index.md: block 1 (bash, line 5): Markdown shows this fence as text" in built.output, built
    assert not marker.exists()


# 4. Lines count as an editor shows them ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "line"),
    [
        pytest.param("---\ntitle: Front\nhide: [toc]\n---\n\n", 8, id="yaml-front-matter"),
        pytest.param("---\ntitle: Front\n---\n\n\n\n", 9, id="front-matter-then-blank-lines"),
    ],
)
def test_a_failing_block_after_front_matter_names_its_line_in_the_file(front, line, make_site):
    markdown = front + "# Page\n\n" + fence("raise ValueError('at this line')")
    site = make_site({"index.md": markdown})
    assert markdown.splitlines()[line - 1].startswith("```python")

    built = site.build()

    assert f"docs/index.md, block 1 (python, line {line}), key " in built.output, built


def test_crlf_line_ends_do_not_change_line_numbers(make_site):
    site = make_site()
    markdown = "---\ntitle: x\n---\n\n# Page\n\n" + fence("raise ValueError('crlf')")
    site.page("index.md", "")
    (site.docs / "index.md").write_bytes(markdown.replace("\n", "\r\n").encode())

    assert "docs/index.md, block 1 (python, line 7), key " in site.build().output


# 5. Colour codes never reach a page --------------------------------------------------------------------


def test_colour_codes_are_removed_and_other_controls_made_visible(shown):
    site, _, _ = shown
    approved = site.approved("ansi.md")

    assert "green plain" in approved and "\x1b" not in approved and "\x07" not in approved
    assert "bold, link, bell\\x07" in approved
    assert boxes(article(site.html("ansi.md")), "Output")[0] == "green plain\n"


def test_plain_text_removes_every_kind_of_escape_sequence():
    assert plain_text("\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b(Bok \x9b32mcsi\x1b[2K") == "red ok csi"
    kept = "tab\tand newline\n stay, \x00 and \x7f do not"
    assert plain_text(kept) == "tab\tand newline\n stay, \\x00 and \\x7f do not"


# 6. The block environment is the site's ----------------------------------------------------------------


def test_stderr_and_stdout_keep_their_order_whatever_the_builder_sets(tmp_path, monkeypatch):
    site = create_site(tmp_path / "site", {"stderr-order.md": SHOWN_PAGES["stderr-order.md"]})
    assert site.accept().code == 0  # approved with the builder's own environment
    assert "out\nerr" in site.approved("stderr-order.md")

    for value in ("1", None):  # approved with PYTHONUNBUFFERED from the builder's environment, or without it
        if value is None:
            monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
        else:
            monkeypatch.setenv("PYTHONUNBUFFERED", value)
        assert site.build().code == 0


def test_block_env_passes_only_what_a_block_needs(tmp_path, monkeypatch):
    for name, value in {"PYTHONPATH": "/elsewhere", "FORCE_COLOR": "1", "COLUMNS": "40", "LANG": "de_DE.UTF-8",
                        "API_KEY": "sk-not-for-blocks", "PYTHONUNBUFFERED": "0", "TERM": "xterm-256color"}.items():
        monkeypatch.setenv(name, value)

    env = block_env(tmp_path)

    assert set(env) <= {"PATH", "HOME", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "VIRTUAL_ENV", "PWD", *FIXED_ENV}
    assert {k: env[k] for k in FIXED_ENV} == FIXED_ENV
    assert "PYTHONPATH" not in env and "API_KEY" not in env and "FORCE_COLOR" not in env


# 7. A block ends when its shell ends --------------------------------------------------------------------


def test_a_background_process_neither_holds_the_block_nor_outlives_it(shown):
    site, _, built = shown

    assert "timed out" not in built.output
    assert [line.split("---")[0] for line in site.approved("background.md").splitlines() if "started" in line] == [
        "started", "also started", "python started"]
    kills = [line for line in built.output.splitlines() if "left running when its shell ended" in line]
    assert [line.split("verified-blocks: ")[1].split(": killed")[0] for line in kills] == [
        "docs/background.md, block 1 (bash, line 3)", "docs/background.md, block 2 (bash, line 8)"]
    assert not [pid for pid, name in sleepers(site.root) if name == "sleep 30"], "a block's sleep 30 outlived the build"


def sleepers(root: Path) -> list[tuple[int, str]]:
    """(pid, command line) of the live processes working in root: those a fixture site's blocks started.

    Only root's, so that another test run on the same machine (its own fixture sites) cannot fail this one.
    """
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if not Path(os.readlink(f"/proc/{entry.name}/cwd")).is_relative_to(root):
                    continue
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    found.append((int(entry.name), f.read().replace(b"\0", b" ").decode().strip()))
            except OSError:
                continue
    return found


# 8. Material's code options -----------------------------------------------------------------------------


def test_hl_lines_and_linenums_work_on_the_source_box(shown):
    site, _, _ = shown
    html = article(site.html("material.md"))

    assert '<span class="hll"><span class="n">b</span>' in html
    assert 'class="linenos"' in html or "linenodiv" in html


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param({"hl_lines": "two"}, "option hl_lines='two' is not valid", id="bad-hl-lines"),
        pytest.param({"linenums": "first"}, "option linenums='first' is not valid", id="bad-linenums"),
    ],
)
def test_bad_material_options_fail_with_a_reason(options, message, make_site):
    site = make_site({"index.md": page(fence("print(1)", **options))})

    assert f"docs/index.md: block 1 (python, line 3): {message}" in site.build().output


def test_code_annotations_are_refused_with_a_reason(make_site):
    site = make_site({"index.md": page(fence("print(1)  # (1)!"), "1. An annotation.\n")})

    built = site.build()

    assert built.code != 0
    assert "docs/index.md: block 1 (python, line 3): code line 1 holds a code annotation marker" in built.output


# 9. markdown-exec's options -----------------------------------------------------------------------------


def test_returncode_shows_a_command_meant_to_fail(shown):
    site, _, _ = shown

    assert boxes(article(site.html("returncode.md")), "Output") == ["one test failed\n"]


def test_an_expected_returncode_that_does_not_come_fails(make_site):
    markdown = page(fence("echo 'all passed'", "bash", returncode="1"))
    site = make_site({"index.md": markdown})

    line = failure_line(site.build(), "docs/index.md", "block 1 (bash, line 3)")

    assert line.endswith("exited with code 0; the block expects returncode 1")


def test_source_layouts_and_result_languages(shown):
    site, _, _ = shown
    html = article(site.html("layouts.md"))

    assert '<label for="__sitebuild_' in html and ">Code</label>" in html and ">What it printed</label>" in html
    below = html.index("below\n</code>")
    assert below < html.index("print", below)  # the output comes before its source
    assert boxes(html, "Bash")[0] == "echo console\nconsole\n"
    assert '<div class="result"><div class="highlight"><span class="filename">Output</span>' in html
    assert boxes(html, "Output")[-1] == '{"ok": true}\n' and '<span class="kc">true</span>' in html


def test_workdir_width_and_hidden_lines(shown):
    site, _, _ = shown
    html = article(site.html("run-options.md"))

    assert boxes(html, "Output") == ["sub\na note\n", "60 60\n", "set up\n"]
    assert "markdown-exec: hide" not in html and "secret = " not in html


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param({"html": "1"}, "option html='1' is refused: html=\"on\" would put the output on the page as "
                     "live HTML", id="html"),
        pytest.param({"session": "shared"}, "option session='shared' is refused", id="session"),
        pytest.param({"returncode": "2"}, "returncode applies to bash blocks", id="returncode-on-python"),
        pytest.param({"workdir": "../outside"}, "option workdir='../outside' is not valid", id="workdir-outside"),
        pytest.param({"show": "output", "source": "above"}, "options show and source both say", id="show-and-source"),
    ],
)
def test_markdown_exec_options_the_site_cannot_honour_are_refused_with_a_reason(options, message, make_site):
    site = make_site({"index.md": page(fence("print(1)", **options))})

    built = site.build()

    assert built.code != 0
    assert f"docs/index.md: block 1 (python, line 3): {message}" in built.output, built


def test_a_workdir_that_does_not_exist_fails_the_block(make_site):
    site = make_site({"index.md": page(fence("pwd", "bash", workdir="missing"))})

    line = failure_line(site.build(), "docs/index.md", "block 1 (bash, line 3)")

    assert "its workdir 'missing' is not a folder inside the site root" in line


def test_contributing_explains_every_new_message():
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for message in ("Markdown reads it as text", "Markdown shows this fence as text", "is refused",
                    "expects returncode", "code annotation marker", "killed", "its workdir"):
        assert message in text, f"CONTRIBUTING.md's 'When the build fails' does not mention {message!r}"


# What a tester found next, each kind pinned ------------------------------------------------------------

MARKDOWN_ATTACKS = page(fence(
    'print("<script>alert(1)</script>")\nprint("<img src=x onerror=alert(2)>")\n'
    'print("[click](javascript:alert(3)) and [fine](https://example.org)")\n'
    'print("## Heading {: onclick=alert(4) }")\nprint("- [x] a task")\n'
    "print('```python exec=\"on\"')\nprint('print(\"printed, never run\")')\nprint('```')",
    output="markdown", show="output"), fence("print('the next block is still itself')"))
HARDENED_PAGES = {
    "markdown-attacks.md": MARKDOWN_ATTACKS,
    "moved-warning.md": page(fence("import warnings\nwarnings.warn('careful')", id="warns")),
    "argv.md": page(fence("import sys\nprint(sys.argv)")),
    "umask.md": page(fence("umask", "bash"), fence("import os\nprint(oct(os.umask(0o022)))")),
    "bidi-output.md": page(fence("print('abc\\u202edef')")),
    "escapes.md": page(fence("sleep 301 &\nsetsid sleep 302 &\necho started", "bash"),
                       fence("import subprocess\nsubprocess.Popen(['sleep', '303'], start_new_session=True)\n"
                             "print('python started')")),
}


@pytest.fixture(scope="module")
def hardened(tmp_path_factory, monkeypatch_module):
    """Pages of the kinds a tester found, accepted under umask 002, then built under 022: (site, build run)."""
    site = create_site(tmp_path_factory.mktemp("hardened") / "site", HARDENED_PAGES)
    old = os.umask(0o002)
    try:
        accepted = site.accept()
    finally:
        os.umask(old)
    assert accepted.code == 0, accepted
    site.page("moved-warning.md", page("A paragraph pushes the block down.\n\nAnd another.\n",
                                       fence("import warnings\nwarnings.warn('careful')", id="warns")))
    built = site.build()
    assert built.code == 0, built
    return site, built


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_a_markdown_output_keeps_markdown_and_loses_raw_html_and_script_links(hardened):
    site, _ = hardened
    html = article(site.html("markdown-attacks.md"))

    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    assert not [t for t in tags if t.startswith("<script") or re.search(r"\son\w+=", t) or "javascript:" in t], tags
    assert '<a href="https://example.org">fine</a>' in html and "<li>[x] a task" in html
    assert '<span class="s2">"printed, never run"</span>' in html  # shown as highlighted code, not run
    assert boxes(html, "Output") == ["the next block is still itself\n"]


def test_an_output_does_not_move_with_its_block(hardened):
    site, _ = hardened

    assert "<docs/moved-warning.md warns>:2: UserWarning: careful" in site.approved("moved-warning.md")


def test_blocks_see_no_worker_arguments_and_a_fixed_umask(hardened):
    site, _ = hardened

    assert "['']" in site.approved("argv.md")
    assert site.approved("umask.md").count("0022") + site.approved("umask.md").count("0o22") == 2


def test_bidirectional_controls_in_an_output_are_shown_as_escapes(hardened):
    site, _ = hardened

    assert "abc\\u202edef" in site.approved("bidi-output.md")
    assert "\u202e" not in site.html("bidi-output.md")


def test_a_process_that_leaves_the_session_is_still_killed_and_named(hardened):
    site, built = hardened

    assert not [cmd for _, cmd in sleepers(site.root) if cmd in ("sleep 301", "sleep 302", "sleep 303")]
    kill = next(line for line in built.output.splitlines() if "docs/escapes.md, block 1" in line and "killed" in line)
    assert "killed 2 process(es)" in kill


FAILING_PAGES = {  # page: (markdown, the message its failure holds)
    # every descriptor the block holds: the pipes keep the builder's numbers, which can pass 63 in a long run
    "forged.md": (page(fence("import os\nfor fd in sorted(int(n) for n in os.listdir('/proc/self/fd')):\n"
                             "    if fd < 3:\n        continue\n    try:\n"
                             "        os.write(fd, b'{\"raised\": \"\"}\\n')\n"
                             "    except OSError:\n        pass\nraise RuntimeError('not a pass')")),
                  "wrote into the site's reply pipe"),
    "huge.md": (page(fence("head -c 2000000 /dev/zero | tr '\\0' x", "bash")),
                "printed 2000000 bytes, more than a page can show"),
    "machine.md": (page(fence("import os\nprint(os.getcwd() + '-backup')")), "output holds build-machine values"),
    "stray-fence.md": ("# Page\n\nIntro.\n\n    ```\n\n" + fence("print('shown as text')"),
                       "line 7: this fence asks to run, but Markdown reads it as text"),
    "unclosed-list-fence.md": ("# Page\n\n1. Step:\n\n    ```text\n    output\n" + fence("echo never", "bash"),
                               "line 7: this fence asks to run, but Markdown reads it as text"),
    "commented.md": ("# Page\n\n<!--\n" + fence("print('commented out')") + "-->\n",
                     "block 1 (python, line 4): Markdown shows this fence as text (inside an indented code block?) or"),
    "upper-case.md": ('# Page\n\n```PY exec="on"\nprint(1)\n```\n',
                      "line 3: exec is on for language 'PY', which no runner"),
    "nul.md": (page(fence("echo a\0b", "bash")), "its code holds a NUL character"),
    "bidi-code.md": (page(fence("print('x')  # \u202e reversed")), "holds a bidirectional control character (U+202E)"),
    "empty-tabs.md": (page(fence("print(1)", source="tabbed-left", tabs="|")), "option tabs='|' is not valid"),
    "line-zero.md": (page(fence("print(1)", hl_lines="0")), "option hl_lines='0' is not valid"),
}


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """One site whose every page fails in its own way, built once."""
    site = create_site(tmp_path_factory.mktemp("failing") / "site", {n: m for n, (m, _) in FAILING_PAGES.items()})
    built = site.build()
    assert built.code != 0
    return built


@pytest.mark.parametrize("name", FAILING_PAGES)
def test_each_kind_of_bad_block_fails_naming_its_page(name, failing):
    lines = [line for line in failing.output.splitlines() if f"docs/{name}" in line]

    assert any(FAILING_PAGES[name][1] in line for line in lines), failing


def test_accept_approves_no_python_block_after_a_failed_one(make_site):
    site = make_site({"index.md": page(fence("print('first')"), fence("items = [1]\nraise ValueError('half built')"),
                                       fence("print(len(items), 'items')"), fence("echo bash is its own", "bash"))})

    accepted = site.accept()

    assert accepted.code != 0
    line = next(line for line in accepted.output.splitlines() if "docs/index.md, block 3 (python" in line)
    assert "not approved: an earlier python block of this page failed (block 2 (python, line 7))" in line
    approved = site.approved()
    assert "first" in approved and "items" not in approved and "bash is its own" in approved


def test_an_unended_osc_sequence_removes_only_itself():
    assert plain_text("\x1b]0;a title with no end\nkept line\n") == "\nkept line\n"


def test_the_site_wide_timeout_must_be_a_second_at_least(make_site):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(block_timeout=0.5)

    assert "expected a number of seconds from 1 to 3600" in site.build().output


def test_a_page_whose_fence_cannot_be_read_keeps_its_approved_outputs_and_says_only_that(make_site):
    site = make_site({"index.md": page(fence("print('one')"), fence("print('two')"))})
    assert site.accept().code == 0
    before = site.approved()
    site.page("index.md", page(fence("print('one')"), '```python exec="on" title="unclosed\nprint(\'two\')\n```\n'))

    built, accepted = site.build(), site.accept()

    assert built.code != 0 and "Markdown reads it as text" in built.output
    assert "no longer on the page" not in built.output + accepted.output
    assert site.approved() == before
