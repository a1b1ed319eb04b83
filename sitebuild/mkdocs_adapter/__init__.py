"""The MkDocs adapter: the one place that knows MkDocs' events, config and objects.

- plugin.py: the verified-blocks plugin (entry point in pyproject.toml), its options validated by MkDocs.
- hook.py: the MkDocs side of a build: blocks run (or read from results), verified, rendered, downloads added.
- state.py: what one build knows, and each page's plan; sitefolder.py: strays removed, a failed build's site emptied.
- build.py: a build inside this Python process, for `python -m sitebuild accept` and the tests.

Imports every other stage; nothing outside it imports it.
"""
