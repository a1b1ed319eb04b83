# Sourced by each non-interactive bash of a page's run (BASH_ENV, set by sitebuild/audit.py) before its command:
# writes the shell's folder and command string (bash.PID.code), then traces each command it runs, its words
# expanded, into bash.PID (xtrace on a descriptor of its own: the block's output is unchanged). audit.py reads both.
exec {SITEBUILD_XTRACE_FD}>"$SITEBUILD_READS/bash.$$"
printf '%s\n%s' "$PWD" "$BASH_EXECUTION_STRING" >"$SITEBUILD_READS/bash.$$.code"
BASH_XTRACEFD=$SITEBUILD_XTRACE_FD
set -x
