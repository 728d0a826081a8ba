#!/usr/bin/env bash
# Measures every figure of BENCHMARKS.md. Run from anywhere:
#
#   bash bench/run.sh            everything
#   bash bench/run.sh process    whole process: a scripted two-turn `agentls run`
#                                against a local fake Gemini server (wall, peak
#                                RSS), and `agentls version`
#   bash bench/run.sh memory     `agentls serve` RSS: idle, and with 1,000 open
#                                1,000-line documents (bench/lspmem); one 200 MB
#                                document: didOpen time, RSS, changes (with
#                                BEFORE=path/to/agentls, alternately with that
#                                build, main's say)
#   bash bench/run.sh go         the Go benchmarks (go test -bench, -benchmem)
#   bash bench/run.sh search     the search tools against ripgrep on Go's source
#                                tree (bench/search.sh)
#
# Uses hyperfine when installed, else a loop with date; /usr/bin/time for
# peak RSS. Timings here are measurements, never test assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
tmp=$(mktemp -d)
trap 'kill "${fake_pid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3-), $(date -u +%F)"
go build -o "$tmp/agentls" ./cmd/agentls

# peak_rss CMD...: the command's peak resident set, in KiB.
peak_rss() {
	/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}'
}

if [[ $what == all || $what == process ]]; then
	go build -o "$tmp/fakegemini" ./agent/gemini/geminitest/fakegemini
	"$tmp/fakegemini" -script bench/two-turn.script -repeat 5000 >"$tmp/url" &
	fake_pid=$!
	for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
	url=$(head -1 "$tmp/url")
	cp -r examples/hello "$tmp/ws"

	export GEMINI_API_KEY=bench GOOGLE_GEMINI_BASE_URL="$url"
	run=("$tmp/agentls" run --workspace "$tmp/ws" "What does main.go do?")
	"${run[@]}" >/dev/null # warm up, and fail early if it does not work

	echo "== whole process: two-turn run, and version"
	if command -v hyperfine >/dev/null; then
		hyperfine -N --warmup 5 --runs 50 "${run[*]}" "$tmp/agentls version"
	else
		for cmd in "${run[*]}" "$tmp/agentls version"; do
			start=$(date +%s%N)
			for _ in $(seq 50); do $cmd >/dev/null; done
			end=$(date +%s%N)
			echo "$cmd: $(((end - start) / 50000)) µs mean wall over 50 runs"
		done
	fi
	echo "== peak RSS (KiB) of 5 two-turn runs:"
	for _ in 1 2 3 4 5; do peak_rss "${run[@]}"; done | xargs
	echo "== peak RSS (KiB) of 5 versions:"
	for _ in 1 2 3 4 5; do peak_rss "$tmp/agentls" version; done | xargs
	kill "$fake_pid"
	unset fake_pid
fi

if [[ $what == all || $what == memory ]]; then
	echo "== agentls serve memory (3 processes)"
	go build -o "$tmp/lspmem" ./bench/lspmem
	for _ in 1 2 3; do "$tmp/lspmem" -agentls "$tmp/agentls" -docs 1000 -lines 1000; done
	echo "== one large document (3 processes${BEFORE:+, each then $BEFORE})"
	for _ in 1 2 3; do
		"$tmp/lspmem" -agentls "$tmp/agentls" -big 200
		if [ -n "${BEFORE:-}" ]; then "$tmp/lspmem" -agentls "$BEFORE" -big 200 | sed 's/^/(before) /'; fi
	done
fi

if [[ $what == all || $what == go ]]; then
	bench() { # bench PACKAGE REGEXP
		echo "== go test -run '^\$' -bench '$2' -benchmem -count 5 $1"
		go test -run '^$' -bench "$2" -benchmem -count 5 "$1" | grep -E '^(Benchmark|ok|FAIL)'
	}
	bench ./agent 'BenchmarkTurn$'                     # harness overhead per turn
	bench ./lsp 'BenchmarkCodeAction$'                 # code action p99, 8 runs streaming, 10k lines
	bench ./edits 'BenchmarkCompute$'                   # 100 scattered changes, 10k and 100k lines
	bench ./edits/lspedit 'BenchmarkTextEdits$'        # the same changes as LSP TextEdits
	bench ./workspace 'BenchmarkOpen1000Docs$'         # the overlay's cost per open document
	bench ./lsp 'Benchmark(Cancel|FirstRequest)$'      # cancel → progress end; first request bytes
	bench ./workspace 'Benchmark(Change|OpenBig)$'     # a keystroke and a didOpen, 1 to 200 MB: rope vs string
	bench ./agent/tools 'Benchmark(Grep|Glob)'         # the search tools on Go's source tree, in process
fi

if [[ $what == all || $what == search ]]; then
	bash bench/search.sh
fi
