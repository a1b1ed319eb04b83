"""`python -m evidencedesk.capstone`: the one command (command.py), its exit code the process's."""

import sys

from evidencedesk.capstone.command import main

sys.exit(main())
