"""Running blocks: one fresh interpreter per page, in a sandbox, each process reaped, each read recorded.

- runner.py / worker.py: python blocks in one interpreter per page, bash blocks with the page's shell options.
- capture.py: what a block wrote, as the text the site shows and compares.
- launchers.py / reaper.py / leftovers.py: the launcher every page runs under, and what it leaves, found and killed.
- sandbox.py: bubblewrap around each launcher where it can start.
- guard.py: a block never writes into what the build reads or `make serve` watches.
- audit.py / readhook/ / reads.py: what each page's run read (audit hooks and xtrace; strace on request).
- leaks.py: what must never reach an output: this machine's values and the builder's secrets, redacted.
- cache.py: `make serve`'s output cache, keyed on what each run read.

Imports find/, logs.py and verify/approved.py (clean: an output as a terminal shows it); never MkDocs.
"""
