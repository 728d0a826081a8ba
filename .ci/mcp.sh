# Sourced by .ci/run: installs the real MCP servers from npm that the Go
# tests run against (agent/mcp/testdata/npm:
# @modelcontextprotocol/server-everything and server-filesystem, pinned by
# its lockfile), and makes the tests that need them fail rather than skip.
# Locally, `bash .ci/mcp.sh` once has those tests run instead of skip.
(cd "$(dirname "${BASH_SOURCE[0]}")/../agent/mcp/testdata/npm" && npm ci --no-audit --no-fund --loglevel=error)
export AGENTLS_REQUIRE_MCP=1
