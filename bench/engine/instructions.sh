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
trap 'rm -rf "$tmp"' EXIT
source "$dir/bench/lib/callgrind-window.sh"
n=$(callgrind_window "$tmp" node --predictable ${NOEMA_CALLGRIND_FLAGS:-} "$dir/bench/engine/instructions.ts" "$size" "$steps" "$mode")
echo "{\"mode\":\"$mode\",\"size\":$size,\"steps\":$steps,\"instructions\":$n,\"per_step\":$((n / steps)),\"run\":$(tail -1 "$tmp/stdout")}"
