# Sourced by the `instructions.sh` runners; the other half of `callgrind-sync.ts`.
# callgrind_window OUT CMD...: runs CMD (a node process calling `pause('start')` and `pause('end')`)
# under callgrind with its output in the directory OUT, zeroes the counters at `start` and dumps them
# at `end`, and prints the instructions the main thread (thread 1) ran between the two. CMD's stdout
# and stderr are OUT/stdout and OUT/stderr; if CMD exits before `end`, the end of its stderr is
# shown and this fails.
callgrind_window() {
  local out=$1; shift
  mkdir -p "$out"
  NOEMA_CALLGRIND_SYNC="$out/sync" valgrind --tool=callgrind --smc-check=all-non-file --separate-threads=yes \
    --callgrind-out-file="$out/cg.%p" "$@" > "$out/stdout" 2> "$out/stderr" &
  local vg=$! mark
  for mark in start end; do
    while [ ! -f "$out/sync-$mark" ]; do
      kill -0 $vg 2>/dev/null || { tail -20 "$out/stderr" >&2; return 1; }
      sleep 0.1
    done
    if [ $mark = start ]; then callgrind_control -z "$(cat "$out/sync-start")" > /dev/null
    else callgrind_control -d "$(cat "$out/sync-end")" > /dev/null; fi
  done
  wait $vg
  grep -h '^summary:' "$out"/cg.*.1-01 | awk '{print $2}'
}
