"""`python -m sitebuild merge DIR... --into DIR`: the shards' results folders combined into one, or refused.

Each DIR is what `python -m sitebuild check --shard I/N --results DIR` wrote: the results folder of results.py and
its shard.json (shardio.py). They fit together when:

- every shard ran against the same inputs: the same block settings and digests of the block inputs and the lock
  (results.py's), and the same kit, lock, pyproject.toml, build machinery, mkdocs.yml, nav's pages, approved outputs
  and Python (shard.json's, shardio.input_digests);
- no page is held by two shards;
- every page of the nav (mkdocs.yml's, in the checkout merge runs in) is held by one shard.

Results that do not fit are refused: exit 1, one line per misfit naming the pages and the shards, and nothing is
written into --into. Results that fit are written into --into as one results folder (results.write: the plugin's
`results:` option renders the site from it) with a shard.json of its own (shard: null, merged: the shards); the
failures a shard recorded are carried over (each page's failures, the site-wide problems), printed, and make the
exit code 1, so that a CI job that merges fails on any shard's failure even if that shard's own job was allowed to
finish. Exit 2: bad usage (a folder that is not a results folder, an --into that already holds results).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sitebuild.shard import shardio
from sitebuild.verify import results

MISFIT_EXIT = 1
USAGE_EXIT = 2


def misfits(shards: list[shardio.Results], nav: list[str]) -> list[str]:
    """Why these results cannot be merged, one message each; [] when they fit together.

    Args:
        shards: the shards' results (shardio.read_folder), in the order given; nav: the pages they must cover.

    Returns:
        Messages naming the input whose digest differs (and each shard's digest), the pages two shards hold
        (and those shards), the pages of the nav no shard holds.

    Example: misfits([read_folder(Path("results-1")), read_folder(Path("results-2"))], ["index.md"]) == []
    """
    problems = []
    for name in sorted({key for s in shards for key in s.digests}):
        values = {s.name: s.digests[name] for s in shards if name in s.digests}  # a shard without it: nothing to hold
        if len(set(values.values())) > 1:
            listed = "; ".join(f"{shard}: {digest[:12]}" for shard, digest in values.items())
            problems.append(f"different inputs: {name} differs between the shards ({listed}); every shard must run "
                            "on the same commit and Python")
    holders: dict[str, list[str]] = {}
    for shard in shards:
        for page in shard.pages:
            holders.setdefault(page, []).append(shard.name)
    for page in nav + sorted(set(holders) - set(nav)):
        held = holders.get(page, [])
        if len(held) > 1:
            problems.append(f"page held twice: {page} is in {' and '.join(held)}")
    missing = [page for page in nav if page not in holders]
    if missing:
        problems.append(f"pages no shard holds ({len(missing)}): {', '.join(missing)}; "
                        f"merged: {', '.join(s.name for s in shards)}")
    return problems


def merge(folders: list[Path], into: Path, nav: list[str], out: Callable[[str], None] = print,
          docs: str = "docs") -> int:
    """Merge the shards' results folders into one (module docstring).

    Args:
        folders: the shards' results folders; into: where the merged results go (created; must not hold a
            manifest); nav: the pages of the nav, each of which one shard must hold (siteconfig.load(...).pages);
            out: where each line goes (default print); docs: the docs folder's name, for messages.

    Returns:
        0: merged, no failure; 1: refused (nothing written), or merged with the shards' failures carried over
        (printed); 2: bad usage.

    Example: merge([Path("results-1"), Path("results-2")], Path("results"), siteconfig.load("mkdocs.yml").pages) == 0
    """
    if (into / results.MANIFEST).exists():
        out(f"merge: --into {into}: already holds results ({results.MANIFEST}); give an empty folder")
        return USAGE_EXIT
    if into.resolve() in {folder.resolve() for folder in folders}:
        out(f"merge: --into {into} is one of the shards' folders; give a new folder")
        return USAGE_EXIT
    try:
        shards = [shardio.read_folder(folder) for folder in folders]
    except shardio.ResultsError as error:
        out(f"merge: {error}")
        return USAGE_EXIT
    refused = misfits(shards, nav)
    if refused:
        for message in refused:
            out(f"merge: refused: {message}")
        out(f"merge: refused {len(refused)} misfit(s) between {len(shards)} results folder(s); nothing was written "
            f"into {into}")
        return MISFIT_EXIT
    by_page = {page: shard for shard in shards for page in shard.pages}
    first = shards[0].manifest
    results.write(into, {name: getattr(first, name) for name in results.ENVIRONMENT},
                  [by_page[page].pages[page] for page in nav + sorted(set(by_page) - set(nav))])
    problems = list(dict.fromkeys(p for shard in shards for p in shard.problems))  # each shard sees the same ones
    shard_digests = {k: v for k, v in shards[0].digests.items()
                     if k not in shardio.MANIFEST_DIGESTS}
    shardio.write_shard(into, None, shard_digests, problems, merged=[s.shard or str(s.folder) for s in shards])
    failed = {page: by_page[page] for page in nav if page in by_page and by_page[page].failed.get(page)}
    failures = [f"{message}  [{shard.name}]" for page, shard in failed.items()
                for message in shardio.failures(shard.pages[page], docs)]
    for message in failures + problems:
        out(message)
    where = f"{len(by_page)} page(s) from {len(shards)} shard(s) into {into}"
    if failed or problems:
        bad = list(dict.fromkeys(shard.name for shard in failed.values()))
        out(f"merge: merged {where}, with {len(failures)} failure(s) on {len(failed)} page(s)"
            + (f" (from {', '.join(bad)})" if bad else "")
            + (f" and {len(problems)} other problem(s)" if problems else "")
            + "; each is shown above, and the merged results carry them")
        return MISFIT_EXIT
    out(f"merge: merged {where}; no shard reported a failure (the build verifies each stored output against data/ "
        "and the checkout again, and refuses results that do not match it)")
    return 0
