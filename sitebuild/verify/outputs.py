"""Run a page's blocks and hold their outputs against the approved ones; or approve them.

This is the site's promise in code: a page passes only when every block ran cleanly, printed
something free of build-machine values, and printed exactly its approved output, and when every
approved output still has its block. Each failure names the page, the block and the reason,
with the output or a unified diff to act on.

Left out: MkDocs. hook.py feeds pages in and renders the outcomes; this module is plain Python.
"""

from __future__ import annotations

import secrets
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from sitebuild.find.blocks import Block
from sitebuild.run import launchers, sandbox
from sitebuild.run.guard import WriteGuard
from sitebuild.run.leaks import machine_values, redact, secrets_in
from sitebuild.run.runner import TEMPORARY, PageSession, Result, Trace, run_bash
from sitebuild.verify import approved

MAX_OUTPUT_CHARS = 100_000  # far above any readable output; a bigger one is a mistake, not a page
UNSTABLE = "printed something else on a second run, so it cannot be approved: make it deterministic"
NO_OUTPUT = "printed nothing: a block must show something (a sed excerpt whose pattern no longer matches? a hidden " \
    "check must print what it checked)"
AFTER_FAILURE = "not approved: an earlier python block of this page failed ({}), so this block ran on a session " \
    "the page does not promise"
UNAPPROVED = "has no approved output yet: check the output below, then run `make accept`"
EDITED = "its code changed since its output was approved; if the output change below is intended, run `make accept`"
EDITED_SAME = "its code (or its key) changed, its output did not; run `make accept` to record the new key"
MEMORY = "a process of the page ran out of memory, whose limit is {} MB per process (block_memory, an option of " \
    "the verified-blocks plugin in mkdocs.yml): print a summary of less data, or raise the limit"
READ_ONLY = "it tried to write outside its run's own folders, which the sandbox keeps read-only (the repo, the " \
    "venv, data/, site/: what the build reads or publishes): write into a temporary folder of the block's own " \
    "(tempfile.mkdtemp()) instead"
CHANGED = "output differs from the approved output; if the change is intended, run `make accept`"


@dataclass
class Outcome:
    """One block after the build: its output and, if it fails the build, why.

    Attributes:
        block: the block.
        output: what it printed (cleaned: no trailing newlines).
        problem: "" when it passes; else the reason, in one line.
        detail: what to look at: the diff for a changed output, else the output itself.
    """

    block: Block
    output: str
    problem: str = ""
    detail: str = ""
    run_ok: bool = True  # ran cleanly and printed something stable, so its output may be approved
    rendered: bool = False  # set by the hook once the page shows it
    killed: tuple[str, ...] = ()  # processes a bash block left running, killed when it ended (on a page's last
    # python block: those the page's python blocks left running, killed when the page's session closed)
    replaces: str = ""  # the approved entry of this block before its code was edited, if any


@dataclass
class PageReport:
    """Everything the build found on one page.

    Attributes:
        page: the page's path from the repo root, e.g. "docs/advanced/agent.md".
        approved_file: its approved outputs' path from the repo root.
        outcomes: one per block, in page order.
        problems: problems of the page as a whole (a bad fence, a bad file), one line each.
        stale: one line per approved output whose block is gone (accept drops them).
        changes: in accept mode, what was rewritten.
    """

    page: str
    approved_file: str
    outcomes: list[Outcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)

    @property
    def page_problems(self) -> list[str]:
        """The problems of the page as a whole, stale approved outputs included."""
        return self.problems + self.stale

    def failures(self) -> list[str]:
        """Every failure of the page as a message naming page, block and reason, with details indented."""
        messages = [f"{self.page}: {p}" for p in self.page_problems]
        for o in self.outcomes:
            if o.problem:
                detail = "".join(f"\n    {_cut(line)}" for line in _head_and_tail(o.detail.split("\n")))
                messages.append(f"{self.page}, {o.block.label}, key {o.block.key}: {o.problem}{detail}")
        return messages


def _cut(line: str, width: int = 300) -> str:
    """A detail line as the log shows it: at most width characters, saying how many more there are."""
    return line if len(line) <= width else f"{line[:width]}… ({len(line) - width} more characters)"


LOG_HEAD, LOG_TAIL = 10, 30  # lines of a failure's detail the log shows from its start and its end


def _head_and_tail(lines: list[str]) -> list[str]:
    """A long detail as the log shows it: its first LOG_HEAD and last LOG_TAIL lines, and how many are left out
    between them (an error is often at the top, as a usage message, or at the bottom, as a traceback).

    Example: len(_head_and_tail([str(n) for n in range(100)])) == LOG_HEAD + 1 + LOG_TAIL
    """
    if len(lines) <= LOG_HEAD + LOG_TAIL + 1:
        return lines
    hidden = len(lines) - LOG_HEAD - LOG_TAIL
    note = f"... {hidden} more lines not shown here (the page's red box shows them all) ..."
    return [*lines[:LOG_HEAD], note, *lines[-LOG_TAIL:]]


def run_blocks(blocks: list[Block], root: Path, page: str, default_timeout: float,
               python: str | None = None, guard: WriteGuard | None = None, trace: Trace | None = None,
               memory: int = 0) -> list[Result]:
    """Run a page's blocks in order: python blocks in one fresh interpreter, bash blocks from the root.

    Args:
        blocks: the page's blocks (blocks.page_blocks).
        root: the repo root.
        page: the page's path, used to name blocks in tracebacks.
        default_timeout: seconds a block may run unless it sets its own timeout.
        python: the interpreter to run them with (default: this one), e.g. a learner's fresh venv.
        guard: the build's protected files (guard.WriteGuard); a block that changes one gets the problem
            "wrote into ...". None: not watched.
        trace: (strace, folder): every process of the run records what it reads into folder (reads.paths
            reads them back); None: not recorded.
        memory: megabytes of address space each process of the page may take (the plugin's block_memory; 0: no limit);
            a block that hits it fails naming the limit (MEMORY).

    Returns:
        One Result per block, in the same order. The tools blocks run keep their caches, and blocks their
        temporary files (TMPDIR), in a scratch folder of this run (runner.scratch_env), removed when the
        page's last block has run. The last python
        block's Result.killed names what the page's python blocks left running, killed once the page's last
        block had run.

    Raises:
        launchers.Stopped: the build is stopping (launchers.PagePool.stop): the running block was killed, the
            rest not run; the scratch folder is removed all the same.
    """
    results = []
    run = secrets.token_hex(6)  # marks this run's processes apart from any other build's, at the same time
    with tempfile.TemporaryDirectory(prefix="sitebuild-scratch-") as scratch, \
            PageSession(root, python, mark=f"{page} python {run}", scratch=Path(scratch), trace=trace,
                        memory=memory << 20) as session:
        (Path(scratch) / TEMPORARY).mkdir()  # the run's own temporary folder (TMPDIR), before its first block
        for block in blocks:
            launchers.check()
            timeout = block.timeout(default_timeout)
            window, before = guard.start(f"{page}, {block.label}") if guard else (None, None)
            if block.workdir and not _inside(root, block.workdir):
                result = Result("", f"its workdir {block.workdir!r} is not a folder inside the site root")
            elif block.language == "python":
                filename = f"<{page} {block.key}>"  # not its line: an output must not move with the block
                result = session.run(block.code, filename, timeout, workdir=block.workdir, width=block.width)
            else:
                result = run_bash(block.code, root, timeout, workdir=block.workdir, width=block.width,
                                  python=python, mark=f"{page} {block.key} {run}", scratch=Path(scratch), trace=trace,
                                  memory=memory << 20)
            if memory and result.problem and "MemoryError" in result.problem + result.output[-2000:]:
                result = replace(result, problem=f"{result.problem}; {MEMORY.format(memory)}")
            if result.problem and sandbox.status()[0] and "Read-only file system" in result.output[-4000:]:
                result = replace(result, problem=f"{result.problem}; {READ_ONLY}")
            if guard and (wrote := guard.finish(window, before)):
                result = replace(result, problem=wrote + (f"; it also {result.problem}" if result.problem else ""))
            results.append(result)
        launchers.check()  # a block the stop killed has no result to show
    python_blocks = [i for i, block in enumerate(blocks) if block.language == "python"]
    if session.killed and python_blocks:
        results[python_blocks[-1]] = replace(results[python_blocks[-1]], killed=session.killed)
    return [_redacted(result) for result in results]


def _redacted(result: Result) -> Result:
    """A Result with the builder's secrets out of everything it carries: its output is redacted as it is read
    (capture.captured); the exception line of its problem and the names of killed processes are done here."""
    return replace(result, problem=redact(result.problem), killed=tuple(redact(name) for name in result.killed))


def _inside(root: Path, workdir: str) -> bool:
    """True when workdir is a folder under root once links are followed."""
    folder = (root / workdir).resolve()
    return folder.is_dir() and folder.is_relative_to(root.resolve())


def expected_exit(block: Block, result: Result) -> str:
    """A result's problem once a bash block's returncode option is applied: "" when it ended as expected."""
    if block.language != "bash" or (result.problem and not result.problem.startswith("exited with code")):
        return result.problem
    if result.exit_code == block.returncode:
        return ""
    if block.returncode:
        return f"exited with code {result.exit_code}; the block expects returncode {block.returncode}"
    return result.problem


def check_result(block: Block, result: Result, root: Path | None = None, code: str = "") -> Outcome:
    """An Outcome for a block's own run, before any comparison: raised, timed out, silent, or machine-specific.

    Args:
        block: the block; result: its run; root: the site root (for machine_values).
        code: the code behind the output (default: the block's own; for a python block, the page's python
            code so far), which tells machine_values whether an ordinary word or number was read from the machine.
    """
    output = approved.clean(result.output)
    if found := secrets_in("\n".join([output, result.problem, *result.killed])):
        variables = ", ".join(name for name in found if name.startswith("$"))
        shapes = ", ".join(name for name in found if not name.startswith("$"))
        what = " and ".join(part for part in (
            variables and f"the value of the builder's secret environment variable {variables}",
            shapes and f"a value shaped like a real secret ({shapes})") if part)
        problem = (f"printed {what} (removed from the output shown here); a block must never print a secret: "
                   "remove what reads it")
        return Outcome(block, output, problem, output, run_ok=False, killed=result.killed)
    if problem := expected_exit(block, result) or result.undecodable:
        return Outcome(block, output, problem, output, run_ok=False, killed=result.killed)
    if not output.strip():
        return Outcome(block, output, NO_OUTPUT, run_ok=False, killed=result.killed)
    if len(output) > MAX_OUTPUT_CHARS:
        problem = f"printed {len(output)} characters; a page shows at most {MAX_OUTPUT_CHARS}: print a summary instead"
        return Outcome(block, output, problem, output[:2000], run_ok=False, killed=result.killed)
    if leaks := machine_values(output, root, code or block.code):
        problem = f"output holds build-machine values that differ on every machine: {', '.join(sorted(set(leaks)))}"
        return Outcome(block, output, problem, output, run_ok=False, killed=result.killed)
    return Outcome(block, output, killed=result.killed)


def verify(report: PageReport, blocks: list[Block], results: list[Result], approved_outputs: dict[str, str],
           root: Path | None = None) -> None:
    """Fill report with each block's outcome against the approved outputs, and the stale entries.

    Args:
        report: the page's report; outcomes and stale entries are appended.
        blocks: the page's blocks, in order.
        results: their results, same order.
        approved_outputs: {key: output} from the page's approved file ({} when there is none).
        root: the site root, so that what is left of its path in an output counts as a machine value.
    """
    python_code = ""  # a page's python blocks share one session: a value read in one can be printed in a later one
    for block, result in zip(blocks, results, strict=True):
        if block.language == "python":
            python_code += block.code + "\n"
        outcome = check_result(block, result, root, python_code if block.language == "python" else block.code)
        if outcome.run_ok:
            if block.key not in approved_outputs:
                outcome.problem, outcome.detail = UNAPPROVED, outcome.output
            elif approved.clean(approved_outputs[block.key]) != outcome.output:
                outcome.problem = CHANGED
                outcome.detail = approved.diff(approved_outputs[block.key], outcome.output, report.approved_file)
        report.outcomes.append(outcome)
    keys = {b.key for b in blocks}
    replaced = _edited_blocks(report, approved_outputs, keys)
    for key in approved_outputs:
        if key not in keys and key not in replaced:
            first_line = approved_outputs[key].split("\n", 1)[0][:60]
            report.stale.append(
                f"{report.approved_file} holds an approved output for {key!r} (first line: {first_line!r}), "
                "a block no longer on the page; run `make accept` to drop it"
            )


def _edited_blocks(report: PageReport, approved_outputs: dict[str, str], keys: set[str]) -> set[str]:
    """Pair each block with no approved output with the stale entry in its place: its code was edited.

    A paired block that ran cleanly shows the diff against that entry; one that failed keeps the
    entry (see accept), so its output can be compared once it runs again. Neighbouring edited
    blocks pair one after the other. Returns the stale keys so explained, which need no message.
    """
    order, replaced = list(approved_outputs), set()
    previous = None  # the approved key of the block before, once known
    for outcome in report.outcomes:
        key = outcome.block.key
        if key not in approved_outputs:
            slot = 0 if previous is None else (order.index(previous) + 1 if previous in order else len(order))
            if slot < len(order) and order[slot] not in keys and order[slot] not in replaced:
                outcome.replaces = order[slot]
                replaced.add(order[slot])
                if outcome.problem == UNAPPROVED:
                    before = approved_outputs[order[slot]]
                    outcome.detail = approved.diff(before, outcome.output, report.approved_file)
                    outcome.problem = EDITED if outcome.detail else EDITED_SAME
        previous = key if key in approved_outputs else outcome.replaces or previous
    return replaced


def refuse_unstable(report: PageReport, second: list[Result]) -> None:
    """Before approving: a block whose output differs on a second run is refused, with the difference.

    Args:
        report: the page's report after verify().
        second: the results of running the page's blocks once more, same order.
    """
    for outcome, again in zip(report.outcomes, second, strict=True):
        if outcome.run_ok and approved.clean(again.output) != outcome.output:
            outcome.run_ok, outcome.problem = False, UNSTABLE
            outcome.detail = approved.diff(outcome.output, again.output, "", ("first run", "second run"))


def accept(report: PageReport, approved_outputs: dict[str, str], path: Path) -> None:
    """Approve a verified page's outputs: rewrite its file with new and changed outputs, drop stale ones.

    A block that failed on its own (raised, timed out, printed nothing) keeps its old approved output
    and its problem, so accept never approves a broken block; nor a new or changed output of a python
    block after it, which ran on a session the failure left half built. The file is written only if its text
    changes, and removed when the page has no blocks left.

    Args:
        report: the page's report after verify(); its approval problems are cleared, changes recorded (each
            with what it approves under it, indented: the diff, or a new output's lines as "+" lines).
        approved_outputs: the approved outputs before this run.
        path: the page's approved-outputs file.
    """
    entries, broken = [], ""
    for o in report.outcomes:
        if o.run_ok and broken and o.block.language == "python" and o.problem:
            o.run_ok, o.problem, o.detail = False, AFTER_FAILURE.format(broken), o.output
        elif not o.run_ok and o.block.language == "python" and not broken:
            broken = o.block.label
        if o.run_ok:
            entries.append((o.block.key, o.output))
            if o.problem:
                kind = {UNAPPROVED: "new", EDITED: "code edited", EDITED_SAME: "new key"}.get(o.problem, "changed")
                shown = approved.marked(o.output, "+") if o.problem == UNAPPROVED else o.detail
                shown_change = approved.indented(shown)
                report.changes.append(f"{report.page}, {o.block.label}, key {o.block.key}: {kind}{shown_change}")
                o.problem, o.detail = "", ""
        elif o.block.key in approved_outputs or o.replaces:  # a failing block keeps what was approved
            key = o.block.key if o.block.key in approved_outputs else o.replaces
            entries.append((key, approved_outputs[key]))
    kept = {key for key, _ in entries} | {o.replaces for o in report.outcomes}  # an edit is reported above
    for key in approved_outputs:
        if key not in kept:
            dropped = approved.marked(approved.clean(approved_outputs[key]), "-")
            report.changes.append(f"{report.page}, key {key}: dropped (its block is gone){approved.indented(dropped)}")
    report.stale = []
    text = approved.render(report.page, entries) if entries else ""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if text != old:
        if text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        else:
            path.unlink(missing_ok=True)
