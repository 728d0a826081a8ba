-- Proposal state: the proposals shown now and those answered, and the
-- lookups and buffer helpers every other part shares. No UI here.
local api = vim.api

local M = {}

--- One hunk of a file's edits (hunks.describe), and what the user made of it.
---@class agentls.Hunk
---@field edits table[] the TextEdits of the hunk, sorted
---@field first integer the first row of its block (0-based)
---@field last integer the last row of its block
---@field old string[] the block's lines now
---@field new string[] the block's lines with the edits
---@field del_first integer the first row it removes
---@field del_last integer the last row it removes (< del_first: none)
---@field added string[] the lines it adds in their place
---@field state 'pending'|'accepted'|'rejected'
---@field edited string[]? the user's own lines for the block (ge)
---@field top integer? the first row it is drawn on
---@field bottom integer? the last row it is drawn on

--- One file of a proposal.
---@class agentls.ProposalFile
---@field uri string
---@field version integer? the version the edit is for
---@field edits table[] its TextEdits (or AnnotatedTextEdits)
---@field create boolean? a new file (CreateFile)
---@field options table? the CreateFile options
---@field bufnr integer the buffer it is shown in
---@field created_buf boolean? the buffer was made for the proposal
---@field shown_version integer? the buffer's version when it was shown
---@field hunks agentls.Hunk[]
---@field scratch integer? the scratch buffer of ge
---@field unmap fun()? removes the proposal's keys (keys.set)

--- One workspace/applyEdit being decided.
---@class agentls.Proposal
---@field id integer
---@field client_id integer
---@field run_id string? the run that made it, when known
---@field respond agentls.Respond
---@field req agentls.Request
---@field params table the request's params
---@field label string?
---@field encoding string the server's position encoding
---@field files agentls.ProposalFile[]
---@field names string the files' names, for messages
---@field done boolean? answered or withdrawn

--- One answered proposal, newest last.
---@class agentls.HistoryEntry
---@field id integer
---@field label string?
---@field uris string[]
---@field run_id string?
---@field answer table? the ApplyWorkspaceEditResult sent (nil when withdrawn)
---@field cancelled string? why it was withdrawn
---@field params table

M.ns = api.nvim_create_namespace('agentls-proposal')
---@type agentls.Proposal[] shown now, oldest first
M.pending = {}
---@type agentls.HistoryEntry[] the last 100 answered
M.history = {}

function M.fname(uri)
  local ok, f = pcall(vim.uri_to_fname, uri)
  if ok then
    return f
  end
  return uri
end

function M.display_name(uri)
  return vim.fn.fnamemodify(M.fname(uri), ':~:.')
end

--- The buffer whose file is path, or nil (bufnr() would match patterns).
function M.find_buf(path)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == path then
      return b
    end
  end
end

function M.buf_lines(bufnr)
  return api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- The buffer's text as the server sees it.
function M.buf_text(bufnr)
  local text = table.concat(M.buf_lines(bufnr), '\n')
  if vim.bo[bufnr].eol then
    text = text .. '\n'
  end
  return text
end

--- The proposal shown in bufnr and the file it shows there.
---@return agentls.Proposal?, agentls.ProposalFile?
function M.proposal_for_buf(bufnr)
  for _, p in ipairs(M.pending) do
    for _, f in ipairs(p.files) do
      if f.bufnr == bufnr then
        return p, f
      end
    end
  end
end

---@return agentls.Proposal?
function M.by_id(id)
  for _, p in ipairs(M.pending) do
    if p.id == id then
      return p
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

--- How many hunks of p are still to decide.
function M.count_pending(p)
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

function M.remove(p)
  for i, q in ipairs(M.pending) do
    if q == p then
      table.remove(M.pending, i)
      return
    end
  end
end

return M
