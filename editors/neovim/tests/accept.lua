-- :AgentRun → progress → inline preview → ga (accept all) → the buffer holds
-- the change, saved.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local agentls = H.setup()
  local b = H.open('main.go')
  -- An unsaved edit: the server works on the buffer, not on the disk.
  vim.api.nvim_buf_set_lines(b, 0, 0, false, { '// edited in the buffer' })
  vim.cmd('AgentRun rename the function Hello to Greet')
  local id = H.wait_run()
  local p = H.wait_proposal(b)
  H.result.status_during = agentls.status()
  H.result.preview = H.preview(b)
  H.result.hunks = #p.files[1].hunks
  H.result.proposal_run = p.run_id == id
  H.result.buffer_during = H.text(b)
  H.keys('ga')
  H.result.pending_after_keys = #require('agentls.proposal').pending
  local r = H.wait_run_end(id)
  H.check(r.reason == 'goal', 'run ended with ' .. tostring(r.reason))
  H.result.buffer = H.text(b)
  H.result.modified = vim.bo[b].modified
  H.result.status_after = agentls.status()
  H.result.mappings_after = vim.fn.maparg('ga', 'n', false, true).buffer or 0
  vim.cmd('AgentRuns')
  vim.cmd('AgentLog')
  H.result.log_buffer = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  H.result.log_name = vim.api.nvim_buf_get_name(0)
  vim.cmd('checkhealth agentls')
  H.result.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  H.result.deferred_loaded = package.loaded['agentls.compat.deferred'] ~= nil
end)
