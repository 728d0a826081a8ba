-- Runs: the table of runs built from agentls/event notifications and
-- $/progress, the :AgentLog transcript and the statusline text.
local compat = require('agentls.compat')
local config = require('agentls.config')
local messages = require('agentls.messages')

local M = {}

--- A subagent of a run, while it runs and after.
---@class agentls.Subagent
---@field id string its run id
---@field agent string its name
---@field task string?
---@field state 'running'|'done'
---@field reason string? why it ended

--- A run, as the plugin knows it from agentls.run's answer, agentls/event
--- and $/progress.
---@class agentls.Run
---@field id string
---@field client_id integer?
---@field state 'starting'|'running'|'done'
---@field prompt string?
---@field title string? its progress title
---@field message string? what it does now
---@field subject string? its last thought's subject
---@field turns integer
---@field reason string? why it ended (a stop reason, or 'server exited')
---@field result string?
---@field error string?
---@field subagents table<string, agentls.Subagent> its subagents by id
---@field started integer
---@field ended integer?

---@type table<string, agentls.Run> run id -> run; top-level runs only
M.runs = {}
M.order = {} -- run ids, oldest first
M.progress = {} -- every agentls $/progress value seen: {token, kind, title, message}
M.events = {} -- the last events seen: {seq, type, runId}
M.log = {} -- the :AgentLog lines

local nn = compat.nn
local MAX_EVENTS = 1000

local function get(id, client_id)
  local r = M.runs[id]
  if not r then
    r = { id = id, state = 'starting', client_id = client_id, turns = 0, started = os.time(), subagents = {} }
    M.runs[id] = r
    table.insert(M.order, id)
  end
  if client_id and not r.client_id then
    r.client_id = client_id
  end
  return r
end

--- A run the server just started (agentls.run's answer).
function M.started(client_id, id, prompt, session_id)
  local r = get(id, client_id)
  r.prompt = r.prompt or prompt
  r.session = r.session or session_id
  return r
end

local function running(r)
  return r.state == 'starting' or r.state == 'running'
end

--- The runs still going, oldest first.
function M.running()
  local out = {}
  for _, id in ipairs(M.order) do
    local r = M.runs[id]
    if running(r) then
      table.insert(out, r)
    end
  end
  return out
end

--- The latest run still going, or nil.
function M.latest_running()
  local rs = M.running()
  return rs[#rs]
end

--- The subagents of r still running, oldest first by id.
---@param r agentls.Run
---@return agentls.Subagent[]
function M.running_subagents(r)
  local out = {}
  for _, sub in pairs(r.subagents or {}) do
    if sub.state == 'running' then
      table.insert(out, sub)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- Ends every subagent of r still running.
local function end_subagents(r, reason)
  for _, sub in pairs(r.subagents or {}) do
    if sub.state == 'running' then
      sub.state, sub.reason = 'done', sub.reason or reason
    end
  end
end

-- The log ------------------------------------------------------------------

local LOG_NAME = 'agentls://log'
local log_buf = nil
local text_open = nil -- run id whose streamed text the last log line holds

local function log_buffer()
  if log_buf and vim.api.nvim_buf_is_valid(log_buf) then
    return log_buf
  end
  log_buf = nil
  return nil
end

local function trim_log()
  local max = config.options.log_max_lines or 5000
  local extra = #M.log - max
  if extra > 0 then
    for _ = 1, extra do
      table.remove(M.log, 1)
    end
    local b = log_buffer()
    if b then
      vim.bo[b].modifiable = true
      vim.api.nvim_buf_set_lines(b, 0, extra, false, {})
      vim.bo[b].modifiable = false
    end
  end
end

local function buf_append(lines, replace_last)
  local b = log_buffer()
  if not b then
    return
  end
  vim.bo[b].modifiable = true
  local n = vim.api.nvim_buf_line_count(b)
  local empty = n == 1 and vim.api.nvim_buf_get_lines(b, 0, 1, false)[1] == '' and #M.log == #lines
  if empty then
    vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  elseif replace_last then
    vim.api.nvim_buf_set_lines(b, n - 1, n, false, lines)
  else
    vim.api.nvim_buf_set_lines(b, n, n, false, lines)
  end
  vim.bo[b].modifiable = false
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == b then
      vim.api.nvim_win_set_cursor(w, { vim.api.nvim_buf_line_count(b), 0 })
    end
  end
end

--- Appends lines to the log.
function M.log_lines(lines)
  text_open = nil
  for _, l in ipairs(lines) do
    table.insert(M.log, l)
  end
  buf_append(lines, false)
  trim_log()
end

--- Appends a chunk of streamed text of run id.
local function log_text(id, chunk)
  local parts = vim.split(chunk, '\n', { plain = true })
  if text_open == id and #M.log > 0 then
    local last = table.remove(M.log)
    parts[1] = last .. parts[1]
    for _, p in ipairs(parts) do
      table.insert(M.log, p)
    end
    buf_append(parts, true)
  else
    parts[1] = '  ' .. parts[1]
    for _, p in ipairs(parts) do
      table.insert(M.log, p)
    end
    buf_append(parts, false)
  end
  text_open = id
  trim_log()
end

--- Opens the log in a split, or goes to it.
function M.open_log()
  local b = log_buffer()
  if not b then
    b = vim.fn.bufnr(LOG_NAME)
    if b <= 0 then
      b = vim.api.nvim_create_buf(true, true)
      vim.api.nvim_buf_set_name(b, LOG_NAME)
    end
    vim.bo[b].buftype = 'nofile'
    vim.bo[b].bufhidden = 'hide'
    vim.bo[b].swapfile = false
    vim.bo[b].filetype = 'agentlslog'
    vim.bo[b].modifiable = true
    vim.api.nvim_buf_set_lines(b, 0, -1, false, M.log)
    vim.bo[b].modifiable = false
    log_buf = b
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == b then
      vim.api.nvim_set_current_win(w)
      return b
    end
  end
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, b)
  vim.api.nvim_win_set_cursor(0, { math.max(1, vim.api.nvim_buf_line_count(b)), 0 })
  return b
end

-- Events ----------------------------------------------------------------------

local function first_line(s, n)
  s = tostring(s or '')
  s = s:gsub('^%s+', '')
  local l = s:match('^[^\n]*') or ''
  n = n or 120
  if #l > n then
    l = l:sub(1, n - 1) .. '…'
  end
  if l ~= s then
    if not l:find('…$') then
      l = l .. ' …'
    end
  end
  return l
end

local function args_summary(call)
  local args = nn(call.args)
  if type(args) ~= 'table' then
    return ''
  end
  for _, k in ipairs({ 'file_path', 'dir_path', 'pattern', 'command', 'objective' }) do
    if type(args[k]) == 'string' then
      return ' ' .. first_line(args[k], 80)
    end
  end
  return ''
end

local function stat(edit)
  return string.format('+%d −%d', edit.added or 0, edit.deleted or 0)
end

local function prefix(ev)
  local p = nn(ev.parentRunId)
  if p then
    return '  [' .. (nn(ev.agent) or 'subagent') .. '] '
  end
  return ''
end

--- Called for each agentls/event notification.
function M.on_event(ev, client_id)
  if type(ev) ~= 'table' then
    return
  end
  local typ, id = ev.type, nn(ev.runId)
  table.insert(M.events, { seq = nn(ev.seq), type = typ, runId = id })
  if #M.events > MAX_EVENTS then
    table.remove(M.events, 1)
  end
  local top = id and not nn(ev.parentRunId)
  local r = top and get(id, client_id) or nil
  local px = prefix(ev)
  if typ == 'run_start' then
    if r then
      r.state = 'running'
      r.prompt = nn(ev.text) or r.prompt
      M.log_lines({ '', '▶ ' .. id .. '  ' .. first_line(r.prompt or '', 200) })
    end
  elseif typ == 'turn_start' then
    if r then
      r.turns = nn(ev.turn) or r.turns
    end
  elseif typ == 'thought' then
    local subject = nn(ev.subject)
    if subject and subject ~= '' then
      local key = px .. subject
      if r then
        if r.subject ~= subject then
          r.subject = subject
          r.message = subject
          M.log_lines({ px .. '💭 ' .. subject })
        end
      elseif M._last_sub_subject ~= key then
        M._last_sub_subject = key
        M.log_lines({ px .. '💭 ' .. subject })
      end
    end
  elseif typ == 'text' then
    local t = nn(ev.text)
    if t and t ~= '' then
      log_text(id or '', t)
    end
  elseif typ == 'tool_call' then
    local call = nn(ev.call) or {}
    local shown = nn(call.display) or ((call.name or '?') .. args_summary(call))
    if r then
      r.message = shown
    end
    M.log_lines({ px .. '→ ' .. shown })
  elseif typ == 'tool_result' then
    local res = nn(ev.result) or {}
    local call = nn(ev.call) or {}
    local mark = nn(res.isError) and '✗ ' or '← '
    local shown = nn(res.display) or first_line(nn(res.output) or '', 160)
    M.log_lines({ px .. mark .. (call.name and (call.name .. ': ') or '') .. shown })
  elseif typ == 'edit_proposed' then
    local e = nn(ev.edit) or {}
    M.log_lines({ px .. '✎ proposed ' .. (nn(e.create) and 'new file ' or 'change to ') .. (e.name or e.path or '?') .. ' (' .. stat(e) .. ')' })
    require('agentls.proposal').on_edit_proposed(id, e, client_id)
  elseif typ == 'edit_decided' then
    local e = nn(ev.edit) or {}
    local line = px .. '✎ ' .. (e.name or e.path or '?') .. ': ' .. (nn(e.outcome) or '?')
    local msg = nn(e.message)
    if msg and msg ~= '' then
      line = line .. ' — ' .. first_line(msg, 160)
    end
    local rej = nn(e.rejectedHunks)
    if type(rej) == 'table' and #rej > 0 then
      line = line .. ' (rejected hunks: ' .. table.concat(rej, ', ') .. ')'
    end
    M.log_lines({ line })
  elseif typ == 'approval_requested' then
    local a = nn(ev.approval) or {}
    M.log_lines({ px .. '? ' .. (nn(a.tool) or '') .. ': ' .. first_line(nn(a.command) or nn(a.description) or '', 160) })
  elseif typ == 'approval_decided' then
    local a = nn(ev.approval) or {}
    M.log_lines({ px .. (nn(a.allowed) and '  allowed' or '  denied') })
  elseif typ == 'subagent_start' then
    local s = nn(ev.subagent) or {}
    local sid = nn(s.runId)
    if r and sid then
      r.subagents[sid] = { id = sid, agent = nn(s.agent) or '?', task = nn(s.task), state = 'running' }
    end
    M.log_lines({ '  ┌ subagent ' .. (nn(s.agent) or '?') .. ': ' .. first_line(nn(s.task) or '', 160) })
  elseif typ == 'subagent_end' then
    local s = nn(ev.subagent) or {}
    local e = nn(s['end']) or {}
    local sub = r and r.subagents[nn(s.runId) or '']
    if sub then
      sub.state, sub.reason = 'done', nn(e.reason)
    end
    M.log_lines({ '  └ subagent ' .. (nn(s.agent) or '?') .. ' ended: ' .. (nn(e.reason) or '?') })
  elseif typ == 'subagent_activity' then
    local inner = nn(ev.inner)
    if type(inner) == 'table' then
      inner.parentRunId = inner.parentRunId or id or 'subagent'
      M.on_event(inner, client_id)
      table.remove(M.events) -- counted once, as subagent_activity
    end
  elseif typ == 'retry' then
    local rt = nn(ev.retry) or {}
    M.log_lines({ px .. '↻ retry ' .. tostring(nn(rt.attempt) or '') .. ': ' .. first_line(nn(rt.error) or '', 160) })
  elseif typ == 'compressed' then
    local c = nn(ev.compressed) or {}
    M.log_lines({ px .. '⇣ history compressed (' .. tostring(nn(c.before)) .. ' → ' .. tostring(nn(c.after)) .. ' tokens)' })
  elseif typ == 'model_routed' then
    local m = nn(ev.routed) or {}
    M.log_lines({ px .. '⇢ model ' .. tostring(nn(m.model)) })
  elseif typ == 'run_end' then
    local e = nn(ev['end']) or {}
    if r then
      r.state = 'done'
      end_subagents(r, 'the run ended')
      r.reason = nn(e.reason)
      r.result = nn(e.result)
      r.error = nn(e.error)
      r.turns = nn(e.turns) or r.turns
      r.ended = os.time()
      r.usage = nn(ev.usage)
      r.session = nn(ev.sessionId) or r.session
    end
    local what = nn(e.result) or nn(e.error) or ''
    M.log_lines({ px .. '■ ' .. (id or '?') .. ' ended: ' .. tostring(nn(e.reason) or '?') .. (what ~= '' and (' — ' .. first_line(what, 300)) or '') })
    if r then
      require('agentls.proposal').on_run_end(id)
      if config.options.notify_result then
        if r.reason == 'goal' then
          messages.info('agentls: ' .. (r.result or 'done'))
        else
          messages.warn('agentls: run stopped (' .. tostring(r.reason) .. ')' .. (r.error and (': ' .. r.error) or ''))
        end
      end
    end
  end
end

--- Called when a client stops: its runs are over.
function M.on_client_exit(client_id)
  for _, r in pairs(M.runs) do
    if r.client_id == client_id and running(r) then
      r.state = 'done'
      r.reason = r.reason or 'server exited'
      end_subagents(r, 'server exited')
    end
  end
end

-- Progress -----------------------------------------------------------------

local function fidget_present()
  return package.loaded['fidget'] ~= nil or (pcall(require, 'fidget'))
end

M.fidget_present = fidget_present

--- Called for $/progress of an agentls client.
function M.on_progress(result, client_id)
  local token = nn(result.token)
  local val = nn(result.value)
  if type(val) ~= 'table' then
    return
  end
  -- agentls/<runId> is a run's token, agentls/<runId>/<subagent runId>
  -- one of its subagents'.
  local id, sub
  if type(token) == 'string' then
    id, sub = token:match('^agentls/([^/]+)/(.+)$')
    if not id then
      id = token:match('^agentls/([^/]+)$')
    end
  end
  local entry = { token = token, kind = val.kind, title = nn(val.title), message = nn(val.message) }
  table.insert(M.progress, entry)
  if #M.progress > MAX_EVENTS then
    table.remove(M.progress, 1)
  end
  local r = id and get(id, client_id) or nil
  if r and sub then
    local s = r.subagents[sub] or { id = sub, agent = '?', state = 'running' }
    r.subagents[sub] = s
    if val.kind == 'end' then
      s.state = 'done'
    end
  elseif r then
    r.token = token
    if val.kind == 'begin' then
      r.title = entry.title
    elseif entry.message then
      r.message = entry.message
    end
    if val.kind == 'end' then
      r.progress_done = true
    elseif r.state == 'starting' then
      r.state = 'running'
    end
  end
  if config.options.progress and val.kind ~= 'end' and not fidget_present() then
    local msg = entry.message or entry.title
    if msg then
      msg = msg:gsub('^agentls: ', '')
      messages.show('agentls: ' .. msg, vim.log.levels.INFO, false)
    end
  end
end

--- The statusline text: "agentls: 1 run · Reading main.go", or "" when no
--- run is going.
function M.status()
  local rs = M.running()
  if #rs == 0 then
    return ''
  end
  local r = rs[#rs]
  local s = string.format('agentls: %d run%s', #rs, #rs == 1 and '' or 's')
  local msg = r.message or r.title
  if msg and msg ~= '' then
    s = s .. ' · ' .. first_line(msg, 60)
  end
  return s
end

return M
