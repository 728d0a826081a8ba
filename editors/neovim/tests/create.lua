-- write_file of a new file: the preview shows it in a new buffer; accepted,
-- the buffer holds the content, saved.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  H.open('main.go')
  vim.cmd('AgentRun add a greeting file')
  local id = H.wait_run()
  local proposal = require('agentls.proposal')
  H.wait(15000, function()
    return #proposal.pending > 0
  end, 'a proposal')
  local p = proposal.pending[1]
  local nb = p.files[1].bufnr
  H.result.create = p.files[1].create == true
  H.result.preview = H.preview(nb)
  H.result.shown = vim.fn.bufwinnr(nb) > 0
  H.check(vim.api.nvim_get_current_buf() == nb, 'the new buffer is not current')
  H.keys('ga')
  H.wait_run_end(id)
  H.result.buffer = H.text(nb)
  H.result.name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(nb), ':t')
  H.result.modified = vim.bo[nb].modified
  H.result.attached = require('agentls.client').attached(nb) ~= nil
end)
