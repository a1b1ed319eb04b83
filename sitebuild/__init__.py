"""The site's build machinery: finds every executed block of every page, runs it, verifies its output, and
publishes the site. One subpackage per stage, in the order a build goes:

- find/: the pages and their blocks, from mkdocs.yml and the Markdown (no MkDocs needed).
- run/: each page's blocks run in one interpreter, in a sandbox, with what they read recorded.
- verify/: outputs held against data/'s approved ones; `python -m sitebuild check`, its results, the marks.
- shard/: a check split over machines and its results merged (`check --shard`, `merge`).
- render/: a block's source and output as HTML.
- course/: the course chrome, syllabus, "Next" links and cross-links.
- publish/: the kit download, the notebooks, the diagrams.
- mkdocs_adapter/: the verified-blocks MkDocs plugin, the only code that knows MkDocs' events.
- logs.py: warnings that MkDocs shows but a strict build does not count.
- bench.py: `python -m sitebuild bench`, on the site benchsite.py makes.
- __main__.py: `python -m sitebuild accept | check | marks | merge | bench`.

find/, run/, verify/ and shard/ never import MkDocs: verification works without the site generator.
"""
