-- The init file of the terminal test (tui_test.go): Neovim with its real
-- screen in a pseudo-terminal, the plugin set up with nothing else (no
-- notification plugin, no fidget.nvim). It starts a run and, when the run
-- has ended and the server's last word (its progress end) came, writes
-- $AGENTLS_TEST_OUT and quits. The test answers every "Press ENTER" prompt
-- and counts them.
vim.opt.runtimepath:append(vim.env.AGENTLS_PLUGIN_DIR)
local agentls = require('agentls')
agentls.setup({ cmd = { vim.env.AGENTLS_BIN, 'serve' } })
local runs = require('agentls.runs')

-- The run starts when the screen is there: at once for a terminal Neovim,
-- when the UI attaches for a server (--listen) whose UI is a separate
-- process (--remote-ui, Neovim 0.9+).
vim.api.nvim_create_autocmd('UIEnter', {
  once = true,
  callback = function()
    vim.schedule(function()
      vim.cmd('AgentRun ' .. vim.env.AGENTLS_TEST_PROMPT)
    end)
  end,
})
if vim.env.AGENTLS_TEST_READY == '1' then
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      io.stdout:write('ready\n')
      io.stdout:flush()
    end,
  })
end

local timer = (vim.uv or vim.loop).new_timer()
timer:start(200, 200, vim.schedule_wrap(function()
  local id = runs.order[1]
  local r = id and runs.runs[id]
  if not (r and r.state == 'done') then
    return
  end
  local ended = false
  for _, p in ipairs(runs.progress) do
    ended = ended or (p.kind == 'end' and p.token == 'agentls/' .. id)
  end
  if not ended then
    return
  end
  timer:stop()
  vim.cmd('redraw')
  vim.fn.writefile({ vim.json.encode({ reason = r.reason, result = r.result }) }, vim.env.AGENTLS_TEST_OUT)
  vim.cmd('qall!')
end))
