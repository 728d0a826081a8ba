-- The editor's diagnostics reach the server: those shown before the run
-- (a fake language server's namespace), and, after the proposal is
-- accepted, the new list; agentls's own and a file outside the workspace
-- are never sent. Every agentls/diagnostics notification is recorded.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local compat = require('agentls.compat')
  local notify = compat.notify
  H.result.sent = {}
  compat.notify = function(c, method, params)
    if method == 'agentls/diagnostics' then
      table.insert(H.result.sent, vim.deepcopy(params))
    end
    return notify(c, method, params)
  end
  H.setup()
  local diagnostics = require('agentls.diagnostics')
  local b = H.open('main.go')
  local c = require('agentls.client').attached(b)
  local E = vim.diagnostic.severity.ERROR
  local ls = vim.api.nvim_create_namespace('fake-language-server')
  vim.diagnostic.set(ls, b, { { lnum = 3, col = 5, message = 'declared and not used: unused', severity = E, source = 'compiler' } })
  -- agentls's own: in its client's namespace, or with its name as source.
  vim.diagnostic.set(vim.lsp.diagnostic.get_namespace(c.id), b, { { lnum = 0, col = 0, message = 'agentls own', severity = E } })
  vim.diagnostic.set(vim.api.nvim_create_namespace('elsewhere'), b,
    { { lnum = 0, col = 0, message = 'agentls own too', severity = E, source = 'agentls' } })
  local outside = vim.fn.bufadd(vim.env.TMPDIR .. '/outside.go')
  vim.diagnostic.set(ls, outside, { { lnum = 0, col = 0, message = 'outside the workspace', severity = E } })
  H.wait(5000, function()
    return not diagnostics.waiting()
  end, 'the lists shown before the run to be sent')
  H.result.sent_before_run = #H.result.sent

  vim.cmd('AgentRun greet')
  local id = H.wait_run()
  H.wait_proposal(b)
  H.keys('ga')
  H.result.version_after_edit = compat.buf_version(b)
  -- The language server's answer to the new text.
  vim.diagnostic.set(ls, b, {
    { lnum = 4, col = 5, message = 'declared and not used: unused', severity = E, source = 'compiler' },
    { lnum = 5, col = 9, message = 'undefined: greeting', severity = E, source = 'compiler' },
  })
  local r = H.wait_run_end(id)
  H.check(r.reason == 'goal', 'run ended with ' .. tostring(r.reason))
  H.result.buffer = H.text(b)
end)
