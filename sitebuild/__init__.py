"""The site's build machinery: runs every code block of every page and verifies its output.

- blocks.py: find a page's executed blocks and key them.
- runner.py / worker.py: run them (python in one fresh interpreter per page, bash with pipefail).
- approved.py: the approved outputs in data/, one plain-text file per page.
- verify.py: hold outputs against the approved ones, or approve them.
- plugin.py: the MkDocs plugin verified-blocks (entry point in pyproject.toml), a thin adapter calling hook.py and
  chrome.py; its options are the block settings, checked by MkDocs (siteconfig.check_option).
- hook.py: the MkDocs side of a build, which the plugin calls: markdown-exec's fences, the blocks run or read from
  check results, verified and rendered, the downloads added.
- crosslinks.py: every mention of another course page in prose must be a link (called by hook.py).
- coursenav.py: the course pages read from the nav (course, chapter, place), shared by the modules below.
- chrome.py: the course chrome (page k of N, reading time, minutes left), worked out in the plugin's events.
- gen_downloads.py: the kit download, with its own README, LICENSE and pyproject.toml.
- kit_files.py: which files of kit/ the download packs (git's tracked ones), and its check for secrets.
- siteconfig.py: mkdocs.yml read without MkDocs (the plugin's options, nav, Markdown settings, front matter).
- check.py: `python -m sitebuild check`, the blocks run and verified against data/ without a MkDocs build.
- results.py: check results on disk (`check --results DIR`), which the plugin's `results:` option renders from.
- marks.py: the mark each verified block carries in the built site, and `python -m sitebuild marks site`.
- __main__.py: `python -m sitebuild accept`, what `make accept` runs, `check` and `marks`.
"""
