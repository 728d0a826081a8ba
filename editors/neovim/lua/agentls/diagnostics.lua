-- The editor's diagnostics, forwarded to agentls (agentls/diagnostics,
-- docs/protocol.md): the model hears the problems its changes caused, and
-- get_diagnostics lists what the editor shows. On every DiagnosticChanged
-- the buffer is noted with its LSP version at that moment; after a short
-- debounce each noted buffer's complete list (vim.diagnostic.get, every
-- namespace but agentls's own) goes to every agentls client whose
-- workspace folders hold the file. vim.diagnostic and DiagnosticChanged are
-- the same on Neovim 0.7 and 0.12 (0.12 adds args.data, not used here).
local compat = require('agentls.compat')
local config = require('agentls.config')

local api = vim.api
local uv = vim.uv or vim.loop

local M = {}

M.METHOD = 'agentls/diagnostics'

--- The buffers whose lists changed since the last flush, with the version
--- of their text when they last did (false: no version known).
---@type table<integer, integer|false>
local noted = {}
local timer = nil

local function under(path, dir)
  return path == dir or path:sub(1, #dir + 1) == dir .. '/'
end

--- The folders of client: its workspace folders, else its root.
local function folders(client)
  local out = {}
  for _, f in ipairs(compat.nn(client.workspace_folders) or {}) do
    table.insert(out, vim.uri_to_fname(f.uri))
  end
  if #out == 0 and client.config and client.config.root_dir then
    table.insert(out, client.config.root_dir)
  end
  return out
end

local function inside(client, path)
  for _, dir in ipairs(folders(client)) do
    if under(path, dir) then
      return true
    end
  end
  return false
end

--- The namespaces of agentls's own diagnostics (none today; a server that
--- publishes some must not hear them back), push and pull.
local function own_namespaces(clients)
  local own = {}
  local get = vim.lsp.diagnostic and vim.lsp.diagnostic.get_namespace
  if not get then
    return own
  end
  for _, c in ipairs(clients) do
    for _, pull in ipairs({ false, true }) do
      local ok, ns = pcall(get, c.id, pull)
      if ok and ns then
        own[ns] = true
      end
    end
  end
  return own
end

--- The LSP diagnostics of bufnr, agentls's own left out. Columns are in
--- the client's position encoding where the buffer is loaded, bytes where
--- it is not (the server reads lines only).
---@return table[]
function M.list(bufnr, clients, encoding)
  local own = own_namespaces(clients)
  local loaded = api.nvim_buf_is_loaded(bufnr)
  local function position(lnum, col)
    lnum, col = math.max(lnum or 0, 0), math.max(col or 0, 0)
    if loaded then
      local line = api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1]
      if line then
        col = compat.char_index(line, col, encoding)
      end
    end
    return { line = lnum, character = col }
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if not own[d.namespace] and d.source ~= 'agentls' then
      local item = {
        range = { start = position(d.lnum, d.col), ['end'] = position(d.end_lnum or d.lnum, d.end_col or d.col) },
        severity = d.severity,
        message = tostring(d.message or ''),
      }
      if d.source ~= nil then
        item.source = tostring(d.source)
      end
      if type(d.code) == 'string' or type(d.code) == 'number' then
        item.code = d.code
      end
      table.insert(out, item)
    end
  end
  return out
end

--- The agentls clients that take diagnostics: initialized, running, with
--- the setting on.
local function receivers()
  local out = {}
  for _, c in ipairs(require('agentls.client').all_clients()) do
    local init = c.config and c.config.init_options
    if compat.is_initialized(c) and not compat.is_stopped(c) and type(init) == 'table' and init.diagnostics == true then
      table.insert(out, c)
    end
  end
  return out
end

--- Sends bufnr's list to every client in clients whose folders hold it;
--- version is its text's version when the list changed (false: unknown,
--- or the client has not opened the buffer).
local function send(bufnr, version, clients)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return
  end
  local path = vim.fn.fnamemodify(name, ':p')
  for _, c in ipairs(clients) do
    if inside(c, path) then
      local params = {
        uri = vim.uri_from_bufnr(bufnr),
        diagnostics = M.list(bufnr, clients, compat.offset_encoding(c)),
      }
      if version and vim.lsp.buf_is_attached(bufnr, c.id) then
        params.version = version
      end
      compat.notify(c, M.METHOD, params)
    end
  end
end

--- Sends the noted buffers' lists now.
function M.flush()
  local buffers = noted
  noted = {}
  local clients = receivers()
  if #clients == 0 then
    return
  end
  for bufnr, version in pairs(buffers) do
    send(bufnr, version, clients)
  end
end

--- Whether lists are waiting for the debounce.
function M.waiting()
  return next(noted) ~= nil
end

--- Notes that bufnr's list changed; the lists go out after the debounce.
function M.changed(bufnr)
  if not bufnr or bufnr == 0 then
    return
  end
  noted[bufnr] = compat.buf_version(bufnr) or false
  if not timer then
    timer = uv.new_timer()
  end
  timer:stop()
  timer:start(config.options.diagnostics_debounce or 200, 0, vim.schedule_wrap(M.flush))
end

--- Sends client every list the editor shows in its folders, when it has
--- just started: what the user sees before the first run.
function M.initial(client)
  if not (client.config and type(client.config.init_options) == 'table' and client.config.init_options.diagnostics) then
    return
  end
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    seen[d.bufnr] = true
  end
  for bufnr in pairs(seen) do
    send(bufnr, compat.buf_version(bufnr) or false, { client })
  end
end

--- Listens for DiagnosticChanged in the plugin's augroup.
function M.listen(group)
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(args)
      M.changed(args.buf)
    end,
  })
end

return M
