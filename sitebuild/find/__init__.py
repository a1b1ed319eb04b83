"""Finding blocks: which pages there are, what each runs, and what the runs depend on.

- siteconfig.py: mkdocs.yml read without MkDocs: the nav, the Markdown settings, the plugin's options.
- fences.py / blocks.py: Markdown reads each page; its executed fences become Blocks, each with a stable key.
- inputs.py: the block inputs (kit/, the lock) as one digest per file and folder, read once per build.

Never imports MkDocs, nor any other stage of sitebuild (it is where every stage starts).
"""
