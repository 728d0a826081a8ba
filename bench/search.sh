#!/usr/bin/env bash
# Side by side in one run: agentls's search tools (through bench/searchtool,
# the tools a run calls, on a workspace.Folder) against ripgrep on the same
# tree, by default Go's source tree. Installs ripgrep from Debian's packages
# when it is missing.
#
#   bash bench/search.sh [DIR]        RUNS=15 by default
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
	measure "$name" "$ours" "$theirs"
}

# measure NAME OURS THEIRS: alternate runs, then medians.
measure() {
	local name=$1 ours=$2 theirs=$3 i
	: >"$tmp/t-ours" && : >"$tmp/t-theirs"
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S" -a -o "$tmp/t-ours" bash "$ours" >/dev/null || true
		/usr/bin/time -f "%e %U %S" -a -o "$tmp/t-theirs" bash "$theirs" >/dev/null || true
	done
	median() { # median FILE AWK-EXPR
		grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$1" | awk "{print $2}" | sort -g |
			awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
	}
	local ow tw oc tc
	ow=$(median "$tmp/t-ours" '$1') tw=$(median "$tmp/t-theirs" '$1')
	oc=$(median "$tmp/t-ours" '$2 + $3') tc=$(median "$tmp/t-theirs" '$2 + $3')
	awk -v n="$name" -v ow="$ow" -v tw="$tw" -v oc="$oc" -v tc="$tc" 'BEGIN {
		printf "   %-14s wall %5.0f ms vs %5.0f ms: %4.2f×   cpu %5.0f ms vs %5.0f ms: %4.2f×\n", n, ow * 1000, tw * 1000, ow / tw, oc * 1000, tc * 1000, oc / tc }'
}

echo "== answers, then medians of $runs alternate runs (agentls vs rg)"
pair "grep literal" grep_search 'func main' --sort path 'func main' "$dir"
pair "grep regexp" grep_search 'func \w+Error\(' --sort path 'func \w+Error\(' "$dir"
pair "grep no match" grep_search 'zqxjkvbnm' --sort path 'zqxjkvbnm' "$dir"
pair "glob" glob '**/*' --files "$dir"
pair "glob, rg sorted" glob '**/*' --files --sort path "$dir"
