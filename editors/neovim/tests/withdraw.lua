-- The run is cancelled while its proposal is shown: the server cancels the
-- applyEdit request, the preview goes away, nothing is applied.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  local b = H.open('main.go')
  H.result.buffer_before = H.text(b)
  vim.cmd('AgentRun rename the function Hello to Greet')
  local id = H.wait_run()
  H.wait_proposal(b)
  H.result.preview_before = H.preview(b)
  vim.cmd('AgentCancel ' .. id)
  local r = H.wait_run_end(id)
  local proposal = require('agentls.proposal')
  H.wait(5000, function()
    return #proposal.pending == 0
  end, 'the proposal to be withdrawn')
  H.result.reason = r.reason
  H.result.withdrawn = proposal.history[#proposal.history].cancelled
  H.result.buffer = H.text(b)
  H.result.preview = H.preview(b)
  H.result.mapped = vim.fn.maparg('ga', 'n', false, true).buffer or 0
end)
