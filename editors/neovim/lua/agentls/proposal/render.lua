-- Rendering: a proposal drawn in its buffers with extmarks. Removed rows
-- are highlighted, added lines are virtual lines below them, and each hunk
-- has a header at the end of its first row. The buffer's text is never
-- touched here.
local config = require('agentls.config')
local hunks = require('agentls.hunks')
local state = require('agentls.proposal.state')

local api = vim.api

local M = {}

local function hl(name)
  return config.options.highlights[name]
end

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
---@param h agentls.Hunk
local function shape(h)
  if not h.edited then
    return h.del_first, h.del_last, h.added
  end
  local p, s, added = hunks.trim(h.old, h.edited)
  return h.first + p, h.last - s, added
end

--- "ga/gr all · gh/gx hunk · ge edit", for the keys that are mapped.
function M.key_help()
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

local function header(h, i, n, help)
  local edited = h.edited and ' (edited)' or ''
  if h.state == 'pending' then
    return string.format(' agentls %d/%d%s · %s ', i, n, edited, help), hl('header')
  elseif h.state == 'accepted' then
    return string.format(' agentls %d/%d: accepted%s ', i, n, edited), hl('accepted')
  end
  return string.format(' agentls %d/%d: rejected ', i, n), hl('rejected')
end

--- Draws file f of a proposal in its buffer.
---@param f agentls.ProposalFile
function M.file(f)
  local b = f.bufnr
  if not api.nvim_buf_is_valid(b) then
    return
  end
  api.nvim_buf_clear_namespace(b, state.ns, 0, -1)
  local n = api.nvim_buf_line_count(b)
  local ts = vim.bo[b].tabstop
  local help = M.key_help()
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

    local label, label_hl = header(h, i, #f.hunks, help)
    api.nvim_buf_set_extmark(b, state.ns, head_row, 0, {
      virt_text = { { label, label_hl } },
      virt_text_pos = 'eol',
    })
    if h.state ~= 'rejected' then
      for r = df, math.min(dl, n - 1) do
        -- The whole line, past its end (line_hl_group is not reported by
        -- nvim_buf_get_extmarks on 0.7).
        api.nvim_buf_set_extmark(b, state.ns, r, 0, {
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
        api.nvim_buf_set_extmark(b, state.ns, anchor, 0, {
          virt_lines = vl,
          virt_lines_above = above,
        })
      end
    end
  end
end

--- Draws every file of p.
---@param p agentls.Proposal
function M.all(p)
  for _, f in ipairs(p.files) do
    M.file(f)
  end
end

--- Removes p's drawing from its buffers.
---@param p agentls.Proposal
function M.clear(p)
  for _, f in ipairs(p.files) do
    if api.nvim_buf_is_valid(f.bufnr) then
      api.nvim_buf_clear_namespace(f.bufnr, state.ns, 0, -1)
    end
  end
end

--- The window of the current tab that shows bufnr, or nil.
function M.window_for(bufnr)
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) == bufnr then
      return w
    end
  end
end

--- Shows bufnr in a window of the current tab, opened as the `open`
--- option says when none has it; returns the window and whether it was
--- opened for it.
function M.show(bufnr)
  local w = M.window_for(bufnr)
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

return M
