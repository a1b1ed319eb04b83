"""The site's build machinery: runs every code block of every page and verifies its output.

- blocks.py: find a page's executed blocks and key them.
- runner.py / worker.py: run them (python in one fresh interpreter per page, bash with pipefail).
- approved.py: the approved outputs in data/, one plain-text file per page.
- verify.py: hold outputs against the approved ones, or approve them.
- hook.py: the MkDocs hook that wires this into markdown-exec and the build.
- crosslinks.py: every mention of another course page in prose must be a link (called by hook.py).
- coursenav.py: the course pages read from the nav (course, chapter, place), shared by the modules below.
- chrome.py: the MkDocs hook that works out the course chrome (page k of N, reading time, minutes left).
- gen_downloads.py: the kit download, with its own README, LICENSE and pyproject.toml.
- kit_files.py: which files of kit/ the download packs (git's tracked ones), and its check for secrets.
- siteconfig.py: mkdocs.yml read without MkDocs (block settings, nav, Markdown settings, front matter).
- check.py: `python -m sitebuild check`, the blocks run and verified against data/ without a MkDocs build.
- __main__.py: `python -m sitebuild accept`, what `make accept` runs, and `check`.
"""
