#!/usr/bin/env bash
# Installs the real MCP servers from npm that the Go tests run against
# (agent/mcp/testdata/npm: @modelcontextprotocol/server-everything and
# server-filesystem, pinned by its lockfile). Run by .ci/run; locally,
# run it once to have the tests that need them run instead of skip.
set -euo pipefail
cd "$(dirname "$0")/../agent/mcp/testdata/npm"
npm ci --no-audit --no-fund --loglevel=error
