#!/usr/bin/env bash
# CPU by thread of one writer process, including what a JFR profile cannot see: the JIT compiler threads (C1, C2) and
# the garbage collector (SerialGC collects in the "VM Thread"). Waits for the first process whose command line
# matches PATTERN (a java process), reads /proc/<pid>/task/*/stat every 0.25 s until it exits (a thread that ended keeps its last
# figure), then prints CPU-seconds and share per thread name, numbers stripped (segment-0, segment-1 -> segment-).
# Linux only. Start it before the writer, e.g. beside a bench run:
#
#   bash scripts/thread-cpu.sh & bash scripts/bench.sh --parallelism 1 --time-multiplier 1 --records 5000000 ...; wait
#
#   bash scripts/thread-cpu.sh [PATTERN] [RAW-OUT]   # PATTERN default 'tsdb-writer.jar run ', RAW-OUT: name|ticks lines
set -euo pipefail
pattern="${1:-tsdb-writer.jar run }"
if [ -n "${2:-}" ]; then
  raw=$2
else
  raw=$(mktemp)
  trap 'rm -f "$raw"' EXIT
fi
pid=""
while [ -z "$pid" ]; do
  for p in $(pgrep -f -- "$pattern" || true); do   # a java process: not this script, whose arguments match too
    if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = java ]; then pid=$p; break; fi
  done
  [ -n "$pid" ] || sleep 0.1
done
ticks=$(getconf CLK_TCK)
declare -A cpu name
while [ -d "/proc/$pid" ]; do
  for t in /proc/"$pid"/task/*; do
    stat=$(cat "$t/stat" 2>/dev/null) || continue
    tid=${t##*/}
    rest=${stat##*) }           # fields after the command name, which may hold spaces
    read -r -a f <<<"$rest"     # f[11] = utime, f[12] = stime (fields 14 and 15 of proc(5))
    cpu[$tid]=$((f[11] + f[12]))
    [ -n "${name[$tid]:-}" ] || name[$tid]=$(cat "$t/comm" 2>/dev/null || echo '?')
  done
  sleep 0.25
done
: >"$raw"
for tid in "${!cpu[@]}"; do printf '%s|%s\n' "${name[$tid]}" "${cpu[$tid]}" >>"$raw"; done
echo "process $pid ($pattern): CPU by thread"
awk -F'|' -v tck="$ticks" '{n=$1; sub(/[-#]?[0-9]+$/, "", n); s[n]+=$2; tot+=$2}
  END {for (k in s) if (s[k] > 0) printf "%8.2f s %6.1f %%  %s\n", s[k]/tck, 100*s[k]/tot, k; printf "%8.2f s %6.1f %%  total\n", tot/tck, 100}' "$raw" \
  | sort -rn
