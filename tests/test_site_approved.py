"""sitebuild.verify.approved: the approved-outputs file format, its parser and the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild.verify.approved import ApprovedFileError, approved_path, clean, diff, parse, render

TRICKY_OUTPUTS = {
    "one-line": "69 passed",
    "lines": "first\nsecond\nthird",
    "blank-line-inside": "above\n\nbelow",
    "blank-lines-first": "\n\nafter two blank lines",
    "looks-like-a-header": "--- python-1a2b3c4d (2 lines)\nnot a header: inside an output",
    "dashes": "---\n--- \n----------",
    "looks-like-a-comment": "# not a comment either\n#",
    "indented-and-trailing-spaces": "    indented\ntrailing   ",
    "unicode": "Zoë → 3 tokens · 1 credit",
    "tabs": "a\tb\t\tc",
}


def test_the_file_format():
    entries = [("python-1a2b3c4d", "first line\nsecond line\n"), ("bash-9f8e7d6c", "69 passed")]

    text = render("docs/advanced/agent.md", entries)

    assert text == (
        "# Approved outputs of docs/advanced/agent.md, in page order.\n"
        "# Written by `make accept`: change the page or the kit, never this file.\n"
        "\n"
        "--- python-1a2b3c4d (2 lines)\n"
        "first line\n"
        "second line\n"
        "\n"
        "--- bash-9f8e7d6c (1 line)\n"
        "69 passed\n"
    )


@pytest.mark.parametrize("output", TRICKY_OUTPUTS.values(), ids=TRICKY_OUTPUTS.keys())
def test_render_then_parse_gives_each_output_back(output):
    entries = [("before", "x"), ("key", output), ("after", "y")]

    assert parse(render("docs/a.md", entries), "data/a.txt") == {"before": "x", "key": output, "after": "y"}


def test_render_then_parse_keeps_every_output_and_the_order():
    entries = list(TRICKY_OUTPUTS.items())

    parsed = parse(render("docs/a.md", entries), "data/a.txt")

    assert list(parsed.items()) == entries


def test_trailing_newlines_are_not_part_of_an_output():
    assert clean("printed\n\n") == "printed"
    assert parse(render("docs/a.md", [("k", "printed\n\n\n")]), "data/a.txt") == {"k": "printed"}


@pytest.mark.parametrize(
    "output",
    ["id,name\r\n1,Ada\r\n", "50%\r100%", "page\u2028break", "form\x0cfeed", "next\x85line", "group\x1dsep"],
    ids=["crlf-from-csv-writer", "carriage-return", "unicode-line-separator", "form-feed", "nel", "group-separator"],
)
def test_outputs_with_other_line_breaks_survive_the_file(output, tmp_path):
    # The hook reads approved files with read_text (universal newlines): a round trip through a real file.
    path = tmp_path / "a.txt"
    path.write_text(render("docs/a.md", [("k", output), ("after", "y")]), encoding="utf-8")

    parsed = parse(path.read_text(encoding="utf-8"), "data/a.txt")

    assert parsed == {"k": clean(output), "after": "y"}
    assert clean(parsed["k"]) == clean(output)  # so the next build compares equal


def test_parse_skips_comments_and_blank_lines_between_entries():
    text = "# a comment\n\n\n--- a (1 line)\nA\n# between\n\n--- b (2 lines)\nB1\n\n"

    assert parse(text, "x.txt") == {"a": "A", "b": "B1\n"}


def test_parse_of_an_empty_file_is_empty():
    assert parse("", "x.txt") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("# comment\n\n--- a (1 line)\nA\nstray\n", "data/x.txt line 5: expected a header like",
                     id="stray-line"),
        pytest.param("--- a (one line)\nA\n", "data/x.txt line 1: expected a header like", id="bad-count"),
        pytest.param("---a (1 line)\nA\n", "data/x.txt line 1: expected a header", id="no-space"),
        pytest.param("--- a (1 line)\nA\n\n--- b (3 lines)\nB\n",
                     "data/x.txt line 4: entry 'b' promises 3 lines, the file ends first", id="cut-short"),
        pytest.param("--- a (1 line)\nA\n\n--- a (1 line)\nA\n", "data/x.txt line 4: the key 'a' appears twice",
                     id="duplicate-key"),
    ],
)
def test_parse_names_the_file_and_line_of_a_malformed_file(text, message):
    with pytest.raises(ApprovedFileError) as error:
        parse(text, "data/x.txt")

    assert message in str(error.value)


def test_approved_path_mirrors_the_page():
    assert approved_path(Path("data"), "advanced/agent.md") == Path("data/advanced/agent.txt")
    assert approved_path(Path("data"), "index.md") == Path("data/index.txt")


def test_diff_is_a_unified_diff_from_approved_to_this_build():
    text = diff("same\nold line\nsame again", "same\nnew line\nsame again\n", "data/a.txt")

    assert text.splitlines() == [
        "--- approved (data/a.txt)",
        "+++ this build",
        "@@ -1,3 +1,3 @@",
        " same",
        "-old line",
        "+new line",
        " same again",
    ]


def test_diff_is_empty_when_only_trailing_newlines_differ():
    assert diff("out\n", "out\n\n", "data/a.txt") == ""
