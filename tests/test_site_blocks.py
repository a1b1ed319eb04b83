"""sitebuild.find.blocks and sitebuild.find.fences: finding a page's executed blocks as Markdown reads them, and
keying them."""

from __future__ import annotations

import hashlib
import re

import pytest

from sitebuild.find.blocks import BlockError, is_executed, page_blocks, parse_info


def found(markdown: str) -> list[tuple[int, str, str, dict[str, str]]]:
    """(line, language, code, options) of each block of a page, as the build reads them."""
    return [(b.line, b.language, b.code, b.options) for b in page_blocks(markdown)]


def test_a_top_level_block_is_found_with_its_line_and_options():
    markdown = '# Page\n\nText.\n\n```bash exec="on" timeout="5"\necho hi\n```\n'

    assert found(markdown) == [(5, "bash", "echo hi", {"exec": "on", "timeout": "5"})]


def test_a_block_nested_in_an_admonition_has_its_code_without_the_indent_and_its_file_line():
    markdown = (
        "# Page\n"
        "\n"
        '!!! note "Try it"\n'
        "\n"
        '    ```python exec="on"\n'
        "    for n in range(2):\n"
        "        print(n)\n"
        "    ```\n"
        "\n"
        "After.\n"
    )

    (block,) = page_blocks(markdown)

    assert (block.line, block.language, block.code) == (5, "python", "for n in range(2):\n    print(n)")


def test_a_block_nested_in_a_tab_is_found_with_its_line():
    markdown = '=== "First"\n\n    ```bash exec="on"\n    echo one\n    ```\n\n=== "Second"\n\n    Prose.\n'

    assert found(markdown) == [(3, "bash", "echo one", {"exec": "on"})]


def test_an_exec_fence_shown_inside_a_longer_non_exec_fence_is_an_example_not_a_block():
    markdown = (
        "How to write a block:\n"
        "\n"
        "````markdown\n"
        '```python exec="on"\n'
        'print("an example, not run")\n'
        "```\n"
        "````\n"
        "\n"
        '```python exec="on"\n'
        'print("run")\n'
        "```\n"
    )

    assert found(markdown) == [(9, "python", 'print("run")', {"exec": "on"})]


def test_fences_that_do_not_execute_are_not_blocks():
    markdown = (
        "```python\nprint(1)\n```\n"
        '```python exec="off"\nprint(2)\n```\n'
        '```python exec="0"\nprint(3)\n```\n'
        '~~~bash exec="on"\necho 4\n~~~\n'
    )

    assert found(markdown) == [(10, "bash", "echo 4", {"exec": "on"})]


def test_the_attribute_list_form_is_read():
    markdown = '``` {.python exec="on" id="first"}\nprint(1)\n```\n'

    assert [(b.line, b.language, b.code, b.key) for b in page_blocks(markdown)] == [(1, "python", "print(1)", "first")]


def test_parse_info_splits_language_and_options():
    assert parse_info("bash exec=\"on\" title='Run it' timeout=30") == (
        "bash",
        {"exec": "on", "title": "Run it", "timeout": "30"},
    )
    assert parse_info('{.Python exec="on"}') == ("python", {"exec": "on"})
    assert parse_info('exec="on"') == ("", {"exec": "on"})


@pytest.mark.parametrize(("value", "executed"), [("on", True), ("yes", True), ("1", True), ("off", False),
                                                 ("no", False), ("false", False), ("0", False), ("", False)])
def test_is_executed_reads_exec_as_markdown_exec_does(value, executed):
    assert is_executed({"exec": value}) is executed


def test_page_blocks_number_label_and_describe_blocks():
    markdown = (
        "# Page\n\n"
        '```python exec="on"\nprint(1)\n```\n\n'
        '```sh exec="on" show="output" timeout="9"\necho 2\n```\n\n'
        '```py exec="on" output="markdown" show="none"\nprint("**3**")\n```\n'
    )

    first, second, third = page_blocks(markdown)

    assert [b.index for b in (first, second, third)] == [1, 2, 3]
    assert [b.language for b in (first, second, third)] == ["python", "bash", "python"]
    assert first.label == "block 1 (python, line 3)"
    assert second.label == "block 2 (bash, line 7)"
    assert (first.show, second.show, third.show) == ("all", "output", "none")
    assert (first.output_format, third.output_format) == ("text", "markdown")
    assert first.timeout(60) == 60 and second.timeout(60) == 9


def test_page_blocks_leave_markdown_and_tree_fences_to_markdown_exec():
    markdown = '```md exec="on"\n**bold**\n```\n\n```bash exec="on"\necho hi\n```\n'

    (block,) = page_blocks(markdown)

    assert block.label == "block 1 (bash, line 5)"


def test_a_key_is_the_language_and_a_hash_of_the_code():
    (block,) = page_blocks('```python exec="on"\nprint(1)   \n\n```\n')

    assert re.fullmatch(r"python-[0-9a-f]{8}", block.key)
    assert block.key == "python-" + hashlib.sha256(b"print(1)").hexdigest()[:8]


def test_keys_do_not_change_when_a_block_is_inserted_before_them():
    a = '```python exec="on"\nprint("a")\n```\n\n'
    b = '```bash exec="on"\necho b\n```\n\n'
    new = '```python exec="on"\nprint("new")\n```\n\n'

    before = page_blocks("# Page\n\n" + a + b)
    after = page_blocks("# Page\n\n" + new + "Some prose.\n\n" + a + new.replace("new", "newer") + b)

    assert [blk.key for blk in after if blk.key in {x.key for x in before}] == [x.key for x in before]
    assert [blk.index for blk in after if blk.key == before[0].key] == [2]


def test_repeated_code_gets_numbered_keys():
    block = '```python exec="on"\nprint("same")\n```\n\n'

    keys = [b.key for b in page_blocks(block * 3)]

    assert keys[1:] == [keys[0] + "-2", keys[0] + "-3"]


def test_an_id_option_is_the_key():
    markdown = '```python exec="on" id="plan-1"\nprint(1)\n```\n\n```python exec="on" id="plan-2"\nprint(1)\n```\n'

    assert [b.key for b in page_blocks(markdown)] == ["plan-1", "plan-2"]


@pytest.mark.parametrize(
    ("fences", "message"),
    [
        pytest.param('```python exec="on" colour="red"\nprint(1)\n```\n',
                     "block 1 (python, line 1): unknown option colour='red'", id="unknown-option"),
        pytest.param('```python exec="on" session="s"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option session='s' is refused: a page's python blocks always share "
                     "one session",
                     id="markdown-exec-option-this-site-refuses"),
        pytest.param('```python exec="on" show="everything"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option show='everything' is not valid: expected all", id="bad-show"),
        pytest.param('```python exec="on" output="html"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option output='html' is not valid: expected text", id="bad-output"),
        pytest.param('```python exec="on" timeout="0"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option timeout='0' is not valid: expected seconds", id="timeout-zero"),
        pytest.param('```python exec="on" timeout="1.5"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option timeout='1.5' is not valid", id="timeout-fraction"),
        pytest.param('```python exec="on" timeout="3601"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option timeout='3601' is not valid", id="timeout-too-long"),
        pytest.param('```python exec="on" id="Plan_A"\nprint(1)\n```\n',
                     "block 1 (python, line 1): option id='Plan_A' is not valid: expected a short name", id="bad-id"),
        pytest.param('```python exec="on" id="x"\nprint(1)\n```\n\n```bash exec="on" id="x"\necho 2\n```\n',
                     "block 2 (bash, line 5): id 'x' is already used by another block of this page", id="duplicate-id"),
        pytest.param('```pycon exec="on"\n>>> print(1)\n```\n',
                     "block 1 (pycon, line 1): exec is on for language 'pycon'; this site runs python and bash blocks",
                     id="pycon"),
        pytest.param('```bash exec="on"\necho 1\n```\n\n```console exec="on"\n$ echo 1\n```\n',
                     "block 2 (console, line 5): exec is on for language 'console'", id="console"),
        pytest.param('```ruby exec="on"\nputs 1\n```\n', "line 1: exec is on for language 'ruby'",
                     id="other-language"),
    ],
)
def test_page_blocks_refuse_what_the_site_cannot_run(fences, message):
    with pytest.raises(BlockError) as error:
        page_blocks(fences)

    assert message in str(error.value)
