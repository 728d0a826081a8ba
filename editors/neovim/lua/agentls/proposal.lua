-- Proposals: the plugin's workspace/applyEdit handler. A proposal is shown
-- inline in its buffer (removed lines highlighted, added lines as virtual
-- lines), decided hunk by hunk, applied to the buffer (never to disk) and
-- answered with the agentls extension of ApplyWorkspaceEditResult.
local compat = require('agentls.compat')
local config = require('agentls.config')
local hunks = require('agentls.hunks')

local api = vim.api
local nn = compat.nn

local M = {}

M.ns = api.nvim_create_namespace('agentls-proposal')
M.pending = {} -- open proposals, oldest first
M.history = {} -- answered proposals: {id, label, uris, answer, cancelled?}

local next_id = 0
local proposed = {} -- edit_proposed events not yet matched: {run_id, path, client_id}

local function hl(name)
  return config.options.highlights[name]
end

local function fname(uri)
  local ok, f = pcall(vim.uri_to_fname, uri)
  if ok then
    return f
  end
  return uri
end

local function display_name(uri)
  return vim.fn.fnamemodify(fname(uri), ':~:.')
end

--- The buffer whose file is path, or nil (bufnr() would match patterns).
local function find_buf(path)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == path then
      return b
    end
  end
end

local function buf_lines(bufnr)
  return api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- The buffer's text as the server sees it.
function M.buf_text(bufnr)
  local text = table.concat(buf_lines(bufnr), '\n')
  if vim.bo[bufnr].eol then
    text = text .. '\n'
  end
  return text
end

-- Reading the WorkspaceEdit ------------------------------------------------

--- The files a WorkspaceEdit changes: {uri, version, edits, create, options},
--- or nil and why not.
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

-- Finding proposals -------------------------------------------------------------

local function proposal_for_buf(bufnr)
  for _, p in ipairs(M.pending) do
    for _, f in ipairs(p.files) do
      if f.bufnr == bufnr then
        return p, f
      end
    end
  end
end

M.proposal_for_buf = proposal_for_buf

local function all_decided(p)
  for _, f in ipairs(p.files) do
    for _, h in ipairs(f.hunks) do
      if h.state == 'pending' then
        return false
      end
    end
  end
  return true
end

local function count_pending(p)
  local n = 0
  for _, f in ipairs(p.files) do
    for _, h in ipairs(f.hunks) do
      if h.state == 'pending' then
        n = n + 1
      end
    end
  end
  return n
end

-- Rendering -------------------------------------------------------------------

local function expand_tabs(s, ts)
  if not s:find('\t', 1, true) then
    return s
  end
  local out, col = {}, 0
  for ch in s:gmatch('[%z\1-\127\194-\244][\128-\191]*') do
    if ch == '\t' then
      local n = ts - (col % ts)
      table.insert(out, string.rep(' ', n))
      col = col + n
    else
      table.insert(out, ch)
      col = col + 1
    end
  end
  return table.concat(out)
end

--- What a hunk shows: the rows it removes and the lines it adds in their
--- place, for its current content (edited or proposed).
local function shape(h)
  if not h.edited then
    return h.del_first, h.del_last, h.added
  end
  local p, s, added = hunks.trim(h.old, h.edited)
  return h.first + p, h.last - s, added
end

local function key_help()
  local k = config.options.keymaps or {}
  local parts = {}
  if k.accept_all and k.reject_all then
    table.insert(parts, k.accept_all .. '/' .. k.reject_all .. ' all')
  end
  if k.accept_hunk and k.reject_hunk then
    table.insert(parts, k.accept_hunk .. '/' .. k.reject_hunk .. ' hunk')
  end
  if k.edit_hunk then
    table.insert(parts, k.edit_hunk .. ' edit')
  end
  return table.concat(parts, ' · ')
end

local function render(p, f)
  local b = f.bufnr
  if not api.nvim_buf_is_valid(b) then
    return
  end
  api.nvim_buf_clear_namespace(b, M.ns, 0, -1)
  local n = api.nvim_buf_line_count(b)
  local ts = vim.bo[b].tabstop
  local help = key_help()
  for i, h in ipairs(f.hunks) do
    local df, dl, added = shape(h)
    local has_del = dl >= df
    local anchor, above
    if has_del then
      anchor, above = dl, false
    elseif df <= n - 1 then
      anchor, above = df, true
    else
      anchor, above = n - 1, false
    end
    anchor = math.max(0, math.min(anchor, n - 1))
    local head_row = has_del and df or anchor
    h.top = math.min(head_row, anchor)
    h.bottom = math.max(head_row, anchor)

    local label, label_hl
    if h.state == 'pending' then
      label = string.format(' agentls %d/%d%s · %s ', i, #f.hunks, h.edited and ' (edited)' or '', help)
      label_hl = hl('header')
    elseif h.state == 'accepted' then
      label = string.format(' agentls %d/%d: accepted%s ', i, #f.hunks, h.edited and ' (edited)' or '')
      label_hl = hl('accepted')
    else
      label = string.format(' agentls %d/%d: rejected ', i, #f.hunks)
      label_hl = hl('rejected')
    end
    api.nvim_buf_set_extmark(b, M.ns, head_row, 0, {
      virt_text = { { label, label_hl } },
      virt_text_pos = 'eol',
    })
    if h.state ~= 'rejected' then
      for r = df, math.min(dl, n - 1) do
        -- The whole line, past its end (line_hl_group is not reported by
        -- nvim_buf_get_extmarks on 0.7).
        api.nvim_buf_set_extmark(b, M.ns, r, 0, {
          end_row = r + 1,
          end_col = 0,
          hl_group = hl('delete'),
          hl_eol = true,
          priority = 200,
        })
      end
      if #added > 0 then
        local vl = {}
        for _, l in ipairs(added) do
          table.insert(vl, { { expand_tabs(l, ts), hl('add') } })
        end
        api.nvim_buf_set_extmark(b, M.ns, anchor, 0, {
          virt_lines = vl,
          virt_lines_above = above,
        })
      end
    end
  end
end

local function render_all(p)
  for _, f in ipairs(p.files) do
    render(p, f)
  end
end

-- Windows and keys ------------------------------------------------------------

local function window_for(bufnr)
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) == bufnr then
      return w
    end
  end
end

--- Shows bufnr in a window of the current tab; returns the window and
--- whether it was opened for it.
local function show(bufnr)
  local w = window_for(bufnr)
  if w then
    return w, false
  end
  local how = config.options.open or 'split'
  if how ~= 'edit' then
    vim.cmd(how)
  end
  api.nvim_win_set_buf(0, bufnr)
  return api.nvim_get_current_win(), true
end

local key_actions = {
  accept_all = function(b) M.accept_all(b) end,
  reject_all = function(b) M.reject_all(b) end,
  accept_hunk = function(b) M.accept_hunk(b) end,
  reject_hunk = function(b) M.reject_hunk(b) end,
  edit_hunk = function(b) M.edit_hunk(b) end,
}

local key_desc = {
  accept_all = 'agentls: accept the whole proposal',
  reject_all = 'agentls: reject the whole proposal',
  accept_hunk = 'agentls: accept the hunk under the cursor',
  reject_hunk = 'agentls: reject the hunk under the cursor',
  edit_hunk = 'agentls: edit the hunk under the cursor, then accept it',
}

local function set_keys(f)
  local b = f.bufnr
  f.saved_maps = {}
  for action, lhs in pairs(config.options.keymaps or {}) do
    if lhs and key_actions[action] then
      local old = vim.fn.maparg(lhs, 'n', false, true)
      if type(old) == 'table' and old.buffer == 1 then
        table.insert(f.saved_maps, old)
      end
      vim.keymap.set('n', lhs, function()
        key_actions[action](b)
      end, { buffer = b, nowait = true, silent = true, desc = key_desc[action] })
      f.mapped = f.mapped or {}
      table.insert(f.mapped, lhs)
    end
  end
end

local function restore_keys(f)
  local b = f.bufnr
  if not api.nvim_buf_is_valid(b) then
    return
  end
  for _, lhs in ipairs(f.mapped or {}) do
    pcall(vim.keymap.del, 'n', lhs, { buffer = b })
  end
  for _, m in ipairs(f.saved_maps or {}) do
    local opts = { noremap = m.noremap == 1, silent = m.silent == 1, nowait = m.nowait == 1, expr = m.expr == 1 }
    if m.callback then
      opts.callback = m.callback
    end
    if m.desc then
      opts.desc = m.desc
    end
    pcall(api.nvim_buf_set_keymap, b, 'n', m.lhs, m.rhs or '', opts)
  end
  f.mapped, f.saved_maps = nil, nil
end

-- Answering --------------------------------------------------------------------

local function clear(p)
  for _, f in ipairs(p.files) do
    if api.nvim_buf_is_valid(f.bufnr) then
      api.nvim_buf_clear_namespace(f.bufnr, M.ns, 0, -1)
    end
    restore_keys(f)
    local sb = f.scratch
    if sb then
      -- Later: this may run inside the scratch buffer's own BufWriteCmd.
      vim.schedule(function()
        if api.nvim_buf_is_valid(sb) then
          pcall(api.nvim_buf_delete, sb, { force = true })
        end
      end)
    end
  end
  for i, q in ipairs(M.pending) do
    if q == p then
      table.remove(M.pending, i)
      break
    end
  end
end

local function record(p, answer, extra)
  local uris = {}
  for _, f in ipairs(p.files) do
    table.insert(uris, f.uri)
  end
  local entry = { id = p.id, label = p.label, uris = uris, run_id = p.run_id, answer = answer, params = p.params }
  for k, v in pairs(extra or {}) do
    entry[k] = v
  end
  table.insert(M.history, entry)
  if #M.history > 100 then
    table.remove(M.history, 1)
  end
  if config.options.on_decided then
    pcall(config.options.on_decided, p.params, answer, entry)
  end
end

--- Drops the buffers made for new files of p.
local function discard_created(p)
  for _, f in ipairs(p.files) do
    if f.create and f.created_buf and api.nvim_buf_is_valid(f.bufnr) then
      pcall(api.nvim_buf_delete, f.bufnr, { force = true })
    elseif f.create and api.nvim_buf_is_valid(f.bufnr) then
      vim.b[f.bufnr].agentls_pending_create = nil
    end
  end
end

--- Withdraws proposal p without applying anything (the run was cancelled,
--- the request was cancelled, the server went away).
local function withdraw(p, reason)
  if p.done then
    return
  end
  p.done = true
  clear(p)
  discard_created(p)
  local err = compat.rpc_error(compat.RequestCancelled, reason)
  record(p, nil, { cancelled = reason })
  p.respond(nil, err)
  vim.notify('agentls: proposal withdrawn (' .. reason .. ')', vim.log.levels.INFO)
end

M.withdraw = withdraw

local function fail(p, reason)
  p.done = true
  clear(p)
  discard_created(p)
  local answer = { applied = false, failureReason = reason }
  record(p, answer)
  p.respond(answer)
  vim.notify('agentls: ' .. reason, vim.log.levels.WARN)
end

--- Applies the accepted hunks and answers the server.
local function finish(p)
  if p.done then
    return
  end
  -- Nothing may have changed under the proposal while the user decided.
  for _, f in ipairs(p.files) do
    if not f.create and f.shown_version ~= nil and compat.buf_version(f.bufnr) ~= f.shown_version then
      return fail(p, string.format('version mismatch: %s changed while the proposal was shown (version %s, now %s)',
        display_name(f.uri), tostring(f.shown_version), tostring(compat.buf_version(f.bufnr))))
    end
  end
  p.done = true
  clear(p)
  local client = compat.get_client(p.client_id)
  local any = false
  local files = {}
  local ok_all, apply_err = true, nil
  for _, f in ipairs(p.files) do
    local rejected, edited, accepted = {}, {}, {}
    for i, h in ipairs(f.hunks) do
      if h.state == 'accepted' then
        table.insert(accepted, h)
        any = true
        if h.edited then
          table.insert(edited, i - 1)
        end
      else
        table.insert(rejected, i - 1)
      end
    end
    local ok, err = pcall(function()
      if f.create then
        if #accepted > 0 then
          local h = accepted[1]
          local lines = h.edited or h.new
          api.nvim_buf_set_lines(f.bufnr, 0, -1, false, lines)
          vim.bo[f.bufnr].eol = true
          vim.b[f.bufnr].agentls_pending_create = nil
          if client and not compat.is_stopped(client) then
            pcall(vim.lsp.buf_attach_client, f.bufnr, client.id)
          end
        elseif f.created_buf and api.nvim_buf_is_valid(f.bufnr) then
          pcall(api.nvim_buf_delete, f.bufnr, { force = true })
        elseif api.nvim_buf_is_valid(f.bufnr) then
          vim.b[f.bufnr].agentls_pending_create = nil
        end
      elseif #accepted > 0 then
        local edits = {}
        for _, h in ipairs(accepted) do
          if h.edited then
            table.insert(edits, hunks.replacement(h, h.edited))
          else
            for _, e in ipairs(h.edits) do
              table.insert(edits, vim.deepcopy(e))
            end
          end
        end
        vim.lsp.util.apply_text_edits(edits, f.bufnr, p.encoding)
      end
    end)
    if not ok then
      ok_all, apply_err = false, tostring(err)
    end
    local text = ''
    if api.nvim_buf_is_valid(f.bufnr) and not (f.create and #accepted == 0) then
      text = M.buf_text(f.bufnr)
    end
    table.insert(files, { uri = f.uri, text = text, rejectedHunks = rejected, editedHunks = edited })
  end
  local answer = { applied = any, agentls = { files = files } }
  if not ok_all then
    answer.applied = false
    answer.failureReason = 'applying the edit failed: ' .. apply_err
  elseif not any then
    answer.failureReason = 'rejected by the user'
  end
  record(p, answer)
  p.respond(answer)
  local what
  if not ok_all then
    what = answer.failureReason
  elseif not any then
    what = 'rejected the change to ' .. p.names
  else
    local total, acc = 0, 0
    for i, f in ipairs(files) do
      total = total + #p.files[i].hunks
      acc = acc + #p.files[i].hunks - #f.rejectedHunks
    end
    what = string.format('applied %d of %d hunk%s to %s (not saved)', acc, total, total == 1 and '' or 's', p.names)
  end
  vim.notify('agentls: ' .. what, ok_all and vim.log.levels.INFO or vim.log.levels.ERROR)
end

local function decided(p)
  if all_decided(p) then
    finish(p)
  else
    render_all(p)
  end
end

-- Decisions --------------------------------------------------------------------

local function current(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local p, f = proposal_for_buf(bufnr)
  if not p then
    vim.notify('agentls: no proposal is pending in this buffer', vim.log.levels.WARN)
  end
  return p, f, bufnr
end

--- The hunk under the cursor of bufnr's window: the one whose rows hold the
--- cursor, else the nearest pending one.
local function hunk_at_cursor(f)
  local w = window_for(f.bufnr)
  local row
  if w then
    row = api.nvim_win_get_cursor(w)[1] - 1
  else
    row = 0
  end
  if api.nvim_get_current_buf() == f.bufnr then
    row = api.nvim_win_get_cursor(0)[1] - 1
  end
  for _, h in ipairs(f.hunks) do
    if h.top and row >= h.top and row <= h.bottom then
      return h
    end
  end
  local best, dist = nil, math.huge
  for _, h in ipairs(f.hunks) do
    if h.state == 'pending' and h.top then
      local d = row < h.top and h.top - row or row - h.bottom
      if d < dist then
        best, dist = h, d
      end
    end
  end
  return best
end

--- Decides every hunk still pending (decided hunks keep their decision).
local function set_all(bufnr, state)
  local p = current(bufnr)
  if not p then
    return
  end
  for _, f in ipairs(p.files) do
    for _, h in ipairs(f.hunks) do
      if h.state == 'pending' then
        h.state = state
      end
    end
  end
  decided(p)
end

--- Accepts every hunk still pending, in every file of the proposal.
function M.accept_all(bufnr)
  set_all(bufnr, 'accepted')
end

--- Rejects every hunk still pending, in every file of the proposal.
function M.reject_all(bufnr)
  set_all(bufnr, 'rejected')
end

--- The proposal, file and hunk a per-hunk key acts on: hunk number index,
--- or the one under the cursor. nil (with a warning) when there is none.
local function target(bufnr, index)
  local p, f = current(bufnr)
  if not p then
    return nil
  end
  local h = index and f.hunks[index] or hunk_at_cursor(f)
  if not h then
    vim.notify('agentls: no hunk here', vim.log.levels.WARN)
    return nil
  end
  return p, f, h
end

local function set_hunk(bufnr, state, index)
  local p, _, h = target(bufnr, index)
  if not p then
    return
  end
  h.state = state
  decided(p)
end

--- Accepts the hunk under the cursor (or hunk number index, from 1).
function M.accept_hunk(bufnr, index)
  set_hunk(bufnr, 'accepted', index)
end

--- Rejects the hunk under the cursor (or hunk number index, from 1).
function M.reject_hunk(bufnr, index)
  set_hunk(bufnr, 'rejected', index)
end

--- Opens the proposed text of the hunk under the cursor (or hunk number
--- index) in a scratch split; on :w or :q the text becomes the hunk's
--- replacement and the hunk is accepted. Returns the scratch buffer.
function M.edit_hunk(bufnr, index)
  local p, f, h = target(bufnr, index)
  if not p then
    return
  end
  if f.scratch and api.nvim_buf_is_valid(f.scratch) then
    pcall(api.nvim_buf_delete, f.scratch, { force = true })
  end
  local ft = vim.bo[f.bufnr].filetype
  local sb = api.nvim_create_buf(false, true)
  local hi = 0
  for i, x in ipairs(f.hunks) do
    if x == h then
      hi = i
    end
  end
  pcall(api.nvim_buf_set_name, sb, string.format('agentls://proposal/%d/%s/hunk-%d', p.id, vim.fn.fnamemodify(fname(f.uri), ':t'), hi))
  vim.bo[sb].buftype = 'acwrite'
  vim.bo[sb].bufhidden = 'wipe'
  vim.bo[sb].swapfile = false
  api.nvim_buf_set_lines(sb, 0, -1, false, h.edited or h.new)
  if ft ~= '' then
    vim.bo[sb].filetype = ft
  end
  vim.bo[sb].modified = false
  f.scratch = sb
  local group = api.nvim_create_augroup('agentls-hunk-' .. sb, { clear = true })
  local function take()
    if p.done or not api.nvim_buf_is_valid(sb) then
      return
    end
    h.edited = api.nvim_buf_get_lines(sb, 0, -1, false)
    h.state = 'accepted'
    decided(p)
  end
  api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = sb,
    callback = function()
      vim.bo[sb].modified = false
      take()
    end,
  })
  -- :q takes the text too; the buffer never counts as modified, so :q
  -- needs no bang.
  api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = sb,
    callback = function()
      vim.bo[sb].modified = false
    end,
  })
  api.nvim_create_autocmd('BufWinLeave', {
    group = group,
    buffer = sb,
    once = true,
    callback = function()
      take()
      pcall(api.nvim_del_augroup_by_id, group)
    end,
  })
  vim.cmd('belowright split')
  api.nvim_win_set_buf(0, sb)
  return sb
end

-- Receiving --------------------------------------------------------------------

--- Matches a proposal with the run that made it: the oldest edit_proposed
--- event of one of its files, else the oldest one of its client.
local function match_run(p)
  local paths = {}
  for _, f in ipairs(p.files) do
    paths[fname(f.uri)] = true
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

local function receive(params, ctx, respond, req)
  local client = compat.get_client(ctx.client_id)
  local label = nn(params.label)
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
  local encoding = compat.offset_encoding(client)
  local names = {}
  -- Check everything first, then load buffers: a refused proposal leaves
  -- no buffer behind.
  for _, f in ipairs(files) do
    table.insert(names, display_name(f.uri))
    local path = fname(f.uri)
    local existing = find_buf(path)
    if f.create then
      local opts = f.options or {}
      local has_text = existing and api.nvim_buf_is_loaded(existing) and M.buf_text(existing) ~= '\n'
        and M.buf_text(existing) ~= ''
      if (compat.exists(path) or has_text) and not nn(opts.overwrite) and not nn(opts.ignoreIfExists) then
        return respond({ applied = false, failureReason = display_name(f.uri) .. ' already exists' })
      end
    elseif f.version ~= nil then
      local have = existing and api.nvim_buf_is_loaded(existing) and compat.buf_version(existing) or nil
      if have ~= f.version then
        return respond({
          applied = false,
          failureReason = string.format('version mismatch: the edit is for version %d of %s, the buffer is at %s',
            f.version, display_name(f.uri), have == nil and 'no version (not open)' or ('version ' .. tostring(have))),
        })
      end
    end
    if existing and proposal_for_buf(existing) then
      return respond({ applied = false, failureReason = 'another proposal is pending for ' .. display_name(f.uri) })
    end
  end
  for _, f in ipairs(files) do
    local existing = find_buf(fname(f.uri))
    if f.create then
      if existing then
        f.bufnr = existing
      else
        f.bufnr = vim.fn.bufadd(fname(f.uri))
        f.created_buf = true
      end
      -- Not attached to the server until accepted: until then the file
      -- does not exist.
      vim.b[f.bufnr].agentls_pending_create = true
    else
      f.bufnr = existing or vim.uri_to_bufnr(f.uri)
    end
    vim.fn.bufload(f.bufnr)
    vim.bo[f.bufnr].buflisted = true
  end

  next_id = next_id + 1
  local p = {
    id = next_id,
    client_id = ctx.client_id,
    respond = respond,
    req = req,
    params = params,
    label = label,
    encoding = encoding,
    files = files,
    names = table.concat(names, ', '),
  }
  for _, f in ipairs(files) do
    local lines = f.create and {} or buf_lines(f.bufnr)
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
  p.run_id = match_run(p)
  table.insert(M.pending, p)

  local first_win = nil
  for _, f in ipairs(files) do
    local w, opened = show(f.bufnr)
    if opened and not first_win then
      first_win = w
      local h = f.hunks[1]
      if h then
        local row = math.min(h.del_first, api.nvim_buf_line_count(f.bufnr) - 1)
        pcall(api.nvim_win_set_cursor, w, { math.max(row, 0) + 1, 0 })
      end
    end
    -- Showing may attach the buffer (a didOpen), which sets its version.
    f.shown_version = not f.create and compat.buf_version(f.bufnr) or nil
    set_keys(f)
  end
  render_all(p)

  local desc = ''
  local anns = nn(edit.changeAnnotations)
  if type(anns) == 'table' then
    for _, a in pairs(anns) do
      if type(a) == 'table' and nn(a.description) then
        desc = ' — ' .. a.description
        break
      end
    end
  end
  local n = count_pending(p)
  vim.notify(string.format('agentls: proposed change to %s%s (%d hunk%s): %s', p.names, desc, n, n == 1 and '' or 's', key_help()),
    vim.log.levels.INFO)
  vim.cmd('redraw')
end

--- The workspace/applyEdit handler.
M.handler = compat.async_handler(function(err, params, ctx, respond, req)
  local ok, e = pcall(receive, params, ctx, respond, req)
  if not ok then
    respond({ applied = false, failureReason = 'agentls.nvim: ' .. tostring(e) })
  end
end)

-- Lifecycle hooks ----------------------------------------------------------------

--- An edit_proposed event: remembers which run the next proposal for path
--- comes from.
function M.on_edit_proposed(run_id, edit, client_id)
  table.insert(proposed, { run_id = run_id, path = nn(edit.path), client_id = client_id })
  if #proposed > 50 then
    table.remove(proposed, 1)
  end
end

--- A run ended: its proposals still open are withdrawn.
function M.on_run_end(run_id)
  for i = #proposed, 1, -1 do
    if proposed[i].run_id == run_id then
      table.remove(proposed, i)
    end
  end
  for _, p in ipairs(vim.deepcopy(M.pending_ids())) do
    local q = M.by_id(p)
    if q and q.run_id == run_id then
      withdraw(q, 'the run ended')
    end
  end
end

--- $/cancelRequest from the server.
function M.on_cancel_request(params, client_id)
  local id = params and nn(params.id)
  for _, pid in ipairs(M.pending_ids()) do
    local p = M.by_id(pid)
    if p and p.client_id == client_id and p.req and p.req.id ~= nil and p.req.id == id then
      withdraw(p, 'cancelled by the server')
    end
  end
end

--- The client stopped: every proposal it made is withdrawn.
function M.on_client_exit(client_id)
  for _, pid in ipairs(M.pending_ids()) do
    local p = M.by_id(pid)
    if p and p.client_id == client_id then
      withdraw(p, 'the server exited')
    end
  end
end

function M.pending_ids()
  local ids = {}
  for _, p in ipairs(M.pending) do
    table.insert(ids, p.id)
  end
  return ids
end

function M.by_id(id)
  for _, p in ipairs(M.pending) do
    if p.id == id then
      return p
    end
  end
end

return M
