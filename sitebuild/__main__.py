"""`python -m sitebuild accept [-f mkdocs.yml]`: run every block and approve new and changed outputs.

It builds the site once in accept mode (into a temporary folder, so site/ is untouched): the hook
rewrites each page's approved outputs in data/ for new and changed blocks, drops the outputs of
blocks that are gone, and prints each change. Blocks that fail on their own (an exception, a
timeout, no output) are never approved: they are reported and the command exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def accept(config_file: str) -> int:
    """Run the accept build for one mkdocs.yml.

    Args:
        config_file: path to the site's mkdocs.yml.

    Returns:
        The build's exit code: 0 when every block passed and its output is now approved.

    Example: accept("mkdocs.yml") == 0
    """
    # the two variables silence banners that Material and mkdocs-gen-files print about MkDocs 2
    env = {**os.environ, "SITEBUILD_MODE": "accept", "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    with tempfile.TemporaryDirectory(prefix="sitebuild-accept-") as site_dir:
        command = [sys.executable, "-m", "mkdocs", "build", "--no-strict", "-q", "-f", config_file, "-d", site_dir]
        return subprocess.run(command, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitebuild", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["accept"])
    parser.add_argument("-f", "--config-file", default="mkdocs.yml", help="the site's mkdocs.yml")
    args = parser.parse_args(argv)
    return accept(args.config_file)


if __name__ == "__main__":
    sys.exit(main())
