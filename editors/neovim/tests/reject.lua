-- :AgentRun → inline preview → gr (reject all) → the buffer is unchanged.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  H.setup()
  local b = H.open('main.go')
  H.result.buffer_before = H.text(b)
  vim.cmd('AgentRun rename the function Hello to Greet')
  local id = H.wait_run()
  H.wait_proposal(b)
  H.result.preview = H.preview(b)
  H.keys('gr')
  H.wait_run_end(id)
  H.result.buffer = H.text(b)
  H.result.modified = vim.bo[b].modified
  H.result.preview_after = H.preview(b)
end)
