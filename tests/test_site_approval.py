"""Approved outputs: what fails a build until `accept`, what accept rewrites and says, and what it never does."""

from __future__ import annotations

import re

import pytest

from tests.conftest import approved_entries, failure_line, fence, label, page

pytestmark = pytest.mark.site

UNAPPROVED = "has no approved output yet: check the output below, then run `make accept`"
CHANGED = "output differs from the approved output; if the change is intended, run `make accept`"
EDITED = "its code changed since its output was approved"
KIT = "VALUE = 'old value'\n\ndef report():\n    print('value:', VALUE)\n    print('unchanged line')\n"


def key_of(line: str) -> str:
    return re.search(r", key (\S+): ", line)[1]


def test_a_new_block_fails_until_accepted_and_accept_says_new(make_site):
    index = page(fence("print('hello from index')"), fence("echo 'hello from bash'", "bash"))
    guide = page(fence("print('hello from the guide')"), title="Guide")
    site = make_site({"index.md": index, "guide/intro.md": guide})

    built = site.build()

    assert built.code != 0, built
    for where, markdown, n in [("docs/index.md", index, 1), ("docs/index.md", index, 2),
                               ("docs/guide/intro.md", guide, 1)]:
        assert failure_line(built, where, label(markdown, n)).endswith(UNAPPROVED)
    assert "    hello from index" in built.output  # the output to check, under its failure

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert f"accepted: docs/index.md, {label(index, 1)}, key python-" in accepted.output
    assert re.search(r"accepted: docs/index\.md, block 2 \(bash, line 7\), key bash-[0-9a-f]{8}: new", accepted.output)
    assert re.search(r"accepted: docs/guide/intro\.md, block 1 \(python, line 3\), key python-[0-9a-f]{8}: new",
                     accepted.output)
    assert "hello from the guide" in site.approved("guide/intro.md")
    assert site.build().code == 0


def test_a_changed_output_fails_with_a_diff_until_accepted(make_site):
    markdown = page(fence("import kit_module\nkit_module.report()"))
    site = make_site({"index.md": markdown}, {"kit_module.py": KIT})
    assert site.accept().code == 0
    assert site.build().code == 0
    site.write("kit_module.py", KIT.replace("old value", "new value"))  # each build imports it afresh

    built = site.build()

    assert built.code != 0, built
    assert failure_line(built, "docs/index.md", label(markdown, 1)).endswith(CHANGED)
    diff = built.output[built.output.index(CHANGED):]
    assert "    --- approved (data/index.txt)\n    +++ this build\n" in diff
    assert "\n    -value: old value\n    +value: new value\n     unchanged line\n" in diff

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert re.search(r"accepted: docs/index\.md, block 1 \(python, line 3\), key python-[0-9a-f]{8}: changed$",
                     accepted.output, re.MULTILINE)
    assert "value: new value" in site.approved()
    assert site.build().code == 0


def test_an_approved_output_whose_block_is_gone_fails_until_accept_drops_it(make_site):
    keep, remove = fence("print('kept')"), fence("print('removed')")
    site = make_site({"index.md": page(keep, remove)})
    assert site.accept().code == 0
    site.page("index.md", page(keep))

    built = site.build()

    assert built.code != 0, built
    stale = re.search(r"docs/index\.md: data/index\.txt holds an approved output for '(python-[0-9a-f]{8})' "
                      r"\(first line: 'removed'\), a block no longer on the page; run `make accept` to drop it",
                      built.output)
    assert stale, built
    assert "1 verification failure(s) on 1 page(s)" in built.output

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert f"accepted: docs/index.md, key {stale[1]}: dropped (its block is gone)" in accepted.output
    assert "removed" not in site.approved() and "kept" in site.approved()
    assert site.build().code == 0


def test_the_approved_file_of_a_page_that_is_gone_fails_until_accept_removes_it(make_site):
    site = make_site({"index.md": page(fence("print('home')")), "old.md": page(fence("print('old')"), title="Old")})
    assert site.accept().code == 0
    assert site.approved_file("old.md").exists()
    (site.docs / "old.md").unlink()

    built = site.build()

    assert built.code != 0, built
    assert ("data/old.txt holds approved outputs of a page that does not exist; run `make accept` to remove it"
            in built.output), built

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert "accepted: data/old.txt: removed (its page is gone)" in accepted.output
    assert not site.approved_file("old.md").exists()
    assert site.approved_file("index.md").exists()
    assert site.build().code == 0


def test_an_edited_block_shows_the_diff_against_its_previous_output(make_site):
    before = page(fence("print('first')"), fence("print('total:', 2 + 2)\nprint('done')"), fence("print('last')"))
    site = make_site({"index.md": before})
    assert site.accept().code == 0
    after = before.replace("2 + 2", "2 + 3")
    site.page("index.md", after)

    built = site.build()

    assert built.code != 0, built
    line = failure_line(built, "docs/index.md", label(after, 2))
    assert EDITED in line
    assert "\n    -total: 4\n    +total: 5\n     done\n" in built.output
    assert "no longer on the page" not in built.output  # the old entry is explained by the edit, not stale
    assert "1 verification failure(s) on 1 page(s)" in built.output

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert f"accepted: docs/index.md, {label(after, 2)}, key {key_of(line)}: code edited" in accepted.output
    assert "dropped" not in accepted.output  # the old key is the edited block's, not a block that is gone
    assert [entry.splitlines()[1] for entry in approved_entries(site.approved())] == ["first", "total: 5", "last"]
    assert site.build().code == 0


def test_two_neighbouring_edited_blocks_each_show_their_own_diff(make_site):
    before = page(fence("print('one', 1)"), fence("print('two', 2)"), fence("print('three')"))
    site = make_site({"index.md": before})
    assert site.accept().code == 0
    after = before.replace("1)", "10)").replace("2)", "20)")
    site.page("index.md", after)

    built = site.build()

    assert EDITED in failure_line(built, "docs/index.md", label(after, 1))
    assert EDITED in failure_line(built, "docs/index.md", label(after, 2))
    assert "\n    -one 1\n    +one 10\n" in built.output and "\n    -two 2\n    +two 20\n" in built.output
    assert "no longer on the page" not in built.output


def test_an_edited_block_that_fails_keeps_its_approved_output_until_it_runs_again(make_site):
    before = page(fence("print('total:', 2 + 2)"), fence("print('last')"))
    site = make_site({"index.md": before})
    assert site.accept().code == 0
    approved_before = site.approved()
    broken = before.replace("2 + 2", "2 + undefined_name")
    site.page("index.md", broken)

    built = site.build()

    assert "raised NameError" in failure_line(built, "docs/index.md", label(broken, 1))
    assert "no longer on the page" not in built.output  # the failing block is still on the page
    assert site.accept().code != 0
    assert site.approved() == approved_before  # accept kept the old output of the failing block

    fixed = before.replace("2 + 2", "2 + 3")
    site.page("index.md", fixed)
    rebuilt = site.build()
    assert EDITED in failure_line(rebuilt, "docs/index.md", label(fixed, 1))
    assert "\n    -total: 4\n    +total: 5\n" in rebuilt.output


@pytest.mark.parametrize("position", [0, 1, 2], ids=["first", "between", "last"])
def test_inserting_a_block_changes_only_its_own_entry(position, make_site):
    blocks = [fence("print('alpha')"), fence("echo beta", "bash")]
    site = make_site({"index.md": page(*blocks)})
    assert site.accept().code == 0
    old = site.approved()
    old_entries = approved_entries(old)
    blocks.insert(position, fence("print('inserted')\nprint('two lines')"))
    markdown = page(*blocks)
    site.page("index.md", markdown)

    built = site.build()

    assert built.code != 0, built
    assert failure_line(built, "docs/index.md", label(markdown, position + 1)).endswith(UNAPPROVED)
    assert "1 verification failure(s) on 1 page(s)" in built.output

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert accepted.output.count("accepted: ") == 1, accepted
    new = site.approved()
    new_entries = approved_entries(new)
    assert new_entries[:position] + new_entries[position + 1:] == old_entries  # byte for byte, in order
    assert new_entries[position].endswith("(2 lines)\ninserted\ntwo lines\n")
    assert new.startswith(old[: old.index("--- ")])  # the header comment too
    assert site.build().code == 0


def test_accept_on_an_unchanged_site_rewrites_nothing_and_says_so(make_site):
    site = make_site({"index.md": page(fence("print('steady')"), fence("echo steady", "bash"))})
    assert site.accept().code == 0
    before = site.approved_file().stat().st_mtime_ns, site.approved()

    accepted = site.accept()

    assert accepted.code == 0, accepted
    assert accepted.output.strip() == "accept: nothing to rewrite, every approved output is current"
    assert (site.approved_file().stat().st_mtime_ns, site.approved()) == before


def test_accept_never_approves_a_failing_block_and_keeps_its_approved_output(make_site):
    markdown = page(fence("import kit_module\nkit_module.report()"), fence("print('a new block')"),
                    fence("echo 'a new bash block'", "bash"))
    site = make_site({"index.md": page(fence("import kit_module\nkit_module.report()"))}, {"kit_module.py": KIT})
    assert site.accept().code == 0
    approved_before = site.approved()
    site.page("index.md", markdown)
    site.write("kit_module.py", KIT.replace("    print('value:', VALUE)", "    raise ValueError('kit broke')"))

    accepted = site.accept()

    assert accepted.code != 0, accepted
    assert "raised ValueError: kit broke" in failure_line(accepted, "docs/index.md", label(markdown, 1))
    assert "not approved: an earlier python block" in failure_line(accepted, "docs/index.md", label(markdown, 2))
    entries = approved_entries(site.approved())
    assert entries[0] == approved_entries(approved_before)[0]  # the last good output stays approved
    assert len(entries) == 2 and entries[1].endswith("\na new bash block\n")  # a bash block needs no session
    assert "kit broke" not in site.approved()
    site.write("kit_module.py", KIT)
    assert site.accept().code == 0 and "a new block" in site.approved()  # once the session is whole again


def test_a_malformed_approved_file_fails_naming_file_and_line_and_accept_leaves_it(make_site):
    site = make_site({"index.md": page(fence("print('one')"))})
    assert site.accept().code == 0
    broken = site.approved() + "a line someone typed\n"
    site.approved_file().write_text(broken, encoding="utf-8")
    line = broken.splitlines().index("a line someone typed") + 1

    built = site.build()

    assert built.code != 0, built
    assert (f"docs/index.md: data/index.txt line {line}: expected a header like '--- <key> (<n> lines)', "
            "got 'a line someone typed'; fix or delete the file, then run `make accept`") in built.output, built

    accepted = site.accept()

    assert accepted.code != 0, accepted
    assert f"data/index.txt line {line}" in accepted.output
    assert site.approved() == broken


def test_outputs_with_carriage_returns_and_unicode_line_breaks_are_approved_once(make_site):
    markdown = page(
        fence("import csv, sys\n"
              "writer = csv.writer(sys.stdout)  # ends rows with \\r\\n\n"
              "writer.writerows([['id', 'name'], [1, 'Ada']])"),
        fence("print('page\\u2028break')"),
        fence("printf 'downloading 50%%\\rdownloading 100%%\\n'", "bash"),
    )
    site = make_site({"index.md": markdown})

    assert site.accept().code == 0
    built = site.build()

    assert built.code == 0, built
    assert site.accept().output.strip() == "accept: nothing to rewrite, every approved output is current"


def test_the_accept_command_approves_and_shows_failures_as_the_mkdocs_cli_does(make_site):
    site = make_site({"index.md": page(fence("print('fine')"), fence("raise ValueError('broken')"))})

    run = site.accept_command()

    assert run.code != 0
    assert "ERROR   -  verified-blocks: docs/index.md, block 2 (python, line 7)" in run.output
    assert "raised ValueError: broken" in run.output and "accepted: docs/index.md, block 1" in run.output
