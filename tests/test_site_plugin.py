"""The site's MkDocs plugin, verified-blocks (issue 38): its options checked by MkDocs, check results rendered without
running a block (and refused once stale), and the marks `make site` checks after the build (marks.py).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from sitebuild.__main__ import main
from sitebuild.find import siteconfig
from sitebuild.find.inputs import Inputs
from sitebuild.verify import marks, results, stale
from tests.conftest import REPO_ROOT, fence, in_process, page

pytestmark = pytest.mark.site


def run_main(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# Options: MkDocs validates them ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strict", ["--strict", "--no-strict"])
def test_an_unknown_option_fails_the_build_with_mkdocs_own_config_error(make_site, strict):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(block_timout=60)  # a typo MkDocs used to ignore in extra

    built = site.build(strict)

    assert built.code == 1, built
    assert ("Config value 'plugins': Plugin 'verified-blocks' option 'block_timout': Unrecognised configuration name: "
            "block_timout") in built.output, built
    assert "Aborted with a configuration error!" in built.output, built


def test_an_option_out_of_range_is_a_config_error_naming_it(make_site):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(block_jobs=0)

    built = site.build()

    assert built.code == 1, built
    assert "Plugin 'verified-blocks' option 'block_jobs': expected a whole number from 1 to 256, got 0" in built.output


@pytest.mark.parametrize("enabled", ["false", "0", "no"])
def test_enabled_false_is_refused_not_obeyed(make_site, capsys, enabled):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(enabled=enabled)  # MkDocs' generic option would leave the plugin out without a word

    built = site.build()

    assert built.code == 1, built
    assert "Plugin 'verified-blocks' option 'enabled': expected true or no setting" in built.output, built
    assert "Aborted with a configuration error!" in built.output
    code, output = run_main(capsys, "check", "-f", str(site.config))
    assert code == 2 and "option 'enabled': expected true or no setting" in output, output


def test_check_reads_the_plugins_options_and_refuses_an_unknown_one(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    site.options(block_jobs=1)
    code, output = run_main(capsys, "check", "-f", str(site.config))
    assert code == 0 and "1 page(s) at a time" in output, output

    site.options(block_timout=60)
    code, output = run_main(capsys, "check", "-f", str(site.config))

    assert code == 2, output
    assert "Plugin 'verified-blocks' option 'block_timout': Unrecognised configuration name: block_timout" in output


def test_the_core_imports_no_mkdocs_module_only_the_plugin_and_hook_do():
    import subprocess

    from tests.conftest import COMMAND_TIMEOUT, subprocess_env
    from tests.test_site_check import NO_MKDOCS

    code = NO_MKDOCS.split("sys.argv")[0] + (
        "import sitebuild.verify.results, sitebuild.verify.marks, sitebuild.verify.check, sitebuild.find.siteconfig\n"
        "try:\n    import sitebuild.mkdocs_adapter.plugin\nexcept ImportError:\n    print('the plugin needs MkDocs')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=subprocess_env(), capture_output=True,
                          text=True, timeout=COMMAND_TIMEOUT, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "the plugin needs MkDocs\n", done.stdout + done.stderr
    assert done.stderr.count("blocked import") == 1, done.stderr  # the plugin's, and nothing else's


def test_the_real_site_has_no_hooks_and_no_block_settings_in_extra():
    import yaml

    text = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    conf = yaml.safe_load(text.replace("!!python/name:", "").replace("!ENV ", ""))  # tags YAML alone cannot read
    assert "hooks" not in conf
    assert not [key for key in conf.get("extra", {}) if key.startswith("block_")]
    plugins = [next(iter(p)) if isinstance(p, dict) else p for p in conf["plugins"]]
    assert plugins[-1] == "verified-blocks" and "gen-files" not in plugins


# Check results: rendered without running a block -------------------------------------------------------------------


STAMPED = """\
with open({stamp!r}, "a") as log:
    log.write("ran ")
from fixturekit import greeting
print(greeting())"""


def stamped_site(make_site, tmp_path: Path):
    """A site whose block appends to a file outside the sandbox's view each time it runs (the sandbox is off)."""
    stamp = tmp_path / "runs.txt"
    site = make_site({"index.md": page(fence(STAMPED.format(stamp=str(stamp))), fence("print(2)", show="none"),
                                       fence("echo three", "bash"))},
                     {"fixturekit/__init__.py": "def greeting():\n    return 'hello'\n"})
    site.options(block_inputs="[fixturekit]")
    return site, stamp


def test_check_results_render_the_same_site_as_a_plain_build_without_running_a_block(make_site, tmp_path, capsys,
                                                                                      monkeypatch):
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")  # the block records each run outside its run's folders
    site, stamp = stamped_site(make_site, tmp_path)
    assert site.accept().code == 0
    results = tmp_path / "results"

    code, output = run_main(capsys, "check", "-f", str(site.config), "--results", str(results))
    assert code == 0, output
    assert "check: the results of 1 page(s) written to" in output
    manifest = json.loads((results / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["pages"] == {"index.md": "pages/index.md.json"}
    stored = json.loads((results / "pages" / "index.md.json").read_text(encoding="utf-8"))
    assert [b["outcome"] for b in stored["blocks"]] == ["passed"] * 3
    assert "fixturekit/__init__.py" in stored["reads"]

    plain = site.build()
    assert plain.code == 0, plain
    shutil.copytree(site.out, tmp_path / "plain")
    runs = stamp.read_text()

    site.options(results=str(results))
    rendered = site.build()

    assert rendered.code == 0, rendered
    assert stamp.read_text() == runs, "a block ran in the build that renders the check's results"
    assert "blocks: none ran; 1 page(s) rendered from the check results in" in rendered.output
    assert files_of(site.out) == files_of(tmp_path / "plain")


def test_results_are_the_same_bytes_from_run_to_run_but_for_the_seconds(make_site, tmp_path, capsys):
    site = make_site({"index.md": page(fence("print(1)"), fence("echo two", "bash"))})
    assert site.accept().code == 0
    texts = []
    for name in ("one", "two"):
        code, output = run_main(capsys, "check", "-f", str(site.config), "--results", str(tmp_path / name))
        assert code == 0, output
        page_results = json.loads((tmp_path / name / "pages" / "index.md.json").read_text(encoding="utf-8"))
        assert page_results.pop("seconds") >= 0
        texts.append((json.dumps(page_results), files_of(tmp_path / name)["manifest.json"]))
    assert texts[0] == texts[1]


def rendered_from_results(site, capsys, folder: Path) -> None:
    """Approve the site's outputs, check it into folder, and build it from those results (which must pass)."""
    assert site.accept().code == 0
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    site.options(results=str(folder))
    assert site.build().code == 0


def test_stale_results_are_refused_naming_the_page_and_what_changed(make_site, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SITEBUILD_SANDBOX", "0")
    site, _ = stamped_site(make_site, tmp_path)
    rendered_from_results(site, capsys, tmp_path / "results")

    site.write("fixturekit/__init__.py", "def greeting():\n    return 'hello, edited'\n")
    kit_edited = site.build()

    assert kit_edited.code == 1, kit_edited
    assert "docs/index.md: fixturekit/__init__.py (read by its blocks) changed since the check" in kit_edited.output
    assert not any(site.out.iterdir()), "a failed build leaves the site folder empty"

    site.write("fixturekit/__init__.py", "def greeting():\n    return 'hello'\n")
    site.write("docs/index.md", site.docs.joinpath("index.md").read_text(encoding="utf-8") + "\nMore prose.\n")
    page_edited = site.build()

    assert page_edited.code == 1, page_edited
    assert "docs/index.md: the page's source changed since the check" in page_edited.output


def test_results_are_stale_once_a_file_outside_the_block_inputs_that_a_block_read_changes(make_site, tmp_path,
                                                                                          capsys):
    site = make_site({"index.md": page(fence("grep -c Page mkdocs.yml notes.txt", "bash"), fence("print(1)"))})
    site.write("notes.txt", "Page one\n")
    site.options(block_inputs="[pyproject.toml]")  # neither mkdocs.yml nor notes.txt is a block input
    assert site.accept().code == 0
    folder = tmp_path / "results"
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    stored = json.loads((folder / "pages" / "index.md.json").read_text(encoding="utf-8"))
    assert {"mkdocs.yml", "notes.txt"} <= set(stored["outside"]), stored["outside"]
    assert not any(path.startswith(("docs/", ".venv", "data/")) for path in stored["outside"]), stored["outside"]
    site.options(results=str(folder))  # mkdocs.yml changes here: what the block grepped
    assert "mkdocs.yml (read by its blocks) changed since the check" in site.build().output
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    assert site.build().code == 0

    site.write("notes.txt", "Page one\nPage two\n")  # the approved output still says 1: the stored one is stale
    built = site.build()

    assert built.code == 1, built
    assert "docs/index.md: notes.txt (read by its blocks) changed since the check" in built.output


def test_results_made_with_other_settings_python_or_machinery_are_refused(make_site, tmp_path, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    folder = tmp_path / "results"
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    loaded = siteconfig.load(site.config)
    inputs = Inputs(site.root, loaded.settings.inputs)

    def current(memory: int = loaded.settings.memory):
        return stale.current(folder, site.config, site.docs, inputs, loaded.settings.timeout, memory, ["index.md"],
                             site.out)

    assert list(current()) == ["index.md"]
    with pytest.raises(results.ResultsError, match="block_memory 4096; this build has 512"):
        current(512)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for field, value, said in [("python", "3.10.0", "Python 3.10.0"), ("machinery", "0" * 64, "the machinery's")]:
        (folder / "manifest.json").write_text(json.dumps({**manifest, field: value}), encoding="utf-8")
        with pytest.raises(results.ResultsError, match=said):
            current()
    (folder / "manifest.json").write_text(json.dumps({**manifest, "format": 1}), encoding="utf-8")
    with pytest.raises(results.ResultsError, match="results of format 1; this build reads 2"):
        current()


def test_results_are_stale_once_the_listing_a_block_read_changes_as_a_new_conftest_would_change_pytest(
        make_site, tmp_path, capsys):
    listing = "import os\nprint(sorted(n for n in os.listdir('.') if n.endswith('.py')))"
    site = make_site({"index.md": page(fence(listing))})
    assert site.accept().code == 0
    folder = tmp_path / "results"
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    site.options(results=str(folder))  # mkdocs.yml is not what the block read: the listing of the root is
    assert site.build().code == 0
    site.write(".gitignore", "ignored.py\n")
    site.write("ignored.py", "")  # what .gitignore ignores is not part of the checkout
    assert site.build().code == 1  # but .gitignore is, and the block's listing of the root saw it come

    site.write("conftest.py", "")
    built = site.build()

    assert built.code == 1, built
    assert "docs/index.md: the site root (read by its blocks) changed since the check" in built.output


def test_results_are_stale_once_a_file_behind_a_link_in_the_block_inputs_changes(make_site, tmp_path, capsys):
    site, _ = stamped_site(make_site, tmp_path)
    shared = tmp_path / "shared.txt"
    shared.write_text("v1\n", encoding="utf-8")
    (site.root / "fixturekit" / "data.txt").symlink_to(shared)
    site.write("docs/index.md", page(fence("cat fixturekit/data.txt", "bash")))
    rendered_from_results(site, capsys, tmp_path / "results")

    shared.write_text("v2\n", encoding="utf-8")
    built = site.build()

    assert built.code == 1, built
    assert "docs/index.md: fixturekit/data.txt (read by its blocks) changed since the check" in built.output


def test_a_wildcard_makes_a_pages_reads_unknown_so_a_new_file_in_the_inputs_makes_its_results_stale(
        make_site, tmp_path, capsys):
    site, _ = stamped_site(make_site, tmp_path)
    site.write("docs/index.md", page(fence("echo fixturekit/*.py", "bash")))
    assert site.accept().code == 0
    folder = tmp_path / "results"
    site.options(results=str(folder))  # before the check: such a page holds to every file of the site root
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    assert json.loads((folder / "pages" / "index.md.json").read_text(encoding="utf-8"))["reads"] is None
    assert site.build().code == 0

    site.write("fixturekit/more.py", "")  # the wildcard would now print it too
    built = site.build()

    assert built.code == 1, built
    assert "docs/index.md: the block inputs (fixturekit; its reads are not known)" in built.output


def test_a_git_ignored_file_a_block_opened_by_name_still_counts_and_results_inside_the_root_are_left_out(
        make_site, tmp_path, capsys):
    site = make_site({"index.md": page(fence("cat secret.env", "bash"))})
    site.write(".gitignore", "*.env\n")
    site.write("secret.env", "TOKEN=1\n")
    rendered_from_results(site, capsys, site.root / "out" / "results")  # out/: new to the root's listing, left out

    site.write("secret.env", "TOKEN=2\n")
    built = site.build()

    assert built.code == 1, built
    assert "docs/index.md: secret.env (read by its blocks) changed since the check" in built.output


def test_a_site_built_inside_the_root_is_not_part_of_the_checkout_the_results_hold_to(make_site, tmp_path, capsys):
    listing = "import os\nprint(sorted(n for n in os.listdir('.') if n.endswith('.py')))"  # the root, as pytest
    site = make_site({"index.md": page(fence(listing))})
    assert site.accept().code == 0
    inside = site.root / "out"
    assert in_process("build", site.config, inside).code == 0  # `mkdocs build -d out`, before the check
    folder = tmp_path / "results"
    site.options(results=str(folder))
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0

    rebuilt = in_process("build", site.config, inside)  # out/ is there, built anew from the results

    assert rebuilt.code == 0, rebuilt
    assert "blocks: none ran" in rebuilt.output


def test_a_page_without_blocks_is_never_stale(make_site, tmp_path, capsys):
    site = make_site({"index.md": page("No blocks."), "other.md": page(fence("print(1)"), title="Other")})
    assert site.accept().code == 0
    folder = tmp_path / "results"
    assert run_main(capsys, "check", "-f", str(site.config), "--results", str(folder))[0] == 0
    stored = json.loads((folder / "pages" / "index.md.json").read_text(encoding="utf-8"))
    assert (stored["reads"], stored["outside"], stored["blocks"]) == ({}, {}, [])
    site.options(results=str(folder))

    site.write("docs/stylesheets/extra.css", "/* x */\n")  # a file no block read
    built = site.build()

    assert built.code == 0, built


def test_a_results_folder_that_is_not_there_is_refused(make_site, tmp_path):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(results=str(tmp_path / "nowhere"))

    built = site.build()

    assert built.code == 1, built
    assert "manifest.json cannot be read as check results" in built.output


def test_accept_runs_every_block_even_with_a_results_folder_set(make_site, tmp_path):
    site = make_site({"index.md": page(fence("print(1)"))})
    site.options(results=str(tmp_path / "nowhere"))

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert "--- " in site.approved()


# The marks ---------------------------------------------------------------------------------------------------------


def test_each_executed_block_is_marked_once_with_its_key(make_site):
    site = make_site({"index.md": page(fence("print(1)"), fence("print(2)", show="none"),
                                       fence("echo three", "bash", show="output"), "Prose.")})
    assert site.accept().code == 0

    built = site.build()

    assert built.code == 0, built
    keys = [line.split()[1] for line in site.approved().splitlines() if line.startswith("--- ")]
    html = site.html()
    assert len(keys) == 3
    assert sorted(marks.MARK.findall(html)) == sorted(keys)
    assert marks.unverified(siteconfig.load(site.config), site.out) == []


def test_a_failing_block_is_not_marked(make_site):
    site = make_site({"index.md": page(fence("print(1)"), fence("print(2)"))})
    assert site.accept().code == 0
    site.write("data/index.txt", site.approved().replace("\n2\n", "\n3\n"))

    served = site.build("--no-strict", mode="serve")

    assert served.code == 0, served
    assert len(marks.MARK.findall(site.html())) == 1


def without_plugin(site) -> None:
    site.write("mkdocs.yml", site.config.read_text(encoding="utf-8").replace("  - verified-blocks\n", ""))


def test_a_site_built_without_the_plugin_fails_the_marks_check_naming_the_page_and_is_emptied(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)")), "other.md": page("No blocks.", title="Other")})
    assert site.accept().code == 0
    assert site.build().code == 0
    without_plugin(site)
    assert site.build().code == 0  # markdown-exec alone renders the page, verifying nothing

    code, output = run_main(capsys, "marks", str(site.out), "-f", str(site.config))

    assert code == 1, output
    assert "docs/index.md: 1 of its 1 executed block(s) are not marked as verified on index.html" in output
    assert "other.md" not in output
    assert "The site folder" in output and not any(site.out.iterdir())


def test_without_the_plugin_and_without_data_the_marks_check_still_fails(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)")), "new.md": page(fence("print(2)"), title="New")})
    without_plugin(site)  # and no approved outputs at all: the blocks are found in the pages themselves
    assert site.build().code == 0 and not site.data.exists()

    code, output = run_main(capsys, "marks", str(site.out), "-f", str(site.config))

    assert code == 1, output
    assert "docs/index.md: 1 of its 1 executed block(s) are not marked" in output
    assert "docs/new.md: 1 of its 1 executed block(s) are not marked" in output


def test_hand_typed_marks_fail_the_marks_check(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    key = next(line.split()[1] for line in site.approved().splitlines() if line.startswith("--- "))
    without_plugin(site)
    site.write("docs/index.md", site.docs.joinpath("index.md").read_text(encoding="utf-8")
               + f'\n<div data-verified="{key}" hidden></div>\n')
    assert site.build().code == 0
    assert f'data-verified="{key}"' in site.html()  # the mark is there, typed by hand

    code, output = run_main(capsys, "marks", str(site.out), "-f", str(site.config))

    assert code == 1, output
    assert "docs/index.md: no build with the verified-blocks plugin recorded verifying index.html (there is no" \
        " record of one for this site folder: .cache/sitebuild/verified/" in output


def test_a_page_changed_after_the_verifying_build_fails_the_marks_check(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    assert site.build().code == 0
    assert run_main(capsys, "marks", str(site.out), "-f", str(site.config))[0] == 0
    built = site.out / "index.html"
    built.write_text(built.read_text(encoding="utf-8").replace("</body>", "<p>Added.</p></body>"), encoding="utf-8")

    code, output = run_main(capsys, "marks", str(site.out), "-f", str(site.config))

    assert code == 1, output
    assert "docs/index.md: index.html is not the page the verifying build wrote" in output


def test_a_failed_build_leaves_no_record_to_vouch_for_an_older_site(make_site, capsys):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    assert site.build().code == 0
    record = marks.record_path(site.root, site.out)
    assert json.loads(record.read_text(encoding="utf-8"))["pages"]["index.md"]["file"] == "index.html"
    site.write("data/index.txt", site.approved().replace("\n1\n", "\n2\n"))

    assert site.build().code == 1

    assert not record.exists()


def test_marks_reads_the_site_folder_mkdocs_yml_names(make_site, capsys, monkeypatch):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    site.write("mkdocs.yml", site.config.read_text(encoding="utf-8") + f"site_dir: ../{site.out.name}\n")
    without_plugin(site)
    assert site.build().code == 0
    (site.root / "site").mkdir()  # an empty site/ beside it, which the check must not take for the site
    monkeypatch.chdir(site.root)

    code, output = run_main(capsys, "marks", "-f", str(site.config))

    assert code == 1, output
    assert "not marked as verified on index.html" in output and not any(site.out.iterdir())


@pytest.mark.parametrize("folder", [".", "docs", "data", "docs/sub", ".."])
def test_marks_refuses_a_folder_that_is_not_a_built_site_and_empties_nothing(make_site, capsys, folder):
    site = make_site({"index.md": page(fence("print(1)"))})
    assert site.accept().code == 0
    site.write("docs/sub/note.md", "# Note\n")
    before = files_of(site.root)

    code, output = run_main(capsys, "marks", str(site.root / folder), "-f", str(site.config))

    assert code == 2, output
    assert "is not a built site, so it is neither checked nor emptied: it" in output
    assert files_of(site.root) == before


def test_marks_refuses_a_folder_that_no_build_wrote(make_site, capsys, tmp_path):
    site = make_site({"index.md": page(fence("print(1)"))})
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "thesis.tex").write_text("years of work\n", encoding="utf-8")

    code, output = run_main(capsys, "marks", str(victim), "-f", str(site.config))

    assert code == 2, output
    assert "it is not mkdocs.yml's site_dir, no build with the plugin recorded writing it" in output
    assert (victim / "thesis.tex").read_text(encoding="utf-8") == "years of work\n"


def test_make_site_runs_the_marks_check_after_the_build():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nsite:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert [line.strip() for line in recipe] == ["$(BIN)/mkdocs build --strict",
                                                 "$(BIN)/python -m sitebuild marks"]


# make serve: a rebuild imports the machinery anew -----------------------------------------------------------------


def test_a_serve_rebuild_after_an_edit_to_the_machinery_imports_it_anew(make_site, monkeypatch):
    from mkdocs.config import load_config

    from sitebuild.mkdocs_adapter import plugin as plugin_module

    site = make_site({"index.md": page("No blocks.")})
    config = load_config(str(site.config))
    plugin = config.plugins["verified-blocks"]
    monkeypatch.setenv("SITEBUILD_MODE", "serve")
    before = {name: module for name, module in sys.modules.items() if name.startswith("sitebuild")}
    try:
        plugin.on_config(config)
        first = sys.modules["sitebuild.render.render"]
        plugin.on_config(config)
        assert sys.modules["sitebuild.render.render"] is first  # nothing edited: nothing imported again

        stamp = plugin_module.machinery_stamp()
        monkeypatch.setattr(plugin_module, "machinery_stamp", lambda: (*stamp, ("render.py", 1, 1)))  # an edit
        plugin.on_config(config)

        assert sys.modules["sitebuild.render.render"] is not first
        assert sys.modules["sitebuild.mkdocs_adapter.plugin"] is plugin_module
    finally:  # the other tests of this process keep the modules they imported
        for name in [m for m in sys.modules if m.startswith("sitebuild")]:
            del sys.modules[name]
        sys.modules.update(before)


def test_a_record_is_written_whole_and_the_records_of_site_folders_that_are_gone_are_dropped(tmp_path):
    kept, gone, new = (tmp_path / name for name in ("kept", "gone", "new"))
    for folder in (kept, gone, new):
        folder.mkdir()
    page_record = {"index.md": {"file": "index.html", "sha256": "a" * 64, "verified": ["python-1a"]}}
    marks.write_record(tmp_path, kept, page_record)
    marks.write_record(tmp_path, gone, page_record)
    gone.rmdir()

    marks.write_record(tmp_path, new, {})

    assert marks.read_record(tmp_path, kept) == page_record and marks.read_record(tmp_path, new) == {}
    assert not marks.record_path(tmp_path, gone).exists()
    assert sorted(p.name for p in marks.record_path(tmp_path, new).parent.iterdir()) == sorted(
        marks.record_path(tmp_path, folder).name for folder in (kept, new))  # no temporary file left
