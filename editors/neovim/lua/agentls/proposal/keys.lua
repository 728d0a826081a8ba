-- Keys: the buffer-local mappings while a proposal is shown, and the
-- decisions they make (accept or reject everything or one hunk, edit a
-- hunk in a scratch split). The user's own mappings come back afterwards.
local answer = require('agentls.proposal.answer')
local config = require('agentls.config')
local messages = require('agentls.messages')
local render = require('agentls.proposal.render')
local state = require('agentls.proposal.state')

local api = vim.api

local M = {}

--- The proposal shown in bufnr (0 or nil: the current buffer), with a
--- warning when there is none.
local function current(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local p, f = state.proposal_for_buf(bufnr)
  if not p then
    messages.warn('agentls: no proposal is pending in this buffer')
  end
  return p, f, bufnr
end

--- The hunk under the cursor of f's window: the one whose rows hold the
--- cursor, else the nearest pending one.
---@param f agentls.ProposalFile
---@return agentls.Hunk?
local function hunk_at_cursor(f)
  local row = 0
  if api.nvim_get_current_buf() == f.bufnr then
    row = api.nvim_win_get_cursor(0)[1] - 1
  else
    local w = render.window_for(f.bufnr)
    if w then
      row = api.nvim_win_get_cursor(w)[1] - 1
    end
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
local function set_all(bufnr, decision)
  local p = current(bufnr)
  if not p then
    return
  end
  for _, f in ipairs(p.files) do
    for _, h in ipairs(f.hunks) do
      if h.state == 'pending' then
        h.state = decision
      end
    end
  end
  answer.decided(p)
end

--- Accepts every hunk still pending, in every file of the proposal.
---@param bufnr integer? the proposal's buffer (default: the current one)
function M.accept_all(bufnr)
  set_all(bufnr, 'accepted')
end

--- Rejects every hunk still pending, in every file of the proposal.
---@param bufnr integer?
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
    messages.warn('agentls: no hunk here')
    return nil
  end
  return p, f, h
end

local function set_hunk(bufnr, decision, index)
  local p, _, h = target(bufnr, index)
  if not p then
    return
  end
  h.state = decision
  answer.decided(p)
end

--- Accepts the hunk under the cursor (or hunk number index, from 1).
---@param bufnr integer?
---@param index integer?
function M.accept_hunk(bufnr, index)
  set_hunk(bufnr, 'accepted', index)
end

--- Rejects the hunk under the cursor (or hunk number index, from 1).
---@param bufnr integer?
---@param index integer?
function M.reject_hunk(bufnr, index)
  set_hunk(bufnr, 'rejected', index)
end

--- Opens the proposed text of the hunk under the cursor (or hunk number
--- index) in a scratch split; on :w or :q the text becomes the hunk's
--- replacement and the hunk is accepted. Returns the scratch buffer.
---@param bufnr integer?
---@param index integer?
---@return integer?
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
  pcall(api.nvim_buf_set_name, sb, string.format('agentls://proposal/%d/%s/hunk-%d', p.id, vim.fn.fnamemodify(state.fname(f.uri), ':t'), hi))
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
    answer.decided(p)
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

local actions = {
  accept_all = M.accept_all,
  reject_all = M.reject_all,
  accept_hunk = M.accept_hunk,
  reject_hunk = M.reject_hunk,
  edit_hunk = M.edit_hunk,
}

local descriptions = {
  accept_all = 'agentls: accept the whole proposal',
  reject_all = 'agentls: reject the whole proposal',
  accept_hunk = 'agentls: accept the hunk under the cursor',
  reject_hunk = 'agentls: reject the hunk under the cursor',
  edit_hunk = 'agentls: edit the hunk under the cursor, then accept it',
}

--- Maps the proposal keys in f's buffer; f.unmap takes them away and
--- brings back the user's own mappings of those keys.
---@param f agentls.ProposalFile
function M.set(f)
  local b = f.bufnr
  local saved, mapped = {}, {}
  for action, lhs in pairs(config.options.keymaps or {}) do
    if lhs and actions[action] then
      local old = vim.fn.maparg(lhs, 'n', false, true)
      if type(old) == 'table' and old.buffer == 1 then
        table.insert(saved, old)
      end
      vim.keymap.set('n', lhs, function()
        actions[action](b)
      end, { buffer = b, nowait = true, silent = true, desc = descriptions[action] })
      table.insert(mapped, lhs)
    end
  end
  f.unmap = function()
    if not api.nvim_buf_is_valid(b) then
      return
    end
    for _, lhs in ipairs(mapped) do
      pcall(vim.keymap.del, 'n', lhs, { buffer = b })
    end
    for _, m in ipairs(saved) do
      local opts = { noremap = m.noremap == 1, silent = m.silent == 1, nowait = m.nowait == 1, expr = m.expr == 1 }
      if m.callback then
        opts.callback = m.callback
      end
      if m.desc then
        opts.desc = m.desc
      end
      pcall(api.nvim_buf_set_keymap, b, 'n', m.lhs, m.rhs or '', opts)
    end
  end
end

return M
