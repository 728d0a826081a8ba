-- The server dies while a proposal is shown: the preview goes away and
-- nothing is applied.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  local b = H.open('main.go')
  local c = require('agentls.client').attached(b)
  vim.cmd('AgentRun rename the function Hello to Greet')
  H.wait_run()
  H.wait_proposal(b)
  H.result.preview_before = H.preview(b)
  -- SIGKILL, as a crash: the server says nothing more (a SIGTERM would
  -- let it end its runs first). Newer Neovim keeps the pid to itself:
  -- the server is the child of this nvim.
  local pid = c.rpc.pid or H.child_pid('agentls')
  H.check(pid ~= nil, 'no pid for the server')
  ;(vim.uv or vim.loop).kill(pid, 'sigkill')
  local proposal = require('agentls.proposal')
  H.wait(5000, function()
    return #proposal.pending == 0
  end, 'the proposal to be withdrawn')
  H.result.withdrawn = proposal.history[#proposal.history].cancelled
  H.result.buffer = H.text(b)
  H.result.preview = H.preview(b)
  H.result.status = require('agentls').status()
end)
