-- Sessions: the conversations runs belong to. :AgentFollow and :AgentRun!
-- continue the current one, :AgentSessions lists the workspace's and picks
-- one to continue, :AgentRevert undoes a run's accepted changes. What a run
-- cost shows in :AgentRuns.
local client = require('agentls.client')
local compat = require('agentls.compat')
local runs = require('agentls.runs')

local M = {}

local nn = compat.nn

--- The session follow-ups go to: {id = 's-…', title = '…', client_id = the
--- server that holds it}, or nil.
M.current = nil
--- The last revert's answer (agentls.revert's RevertResult), for tests and
--- mappings of one's own.
M.last_revert = nil

--- dollars writes US dollars the way the server does: cents from a dime
--- up, two significant digits below.
function M.dollars(v)
  if v == 0 then
    return '$0'
  end
  if v >= 0.1 then
    return string.format('$%.2f', v)
  end
  local digits = 1 - math.floor(math.log10(v))
  local scale = 10 ^ digits
  local s = string.format('%.' .. digits .. 'f', math.floor(v * scale + 0.5) / scale)
  s = s:gsub('0+$', ''):gsub('%.$', '')
  return '$' .. s
end

--- cost is a usage's estimated cost ("$0.012", "cost unknown"), "" for none.
function M.cost(usage)
  usage = nn(usage)
  if type(usage) ~= 'table' then
    return ''
  end
  local c = nn(usage.cost) or 0
  if nn(usage.unpriced) then
    return c == 0 and 'cost unknown' or (M.dollars(c) .. ' + unpriced calls')
  end
  return M.dollars(c)
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO)
end

--- Notes a run's session: a new one becomes the current one.
function M.started(session_id, prompt, client_id)
  if session_id and (not M.current or M.current.id ~= session_id) then
    M.current = { id = session_id, title = vim.trim((prompt or ''):gsub('\n.*', '')), client_id = client_id }
  end
end

--- Runs prompt as a follow-up of the current session (opts as agentls.run's).
function M.follow(prompt, opts)
  if not M.current then
    notify('agentls: no conversation to follow up yet: :AgentRun starts one, :AgentSessions picks one', vim.log.levels.WARN)
    return
  end
  -- The session's server: the current buffer may be another's (an answer
  -- the server showed opens under a server of its own).
  opts = vim.tbl_extend('force', opts or {}, { session_id = M.current.id, client_id = M.current.client_id })
  require('agentls').run(prompt, opts)
end

--- Calls fn(result) with agentls.sessions' answer for the current buffer's
--- server.
function M.list(fn)
  local c = M.current and M.current.client_id and compat.get_client(M.current.client_id)
  if not c or compat.is_stopped(c) then
    c = client.for_buffer(vim.api.nvim_get_current_buf()) or client.any()
  end
  if not c then
    notify('agentls: the server is not running', vim.log.levels.WARN)
    return
  end
  client.execute(c, 'agentls.sessions', { action = 'list' }, function(err, result)
    if err then
      notify('agentls: ' .. tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    fn(result or {}, c.id)
  end)
end

--- The line that shows a session in a list.
function M.label(s)
  local rs = nn(s.runs) or {}
  return string.format('%s  %-40s %d run%s, %s', s.id, vim.trim((s.title or ''):gsub('\n.*', ' …')):sub(1, 40), #rs,
    #rs == 1 and '' or 's', M.cost(s.usage))
end

--- :AgentSessions: picks a session of the workspace to continue, then asks
--- what to do next.
function M.pick()
  M.list(function(result, client_id)
    for _, p in ipairs(nn(result.problems) or {}) do
      notify('agentls: ' .. p, vim.log.levels.WARN)
    end
    local list = nn(result.sessions) or {}
    if #list == 0 then
      notify('agentls: no conversations in this workspace yet')
      return
    end
    vim.ui.select(list, { prompt = 'agentls: continue which conversation?', format_item = M.label }, function(s)
      if not s then
        return
      end
      M.current = { id = s.id, title = s.title, client_id = client_id }
      vim.ui.input({ prompt = 'agentls: follow up: ' }, function(prompt)
        if prompt and vim.trim(prompt) ~= '' then
          M.follow(prompt)
        end
      end)
    end)
  end)
end

--- The latest finished run, or nil.
local function latest_finished()
  for i = #runs.order, 1, -1 do
    local r = runs.runs[runs.order[i]]
    if r and r.state == 'done' then
      return r
    end
  end
  return nil
end

--- :AgentRevert [runId]: undoes the accepted changes of run_id (default:
--- the latest finished run). The revert comes as a proposal, reviewed like
--- any other; the answer says what became of each file.
function M.revert(run_id)
  if not run_id or run_id == '' then
    local r = latest_finished()
    if not r then
      notify('agentls: no finished run to revert', vim.log.levels.WARN)
      return
    end
    run_id = r.id
  end
  local r = runs.runs[run_id]
  local c = (r and r.client_id and compat.get_client(r.client_id)) or client.for_buffer(vim.api.nvim_get_current_buf()) or client.any()
  if not c or compat.is_stopped(c) then
    notify('agentls: the server is not running', vim.log.levels.WARN)
    return
  end
  client.execute(c, 'agentls.revert', { runId = run_id }, function(err, result)
    if err then
      M.last_revert = { error = tostring(err.message or err) }
      notify('agentls: ' .. M.last_revert.error, vim.log.levels.WARN)
      return
    end
    M.last_revert = result
    local clean = nn(result.outcome) == 'applied'
    for _, f in ipairs(nn(result.files) or {}) do
      clean = clean and not nn(f.message)
    end
    notify('agentls: ' .. tostring(nn(result.summary) or 'reverted'), clean and vim.log.levels.INFO or vim.log.levels.WARN)
  end)
end

--- Defines :AgentFollow, :AgentSessions and :AgentRevert.
function M.define_commands()
  local api = vim.api
  api.nvim_create_user_command('AgentFollow', function(o)
    local opts = {}
    if o.range and o.range > 0 then
      opts.line1, opts.line2 = o.line1, o.line2
    end
    M.follow(o.args, opts)
  end, { nargs = '+', range = true, desc = 'agentls: follow up the current conversation' })
  api.nvim_create_user_command('AgentSessions', function()
    M.pick()
  end, { desc = "agentls: the workspace's conversations: pick one to continue" })
  api.nvim_create_user_command('AgentRevert', function(o)
    M.revert(o.args ~= '' and o.args or nil)
  end, {
    nargs = '?',
    desc = "agentls: undo a run's accepted changes (default: the latest run)",
    complete = function()
      local ids = {}
      for i = #runs.order, 1, -1 do
        local r = runs.runs[runs.order[i]]
        if r and r.state == 'done' then
          table.insert(ids, r.id)
        end
      end
      return ids
    end,
  })
end

return M
