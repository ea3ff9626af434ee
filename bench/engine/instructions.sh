#!/bin/bash
# Instructions of the engine's main thread per step (see instructions.ts), under callgrind:
#   bench/engine/instructions.sh [size=32] [steps=200] [floor]
# NOEMA_CALLGRIND_FLAGS adds node flags: `--always-sparkplug` compiles each function to baseline code
# on its first call, so a change of code layout cannot move Sparkplug's batch compiles into the
# window (a one-line change once moved a 200-step count by 2.8 k a step; with the flag, 0.2 k).
# Prints the measured window's total and per step (the measured run also validates and stores its
# graph, about 2 % of a 200-step window). Needs valgrind; takes about half a minute.
set -euo pipefail
size=${1:-32}; steps=${2:-200}; mode=${3:-engine}
dir=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
NOEMA_CALLGRIND_SYNC=$tmp/sync valgrind --tool=callgrind --smc-check=all-non-file --separate-threads=yes \
  --callgrind-out-file="$tmp/cg.%p" node --predictable ${NOEMA_CALLGRIND_FLAGS:-} "$dir/bench/engine/instructions.ts" "$size" "$steps" "$mode" \
  > "$tmp/stdout" 2> "$tmp/stderr" &
vg=$!
wait_for() { while [ ! -f "$tmp/sync-$1" ]; do kill -0 $vg 2>/dev/null || { cat "$tmp/stderr" >&2; exit 1; }; sleep 0.1; done; }
wait_for start; callgrind_control -z "$(cat "$tmp/sync-start")" > /dev/null
wait_for end; callgrind_control -d "$(cat "$tmp/sync-end")" > /dev/null
wait $vg
# The dump of the main thread (thread 1) holds the window between zero and dump.
n=$(grep -h '^summary:' "$tmp"/cg.*.1-01 | awk '{print $2}')
echo "{\"mode\":\"$mode\",\"size\":$size,\"steps\":$steps,\"instructions\":$n,\"per_step\":$((n / steps)),\"run\":$(tail -1 "$tmp/stdout")}"
rm -rf "$tmp"
