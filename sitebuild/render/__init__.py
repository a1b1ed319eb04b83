"""Rendering: a block's source and output as the page's HTML, escaped, the way Material shows code.

- render.py: a block's boxes; excerpts.py: kit excerpts shown as Python; mdoutput.py / pagelinks.py: an output
  printed as Markdown, cleaned and its links resolved; pagenotes.py: what serve shows on a failing page.

Never imports MkDocs, run/ or verify/: it draws results it is given.
"""
