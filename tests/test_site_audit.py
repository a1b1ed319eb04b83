"""Every build records what each page read (issue 37): audit hooks in its Python, xtrace in its shells (audit.py).

So the serve cache after `make site` already holds each page's reads: the first kit edit re-runs only the page
that read it, undoing it re-runs none. A page whose reads cannot be known for sure keeps the key of every input
file, and the build's log says so once.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sitebuild.run import audit, reads
from tests.conftest import fence, page
from tests.test_site_reads import KIT, ran, serve

pytestmark = pytest.mark.site

READER = page(fence("from kit.alpha import value\nprint(value())"), fence("sed -n 1p kit/sed_source.txt", "bash"))
BESIDE = page(fence("from kit.other import value\nprint(value())"), title="Beside")
EDIT = ("kit/alpha.py", "def value():\n    return 'alpha one'\n# one more line\n")


def test_after_make_site_a_kit_edit_reruns_only_the_page_that_read_it_and_undoing_it_none(make_site, monkeypatch):
    monkeypatch.setattr(reads, "tracer", lambda: pytest.fail("strace was asked for: reads are known without it"))
    site = make_site({"index.md": READER, "beside.md": BESIDE}, KIT)
    assert site.accept().code == 0
    built = site.build("--strict")  # `make site`: every page runs, and its reads are stored
    assert built.code == 0, built.output
    assert ran(built) == (2, 0)
    assert "reads:" not in built.output  # every page's reads are known
    before = (site.root / EDIT[0]).read_text(encoding="utf-8")

    site.write(*EDIT)  # a one-line edit of a kit module the home page imports
    edited = serve(site)
    site.write(EDIT[0], before)
    undone = serve(site)

    assert ran(edited) == (1, 1), edited.output  # the page that imports it ran; the other was reused
    assert ran(undone) == (0, 2), undone.output  # its run from `make site` fits again


@pytest.mark.parametrize(("block", "why"), [
    (fence("ls kit > /dev/null && echo listed", "bash"), "ran ls, whose reads are not recorded"),
    (fence("import subprocess\nsubprocess.run(['ls', 'kit'], check=True, capture_output=True)\nprint('listed')"),
     "ran ls, whose reads are not recorded"),
    (fence("python -I -c 'print(1)'", "bash"), "ran Python with -I"),
    (fence("import subprocess, sys\n"
           "subprocess.run([sys.executable, '-I', '-c', 'print(1)'], executable=sys.executable)"),
     "ran Python with -I"),
    (fence("cat <(echo hi)", "bash"), "a process substitution"),
    (fence('f=kit/cat_source.txt; f=kit/sed_source.txt; wc -l < "$f"', "bash"),
     "reads a file through a redirection it cannot name ($f)"),
    (fence("sed -i 's/x/x/' kit/none.txt 2>/dev/null || echo tried", "bash"), "ran sed with -i"),
], ids=["bash-ls", "python-ls", "python-I", "python-child-I", "process-substitution", "redirection", "sed-in-place"])
def test_a_page_whose_reads_cannot_be_known_keeps_the_key_of_every_input_and_the_log_says_so_once(
        block, why, make_site):
    site = make_site({"index.md": page(block), "beside.md": BESIDE}, KIT)
    first = serve(site)
    assert ran(first) == (2, 0)
    lines = [line for line in first.output.splitlines() if "reads:" in line]
    assert len(lines) == 1 and "docs/index.md" in lines[0] and why in lines[0], first.output
    assert "docs/beside.md" not in lines[0]

    site.write("kit/alpha.py", "def value():\n    return 'alpha two'\n")  # read by neither page

    assert ran(serve(site)) == (1, 1)  # the page of unknown reads runs again; the other is reused


@pytest.mark.parametrize(("argv", "expected"), [
    (["sed", "-n", "/a/,/b/p", "kit/x.py"], (["kit/x.py"], "")),
    (["sed", "-nE", "-e", "1p", "kit/x.py", "kit/y.py"], (["kit/x.py", "kit/y.py"], "")),
    (["sed", "s/ in [0-9.]*s//"], ([], "")),
    (["grep", "-E", "::|passed"], ([], "")),
    (["grep", "-f", "kit/patterns", "kit/x.py"], (["kit/patterns", "kit/x.py"], "")),
    (["tail", "-n", "1"], ([], "")),
    (["cat", "kit/data/prices.json"], (["kit/data/prices.json"], "")),
    (["/repo/.venv/bin/python", "-m", "pytest", "kit/tests"], ([], "")),
    (["python3.12", "-S", "x.py"], ([], "ran Python with -S (it then reads no sitecustomize or no PYTHONPATH)")),
    (["grep", "-r", "x", "kit"], ([], "ran grep with -r, an option whose reads are not known here")),
    (["find", "kit"], ([], "ran find, whose reads are not recorded")),
    (["cp", "-p", "kit/a.json", "kit/b.json", "/tmp/x/"], (["kit/a.json", "kit/b.json"], "")),
    (["cp", "-r", "kit", "/tmp/x"], ([], "ran cp with -r, an option whose reads are not known here")),
    # subprocess's shell=True: the script's simple commands, read as if each were started alone
    (["/bin/sh", "-c", "/repo/.venv/bin/python -m notes --user ana tap; echo INJECTED"], ([], "")),
    (["sh", "-c", "cat kit/a.txt && grep -e 'x|y' kit/b.txt | wc -l"], (["kit/a.txt", "kit/b.txt"], "")),
    (["sh", "-c", "echo hi; ls kit"], ([], "ran ls, whose reads are not recorded")),
    (["sh", "-c", "cat $HOME/x"], ([], "ran sh -c with a script whose reads cannot be read off its words")),
    (["sh", "-c", "sort < kit/a.txt"], ([], "ran sh -c with a script whose reads cannot be read off its words")),
    (["dash", "-c", "echo 'a; b' ;; echo c"], ([], "ran dash -c with a script whose reads cannot be read off its "
                                                  "words")),
    (["sh", "kit/script.sh"], ([], "ran sh, whose reads are not recorded")),
])
def test_what_a_program_a_page_started_reads(argv, expected):
    assert audit.program(argv) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ('echo "n: $(wc -l < "$dir/sends.jsonl")"  # it\'s < not this', ["$dir/sends.jsonl"]),
    ("sed -n '/<a>/,/<\\/a>/p' kit/x.html", []),
    ("wc -l <kit/x.txt 0<&3", ["kit/x.txt"]),
    ("cat <<EOF\nx\nEOF", None),
    ("diff <(ls kit) <(ls kit)", None),
])
def test_the_files_a_bash_block_reads_through_redirections(code, expected):
    assert audit._redirected(code) == expected


def test_a_bash_block_s_redirection_is_read_with_its_variables_as_the_shell_set_them(tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "a.txt").write_text("a\n")
    records = tmp_path / "records"
    records.mkdir()
    code = 'dir=$(mktemp -d)\ncp kit/a.txt "$dir/b.txt"\necho "lines: $(wc -l < "$dir/b.txt")"\nrm -r "$dir"'
    env = {**os.environ, **audit.launch(records, ["bash"])}
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=tmp_path, env=env, check=True,
                          capture_output=True, text=True)

    read, why = audit.paths(records)

    assert done.stdout == "lines: 1\n" and why == "" and read is not None
    assert str(tmp_path / "kit" / "a.txt") in read
    assert any(path.endswith("/b.txt") and not path.startswith(str(tmp_path)) for path in read)


def test_a_python_process_records_its_opens_listings_imports_and_programs(tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "a.txt").write_text("a\n")
    (tmp_path / "kit" / "mod.py").write_text("X = 1\n")
    records = tmp_path / "records"
    records.mkdir()
    code = ("import os, subprocess, sys; sys.path.insert(0, 'kit'); import mod; open('kit/a.txt').read(); "
            "os.listdir('kit'); subprocess.run([sys.executable, '-c', 'open(\"kit/a.txt\")'], check=True)")
    env = {**os.environ, **audit.launch(records, [sys.executable])}
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True)

    read, why = audit.paths(records)

    assert why == "" and read is not None
    assert {str(tmp_path / "kit" / name) for name in ("a.txt", "mod.py")} | {str(tmp_path / "kit")} <= set(read)
    assert len([r for f in records.iterdir() for r in f.iterdir() if r.name.startswith("py.")]) == 2  # and its child


@pytest.mark.parametrize("end", [
    "os._exit(0)",  # no atexit: the exactly-once page's hard crash
    "os.kill(os.getpid(), signal.SIGKILL)",
    "pid = os.fork()\nif pid == 0:\n    open('kit/b.txt').read(); os._exit(0)\nos.waitpid(pid, 0); os._exit(0)",
])
def test_a_python_process_that_dies_without_exiting_still_leaves_a_whole_record(tmp_path, end):
    """Each line of a record is written before the read it names (readhook/sitecustomize.py), so a process that
    never reaches its exit handlers has recorded every read it made, and its page keeps a reads-only key."""
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "a.txt").write_text("a\n")
    (tmp_path / "kit" / "b.txt").write_text("b\n")
    records = tmp_path / "records"
    records.mkdir()
    env = {**os.environ, **audit.launch(records, [sys.executable])}
    subprocess.run([sys.executable, "-c", f"import os, signal\nopen('kit/a.txt').read()\n{end}"], cwd=tmp_path,
                   env=env, check=False)

    read, why = audit.paths(records)

    assert why == "" and read is not None
    assert str(tmp_path / "kit" / "a.txt") in read
    assert (str(tmp_path / "kit" / "b.txt") in read) == ("fork" in end)  # the child's own record


@pytest.mark.parametrize(("text", "whole"), [
    ("r '/repo/kit/a.py'\np ['echo', 'hi', True]\nend\n", True),
    ("r '/repo/kit/a.py'\n", True),  # no "end": the process died, after writing what it read
    ("", False),  # emptied: a line could not be written
    ("r '/repo/kit/a.py'\nr '/repo/ki", False),  # cut short mid-line
    ("r 42\n", False),
    ("x '/repo/kit/a.py'\n", False),
])
def test_a_python_record_is_trusted_only_whole(tmp_path, text, whole):
    record = tmp_path / "py.1.00000000"
    record.write_text(text, encoding="utf-8")

    data = audit.python_record(record)

    assert (data is not None) == whole
    if whole:
        assert data["reads"] == ["/repo/kit/a.py"]


def test_a_trace_whose_quoted_value_never_closes_does_not_parse():
    # two shells writing one trace can cut a line mid-quote (a busy loop's `+ :` lines then follow for ever): the
    # trace is given up after MAX_PENDING lines, not parsed again for each line that follows
    interleaved = "++ bash -c 'while :; do :; d+ :\n" + "+ :\n" * (audit.MAX_PENDING + 10)
    assert audit._commands(interleaved) is None
    assert audit._commands("+ echo 'a\nb'\n+ :\n") == [["echo", "a\nb"], [":"]]


@pytest.mark.parametrize(("code", "expands"), [
    ("cat kit/*.txt", True),
    ("echo docs/?.md", True),
    ("ls [ab].txt", True),
    ("echo a#*b", True),  # a # inside a word starts no comment
    ("[ -f x ] && echo y", False),
    ("[[ -n $x ]]", False),
    ("echo '$*' \\*", False),
    ('echo "$(ls kit/*.py)"', True),  # a command substitution in double quotes runs as code
    ("echo $? $* ${x:-*}", False),
    ("# a * comment\necho a", False),
    ("python -m pytest kit/tests/test_a.py | tail -n 1 | sed 's/ in [0-9.]*s.*//'", False),
])
def test_a_bash_wildcard_is_told_from_quoted_and_special_characters(code, expands):
    assert audit.globs(code) is expands
