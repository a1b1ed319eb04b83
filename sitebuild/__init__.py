"""The site's build machinery: runs every code block of every page and verifies its output.

- blocks.py: find a page's executed blocks and key them.
- runner.py / worker.py: run them (python in one fresh interpreter per page, bash with pipefail).
- approved.py: the approved outputs in data/, one plain-text file per page.
- verify.py: hold outputs against the approved ones, or approve them.
- hook.py: the MkDocs hook that wires this into markdown-exec and the build.
- __main__.py: `python -m sitebuild accept`, what `make accept` runs.
"""
