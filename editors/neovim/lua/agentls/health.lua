-- :checkhealth agentls
local compat = require('agentls.compat')
local config = require('agentls.config')

local M = {}

function M.check()
  local h = compat.health()
  h.start('agentls')

  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    h.ok('Neovim ' .. version)
  else
    h.error('Neovim ' .. version .. ': agentls.nvim needs 0.7 or newer')
  end
  if compat.nvim_011 or vim.fn.has('nvim-0.10') == 1 then
    h.info('server requests are answered from a coroutine')
  else
    h.info('server requests are answered later through a JSON encoder hook (Neovim before 0.10)')
  end

  local cmd = config.options.cmd or {}
  local exe = cmd[1]
  if not exe or vim.fn.executable(exe) ~= 1 then
    h.error(string.format('%s not found (cmd = %s)', tostring(exe), vim.inspect(cmd)),
      { 'Build it with `go build -o bin/agentls ./cmd/agentls` and put it on $PATH, or set cmd in setup()' })
  else
    local out = vim.fn.systemlist({ exe, 'version' })
    if vim.v.shell_error == 0 and out[1] then
      h.ok(string.format('%s: %s', vim.fn.exepath(exe), out[1]))
    else
      h.warn(string.format('%s version failed: %s', exe, table.concat(out, ' ')))
    end
  end

  local key = vim.env.GEMINI_API_KEY or vim.env.GOOGLE_API_KEY
  if key and key ~= '' then
    h.ok('model access: GEMINI_API_KEY/GOOGLE_API_KEY set')
  elseif vim.env.GOOGLE_GENAI_USE_VERTEXAI and vim.env.GOOGLE_GENAI_USE_VERTEXAI ~= '' then
    h.ok('model access: Vertex AI (GOOGLE_GENAI_USE_VERTEXAI)')
  else
    h.warn('no GEMINI_API_KEY, GOOGLE_API_KEY or Vertex AI settings in the environment: runs will fail')
  end

  local ok, client = pcall(require, 'agentls.client')
  local clients = ok and client.all_clients() or {}
  if #clients == 0 then
    h.warn('no agentls client is running (call require("agentls").setup() and open a file)')
  else
    for _, c in ipairs(clients) do
      local bufs = {}
      for b in pairs(c.attached_buffers or {}) do
        table.insert(bufs, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':~:.'))
      end
      local info = c.server_info or {}
      h.ok(string.format('client %d (%s%s), root %s, %s, %d buffer%s attached%s', c.id, c.name,
        info.version and (' ' .. info.version) or '',
        tostring(c.config and c.config.root_dir),
        compat.is_initialized(c) and 'initialized' or 'starting',
        #bufs, #bufs == 1 and '' or 's',
        #bufs > 0 and (': ' .. table.concat(bufs, ', ')) or ''))
    end
    local cur = vim.api.nvim_get_current_buf()
    if ok and client.attached(cur) then
      h.ok('the current buffer is attached')
    else
      h.info('the current buffer is not attached')
    end
  end

  local runs = require('agentls.runs')
  if runs.fidget_present() then
    h.ok('fidget.nvim found: progress is shown there')
  else
    h.info('fidget.nvim not found: progress is echoed in the command line')
  end
end

return M
