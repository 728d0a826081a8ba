-- Answering server requests later on Neovim 0.7-0.9, which send whatever
-- a request handler returns at once and have no API to answer later
-- (0.10+ run handlers in a coroutine; see compat.async_handler). Loaded
-- only there.
--
-- The handler returns a unique placeholder result, and a one-shot rewrite
-- of vim.json.encode (which the RPC layer calls for every outgoing message)
-- (1) learns the request id from the placeholder response and sends a
-- `$/agentls/deferred` notification in its place (servers ignore `$/`
-- notifications they do not know), then (2) when the user decides, turns a
-- `$/agentls/response` notification sent through client.rpc.notify into
-- the real response with that id. The rewrite is installed for those two
-- messages only and removes itself afterwards.
local M = {}

local rewrites = {} -- one-shot rewrites, tried in order
local original_encode = nil

local function encode_hook(payload, ...)
  if type(payload) == 'table' then
    for i, rw in ipairs(rewrites) do
      local out = rw(payload)
      if out ~= nil then
        table.remove(rewrites, i)
        local enc = original_encode
        if #rewrites == 0 and vim.json.encode == encode_hook then
          vim.json.encode = original_encode
          original_encode = nil
        end
        return enc(out, ...)
      end
    end
  end
  return (original_encode or vim.json.encode)(payload, ...)
end

local function add_rewrite(rw)
  table.insert(rewrites, rw)
  if vim.json.encode ~= encode_hook then
    original_encode = vim.json.encode
    vim.json.encode = encode_hook
  end
  return rw
end

local function drop_rewrite(rw)
  for i, r in ipairs(rewrites) do
    if r == rw then
      table.remove(rewrites, i)
      break
    end
  end
  if #rewrites == 0 and vim.json.encode == encode_hook then
    vim.json.encode = original_encode
    original_encode = nil
  end
end

--- Calls fn(err, params, ctx, respond, req) and returns what the RPC layer
--- sends now: the answer when fn responded at once, else a placeholder the
--- rewrite turns into $/agentls/deferred.
---@param fn fun(err: any, params: table, ctx: table, respond: agentls.Respond, req: agentls.Request)
function M.handle(fn, err, params, ctx)
  local req = { async = 'rewrite' }
  local done, res, rerr = false, nil, nil
  local early = true
  local function respond(result, e)
    if done then
      return
    end
    done, res, rerr = true, result, e
    if early then
      return -- returned below
    end
    if req.id == nil then
      return -- the placeholder was never sent: the connection is gone
    end
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client == nil or client.rpc == nil then
      return
    end
    local marker = {}
    local rw = add_rewrite(function(payload)
      if payload.params == marker then
        return { jsonrpc = '2.0', id = req.id, result = result, error = e }
      end
    end)
    local ok = client.rpc.notify('$/agentls/response', marker)
    drop_rewrite(rw) -- no-op when it was used
    return ok
  end
  fn(err, params, ctx, respond, req)
  early = false
  if done then
    if res == nil and rerr == nil then
      res = vim.NIL
    end
    return res, rerr
  end
  local placeholder = {}
  local rw = add_rewrite(function(payload)
    if payload.result == placeholder then
      req.id = payload.id
      return { jsonrpc = '2.0', method = '$/agentls/deferred', params = { id = payload.id } }
    end
  end)
  -- The placeholder is encoded right after this handler returns, in the
  -- same scheduled callback; if it never is, drop the rewrite.
  vim.schedule(function()
    drop_rewrite(rw)
  end)
  return placeholder
end

return M
