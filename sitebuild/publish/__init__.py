"""Publishing: what the built site carries besides its pages: the kit download, notebooks, diagrams.

- gen_downloads.py / kit_files.py / kit_pins.py / kit_readme.md: the kit as one zip, with pinned requirements.
- gen_notebooks.py / notebooks.py / page_prose.py: each course page as a notebook and a script.
- diagrams.py: approved SVG drawings inlined; draw.py draws them at accept time (vendor/: Mermaid).

Uses MkDocs' own errors and front-matter reader (kit_files.py, notebooks.py); never run/ or mkdocs_adapter/.
"""
