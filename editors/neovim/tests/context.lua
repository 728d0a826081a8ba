-- Runs started before the client is ready, without a file, and with a
-- selection as the context.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  local runs = require('agentls.runs')
  local function run_number(n)
    H.wait(10000, function()
      return #runs.order >= n
    end, 'run ' .. n)
    local r = H.wait_run_end(runs.order[n])
    H.wait_progress_end(r.id)
    return r
  end

  -- A new file, edited and run at once, before the client is ready: the run
  -- sees the buffer (its didOpen goes first), not the disk.
  vim.cmd('edit other.go')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'package other // unsaved' })
  H.result.ready_at_run = require('agentls.client').attached(0).initialized == true
  vim.cmd('AgentRun look at this file')
  local r1 = run_number(1)
  H.result.first = { reason = r1.reason, result = r1.result }

  -- An unnamed buffer: no uri.
  vim.cmd('enew')
  vim.cmd('AgentRun say hello')
  local r2 = run_number(2)
  H.result.second = { reason = r2.reason, result = r2.result }

  -- A characterwise selection on line 5 of main.go: "Hello() string".
  local b = H.open('main.go')
  local line = vim.api.nvim_buf_get_lines(b, 4, 5, false)[1]
  local s = line:find('Hello', 1, true)
  vim.api.nvim_win_set_cursor(0, { 5, s - 1 })
  vim.cmd('normal! v')
  vim.api.nvim_win_set_cursor(0, { 5, s - 1 + #'Hello() string' - 1 })
  vim.cmd('normal! \27')
  vim.cmd("'<,'>AgentRun explain this")
  local r3 = run_number(3)
  H.result.third = { reason = r3.reason, result = r3.result }
  H.result.clients = #require('agentls.client').all_clients()
  local shown = vim.tbl_keys(require('agentls.client').shown)
  table.sort(shown)
  H.result.shown = shown
end)
