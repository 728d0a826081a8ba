-- agentls.nvim: the Neovim face of agentls. :help agentls documents it.
local compat = require('agentls.compat')
local config = require('agentls.config')
local diagnostics = require('agentls.diagnostics')
local client = require('agentls.client')
local messages = require('agentls.messages')
local proposal = require('agentls.proposal')
local runs = require('agentls.runs')
local sessions = require('agentls.sessions')

local api = vim.api

local M = {}

M.proposal = proposal
M.runs = runs
M.sessions = sessions

local function define_highlights()
  local links = {
    AgentlsDelete = 'DiffDelete',
    AgentlsAdd = 'DiffAdd',
    AgentlsHeader = 'DiffText',
    AgentlsAccepted = 'DiffAdd',
    AgentlsRejected = 'Comment',
  }
  for group, target in pairs(links) do
    vim.cmd(string.format('highlight default link %s %s', group, target))
  end
end

-- Selection ranges ------------------------------------------------------------

local function is_cont(byte)
  return byte ~= nil and byte >= 0x80 and byte < 0xC0
end

--- The LSP range of lines line1..line2 (1-based) of bufnr; with the
--- characterwise visual marks on exactly those lines, of the selection.
function M.selection_range(bufnr, line1, line2, encoding)
  local lines = api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false)
  if #lines == 0 then
    return nil
  end
  local first, last = lines[1], lines[#lines]
  local sb, eb = 0, #last
  if bufnr == api.nvim_get_current_buf() and vim.fn.visualmode() == 'v' then
    local s, e = vim.fn.getpos("'<"), vim.fn.getpos("'>")
    if s[2] == line1 and e[2] == line2 then
      sb = math.min(math.max(s[3] - 1, 0), #first)
      eb = math.min(e[3], #last) -- '> is on the last character: include it whole
      while eb < #last and is_cont(last:byte(eb + 1)) do
        eb = eb + 1
      end
    end
  end
  return {
    start = { line = line1 - 1, character = compat.char_index(first, sb, encoding) },
    ['end'] = { line = line2 - 1, character = compat.char_index(last, eb, encoding) },
  }
end

-- Runs -------------------------------------------------------------------------

--- How to start a run.
---@class agentls.RunOpts
---@field bufnr integer? the buffer whose file is the run's (default: the current one)
---@field line1 integer? with line2, the lines of the selection, the run's context (1-based)
---@field line2 integer?
---@field session_id string? a follow-up: continue this session
---@field client_id integer? the server to run on (a session's); default: the buffer's
---@field on_started fun(run_id: string)? called with the run's id

--- Starts a run.
---@param prompt string
---@param opts agentls.RunOpts?
function M.run(prompt, opts)
  opts = opts or {}
  if not prompt or vim.trim(prompt) == '' then
    messages.warn('agentls: a prompt is needed: :AgentRun {prompt}')
    return
  end
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  local c = opts.client_id and compat.get_client(opts.client_id)
  if c and compat.is_stopped(c) then
    c = nil
  end
  local other = c ~= nil and client.attached(bufnr) ~= c -- the buffer is another server's
  c = c or client.for_buffer(bufnr)
  if not c then
    return
  end
  local args = { prompt = prompt, sessionId = opts.session_id }
  local file = client.is_file_buffer(bufnr) and not vim.b[bufnr].agentls_pending_create and not other
  if file then
    args.uri = vim.uri_from_bufnr(bufnr)
  end
  client.when_ready(c, function(ready)
    if file and opts.line1 and opts.line2 then
      args.range = M.selection_range(bufnr, opts.line1, opts.line2, compat.offset_encoding(ready))
    end
    client.execute(ready, 'agentls.run', args, function(err, result)
      if err then
        messages.error('agentls: ' .. tostring(err.message or err))
        return
      end
      local id = type(result) == 'table' and result.runId or nil
      if id then
        runs.started(ready.id, id, prompt, result.sessionId)
        sessions.started(result.sessionId, prompt, ready.id)
        if opts.on_started then
          opts.on_started(id)
        end
      end
    end, file and bufnr or nil)
  end)
end

--- Cancels run_id, or the latest run still going.
---@param run_id string?
function M.cancel(run_id)
  local r
  if run_id and run_id ~= '' then
    r = runs.runs[run_id]
  else
    r = runs.latest_running()
    if not r then
      messages.warn('agentls: no run is going')
      return
    end
    run_id = r.id
  end
  local c = (r and r.client_id and compat.get_client(r.client_id)) or client.any()
  if not c or compat.is_stopped(c) then
    messages.warn('agentls: the server is not running')
    return
  end
  client.execute(c, 'agentls.cancel', { runId = run_id }, function(err)
    if err then
      messages.warn('agentls: ' .. tostring(err.message or err))
    end
  end)
end

--- Lines describing the runs, newest last.
function M.runs_lines()
  local lines = {}
  for _, id in ipairs(runs.order) do
    local r = runs.runs[id]
    local state = r.state
    if state == 'done' then
      state = 'ended: ' .. tostring(r.reason or '?')
    end
    local cost = sessions.cost(r.usage)
    local line = string.format('%s  %-16s %2d turn%s  %-9s %s', id, state, r.turns or 0, (r.turns or 0) == 1 and ' ' or 's',
      cost ~= '' and cost or '-', vim.trim((r.prompt or ''):gsub('\n.*', ' …')))
    if r.state ~= 'done' and r.message then
      line = line .. '  · ' .. r.message
    end
    table.insert(lines, line)
    for _, sub in ipairs(runs.running_subagents(r)) do
      table.insert(lines, string.format('  └ %s  running  %s', sub.agent, vim.trim((sub.task or ''):gsub('\n.*', ' …'))))
    end
  end
  return lines
end

function M.list_runs()
  local lines = M.runs_lines()
  if #lines == 0 then
    messages.info('agentls: no runs yet')
    return
  end
  local chunks = {}
  for _, l in ipairs(lines) do
    table.insert(chunks, { l .. '\n' })
  end
  api.nvim_echo(chunks, false, {})
end

--- The statusline text ("agentls: 1 run · Reading main.go"), "" when idle.
---@return string
function M.status()
  return runs.status()
end

M.open_log = runs.open_log

-- Decisions, for mappings of one's own.
M.accept_all = proposal.accept_all
M.reject_all = proposal.reject_all
M.accept_hunk = proposal.accept_hunk
M.reject_hunk = proposal.reject_hunk
M.edit_hunk = proposal.edit_hunk

-- Setup ------------------------------------------------------------------------

local function commands()
  api.nvim_create_user_command('AgentRun', function(o)
    local opts = {}
    if o.range and o.range > 0 then
      opts.line1, opts.line2 = o.line1, o.line2
    end
    if o.bang then
      sessions.follow(o.args, opts) -- :AgentRun! follows up the current conversation
      return
    end
    M.run(o.args, opts)
  end, { nargs = '+', range = true, bang = true, desc = 'agentls: run the agent with a prompt (a range is its context; ! follows up)' })
  api.nvim_create_user_command('AgentCancel', function(o)
    M.cancel(o.args ~= '' and o.args or nil)
  end, {
    nargs = '?',
    desc = 'agentls: cancel a run (default: the latest)',
    complete = function()
      local ids = {}
      for _, r in ipairs(runs.running()) do
        table.insert(ids, r.id)
      end
      return ids
    end,
  })
  api.nvim_create_user_command('AgentRuns', function()
    M.list_runs()
  end, { desc = 'agentls: list runs' })
  api.nvim_create_user_command('AgentLog', function()
    M.open_log()
  end, { desc = 'agentls: open the run transcript' })
  sessions.define_commands()
end

--- Sets the options, defines the commands and highlights, and (with
--- autostart) starts the server for the files you open.
---@param opts agentls.Options?
function M.setup(opts)
  config.set(opts)
  config.user_cmd = opts and opts.cmd ~= nil
  define_highlights()
  commands()
  if type(vim.lsp.config) == 'table' then
    -- Neovim 0.11+: `vim.lsp.enable('agentls')` starts the same client.
    local cfg = client.base_config()
    cfg.root_markers = config.options.root_markers
    pcall(vim.lsp.config, client.NAME, cfg)
  end
  local group = api.nvim_create_augroup('agentls', { clear = true })
  api.nvim_create_autocmd('ColorScheme', { group = group, callback = define_highlights })
  if config.options.diagnostics ~= false then
    diagnostics.listen(group)
  end
  if config.options.autostart then
    api.nvim_create_autocmd({ 'BufEnter', 'FileType' }, {
      group = group,
      callback = function(args)
        client.maybe_attach(args.buf)
      end,
    })
    client.maybe_attach(api.nvim_get_current_buf())
  end
  return M
end

return M
