"""outbox: a side effect (a reply email) that happens once per decision, across crashes, on a real database.

Modules, one idea each: crash (the boundaries a process can die at, and a simulated death), keys (an
idempotency key from the run and the step, never from the model's text), store (the help desk's sqlite3
database: the ticket's state change and the intent to send in one transaction), receiver (the mail
service's own database, whose UNIQUE message id makes a repeat harmless), relay (reads unsent rows, sends,
marks), process (one process's life, a crash at a chosen boundary, and the restart that resumes from the
database), legacy (the file-locked send log of the approval page under the same crash) and scenarios (the
table in kit/data/outbox/scenarios.jsonl).
"""
