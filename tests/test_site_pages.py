"""What a build does right: how blocks run (namespaces, captured output, the site root) and how pages render."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.conftest import approved_entries, create_site, failure_line, fence, label, page

pytestmark = pytest.mark.site

KIT = "VALUE = 'old value'\nHIDDEN = 'hidden output text'\n\ndef report():\n    print('value:', VALUE)\n"

# How blocks run --------------------------------------------------------------------------------------


def test_python_blocks_share_a_namespace_within_a_page_but_not_across_pages(make_site):
    first = page(fence("total = 41\nprint('total is set')"), fence("print(total + 1)"))
    second = page(fence("print(total)"), title="Second")
    site = make_site({"index.md": first, "second.md": second})

    accepted = site.accept()

    assert accepted.code != 0, accepted
    line = failure_line(accepted, "docs/second.md", label(second, 1))
    assert line.endswith("raised NameError: name 'total' is not defined"), accepted
    assert "docs/index.md, block" not in accepted.output.replace("accepted: docs/index.md, block", "")
    assert approved_entries(site.approved())[1].endswith("\n42\n")


def test_everything_a_python_block_writes_is_captured(make_site):
    module = "def speak():\n    print('printed inside imported code')\n"
    code = (
        "import os, subprocess, sys\n"
        "import chatty\n"
        "chatty.speak()\n"
        "print('written to stderr', file=sys.stderr)\n"
        "os.system('echo from a shell started by os.system')\n"
        "subprocess.run([sys.executable, '-c', 'print(\"from a subprocess\")'], check=True)\n"
        "print('the block itself')"
    )
    site = make_site({"index.md": page(fence(code))}, {"chatty.py": module})

    assert site.accept().code == 0

    (entry,) = approved_entries(site.approved())
    assert entry.split("\n", 1)[1] == (
        "printed inside imported code\n"
        "written to stderr\n"
        "from a shell started by os.system\n"
        "from a subprocess\n"
        "the block itself\n"
    )


def test_blocks_run_from_the_site_root_and_outputs_hold_no_absolute_path(make_site):
    bash = "pwd\necho \"$PWD\"\ntest -f mkdocs.yml && echo 'mkdocs.yml is here'\nrealpath helper.py\nls docs"
    python = "import os, helper\nprint(os.getcwd())\nprint(helper.__file__)\nprint(os.path.abspath('docs/index.md'))"
    site = make_site({"index.md": page(fence(bash, "bash"), fence(python))}, {"helper.py": "\n"})

    accepted = site.accept()

    assert accepted.code == 0, accepted
    outputs = [entry.split("\n", 1)[1] for entry in approved_entries(site.approved())]
    assert outputs == [".\n.\nmkdocs.yml is here\nhelper.py\nindex.md\n", ".\nhelper.py\ndocs/index.md\n"]
    assert str(site.root) not in site.approved()
    assert str(site.root.resolve()) not in site.approved()


def test_an_edit_to_an_imported_module_shows_in_the_next_build(make_site):
    report, value = fence("import kit_module\nkit_module.report()"), fence("from kit_module import VALUE\nprint(VALUE)")
    markdown = page(report, value)
    site = make_site({"index.md": markdown}, {"kit_module.py": KIT})
    assert site.accept().code == 0
    site.write("kit_module.py", KIT.replace("old value", "new value"))

    built = site.build()

    assert built.code != 0, built
    assert "\n    -value: old value\n    +value: new value" in built.output
    assert "\n    -old value\n    +new value" in built.output


def test_a_hidden_block_is_still_verified(make_site):
    markdown = page(fence("import kit_module\nprint(kit_module.HIDDEN)", show="none"))
    site = make_site({"index.md": markdown}, {"kit_module.py": KIT})
    assert site.accept().code == 0
    site.write("kit_module.py", KIT.replace("hidden output text", "changed hidden text"))

    built = site.build()

    assert built.code != 0, built
    assert "output differs from the approved output" in failure_line(built, "docs/index.md", label(markdown, 1))
    assert "\n    -hidden output text\n    +changed hidden text" in built.output


# How pages render ------------------------------------------------------------------------------------

NESTED = '!!! note "Nested"\n\n    ```python exec="on"\n    print("nested output")\n    ```\n'
TABBED = (
    '=== "First tab"\n\n    ```bash exec="on"\n    echo "tabbed output"\n    ```\n\n'
    '=== "Second tab"\n\n    Prose.\n'
)
RENDERED = page(
    fence("# PYTHON-SOURCE\nprint('python output')"),
    fence("echo 'bash output'  # BASH-SOURCE", "bash"),
    fence("# OUTPUT-ONLY-SOURCE\nprint('output of an output-only block')", show="output"),
    fence("# HIDDEN-SOURCE\nimport kit_module\nprint(kit_module.HIDDEN)", show="none"),
    fence("print('Some **bold words** here.')", output="markdown"),
    fence("echo 'under its own title'", "bash", title="Shell session"),
    NESTED,
    TABBED,
)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A site whose page shows each way a block renders, accepted, then built: (site, html)."""
    site = create_site(tmp_path_factory.mktemp("rendered") / "site", {"index.md": RENDERED}, {"kit_module.py": KIT})
    accepted = site.accept()
    assert accepted.code == 0, accepted
    built = site.build()
    assert built.code == 0, built
    return site, site.html()


def test_the_source_is_titled_python_or_bash_and_the_output_output(rendered):
    _, html = rendered

    assert '<span class="filename">Python</span>' in html
    assert '<span class="filename">Bash</span>' in html
    assert html.count('<span class="filename">Output</span>') == 6  # all but the hidden block and the markdown one
    assert "PYTHON-SOURCE" in html and "python output" in html
    assert "BASH-SOURCE" in html and "bash output" in html


def test_the_title_option_names_the_source(rendered):
    _, html = rendered

    assert '<span class="filename">Shell session</span>' in html
    assert html.index("Shell session") < html.index("under its own title")


def test_show_output_hides_the_source(rendered):
    _, html = rendered

    assert "output of an output-only block" in html
    assert "OUTPUT-ONLY-SOURCE" not in html


def test_show_none_renders_nothing(rendered):
    site, html = rendered

    assert "HIDDEN-SOURCE" not in html
    assert "hidden output text" not in html
    assert "hidden output text" in site.approved()  # though its output is approved and checked


def test_output_markdown_renders_as_markdown(rendered):
    _, html = rendered

    assert "<p>Some <strong>bold words</strong> here.</p>" in html
    assert "<code>Some **bold words** here." not in html  # not shown as text


def test_a_block_nested_in_an_admonition_runs_and_renders_inside_it(rendered):
    _, html = rendered

    note = html.index('<div class="admonition note">')
    assert note < html.index("nested output") < html.index("</div>", html.index("nested output") + 1)


def test_a_block_nested_in_a_tab_runs_and_renders_inside_it(rendered):
    _, html = rendered

    tabs = html.index('<div class="tabbed-set tabbed-alternate"')
    assert tabs < html.index('<div class="tabbed-block">', tabs) < html.index("tabbed output")


def test_a_passing_page_shows_no_failure(rendered):
    _, html = rendered

    assert "admonition failure" not in html


# Serve mode: failures on the page ---------------------------------------------------------------------


def test_serve_mode_builds_and_shows_each_failure_on_the_page(make_site):
    report, extra = fence("import kit_module\nkit_module.report()"), fence("print('soon gone')")
    gone = fence("print('gone too')")  # the raising block below takes extra's place; this one is stale
    site = make_site({"index.md": page(report, extra, gone)}, {"kit_module.py": KIT})
    assert site.accept().code == 0
    markdown = page(report, fence("raise ValueError('boom <b>')"))
    site.page("index.md", markdown)
    site.write("kit_module.py", KIT.replace("old value", "new value"))

    built = site.build("--no-strict", mode="serve")  # as `make serve` builds

    assert built.code == 0, built
    assert "Aborted" not in built.output
    assert f"WARNING -  verified-blocks: docs/index.md, {label(markdown, 1)}, key " in built.output
    html = site.html()
    assert "&lt;div class" not in html, "a failure box was escaped into text"
    assert re.search(  # the block's red box, with the anchor the failures box at the top links to
        r'<div class="admonition failure" id="block-python-[0-9a-f]{8}"><p class="admonition-title">'
        + re.escape(f"{label(markdown, 1)}: output differs from the approved output"), html)
    text = unescape(re.sub(r"<[^>]+>", "", html))  # the diff is highlighted: read it as the reader sees it
    assert "-value: old value\n+value: new value" in text
    assert re.search(r'<div class="admonition failure" id="block-python-[0-9a-f]{8}"><p class="admonition-title">'
                     + re.escape(f"{label(markdown, 2)}: raised ValueError: boom &lt;b&gt;</p>"), html)
    assert '<p class="admonition-title">This page failed verification</p>' in html
    assert "a block no longer on the page" in html
    assert '<span class="filename">Output</span>' in html and "value: new value" in html
