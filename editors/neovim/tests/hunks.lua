-- Two hunks far apart: reject the second with gx, accept the first with gh
-- (cursor on each hunk) → only the first is applied, and (save_on_accept
-- off) not saved.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup({ save_on_accept = false })
  local b = H.open('main.go')
  vim.cmd('AgentRun rename Hello to Greet')
  local id = H.wait_run()
  local p = H.wait_proposal(b)
  local f = p.files[1]
  H.result.hunks = #f.hunks
  H.check(#f.hunks == 2, 'want 2 hunks, got ' .. #f.hunks)
  H.result.hunk_rows = { f.hunks[1].top, f.hunks[2].top }
  H.result.preview = H.preview(b)
  -- The second hunk first: cursor on its line, gx.
  vim.api.nvim_win_set_cursor(0, { f.hunks[2].top + 1, 0 })
  H.keys('gx')
  H.result.states_after_gx = { f.hunks[1].state, f.hunks[2].state }
  H.result.preview_after_gx = H.preview(b)
  vim.api.nvim_win_set_cursor(0, { f.hunks[1].top + 1, 0 })
  H.keys('gh')
  H.wait_run_end(id)
  H.result.buffer = H.text(b)
  H.result.modified = vim.bo[b].modified
end)
