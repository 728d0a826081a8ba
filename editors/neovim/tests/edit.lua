-- ge: the user edits the proposed text of a hunk in a scratch split; :w
-- makes it the hunk's replacement.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  local b = H.open('main.go')
  vim.cmd('AgentRun rename Hello to Greet')
  local id = H.wait_run()
  local p = H.wait_proposal(b)
  local f = p.files[1]
  vim.api.nvim_win_set_cursor(0, { f.hunks[1].top + 1, 0 })
  H.keys('ge')
  local sb = vim.api.nvim_get_current_buf()
  H.check(sb ~= b, 'ge opened no scratch buffer')
  H.result.scratch_lines = vim.api.nvim_buf_get_lines(sb, 0, -1, false)
  H.result.scratch_name = vim.api.nvim_buf_get_name(sb)
  -- The user's own version of the hunk.
  vim.api.nvim_buf_set_lines(sb, 0, -1, false, { '// Salute returns a greeting.', 'func Salute() string { return "hi" }' })
  vim.cmd('write')
  vim.cmd('quit')
  H.check(vim.api.nvim_get_current_buf() == b, 'not back in main.go')
  -- The other hunk (the call) is accepted as proposed.
  H.keys('ga')
  H.wait_run_end(id)
  H.result.buffer = H.text(b)
end)
