-- Hunks: how a TextDocumentEdit's TextEdits are grouped for review, and what
-- each group does to whole lines. Pure functions over lines; no buffers.
--
-- The rule (documented in editors/neovim/README.md): the edits are sorted by
-- start position; edit k+1 belongs to the same hunk as edit k when it starts
-- on the line where edit k ends, or on the next line. A hunk covers the whole
-- lines its edits touch (its "block"); an edit that ends at character 0 of a
-- line below its start does not touch that line.
local compat = require('agentls.compat')

local M = {}

local function before(a, b)
  if a.line ~= b.line then
    return a.line < b.line
  end
  return a.character < b.character
end

local function copy_edit(e)
  return {
    range = {
      start = { line = e.range.start.line, character = e.range.start.character },
      ['end'] = { line = e.range['end'].line, character = e.range['end'].character },
    },
    newText = compat.nn(e.newText) or '',
  }
end

--- The last line an edit touches.
local function last_line(e)
  local s, t = e.range.start, e.range['end']
  if t.character == 0 and t.line > s.line then
    return t.line - 1
  end
  return t.line
end

--- Groups edits (TextEdit or AnnotatedTextEdit) into hunks: lists of plain
--- TextEdits, in document order.
function M.group(edits)
  local sorted = {}
  for i, e in ipairs(edits) do
    local c = copy_edit(e)
    c._order = i
    table.insert(sorted, c)
  end
  table.sort(sorted, function(a, b)
    if before(a.range.start, b.range.start) then
      return true
    end
    if before(b.range.start, a.range.start) then
      return false
    end
    return a._order < b._order
  end)
  local groups = {}
  local cur, cur_end = nil, nil
  for _, e in ipairs(sorted) do
    e._order = nil
    if cur and e.range.start.line <= cur_end + 1 then
      table.insert(cur, e)
      cur_end = math.max(cur_end, e.range['end'].line)
    else
      cur = { e }
      table.insert(groups, cur)
      cur_end = e.range['end'].line
    end
  end
  return groups
end

--- Describes one hunk against the buffer's lines (a list of strings):
--- {edits, first, last (0-based rows of the block), old (block lines),
--- new (block lines after the edits), del_first, del_last (rows removed,
--- del_last < del_first when none), added (lines added in their place)}.
function M.describe(edits, lines, encoding)
  local n = #lines
  local first = edits[1].range.start.line
  local last = first
  for _, e in ipairs(edits) do
    last = math.max(last, last_line(e))
  end
  if n == 0 then
    first, last = 0, -1
  else
    first = math.min(first, n - 1)
    last = math.max(first, math.min(last, n - 1))
  end
  local old = {}
  for r = first, last do
    table.insert(old, lines[r + 1])
  end
  -- The block as text: its lines, each with its newline.
  local block = table.concat(old, '\n') .. ((#old > 0) and '\n' or '')
  local function offset(pos)
    if pos.line < first then
      return 0
    end
    if pos.line > last then
      return #block
    end
    local off = 0
    for r = first, pos.line - 1 do
      off = off + #lines[r + 1] + 1
    end
    return off + compat.byte_index(lines[pos.line + 1], pos.character, encoding)
  end
  -- Apply from the end so earlier offsets stay valid.
  local text = block
  for i = #edits, 1, -1 do
    local e = edits[i]
    local s, t = offset(e.range.start), offset(e.range['end'])
    if t < s then
      s, t = t, s
    end
    text = text:sub(1, s) .. e.newText:gsub('\r\n?', '\n') .. text:sub(t + 1)
  end
  local new = M.split(text)
  local p, s, added = M.trim(old, new)
  return {
    edits = edits,
    first = first,
    last = last,
    old = old,
    new = new,
    del_first = first + p,
    del_last = last - s,
    added = added,
  }
end

--- Trims the lines old and new share at their start and end: it returns
--- how many lead (p) and trail (s), and the lines of new between them.
function M.trim(old, new)
  local p = 0
  while p < #old and p < #new and old[p + 1] == new[p + 1] do
    p = p + 1
  end
  local s = 0
  while s < #old - p and s < #new - p and old[#old - s] == new[#new - s] do
    s = s + 1
  end
  local added = {}
  for i = p + 1, #new - s do
    table.insert(added, new[i])
  end
  return p, s, added
end

--- Splits text into lines; a final newline ends the last line rather than
--- starting an empty one.
function M.split(text)
  if text == '' then
    return {}
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

--- The TextEdit that replaces a hunk's whole block with lines.
function M.replacement(h, lines)
  local text = table.concat(lines, '\n')
  if #lines > 0 then
    text = text .. '\n'
  end
  return {
    range = {
      start = { line = h.first, character = 0 },
      ['end'] = { line = h.last + 1, character = 0 },
    },
    newText = text,
  }
end

return M
