# Sourced by .ci/run: node and the ACP test client's packages (the official
# TypeScript SDK, pinned in acp/testdata/client/package-lock.json), for the
# tests that drive `agentls acp` with it (acp/client_test.go), which must
# not skip here.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
node --version
(cd "$(dirname "${BASH_SOURCE[0]}")/../acp/testdata/client" && npm ci --no-audit --no-fund --loglevel=error)
export AGENTLS_REQUIRE_NODE=1
