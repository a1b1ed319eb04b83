"""The sinks subpackage: a model's output treated as untrusted data at every place it reaches.

replies.py (the hostile replies of a scripted fake model, one per sink), html.py (a reply in a web page:
escaped by MarkupSafe or sanitised by nh3, never built into HTML as a string), markdown.py (Markdown images
and links as an exfiltration channel, and an allowlist of hosts), sql.py (Python's sqlite3: parameters,
a read-only connection and an authorizer), notesearch.py (a harmless command-line program to run),
shell.py (an argument list, never shell=True, and the argument injection quoting does not stop), paths.py
(a file name from the model kept inside its folder), jsonout.py (JSON into code: parsed strictly and
checked by a pydantic model, never eval) and scenarios.py (the table kit/data/sinks/scenarios.jsonl).
Import from the modules directly, e.g. `from evidencedesk.sinks.html import reply_as_text`. Left out:
JavaScript, CSS and URL contexts of a web page, terminals and log viewers (ANSI escapes), e-mail, and
the model itself (every reply is scripted).
"""
