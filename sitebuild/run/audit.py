"""What a page's run read, recorded cheaply in every build: audit hooks in its Python processes, xtrace in its shells.

Each launch of a page's run (its Python worker, each bash block) gets a record folder of its own and three
variables (env()): PYTHONPATH names sitebuild/run/readhook, whose sitecustomize.py installs an audit hook in every
Python interpreter of the run (the worker, `python -m pytest` in a bash block, a Python a test starts) and
writes one JSON record per process: the files it opened, the folders it listed, the files of the modules it
imported, the programs it started; BASH_ENV names readhook/xtrace.bash, which has every bash of the run write
its folder, its command string and an xtrace of each command it runs (its words expanded) into the folder.

paths() reads those records back into what strace's record gave (reads.paths): {absolute path: True}, every
read here being of content (a file's bytes, a folder's names). It answers (None, why) when the reads cannot be
known for sure, and the page keeps the key of every input file (cache.py):
- a Python record that is empty or cut short mid-line, or that says a read could not be named, or a launch that
  left no record at all (a process that was killed, left with os._exit or was a forked child still leaves a
  whole record: each line is written before the read it names; python_record);
- a program started that is neither a Python interpreter that records (one started with -I, -E or -S, or with
  an environment without these variables, does not) nor one of KNOWN, whose reads are read off its words:
  sed, cat, grep, head, tail, wc, sort, uniq, cut with their file operands, and commands that read no file
  (tr, mktemp, echo, printf, export, ...), each only with the options listed for it; nor `sh -c STRING` (what
  subprocess's shell=True runs) whose STRING is simple commands of those joined by `;`, `&&`, `||` or `|`,
  with no expansion, redirection, glob or subshell (_shell_commands);
- a bash command string that expands a wildcard (globs(): the trace shows what it matched, not the listing it
  read); a bash command string with a here-document, a here-string or `<(...)`, or that reads a file through a
  redirection (`< FILE`) whose name it cannot tell (FILE is read once its variables are replaced with the
  values the trace assigned them); a `cd`, `source`, `set +x` or `exec`; an xtrace line that does not parse.

Left out, by design: what an audit hook cannot see (readhook/sitecustomize.py: a stat that neither opens nor
lists, a file a C extension opens itself). The page's blocks see PYTHONPATH, SITEBUILD_READS and BASH_ENV in
their environment, and `x` in bash's `$-`; sys.path is as without them.
"""

from __future__ import annotations

import ast
import os
import re
import secrets
import shlex
from pathlib import Path

from sitebuild.run.reads import read_record

AUDIT = "audit"  # the tracer name (launchers.Trace) that records reads this way
HOOK = Path(__file__).with_name("readhook")
READS_ENV = "SITEBUILD_READS"
PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
# Commands that read no file's content: builtins, and programs that only write (a write into a block input
# fails the build: guard.py).
NO_READS = {"tr", "mktemp", "echo", "printf", "true", "false", "export", ":", "eval", "local", "declare",
            "unset", "shift", "return", "exit", "break", "continue", "wait", "rm", "mkdir", "touch"}


def _words(text: str) -> set[str]:
    return set(text.split())


# program: (options that take a value, options alone, operands before the files (a script, a pattern),
# options whose value is such an operand, options whose value is a file read). Any other option: unknown.
KNOWN: dict[str, tuple[set[str], set[str], int, set[str], set[str]]] = {
    "sed": (_words("-l -e -f"), _words("-n -E -r -s -u -z --posix --debug --sandbox --quiet --silent "
                                       "--regexp-extended"), 1, {"-e"}, {"-f"}),
    "grep": (_words("-e -f -m -A -B -C"), _words("-E -F -G -P -i -v -w -x -c -l -L -n -h -H -o -q -s -a -y "
                                                 "--color=never --color=auto"), 1, {"-e"}, {"-f"}),
    "cat": (set(), _words("-A -b -e -E -n -s -t -T -u -v"), 0, set(), set()),
    "head": ({"-n", "-c"}, {"-q", "-v"}, 0, set(), set()),
    "tail": ({"-n", "-c"}, {"-q", "-v"}, 0, set(), set()),
    "wc": (set(), _words("-l -w -c -m -L"), 0, set(), set()),
    "sort": ({"-k", "-t"}, _words("-n -r -u -f -b -V -s -g -h -d -i -M"), 0, set(), set()),
    "uniq": (set(), _words("-c -d -u -i"), 0, set(), set()),
    "cut": (_words("-d -f -c -b"), {"-s"}, 0, set(), set()),
    "cp": (set(), _words("-p -f -v -n"), 0, set(), set()),  # reads every operand but the last (see _operands)
}
VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def env(folder: Path) -> dict[str, str]:
    """The variables that make a launch record its reads into folder (see the module docstring).

    Example: env(Path("/tmp/r"))["SITEBUILD_READS"] == "/tmp/r"
    """
    return {"PYTHONPATH": str(HOOK), READS_ENV: str(folder), "BASH_ENV": str(HOOK / "xtrace.bash")}


def launch(folder: Path, argv: list[str]) -> dict[str, str]:
    """A new record folder in folder for one launch of argv (its program named in it), and env() for it.

    Example: launch(Path("/tmp/r"), ["bash", "-c", "true"])["BASH_ENV"].endswith("xtrace.bash")
    """
    own = folder / secrets.token_hex(8)
    own.mkdir()
    (own / "launch").write_text(os.path.basename(argv[0]), encoding="utf-8")
    return env(own)


def _python(argv: list[str]) -> str:
    """"" when argv runs a Python interpreter that records its reads; else why it does not."""
    for arg in argv[1:]:
        if arg in ("-c", "-m") or not arg.startswith("-") or arg == "-":
            break
        if not arg.startswith("--") and set(arg[1:]) & set("IES"):
            return f"ran Python with {arg} (it then reads no sitecustomize or no PYTHONPATH)"
    return ""


def _operands(argv: list[str]) -> tuple[list[str], str]:
    """The files a KNOWN program reads, given its words; or ([], why) when they cannot be told."""
    values, alone, before, as_operand, as_file = KNOWN[os.path.basename(argv[0])]
    files: list[str] = []
    operands: list[str] = []
    given = False  # a script or pattern given by an option, so no operand is one
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            operands += list(words)
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        option, _, value = word.partition("=") if word.startswith("--") else (word[:2], "", word[2:])
        if option in values:
            value = value or next(words, "")
            given = given or option in as_operand or option in as_file
            if option in as_file:
                files.append(value)
        elif word in alone or (word[1:].isdigit() and argv[0].endswith(("head", "tail"))):
            continue
        elif not word.startswith("--") and all(f"-{letter}" in alone for letter in word[1:]):
            continue  # grouped flags: -nE
        else:
            return [], f"ran {os.path.basename(argv[0])} with {word}, an option whose reads are not known here"
    if argv[0].endswith("cp"):
        operands = operands[:-1]  # the destination: written, not read
    return files + [o for o in operands[0 if given else before:] if o != "-"], ""


SHELLS = {"sh", "dash"}  # shells that read no BASH_ENV, so record nothing themselves (bash records: xtrace.bash)
SHELL_SPECIAL = re.compile(r"[$`<>(){}*?\[\]~\\\n#!]")


def _shell_commands(script: str) -> list[list[str]] | None:
    """The simple commands of a `sh -c` script, each as its words; None unless it is only simple commands joined
    by `;`, `&&`, `||`, `|` or `&`, with no expansion, redirection, glob, subshell, comment or line break.

    Example: _shell_commands("python -m x --user ana tap; echo hi") == [["python", "-m", "x", "--user", "ana", "tap"],
             ["echo", "hi"]]
    """
    unquoted = re.sub(r"'[^']*'", "", script)  # single quotes hold nothing special
    if SHELL_SPECIAL.search(unquoted):
        return None
    lexer = shlex.shlex(script, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in (";", "&&", "||", "|", "&"):
                commands.append([])
            elif set(token) <= set(";&|"):
                return None  # ";;", "|&" and the like
            else:
                commands[-1].append(token)
    except ValueError:
        return None
    return [words for words in commands if words]


def program(argv: list[str]) -> tuple[list[str], str]:
    """The files a program started by a page's run reads itself (a Python that records reads them through its
    own record), or ([], why) when they cannot be known.

    Example: program(["sed", "-n", "1,3p", "kit/a.py"]) == (["kit/a.py"], "")
    """
    if not argv:
        return [], ""
    name = os.path.basename(argv[0])
    if PYTHON.match(name):
        return [], _python(argv)
    if name in NO_READS:
        return [], ""
    if name in KNOWN:
        return _operands(argv)
    if name in SHELLS and len(argv) >= 3 and argv[1] == "-c":
        commands = _shell_commands(argv[2])
        if commands is None:
            return [], f"ran {name} -c with a script whose reads cannot be read off its words"
        files: list[str] = []
        for words in commands:
            named, why = program(words)
            if why:
                return [], why
            files += named
        return files, ""
    return [], f"ran {name}, whose reads are not recorded"


MAX_PENDING = 1000  # lines of one quoted value spanning lines in an xtrace, at most; more: the trace does not parse


def _commands(trace: str) -> list[list[str]] | None:
    """The commands of a bash xtrace, each as its expanded words; None when a line does not parse, or a quoted
    value is still open after MAX_PENDING lines (two processes' traces interleaved mid-line, say: reading on would
    parse the rest of the trace again for each line)."""
    found, text, pending = [], "", 0
    for line in trace.split("\n"):
        if not text:
            match = re.match(r"^\++ ", line)
            if match is None:
                if line:
                    return None
                continue
            line = line[match.end():]
        text = f"{text}\n{line}" if text else line
        try:
            words = shlex.split(text)
        except ValueError:
            pending += 1
            if pending > MAX_PENDING:
                return None
            continue  # a quoted value that spans lines
        found.append(words)
        text, pending = "", 0
    return None if text else found


def _bare(code: str):
    """Each character of a bash command string outside single quotes and comments, with its index, escapes
    skipped: (index, char). Double-quoted text is yielded too, since a `$(...)` in it runs as code."""
    quote, index = "", 0
    while index < len(code):
        char = code[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1
        elif char == '"':
            quote = "" if quote == '"' else '"'
        elif char == "'" and not quote:
            quote = "'"
        elif char == "#" and not quote and (index == 0 or code[index - 1] in " \t\n;|&("):
            index = code.find("\n", index)
            index = len(code) if index < 0 else index
        else:
            yield index, char
        index += 1


def _redirected(code: str) -> list[str] | None:
    """The words after each `<` of a bash command string that is not in single quotes or a comment (the files it
    reads through redirections, as written); None for a here-document, a here-string or a process substitution."""
    found = []
    for index, char in _bare(code):
        if char != "<":
            continue
        rest = code[index + 1:].lstrip(" \t")
        if rest[:1] in ("<", "("):
            return None
        if rest[:1] == "&":  # <&N: a descriptor, not a file
            continue
        word = re.match(r'"([^"]*)"|([^\s;|&()<>"]+)', rest)
        if word is None:
            return None
        found.append(word[1] if word[1] is not None else word[2])
    return found


def globs(code: str) -> bool:
    """Whether bash code may expand a wildcard: a `*`, `?` or `[...]` outside single quotes and comments (not
    `$?`, `$*`, `${...}`, nor the `[` and `[[` of a test; one in double quotes counts, since a `$(...)` there runs as
    code). An xtrace shows the files a wildcard matched, not the listing it read, so a new file there would go
    unseen; such a run's reads are not known.

    Example: globs("cat kit/*.txt") and not globs("sed 's/ in [0-9.]*s//' || echo $?")
    """
    skip = -1  # the last index of a parameter expansion being passed over
    for index, char in _bare(code):
        if index <= skip:
            continue
        following = code[index + 1:index + 2]
        if char == "$" and following == "{":
            skip = code.find("}", index) if "}" in code[index:] else len(code)
        elif char == "$" and following and following in "?*#@!$-0123456789":
            skip = index + 1
        elif char in "*?":
            return True
        elif char == "[" and following not in ("", " ", "\t", "\n", "["):
            end = re.search(r"[\s\]]", code[index + 1:])
            if end and end.group() == "]":
                return True
    return False


def _bash(record: Path) -> tuple[list[str], str]:
    """The files one bash record says its shell read with KNOWN programs, or ([], why) when that is not known."""
    try:
        folder, _, code = read_record(record.with_name(record.name + ".code"), "utf-8").partition("\n")
        trace = read_record(record, "utf-8")
    except (OSError, UnicodeDecodeError):
        return [], "a shell's record cannot be read"
    if globs(code):
        return [], "a bash block expands a wildcard, whose folder's listing is not recorded"
    commands = _commands(trace)
    if commands is None:
        return [], "a shell's trace does not parse"
    files, values = [], {}
    for words in commands:
        for word in words:  # NAME=value, also after export, local, declare
            if ASSIGNMENT.match(word):
                name, _, value = word.partition("=")
                values.setdefault(name.rstrip("+"), set()).add(value)
        while words and ASSIGNMENT.match(words[0]):
            words = words[1:]
        if not words:
            continue
        if words[0] in ("cd", "pushd", "popd", "source", ".", "exec", "command", "builtin", "env", "xargs") or (
                words[0] == "set" and any(w.startswith("+") and "x" in w for w in words[1:])):
            return [], f"a shell ran {words[0]}"
        named, why = program(words)
        if why:
            return [], why
        files += named
    redirected = _redirected(code)
    if redirected is None:
        return [], "a bash block reads a here-document, a here-string or a process substitution"
    for word in redirected:  # its variables as the trace assigned them, when it assigned each one value
        word = VARIABLE.sub(lambda m: next(iter(values[m[1] or m[2]])) if len(values.get(m[1] or m[2], ())) == 1
                            else m[0], word)
        if re.search(r"[$`*?\[~]", word):
            return [], f"a bash block reads a file through a redirection it cannot name ({word})"
        files.append(word)
    return [name if name.startswith("/") else os.path.join(folder, name) for name in files], ""


def python_record(record: Path) -> dict[str, list] | None:
    """One Python process's record (readhook/sitecustomize.py), or None when it cannot be trusted whole.

    Args:
        record: a py.* file of a launch's record folder: lines "r <repr of a path>", "p <repr of [argv..., carried]>",
            "u <repr of why>", and "end" once the process exited or finished its page.

    Returns:
        {"reads": [paths], "programs": [[argv..., carried]], "unknown": [whys], "end": [True] or []}; None for an
        empty record (the process wrote nothing, or emptied its record when a line could not be written), one that
        cannot be read, is not a regular file, or has a line that does not parse (cut short by a death mid-write).
        A record without "end" is whole all the same: each line is written before the read it names happens.

    Example: python_record(Path("/tmp/r/ab12/py.41.0a1b2c3d"))["reads"]  # ["/repo/kit/evidencedesk/usage.py", ...]
    """
    try:
        text = read_record(record, "utf-8")  # raises OSError when it is not a regular file
    except (OSError, UnicodeDecodeError):
        return None
    if not text:
        return None
    data: dict[str, list] = {"reads": [], "programs": [], "unknown": [], "end": []}
    keys = {"r": "reads", "p": "programs", "u": "unknown"}
    for line in text.split("\n")[:-1] if text.endswith("\n") else [None]:
        if line == "end":
            data["end"].append(True)
            continue
        kind, _, value = (line or "").partition(" ")
        try:
            item = ast.literal_eval(value) if kind in keys else None
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            item = None
        if item is None or (kind == "r" and not isinstance(item, str)) or (kind == "p" and not isinstance(item, list)):
            return None
        data[keys[kind]].append(item)
    return data


def paths(folder: Path) -> tuple[dict[str, bool] | None, str]:
    """What a run read, from the records of its launches in folder (one subfolder each, see env()).

    Returns:
        ({absolute path: True}, "") with every file opened, folder listed, module imported and file a KNOWN
        program read, each path normalized; or (None, why) when the reads are not known for sure (see the module
        docstring).

    Example: paths(Path("/tmp/records"))  # ({"/repo/kit/evidencedesk/usage.py": True, ...}, "")
    """
    found: dict[str, bool] = {}
    try:
        launches = [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return None, "its record folder cannot be read"
    if not launches:
        return None, "it left no record"
    for own in launches:
        try:
            started = read_record(own / "launch", "utf-8")
        except (OSError, UnicodeDecodeError):
            return None, "a launch of it names no program"
        records = sorted(own.iterdir())
        mine = "bash." if started == "bash" else "py." if PYTHON.match(started) else ""
        if not any(r.name.startswith(mine) for r in records) or not mine:
            return None, f"its {started} left no record"
        for record in records:
            if record.name.startswith("py."):
                data = python_record(record)
                if data is None:
                    return None, "a Python process of it left a record that is empty or cut short"
                if data["unknown"]:
                    return None, f"a Python process of it did what the audit hook cannot name ({data['unknown'][0]})"
                for path in data["reads"]:
                    found[os.path.normpath(path)] = True
                for *argv, carried in data["programs"]:
                    named, why = program(argv)
                    started = os.path.basename(argv[0] if argv else "")
                    if (PYTHON.match(started) or started in SHELLS) and not carried:  # its Pythons would not record
                        why = f"a {started} started with an environment of its own, which does not record"
                    if named:  # a file named relative to a folder this record does not keep
                        why = why or f"a Python process of it ran {os.path.basename(argv[0])} on files"
                    if why:
                        return None, why
            elif record.name.startswith("bash.") and not record.name.endswith(".code"):
                named, why = _bash(record)
                if why:
                    return None, why
                found.update((os.path.normpath(n), True) for n in named)
    return found, ""
