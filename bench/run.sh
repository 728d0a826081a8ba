#!/usr/bin/env bash
# Measures agentls's whole-process figures for BENCHMARKS.md: a scripted
# two-turn run of `agentls run` against a local fake Gemini server (wall time
# and peak RSS), and `agentls version`. Uses hyperfine when installed, else a
# loop with /usr/bin/time. Run from the repository root: bash bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill "${fake_pid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT

go build -o "$tmp/agentls" ./cmd/agentls
go build -o "$tmp/fakegemini" ./agent/gemini/geminitest/fakegemini
"$tmp/fakegemini" -script bench/two-turn.script -repeat 5000 >"$tmp/url" &
fake_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(head -1 "$tmp/url")
cp -r examples/hello "$tmp/ws"

export GEMINI_API_KEY=bench GOOGLE_GEMINI_BASE_URL="$url"
run=("$tmp/agentls" run --workspace "$tmp/ws" "What does main.go do?")
"${run[@]}" >/dev/null # warm up, and fail early if it does not work

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup 5 --runs 50 "${run[*]}" "$tmp/agentls version"
else
	for cmd in "${run[*]}" "$tmp/agentls version"; do
		start=$(date +%s%N)
		for _ in $(seq 50); do $cmd >/dev/null; done
		end=$(date +%s%N)
		echo "$cmd: $(( (end - start) / 50000 )) µs mean wall over 50 runs"
	done
fi
echo "== peak RSS (KiB), two-turn run:"
/usr/bin/time -f "%M" "${run[@]}" 2>&1 >/dev/null | tail -1
echo "== peak RSS (KiB), version:"
/usr/bin/time -f "%M" "$tmp/agentls" version 2>&1 >/dev/null | tail -1
