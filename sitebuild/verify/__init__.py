"""Verifying: outputs held against the approved ones in data/, and the records of what was verified.

- approved.py: data/'s approved outputs, one plain-text file per page.
- outputs.py: a page's blocks run (run/) and held against them, or approved.
- check.py: `python -m sitebuild check`, the whole of it without a MkDocs build.
- results.py: a check's results on disk, which a renderer reads instead of running blocks.
- stale.py: what a page ran against, and whether its results still match the checkout.
- marks.py: the mark each verified block carries in the built site, the build's record of the pages it verified,
  and `python -m sitebuild marks`.

Imports find/, run/ and shard/ (check --shard); never MkDocs, render/, course/, publish/ or mkdocs_adapter/.
(run/runner.py uses approved.clean, how a terminal shows an output, the one import from run/ into here.)
"""
