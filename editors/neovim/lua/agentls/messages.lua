-- Messages: every line the plugin shows the user goes through here. Each
-- message is one line that fits the command line and replaces the one
-- before it, so no run ever stops at "Press ENTER" (Neovim 0.7 without a
-- notification plugin showed three for one run). Whole texts are in
-- :AgentLog. A notification plugin that replaced vim.notify (nvim-notify,
-- noice.nvim, fidget.nvim's) gets every message as it is.
local M = {}

local api = vim.api

--- Whether vim.notify is Neovim's own, not a notification plugin's: its
--- source is Neovim's runtime (0.7: @vim/_editor.lua; 0.12 keeps its
--- runtime modules as bytecode without a source name, "?").
local function stock_notify()
  local info = debug.getinfo(vim.notify, 'S')
  local src = info and info.source or ''
  return src == '?' or src:find('^@vim/') ~= nil
end

local highlights = {
  [vim.log.levels.ERROR] = 'ErrorMsg',
  [vim.log.levels.WARN] = 'WarningMsg',
}

--- The width one message may take without wrapping.
local function width()
  local w = vim.v.echospace
  if type(w) ~= 'number' or w <= 0 then
    w = vim.o.columns - 12
  end
  return math.max(20, w)
end

--- s on one line, at most n display cells, with … when cut.
function M.one_line(s, n)
  s = tostring(s or ''):gsub('^%s+', ''):gsub('%s+$', '')
  local first = s:match('^[^\n]*') or ''
  local cut = first ~= s
  if vim.fn.strdisplaywidth(first) > n then
    local chars = vim.fn.strchars(first)
    while chars > 0 and vim.fn.strdisplaywidth(first) > n - 1 do
      chars = chars - 1
      first = vim.fn.strcharpart(first, 0, chars)
    end
    cut = true
  end
  if cut then
    first = first .. '…'
  end
  return first
end

--- Shows msg at level (vim.log.levels; INFO by default). history false
--- keeps it out of :messages (progress).
function M.show(msg, level, history)
  level = level or vim.log.levels.INFO
  if not stock_notify() then
    return vim.notify(msg, level)
  end
  -- A redraw first: the message replaces the one before instead of
  -- scrolling it up into a hit-enter prompt.
  pcall(vim.cmd, 'redraw')
  pcall(api.nvim_echo, { { M.one_line(msg, width()), highlights[level] } }, history ~= false, {})
end

function M.info(msg)
  M.show(msg, vim.log.levels.INFO)
end

function M.warn(msg)
  M.show(msg, vim.log.levels.WARN)
end

function M.error(msg)
  M.show(msg, vim.log.levels.ERROR)
end

return M
