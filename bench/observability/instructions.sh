#!/bin/bash
# What span export adds to the runs' thread of a world turn, in instructions, not microseconds: the
# observability bench's world turn (profile.ts) with export off and on, each under callgrind in a
# process of its own, the two sides of a pair at once (valgrind runs a process's threads one at a
# time; the counts do not depend on the machine's load):
#   bench/observability/instructions.sh [turns=8] [pairs=2]
# Counts the main thread (the runs'; the scripted model and toys serve from processes of their own, as
# in the bench) over the timed turns and their flushes, after BENCH_OBS_WARMUP (3) turns; the export thread is
# not counted. Prints each side's instructions per turn, and on ÷ off. A pair of 8 turns takes about
# 10 minutes on the 2-core development machine. Not exact as the engine's count is: runs of the same
# side differ by up to 5 % (where a full collection falls in the window, and the 50 ms timers of span
# batches and progress events firing at other points of the work under valgrind's slowdown), so
# compare the mean of several pairs.
set -euo pipefail
turns=${1:-8}; pairs=${2:-2}
dir=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$dir/bench/lib/callgrind-window.sh"
count() { # side run -> main-thread instructions per turn
  local out="$tmp/$1-$2" n
  n=$(BENCH_OBS_WARMUP=${BENCH_OBS_WARMUP:-3} STORES=sqlite \
    callgrind_window "$out" node --predictable "$dir/bench/observability/profile.ts" "$1" "$turns")
  echo $((n / turns)) > "$out/per-turn"
}
for p in $(seq 1 "$pairs"); do
  count off "$p" & a=$!
  count on "$p" & b=$!
  wait $a; wait $b
  off=$(cat "$tmp/off-$p/per-turn"); on=$(cat "$tmp/on-$p/per-turn")
  echo "{\"pair\":$p,\"turns\":$turns,\"off_per_turn\":$off,\"on_per_turn\":$on,\"on_over_off\":$(awk "BEGIN {printf \"%.4f\", $on / $off}")}"
done
