#!/bin/bash
# What an agent interaction costs this process's main thread in instructions, not microseconds (the
# machine's load does not move them): the agent bench's interaction (profile.ts `agent`) or its three
# source calls made directly (`direct`), under callgrind, the scripted model and the MCP fixture in
# processes of their own as in the bench, on SQLite:
#   bench/agent/instructions.sh [interactions=20] [sides="agent direct"]
# Prints each side's main-thread instructions per interaction over the timed interactions, after the
# profile script's 20 of warm-up. Both sides run at once (valgrind runs a process's threads one at a
# time). A side of 20 interactions takes a few minutes on the 2-core development machine; runs of the
# same side differ by a few percent (where a collection falls in the window), so compare several.
set -euo pipefail
n=${1:-20}; sides=${2:-agent direct}
dir=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$dir/bench/lib/callgrind-window.sh"
count() { # side -> main-thread instructions per interaction
  local out="$tmp/$1" total
  total=$(STORES=sqlite callgrind_window "$out" node --predictable "$dir/bench/agent/profile.ts" "$1" "$n")
  echo "{\"side\":\"$1\",\"interactions\":$n,\"per_interaction\":$((total / n))}"
}
pids=()
for side in $sides; do count "$side" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
