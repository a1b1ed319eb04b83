"""`python -m sitebuild accept [-f mkdocs.yml]`: run every block and approve new and changed outputs.

`python -m sitebuild check [--page docs/x.md ...] [--results DIR]` runs and verifies the blocks of the nav's pages
(or of those named) against data/ without a MkDocs build, and never writes data/ (check.py): exit 0 when every
output matches, 1 on a failure, 2 on bad usage; with --results, each page's results go into DIR (results.py), which
the plugin's `results:` option renders the site from.

`python -m sitebuild marks [SITE]` (run by `make site` after the build; SITE defaults to mkdocs.yml's site_dir):
every built page with executed blocks must mark each of them as verified and be the file the verifying build
recorded, else it names the pages and empties the folder (marks.py).

`python -m sitebuild check --shard I/N --results DIR` runs only shard I of N of the nav's pages (balanced by the
durations recorded in data/durations.json, which `check --record-durations` writes; shards.py);
`python -m sitebuild merge DIR... --into DIR` joins the shards' results folders and refuses those that do not fit
together (merge.py): exit 0 when merged with no failure, 1 otherwise, 2 on bad usage.

`python -m sitebuild bench [--runs N]` times each page's blocks (the part of a build this machinery
adds) and prints seconds per page, so an author sees which page slows a build. `python -m sitebuild
bench --compare` is the build's benchmark (bench.py): cold build, warm serve rebuild against
markdown-exec alone, and block_jobs=1 against the default, on a site it makes in a temporary folder.

It builds the site once in accept mode (into a temporary folder, so site/ is untouched): the hook
rewrites each page's approved outputs in data/ for new and changed blocks, drops the outputs of
blocks that are gone, and prints each change. Blocks that fail on their own (an exception, a
timeout, no output) are never approved: they are reported and the command exits non-zero.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

from sitebuild.find.blocks import page_blocks
from sitebuild.mkdocs_adapter.build import build_site
from sitebuild.verify.outputs import run_blocks


def accept(config_file: str) -> int:
    """Run the accept build for one mkdocs.yml.

    Args:
        config_file: path to the site's mkdocs.yml.

    Returns:
        The build's exit code: 0 when every block passed and its output is now approved.

    Example: accept("mkdocs.yml") == 0
    """
    with tempfile.TemporaryDirectory(prefix="sitebuild-accept-") as site_dir:
        return build_site(config_file, site_dir, mode="accept", strict=False)


def bench(docs: Path, root: Path, runs: int) -> None:
    """Print, per page with blocks: the block count and the fastest and slowest of `runs` runs, in seconds.

    Args:
        docs: the docs folder; root: the repo root; runs: how many times each page runs (>= 1).

    Example: bench(Path("docs"), Path("."), 3)  # prints "docs/index.md  2 blocks  min 0.41 s  max 0.45 s"
    """
    pages = [(path.relative_to(root).as_posix(), page_blocks(path.read_text(encoding="utf-8")))
             for path in sorted(docs.rglob("*.md"))]
    width = max((len(name) for name, blocks in pages if blocks), default=0)  # one column for every page name
    for name, blocks in pages:
        if not blocks:
            continue
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()  # a benchmark may read the clock; pages never do
            run_blocks(blocks, root, name, 600)
            seconds.append(time.perf_counter() - start)
        print(f"{name:<{width}} {len(blocks):>3} blocks  min {min(seconds):6.2f} s  max {max(seconds):6.2f} s")


def _log_to_stderr() -> None:
    """Show MkDocs' warnings and errors as its CLI does with -q: one line each, level first."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(handler)
    mkdocs_log.setLevel(logging.WARNING)
    mkdocs_log.propagate = False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitebuild", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["accept", "bench", "check", "marks", "merge"])
    parser.add_argument("site", nargs="*", default=[], metavar="DIR",
                        help="marks: the built site's folder (default: mkdocs.yml's site_dir); merge: the shards' "
                        "results folders")
    parser.add_argument("-f", "--config-file", default="mkdocs.yml", help="the site's mkdocs.yml")
    parser.add_argument("--runs", type=int, default=3, help="bench: runs per page (default 3)")
    parser.add_argument("--compare", action="store_true", help="bench: the build's benchmark (see sitebuild/bench.py)")
    parser.add_argument("--page", action="append", default=[], metavar="docs/PAGE.md",
                        help="check: only this page (repeatable; default every page of the nav)")
    parser.add_argument("--results", metavar="DIR", default=None,
                        help="check: write each page's results into DIR (sitebuild/verify/results.py)")
    parser.add_argument("--no-test", action="store_true", help="bench --compare: leave out make test's CPU-seconds")
    parser.add_argument("--shard", metavar="I/N", help="check: only shard I of N (1-based), balanced by "
                        "data/durations.json")
    parser.add_argument("--record-durations", action="store_true",
                        help="check: record each page's seconds in data/durations.json")
    parser.add_argument("--into", metavar="DIR", help="merge: the folder the merged results go into")
    args = parser.parse_args(argv)
    if (args.page or args.results or args.shard is not None or args.record_durations) and args.command != "check":
        parser.error("--page, --results, --shard and --record-durations go with check only")
    if args.site and args.command not in ("marks", "merge"):
        parser.error("a folder goes with marks or merge only")
    if len(args.site) > 1 and args.command == "marks":
        parser.error("marks takes one folder")
    if args.into and args.command != "merge":
        parser.error("--into goes with merge only")
    if args.command == "check":
        from sitebuild.verify.check import check  # imports no MkDocs module

        return check(args.config_file, args.page, results_dir=Path(args.results) if args.results else None,
                     shard=args.shard, record_durations=args.record_durations)
    if args.command == "marks":
        from sitebuild.verify.marks import check_marks

        return check_marks(args.config_file, Path(args.site[0]) if args.site else None)
    if args.command == "merge":
        if not args.site or not args.into:
            parser.error("merge needs the shards' results folders and --into DIR")
        from sitebuild.find import siteconfig
        from sitebuild.shard.merge import merge

        try:
            site = siteconfig.load(args.config_file)
        except siteconfig.SettingError as error:
            print(f"merge: {error}")
            return 2
        return merge([Path(f) for f in args.site], Path(args.into), site.pages,
                     docs=site.docs_dir.relative_to(site.root).as_posix())
    if args.command == "bench" and args.compare:
        from sitebuild.bench import compare

        compare(Path(args.config_file).resolve().parent, test=not args.no_test)
        return 0
    if args.command == "bench":
        root = Path(args.config_file).resolve().parent
        bench(root / "docs", root, max(1, args.runs))
        return 0
    _log_to_stderr()
    return accept(args.config_file)


if __name__ == "__main__":
    sys.exit(main())
