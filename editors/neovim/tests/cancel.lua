-- The model is slow; :AgentCancel → run_end aborted, no proposal, buffer
-- unchanged.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local agentls = H.setup()
  local b = H.open('main.go')
  H.result.buffer_before = H.text(b)
  vim.cmd('AgentRun rename the function Hello to Greet')
  local id = H.wait_run()
  local runs = require('agentls.runs')
  H.wait(10000, function()
    for _, e in ipairs(runs.events) do
      if e.type == 'turn_start' then
        return true
      end
    end
    return false
  end, 'turn_start')
  H.result.status_during = agentls.status()
  vim.cmd('AgentCancel')
  local r = H.wait_run_end(id)
  H.result.reason = r.reason
  H.result.buffer = H.text(b)
  H.result.history = #require('agentls.proposal').history
  H.result.preview = H.preview(b)
  H.result.status_after = agentls.status()
end)
