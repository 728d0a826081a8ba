-- Conversations: :AgentRun starts one; :AgentFollow, :AgentRun! and a pick
-- in :AgentSessions continue it (the model gets the earlier turns);
-- :AgentRuns says what each run cost; :AgentRevert undoes the first run's
-- accepted change, reviewed like any proposal.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local agentls = H.setup()
  local sessions = require('agentls.sessions')
  local runs = require('agentls.runs')
  for v, want in pairs({ [0] = '$0', [1.234] = '$1.23', [0.1] = '$0.10', [0.0024] = '$0.0024', [0.002] = '$0.002' }) do
    H.check(sessions.dollars(v) == want, 'dollars(' .. v .. ') = ' .. sessions.dollars(v))
  end
  H.check(sessions.cost({ prompt = 1, output = 1, thoughts = 0, cached = 0, unpriced = true }) == 'cost unknown', 'unpriced cost')

  local b = H.open('main.go')
  H.result.original = H.text(b)
  vim.cmd('AgentFollow too early')
  H.check(#runs.order == 0, 'a follow-up without a conversation started a run')

  local function run_end(n)
    H.wait(10000, function()
      return #runs.order >= n
    end, 'run ' .. n .. ' to start')
    return H.wait_run_end(runs.order[n])
  end
  vim.cmd('AgentRun rename the function Hello to Greet')
  H.wait_proposal(b)
  H.keys('ga')
  run_end(1)
  H.result.renamed = H.text(b)

  vim.cmd('AgentFollow what does it print now?')
  run_end(2)
  vim.cmd('AgentRun! and in French?')
  run_end(3)
  vim.ui.select = function(items, opts, on_choice)
    H.result.session_items = vim.tbl_map(opts.format_item, items)
    on_choice(items[1])
  end
  vim.ui.input = function(_, on_confirm)
    on_confirm('one more')
  end
  vim.cmd('AgentSessions')
  run_end(4)
  H.result.run_sessions = vim.tbl_map(function(id)
    return runs.runs[id].session or ''
  end, runs.order)
  H.result.runs_lines = agentls.runs_lines()

  vim.cmd('AgentRevert ' .. runs.order[1])
  H.wait_proposal(b)
  vim.api.nvim_set_current_buf(b) -- an answer the server showed may be in front (0.12)
  H.keys('ga')
  H.wait(15000, function()
    return sessions.last_revert ~= nil
  end, 'the revert to answer')
  H.result.revert = sessions.last_revert
  H.result.buffer = H.text(b)
end)
