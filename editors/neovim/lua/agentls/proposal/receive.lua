-- Receiving: the workspace/applyEdit handler. A proposal is checked first
-- (versions, files that would be overwritten, another proposal on the same
-- buffer, operations the plugin does not do) and refused at once when it
-- cannot be shown; otherwise its buffers are loaded and shown, its hunks
-- drawn and its keys mapped, and the request waits for the user.
local compat = require('agentls.compat')
local hunks = require('agentls.hunks')
local keys = require('agentls.proposal.keys')
local messages = require('agentls.messages')
local render = require('agentls.proposal.render')
local state = require('agentls.proposal.state')

local api = vim.api
local nn = compat.nn

local M = {}

local next_id = 0
local proposed = {} -- edit_proposed events not yet matched: {run_id, path, client_id}

--- The files a WorkspaceEdit changes, or nil and why not.
---@return agentls.ProposalFile[]?, string?
local function read_edit(edit)
  local files, by_uri = {}, {}
  local function file(uri)
    local f = by_uri[uri]
    if not f then
      f = { uri = uri, edits = {} }
      by_uri[uri] = f
      table.insert(files, f)
    end
    return f
  end
  local changes = nn(edit.documentChanges)
  if changes then
    for _, ch in ipairs(changes) do
      local kind = nn(ch.kind)
      if kind == 'create' then
        local f = file(ch.uri)
        f.create = true
        f.options = nn(ch.options) or {}
      elseif kind == 'rename' or kind == 'delete' then
        return nil, kind .. ' operations are not supported by agentls.nvim'
      else
        local td = ch.textDocument
        local f = file(td.uri)
        local v = nn(td.version)
        if v ~= nil and f.version == nil then
          f.version = v
        end
        for _, e in ipairs(ch.edits or {}) do
          table.insert(f.edits, e)
        end
      end
    end
  else
    local map = nn(edit.changes) or {}
    local uris = vim.tbl_keys(map)
    table.sort(uris)
    for _, uri in ipairs(uris) do
      local f = file(uri)
      for _, e in ipairs(map[uri]) do
        table.insert(f.edits, e)
      end
    end
  end
  return files
end

--- The run an annotation id names ("agentls/<runId>/<n>", docs/protocol.md).
local function run_of_annotation(id)
  return type(id) == 'string' and id:match('^agentls/(.+)/%d+$') or nil
end

--- The run a proposal comes from: the one its change annotations name,
--- else (an edit without annotations) the oldest edit_proposed event of
--- one of its files, else the oldest one of its client.
local function match_run(p, edit)
  for id in pairs(nn(edit.changeAnnotations) or {}) do
    local run = run_of_annotation(id)
    if run then
      M.forget_proposed(run, p)
      return run
    end
  end
  local paths = {}
  for _, f in ipairs(p.files) do
    paths[state.fname(f.uri)] = true
  end
  for i, e in ipairs(proposed) do
    if paths[e.path] then
      table.remove(proposed, i)
      return e.run_id
    end
  end
  for i, e in ipairs(proposed) do
    if e.client_id == p.client_id then
      table.remove(proposed, i)
      return e.run_id
    end
  end
end

--- An edit_proposed event: remembers which run the next proposal for path
--- comes from.
function M.on_edit_proposed(run_id, edit, client_id)
  table.insert(proposed, { run_id = run_id, path = nn(edit.path), client_id = client_id })
  if #proposed > 50 then
    table.remove(proposed, 1)
  end
end

--- Drops the edit_proposed events of p's files from run (matched).
function M.forget_proposed(run_id, p)
  local paths = {}
  for _, f in ipairs(p.files) do
    paths[state.fname(f.uri)] = true
  end
  for i = #proposed, 1, -1 do
    if proposed[i].run_id == run_id and paths[proposed[i].path] then
      table.remove(proposed, i)
    end
  end
end

--- A run ended: its proposals are not coming any more.
function M.forget_run(run_id)
  for i = #proposed, 1, -1 do
    if proposed[i].run_id == run_id then
      table.remove(proposed, i)
    end
  end
end

--- Why files cannot be shown, or nil.
---@param files agentls.ProposalFile[]
local function refusal(files)
  for _, f in ipairs(files) do
    local path = state.fname(f.uri)
    local existing = state.find_buf(path)
    if f.create then
      local opts = f.options or {}
      local text = existing and api.nvim_buf_is_loaded(existing) and state.buf_text(existing) or ''
      if (compat.exists(path) or (text ~= '' and text ~= '\n')) and not nn(opts.overwrite) and not nn(opts.ignoreIfExists) then
        return state.display_name(f.uri) .. ' already exists'
      end
    elseif f.version ~= nil then
      local have = existing and api.nvim_buf_is_loaded(existing) and compat.buf_version(existing) or nil
      if have ~= f.version then
        return string.format('version mismatch: the edit is for version %d of %s, the buffer is at %s',
          f.version, state.display_name(f.uri), have == nil and 'no version (not open)' or ('version ' .. tostring(have)))
      end
    end
    if existing and state.proposal_for_buf(existing) then
      return 'another proposal is pending for ' .. state.display_name(f.uri)
    end
  end
end

--- Loads the buffer of each file; a new file's buffer is not attached to
--- the server until it is accepted (until then the file does not exist).
---@param files agentls.ProposalFile[]
local function load(files)
  for _, f in ipairs(files) do
    local existing = state.find_buf(state.fname(f.uri))
    if f.create then
      if existing then
        f.bufnr = existing
      else
        f.bufnr = vim.fn.bufadd(state.fname(f.uri))
        f.created_buf = true
      end
      vim.b[f.bufnr].agentls_pending_create = true
    else
      f.bufnr = existing or vim.uri_to_bufnr(f.uri)
    end
    vim.fn.bufload(f.bufnr)
    vim.bo[f.bufnr].buflisted = true
  end
end

---@param f agentls.ProposalFile
local function split_hunks(f, encoding)
  local lines = f.create and {} or state.buf_lines(f.bufnr)
  f.hunks = {}
  for _, g in ipairs(hunks.group(f.edits)) do
    local h = hunks.describe(g, lines, encoding)
    h.state = 'pending'
    table.insert(f.hunks, h)
  end
  if f.create and #f.hunks == 0 then
    -- An empty new file: one hunk that creates it.
    table.insert(f.hunks, { edits = {}, first = 0, last = -1, old = {}, new = {}, del_first = 0, del_last = -1, added = {}, state = 'pending' })
  end
end

local function description(edit)
  local anns = nn(edit.changeAnnotations)
  if type(anns) == 'table' then
    for _, a in pairs(anns) do
      if type(a) == 'table' and nn(a.description) then
        return ' — ' .. a.description
      end
    end
  end
  return ''
end

local function receive(params, ctx, respond, req)
  local edit = nn(params.edit)
  if type(edit) ~= 'table' then
    return respond({ applied = false, failureReason = 'no edit' })
  end
  local files, why = read_edit(edit)
  if not files then
    return respond({ applied = false, failureReason = why })
  end
  if #files == 0 then
    return respond({ applied = true, agentls = { files = {} } })
  end
  -- Check everything first, then load buffers: a refused proposal leaves
  -- no buffer behind.
  local reason = refusal(files)
  if reason then
    return respond({ applied = false, failureReason = reason })
  end
  load(files)

  local encoding = compat.offset_encoding(compat.get_client(ctx.client_id))
  local names = {}
  for _, f in ipairs(files) do
    table.insert(names, state.display_name(f.uri))
    split_hunks(f, encoding)
  end
  next_id = next_id + 1
  ---@type agentls.Proposal
  local p = {
    id = next_id,
    client_id = ctx.client_id,
    respond = respond,
    req = req,
    params = params,
    label = nn(params.label),
    encoding = encoding,
    files = files,
    names = table.concat(names, ', '),
  }
  p.run_id = match_run(p, edit)
  table.insert(state.pending, p)

  local first = true
  for _, f in ipairs(files) do
    local w, opened = render.show(f.bufnr)
    if opened and first then
      first = false
      local h = f.hunks[1]
      if h then
        local row = math.min(h.del_first, api.nvim_buf_line_count(f.bufnr) - 1)
        pcall(api.nvim_win_set_cursor, w, { math.max(row, 0) + 1, 0 })
      end
    end
    -- Showing may attach the buffer (a didOpen), which sets its version.
    f.shown_version = not f.create and compat.buf_version(f.bufnr) or nil
    keys.set(f)
  end
  render.all(p)
  local n = state.count_pending(p)
  messages.info(string.format('agentls: proposed change to %s%s (%d hunk%s): %s', p.names, description(edit), n,
    n == 1 and '' or 's', render.key_help()))
end

--- The workspace/applyEdit handler.
M.handler = compat.async_handler(function(_, params, ctx, respond, req)
  local ok, e = pcall(receive, params, ctx, respond, req)
  if not ok then
    respond({ applied = false, failureReason = 'agentls.nvim: ' .. tostring(e) })
  end
end)

return M
