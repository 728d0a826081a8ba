#!/usr/bin/env bash
# Side by side in one run: agentls's search tools (through bench/searchtool,
# the tools a run calls, on a workspace.Folder) against ripgrep on the same
# tree, by default Go's source tree. Installs ripgrep from Debian's packages
# when it is missing.
#
#   bash bench/search.sh [DIR]        RUNS=15 by default
#   ONLY=glob bash bench/search.sh    only the pairs whose name matches ONLY
#   BEFORE=path/to/searchtool ...     also time that build (main's, say) in
#                                     the same alternation, as "before"
#
# Each pair is run alternately (ours, rg, ours, rg, …) so that a busy
# machine slows both alike; the table gives the median wall time and the
# median CPU time (user + system) of each, and their ratio. The answers are
# checked first: the same matches and files as ripgrep's.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$(go env GOROOT)/src}
runs=${RUNS:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v rg >/dev/null; then
	echo "== installing ripgrep (apt-get)"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y ripgrep >/dev/null
fi
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3-), $(rg --version | sed -n 1p), $(date -u +%F)"
echo "== tree: $dir, $(rg --no-config --files "$dir" | wc -l) files (rg --files), $(du -sh "$dir" | cut -f1)"
go build -o "$tmp/searchtool" ./bench/searchtool

# cmd NAME ARGS...: a script that runs ARGS, for /usr/bin/time.
cmd() {
	local f="$tmp/$1.sh"
	shift
	printf '%q ' "$@" >"$f"
	echo "$f"
}
json() { python3 -c 'import json, sys; print(json.dumps({"pattern": sys.argv[1]}))' "$1"; }

# pair NAME TOOL PATTERN RG-ARGS...: check the answers, then time both.
pair() {
	local name=$1 tool=$2 pattern=$3
	shift 3
	[[ $name =~ ${ONLY:-.} ]] || return 0
	local ours theirs
	ours=$(cmd "ours-${name// /-}" "$tmp/searchtool" -q -dir "$dir" "$tool" "$(json "$pattern")")
	theirs=$(cmd "rg-${name// /-}" rg --no-config "$@")
	if [ "$tool" = grep_search ]; then
		echo "   agentls: $(bash "$ours")"
		echo "   rg:      $(rg --no-config -c "$pattern" "$dir" | awk -F: '{m += $NF; f++} END {printf "%d matches in %d files", m, f}')"
	else
		echo "   agentls: $(bash "$ours")"
		echo "   rg:      $(bash "$theirs" | wc -l) files"
	fi
	if [ -n "${BEFORE:-}" ]; then
		measure "$name" "$ours" "$theirs" "$(cmd "before-${name// /-}" "$BEFORE" -q -dir "$dir" "$tool" "$(json "$pattern")")"
	else
		measure "$name" "$ours" "$theirs"
	fi
}

# measure NAME OURS THEIRS [BEFORE]: alternate runs, then medians. Each
# command is run directly (not through a shell); its wall time and its CPU
# time (user + system, from wait4, to the microsecond) are taken.
measure() {
	python3 - "$runs" "$@" <<'PY'
import os, shlex, statistics, subprocess, sys, time
runs, name, cmds = int(sys.argv[1]), sys.argv[2], [shlex.split(open(f).read()) for f in sys.argv[3:]]
wall, cpu = [[] for _ in cmds], [[] for _ in cmds]
for _ in range(runs):
    for i, argv in enumerate(cmds):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        wall[i].append(time.perf_counter() - t0)
        cpu[i].append(ru.ru_utime + ru.ru_stime)
def line(n, i):
    ow, tw = statistics.median(wall[i]) * 1000, statistics.median(wall[1]) * 1000
    oc, tc = statistics.median(cpu[i]) * 1000, statistics.median(cpu[1]) * 1000
    print(f"   {n:<15} wall {ow:6.1f} ms vs {tw:6.1f} ms: {ow / tw:4.2f}×   cpu {oc:6.1f} ms vs {tc:6.1f} ms: {oc / tc:4.2f}×")
line(name, 0)
if len(cmds) > 2:
    line("  (before)", 2)
PY
}

echo "== answers, then medians of $runs alternate runs (agentls vs rg)"
pair "grep literal" grep_search 'func main' --sort path 'func main' "$dir"
pair "grep regexp" grep_search 'func \w+Error\(' --sort path 'func \w+Error\(' "$dir"
pair "grep no match" grep_search 'zqxjkvbnm' --sort path 'zqxjkvbnm' "$dir"
pair "glob" glob '**/*' --files "$dir"
pair "glob, rg sorted" glob '**/*' --files --sort path "$dir"
