-- Compatibility layer: the few places where Neovim 0.7 and current releases
-- differ in what the plugin uses. Everything version-dependent lives here,
-- and in agentls.compat.deferred, which only Neovim 0.7-0.9 load.
local M = {}

local function has(feature)
  return vim.fn.has(feature) == 1
end

M.has = has
M.nvim_011 = has('nvim-0.11')

--- The JSON null of decoded LSP messages: 0.7 decodes null to nil, newer
--- releases to vim.NIL. nn(x) is x, or nil for either.
function M.nn(x)
  if x == vim.NIL then
    return nil
  end
  return x
end

-- Clients ------------------------------------------------------------------

--- All LSP clients named name.
function M.clients(name)
  local all
  if vim.lsp.get_clients then
    all = vim.lsp.get_clients({ name = name })
  else
    all = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in ipairs(all) do
    if c.name == name then
      table.insert(out, c)
    end
  end
  return out
end

function M.get_client(id)
  return vim.lsp.get_client_by_id(id)
end

-- Client methods are closures called with `.` up to 0.10 and methods called
-- with `:` from 0.11 on.
function M.request(client, method, params, handler, bufnr)
  if M.nvim_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.notify(client, method, params)
  if M.nvim_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.is_stopped(client)
  if client == nil then
    return true
  end
  if M.nvim_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

function M.stop(client, force)
  if M.nvim_011 then
    return client:stop(force)
  end
  return client.stop(force)
end

function M.is_initialized(client)
  return client ~= nil and client.initialized == true
end

--- The position encoding the server negotiated.
function M.offset_encoding(client)
  local caps = client and client.server_capabilities
  local enc = caps and M.nn(caps.positionEncoding)
  return enc or (client and client.offset_encoding) or 'utf-16'
end

function M.rpc_error(code, message)
  local f = (vim.lsp.rpc and vim.lsp.rpc.rpc_response_error) or vim.lsp.rpc_response_error
  return f(code, message)
end

M.RequestCancelled = -32800

--- The version of bufnr's text as the LSP client sent it last.
function M.buf_version(bufnr)
  local versions = vim.lsp.util.buf_versions
  local v = rawget(versions, bufnr)
  if v ~= nil then
    return v
  end
  if getmetatable(versions) then
    return versions[bufnr] -- 0.10 and later: a default of 0, what didOpen sent
  end
  return nil
end

-- Text positions ------------------------------------------------------------

--- The `encoding` index of byte offset `byte` of line (0-based).
function M.char_index(line, byte, encoding)
  byte = math.max(0, math.min(byte, #line))
  if encoding == 'utf-8' then
    return byte
  end
  if M.nvim_011 then
    return vim.str_utfindex(line, encoding, byte, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, byte)
  if encoding == 'utf-32' then
    return utf32
  end
  return utf16
end

--- The byte offset of the `encoding` index `index` of line; clamped to the
--- line's length.
function M.byte_index(line, index, encoding)
  if encoding == 'utf-8' then
    return math.max(0, math.min(index, #line))
  end
  local ok, b
  if M.nvim_011 then
    ok, b = pcall(vim.str_byteindex, line, encoding, index, false)
  else
    ok, b = pcall(vim.str_byteindex, line, index, encoding == 'utf-16')
  end
  if not ok or b == nil then
    return #line
  end
  return math.min(b, #line)
end

-- Files ---------------------------------------------------------------------

local uv = vim.uv or vim.loop

function M.exists(path)
  return uv.fs_stat(path) ~= nil
end

local function parent(dir)
  local p = dir:match('^(.*)/[^/]*$')
  if p == nil or p == '' then
    return '/'
  end
  return p
end

--- The nearest ancestor directory of path (a file or a directory) holding
--- one of markers, or nil.
function M.find_root(path, markers)
  local dir = path
  local st = uv.fs_stat(dir)
  if not st or st.type ~= 'directory' then
    dir = parent(dir)
  end
  while true do
    for _, m in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    if dir == '/' then
      return nil
    end
    dir = parent(dir)
  end
end

-- Health ----------------------------------------------------------------

function M.health()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local old = require('health')
  return { start = old.report_start, ok = old.report_ok, warn = old.report_warn, error = old.report_error, info = old.report_info }
end

-- Answering server requests later -------------------------------------------

--- A request handler's way to answer: respond(result, err), once, now or
--- later.
---@alias agentls.Respond fun(result: any, err: table?)

--- What a deferred request knows of itself: async is 'coroutine' (Neovim
--- 0.10+) or 'rewrite' (0.7-0.9, see agentls.compat.deferred); id is the
--- request's JSON-RPC id once known (rewrite only).
---@class agentls.Request
---@field async 'coroutine'|'rewrite'
---@field id integer|string|nil

--- Wraps fn(err, params, ctx, respond, req) as an LSP request handler whose
--- answer may come later: fn calls respond(result, err) once, now or later.
--- Neovim 0.10+ runs request handlers in a coroutine, which yields until
--- respond; 0.7-0.9 do not, and answer through agentls.compat.deferred,
--- which is loaded only there.
---@param fn fun(err: any, params: table, ctx: table, respond: agentls.Respond, req: agentls.Request)
function M.async_handler(fn)
  return function(err, params, ctx, config)
    local co, is_main = coroutine.running()
    if not co or is_main then
      return require('agentls.compat.deferred').handle(fn, err, params, ctx)
    end
    local done, res, rerr, waiting = false, nil, nil, false
    local req = { async = 'coroutine' }
    local function respond(result, e)
      if done then
        return
      end
      done, res, rerr = true, result, e
      if waiting then
        vim.schedule(function()
          local ok, msg = coroutine.resume(co)
          if not ok then
            require('agentls.messages').error('agentls: answering the server failed: ' .. tostring(msg))
          end
        end)
      end
    end
    fn(err, params, ctx, respond, req)
    if not done then
      waiting = true
      coroutine.yield()
    end
    return res, rerr
  end
end

return M
