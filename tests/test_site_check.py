"""`python -m sitebuild check`: a page's blocks run and verified without MkDocs, never writing data/.

It imports no MkDocs module (a real page, with every `mkdocs*` import made to fail); it fails naming the page and
block with the build's own message when an approved output changed, and leaves data/ byte for byte as it was;
bad usage exits 2 naming the input; and it reads mkdocs.yml, front matter and fences as a MkDocs build does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sitebuild.__main__ import main
from sitebuild.find import fences, siteconfig
from sitebuild.find.blocks import front_matter_lines, page_blocks
from tests.conftest import COMMAND_TIMEOUT, REPO_ROOT, Run, failure_line, fence, label, page, subprocess_env

SMALL_PAGE = "docs/beginner/cost-and-latency.md"  # a Beginner page: some twenty short blocks, a few seconds
NO_MKDOCS = """\
import importlib.abc, runpy, sys
class NoMkDocs(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "mkdocs" or name.startswith(("mkdocs.", "mkdocs_")):
            print(f"blocked import: {name}", file=sys.stderr)
            raise ImportError(f"no MkDocs here: {name}")
sys.meta_path.insert(0, NoMkDocs())
sys.argv = ["sitebuild", *sys.argv[1:]]
runpy.run_module("sitebuild", run_name="__main__", alter_sys=True)
"""


def test_check_of_a_real_page_imports_no_mkdocs_module_and_passes():
    command = [sys.executable, "-c", NO_MKDOCS, "check", "--page", SMALL_PAGE]
    done = subprocess.run(command, cwd=REPO_ROOT, env=subprocess_env(), capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "blocked import" not in output, output
    assert "check: every output matches its approved one (1 page(s)," in done.stdout


def run_check(capsys, *args: str) -> tuple[int, str]:
    code = main(["check", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.site
def test_a_changed_approved_line_fails_naming_page_and_block_as_the_build_does_and_data_is_untouched(make_site, capsys):
    markdown = page(fence("print('first output')"), fence("echo 'second output'", "bash"))
    site = make_site({"index.md": markdown, "guide.md": page(fence("print('guide')"), title="Guide")})
    assert site.accept().code == 0
    approved_file = site.approved_file("index.md")
    approved_file.write_text(approved_file.read_text().replace("second output", "approved long ago"))
    before = snapshot(site.data)

    code, output = run_check(capsys, "-f", str(site.config))

    assert code == 1, output
    assert snapshot(site.data) == before
    line = failure_line(Run(code, output), "docs/index.md", label(markdown, 2))
    assert "output differs from the approved output" in line
    assert "-approved long ago" in output and "+second output" in output
    assert not any(line.startswith("docs/guide.md") for line in output.splitlines())  # the other page passed
    assert "check: 1 verification failure(s) on 1 page(s) (2 page(s), 3 block(s)," in output
    built = site.build()  # the build names the same failure with the same words and diff
    assert built.code != 0
    for message_line in output.splitlines():
        if message_line.startswith(("docs/index.md", "    ")):
            assert message_line in built.output, built.output


def test_an_unknown_page_is_bad_usage_named_in_the_message(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})

    code, output = run_check(capsys, "-f", str(site.config), "--page", "docs/no-such-page.md")

    assert code == 2, output
    assert "--page docs/no-such-page.md: no such file" in output
    assert not site.data.exists()


def test_a_page_outside_the_nav_or_docs_is_bad_usage(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)")), "other.md": page(fence("print(2)"), title="Other")},
                     {"notes.md": "# Notes\n"})
    site.write("mkdocs.yml", site.config.read_text() + "nav:\n  - index.md\n")

    code, output = run_check(capsys, "-f", str(site.config), "--page", str(site.docs / "other.md"))
    assert code == 2 and "not a page of mkdocs.yml's nav" in output, output

    code, output = run_check(capsys, "-f", str(site.config), "--page", str(site.root / "notes.md"))
    assert code == 2 and "not a Markdown page under docs/" in output, output


def test_a_block_setting_out_of_range_is_bad_usage_with_the_builds_message(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(block_memory=-1)

    code, output = run_check(capsys, "-f", str(site.config))

    assert code == 2, output
    assert "Plugin 'verified-blocks' option 'block_memory': expected a whole number from 0 to 1048576, got -1" in output


def test_approved_files_of_pages_that_are_gone_fail_a_whole_check_only(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    site.write("data/gone.txt", "# Approved outputs of docs/gone.md, in page order.\n")

    code, output = run_check(capsys, "-f", str(site.config), "--page", "docs/index.md")  # from the site root
    assert code == 0 and "data/gone.txt" not in output, output
    code, output = run_check(capsys, "-f", str(site.config))
    assert code == 1 and "data/gone.txt holds approved outputs of a page that does not exist" in output, output


def test_page_goes_with_check_only(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--page", SMALL_PAGE])
    assert exit_.value.code == 2


# The readings MkDocs would make ------------------------------------------------------------------------------


FRONT_MATTERS = [
    "---\ntitle: A\n---\n# A\n",
    "---\ntitle: A\n...\n\n\n# A\n",
    "---\n- a list\n---\n# A\n",
    "---\ntitle: [unclosed\n---\n# A\n",
    "title: A\nsummary: one\n    two\n\n# A\n",
    "# No front matter\ntitle: B\n",
    "",
]


@pytest.mark.parametrize("source", FRONT_MATTERS)
def test_front_matter_is_stripped_as_mkdocs_strips_it(source):
    from mkdocs.utils.meta import get_data

    assert siteconfig.page_markdown(source) == get_data(source)[0]


def test_the_real_site_reads_as_a_mkdocs_build_reads_it():
    from mkdocs.config import load_config
    from mkdocs.utils.meta import get_data

    config = load_config(str(REPO_ROOT / "mkdocs.yml"))
    config = config.plugins.on_config(config)
    fences.install(config.mdx_configs)
    mkdocs_markdown = fences.site_markdown(config.markdown_extensions, config.mdx_configs)
    site = siteconfig.load(REPO_ROOT / "mkdocs.yml")

    assert site.pages == _nav_files(config.nav)
    options = config.plugins[siteconfig.PLUGIN].config  # the plugin's options as MkDocs validated them
    assert site.settings == siteconfig.block_settings({name: options.get(name) for name in siteconfig.OPTIONS})
    for src_uri in site.pages[:4]:  # the home page and Beginner pages: a few seconds
        source = (site.docs_dir / src_uri).read_text(encoding="utf-8-sig")
        markdown = get_data(source)[0]
        theirs = page_blocks(markdown, mkdocs_markdown, front_matter_lines(source, markdown))
        ours = page_blocks(siteconfig.page_markdown(source), site.make_markdown,
                           front_matter_lines(source, siteconfig.page_markdown(source)))
        assert ours == theirs, src_uri


def test_markdown_exec_languages_are_its_formatters():
    from markdown_exec import formatters

    assert list(formatters) == siteconfig.MARKDOWN_EXEC_LANGUAGES


def _nav_files(nav) -> list[str]:
    found = []
    for item in nav if isinstance(nav, list) else [nav]:
        if isinstance(item, dict):
            for value in item.values():
                found += _nav_files(value)
        elif isinstance(item, list):
            found += _nav_files(item)
        else:
            found.append(item)
    return found
