#!/bin/sh
# Runs a command and checks its exit status and output, for the command-line
# tests of tools/CMakeLists.txt:
#
#   cli_expect.sh STATUS REGEX COMMAND [ARG...]
#
# Passes when COMMAND exits with STATUS and its stdout and stderr together
# contain a line matching the extended regular expression REGEX. Prints the
# output either way, so that ctest --output-on-failure shows it.
if [ "$#" -lt 3 ]; then
    echo "usage: cli_expect.sh STATUS REGEX COMMAND [ARG...]" >&2
    exit 2
fi
expected_status=$1
pattern=$2
shift 2

output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected_status" ]; then
    echo "cli_expect: exit status $status, expected $expected_status" >&2
    exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
    echo "cli_expect: no line matches: $pattern" >&2
    exit 1
fi
exit 0
