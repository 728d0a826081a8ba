-- A run whose model asks a subagent: when the run ends, no subagent is
-- left "running" in the run table, the statusline or :AgentCancel.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local agentls = H.setup()
  H.open('main.go')
  vim.cmd('AgentRun where is Hello declared?')
  local id = H.wait_run()
  local runs = require('agentls.runs')
  local r = H.wait_run_end(id)
  H.check(r.reason == 'goal', 'run ended with ' .. tostring(r.reason))
  local ids = {}
  for _, x in ipairs(runs.order) do
    table.insert(ids, x)
  end
  H.result.run_ids = ids
  local subs = {}
  for sid, s in pairs(r.subagents) do
    table.insert(subs, { id = sid, agent = s.agent, state = s.state })
  end
  H.result.subagents = subs
  H.result.status_after = agentls.status()
  H.result.running = #runs.running()
  H.result.complete = vim.fn.getcompletion('AgentCancel ', 'cmdline')
  H.result.runs_lines = agentls.runs_lines()
end)
