-- Answering: once every hunk of a proposal is decided, the accepted ones
-- are applied to the buffers (and, with save_on_accept, the buffers are
-- written with Neovim's own :write), and the server gets the
-- ApplyWorkspaceEditResult with the agentls extension. A proposal can also
-- be refused (fail) or withdrawn (withdraw) without applying anything.
local compat = require('agentls.compat')
local config = require('agentls.config')
local hunks = require('agentls.hunks')
local messages = require('agentls.messages')
local render = require('agentls.proposal.render')
local state = require('agentls.proposal.state')

local api = vim.api

local M = {}

--- Takes p off the screen: its drawing, its keys, its scratch buffer.
---@param p agentls.Proposal
local function clear(p)
  render.clear(p)
  for _, f in ipairs(p.files) do
    if f.unmap then
      f.unmap()
      f.unmap = nil
    end
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
  state.remove(p)
end

---@param p agentls.Proposal
---@param answer table?
---@param extra table?
local function record(p, answer, extra)
  local uris = {}
  for _, f in ipairs(p.files) do
    table.insert(uris, f.uri)
  end
  ---@type agentls.HistoryEntry
  local entry = { id = p.id, label = p.label, uris = uris, run_id = p.run_id, answer = answer, params = p.params }
  for k, v in pairs(extra or {}) do
    entry[k] = v
  end
  table.insert(state.history, entry)
  if #state.history > 100 then
    table.remove(state.history, 1)
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

--- Withdraws p without applying anything (the run ended, the request was
--- cancelled, the server went away): the answer is RequestCancelled.
---@param p agentls.Proposal
---@param reason string
function M.withdraw(p, reason)
  if p.done then
    return
  end
  p.done = true
  clear(p)
  discard_created(p)
  record(p, nil, { cancelled = reason })
  p.respond(nil, compat.rpc_error(compat.RequestCancelled, reason))
  messages.info('agentls: proposal withdrawn (' .. reason .. ')')
end

--- Refuses p without applying anything.
---@param p agentls.Proposal
---@param reason string
function M.fail(p, reason)
  p.done = true
  clear(p)
  discard_created(p)
  local answer = { applied = false, failureReason = reason }
  record(p, answer)
  p.respond(answer)
  messages.warn('agentls: ' .. reason)
end

--- Writes bufnr with :write (its autocommands run, as for the user's own
--- :w). nil, or why it failed.
local function save(bufnr)
  local path = api.nvim_buf_get_name(bufnr)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local ok, err = pcall(api.nvim_buf_call, bufnr, function()
    vim.cmd('silent write')
  end)
  if not ok then
    return tostring(err):gsub('^.-(E%d+:)', '%1')
  end
end

--- Applies file f's accepted hunks to its buffer; client is the LSP client
--- a new file's buffer is attached to.
---@param f agentls.ProposalFile
---@param accepted agentls.Hunk[]
local function apply(p, f, accepted, client)
  if f.create then
    if #accepted > 0 then
      local h = accepted[1]
      api.nvim_buf_set_lines(f.bufnr, 0, -1, false, h.edited or h.new)
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
    return
  end
  if #accepted == 0 then
    return
  end
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

--- Applies the accepted hunks of p, saves the buffers, answers the server.
---@param p agentls.Proposal
function M.finish(p)
  if p.done then
    return
  end
  -- Nothing may have changed under the proposal while the user decided.
  for _, f in ipairs(p.files) do
    local now = compat.buf_version(f.bufnr)
    if not f.create and f.shown_version ~= nil and now ~= f.shown_version then
      return M.fail(p, string.format('version mismatch: %s changed while the proposal was shown (version %s, now %s)',
        state.display_name(f.uri), tostring(f.shown_version), tostring(now)))
    end
  end
  p.done = true
  clear(p)
  local client = compat.get_client(p.client_id)
  local any, total, taken = false, 0, 0
  local files, unsaved, save_errors = {}, {}, {}
  local apply_err = nil
  for _, f in ipairs(p.files) do
    local rejected, edited, accepted = {}, {}, {}
    for i, h in ipairs(f.hunks) do
      if h.state == 'accepted' then
        table.insert(accepted, h)
        if h.edited then
          table.insert(edited, i - 1)
        end
      else
        table.insert(rejected, i - 1)
      end
    end
    any = any or #accepted > 0
    total, taken = total + #f.hunks, taken + #accepted
    local ok, err = pcall(apply, p, f, accepted, client)
    if not ok then
      apply_err = apply_err or tostring(err)
    elseif #accepted > 0 and api.nvim_buf_is_valid(f.bufnr) then
      if config.options.save_on_accept then
        local serr = save(f.bufnr)
        if serr then
          table.insert(save_errors, state.display_name(f.uri) .. ': ' .. serr)
        end
      end
      if vim.bo[f.bufnr].modified then
        table.insert(unsaved, state.display_name(f.uri))
      end
    end
    local text = ''
    if api.nvim_buf_is_valid(f.bufnr) and not (f.create and #accepted == 0) then
      text = state.buf_text(f.bufnr)
    end
    table.insert(files, { uri = f.uri, text = text, rejectedHunks = rejected, editedHunks = edited })
  end
  local answer = { applied = any, agentls = { files = files } }
  if apply_err then
    answer.applied = false
    answer.failureReason = 'applying the edit failed: ' .. apply_err
  elseif not any then
    answer.failureReason = 'rejected by the user'
  end
  record(p, answer)
  p.respond(answer)
  if apply_err then
    return messages.error('agentls: ' .. answer.failureReason)
  elseif not any then
    return messages.info('agentls: rejected the change to ' .. p.names)
  end
  local what = string.format('agentls: applied %d of %d hunk%s to %s', taken, total, total == 1 and '' or 's', p.names)
  if #save_errors > 0 then
    return messages.warn(what .. '; not saved: ' .. table.concat(save_errors, '; '))
  elseif #unsaved > 0 then
    return messages.info(what .. ' (not saved: ' .. table.concat(unsaved, ', ') .. ')')
  end
  messages.info(what .. (config.options.save_on_accept and ' (saved)' or ''))
end

--- After a decision: answers p when every hunk is decided, else redraws it.
---@param p agentls.Proposal
function M.decided(p)
  if state.count_pending(p) == 0 then
    M.finish(p)
  else
    render.all(p)
  end
end

return M
