-- Shared driver for the headless scenario scripts (run by nvim_test.go).
-- A script does `local H = dofile(<this file>)`, then H.main(function() … end).
-- Everything the Go test asserts on is written as JSON to $AGENTLS_TEST_OUT;
-- the script exits with :cquit when a step fails or times out.
local H = {}

H.out = vim.env.AGENTLS_TEST_OUT
H.result = { answers = {}, notes = {} }

--- Waits up to ms for cond(), failing the script with what otherwise.
function H.wait(ms, cond, what)
  if not vim.wait(ms, cond, 5) then
    error('timed out after ' .. ms .. ' ms waiting for ' .. what, 2)
  end
end

function H.check(cond, what)
  if not cond then
    error('check failed: ' .. what, 2)
  end
end

--- setup() with the binary under test; every applyEdit answer is recorded.
function H.setup(opts)
  if vim.env.AGENTLS_TEST_LSP_LOG and vim.env.AGENTLS_TEST_LSP_LOG ~= '' then
    vim.lsp.set_log_level(vim.env.AGENTLS_TEST_LSP_LOG)
  end
  local agentls = require('agentls')
  local base = {
    cmd = { assert(vim.env.AGENTLS_BIN, 'AGENTLS_BIN'), 'serve' },
    on_decided = function(_, answer, entry)
      table.insert(H.result.answers, answer or { cancelled = entry and entry.cancelled })
    end,
  }
  agentls.setup(vim.tbl_deep_extend('force', base, opts or {}))
  -- The plugin sets no globals: catch one written from its code.
  setmetatable(_G, {
    __newindex = function(t, k, v)
      local src = debug.getinfo(2, 'S').source
      if src:find('agentls', 1, true) and not src:find('/tests/', 1, true) then
        error('agentls.nvim wrote the global ' .. tostring(k), 2)
      end
      rawset(t, k, v)
    end,
  })
  return agentls
end

--- Edits file and waits until the agentls client is attached and ready.
function H.open(file)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local client = require('agentls.client')
  H.wait(10000, function()
    local c = client.attached(0)
    return c ~= nil and c.initialized == true
  end, 'the agentls client to attach ' .. file)
  return vim.api.nvim_get_current_buf()
end

function H.text(bufnr)
  return require('agentls.proposal').buf_text(bufnr)
end

function H.wait_proposal(bufnr)
  local proposal = require('agentls.proposal')
  H.wait(15000, function()
    return proposal.proposal_for_buf(bufnr) ~= nil
  end, 'a proposal in buffer ' .. bufnr)
  return proposal.proposal_for_buf(bufnr)
end

--- The run id of the first run, once the server answered agentls.run.
function H.wait_run()
  local runs = require('agentls.runs')
  H.wait(10000, function()
    return #runs.order > 0
  end, 'agentls.run to answer')
  return runs.order[1]
end

function H.wait_run_end(id)
  local runs = require('agentls.runs')
  H.wait(15000, function()
    local r = runs.runs[id]
    return r ~= nil and r.state == 'done'
  end, 'run_end of ' .. tostring(id))
  return runs.runs[id]
end

--- The pid of this nvim's child process whose command line holds name.
function H.child_pid(name)
  local me = vim.fn.getpid()
  for _, entry in ipairs(vim.fn.readdir('/proc')) do
    if entry:match('^%d+$') then
      local stat = vim.fn.readfile('/proc/' .. entry .. '/stat')[1] or ''
      local ppid = tonumber(stat:match('^%d+ %b() %S+ (%d+)'))
      local cmd = table.concat(vim.fn.readfile('/proc/' .. entry .. '/cmdline', 'b'), ' ')
      if ppid == me and cmd:find(name, 1, true) then
        return tonumber(entry)
      end
    end
  end
end

--- Waits for the end of run id's progress: the server's last word on it,
--- after run_end and the answer shown.
function H.wait_progress_end(id)
  local runs = require('agentls.runs')
  H.wait(15000, function()
    for _, p in ipairs(runs.progress) do
      if p.kind == 'end' and p.token == 'agentls/' .. id then
        return true
      end
    end
    return false
  end, 'the progress end of ' .. tostring(id))
end

--- Presses keys as a user would (mappings apply).
function H.keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
end

--- The inline preview of bufnr: {deleted = {rows}, added = {lines}, headers = {texts}}.
function H.preview(bufnr)
  local ns = require('agentls.proposal').ns
  local config = require('agentls.config')
  local out = { deleted = {}, added = {}, headers = {}, added_hl = {} }
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    local row, d = m[2], m[4]
    if d.line_hl_group == config.options.highlights.delete or d.hl_group == config.options.highlights.delete then
      table.insert(out.deleted, row)
    end
    for _, vl in ipairs(d.virt_lines or {}) do
      table.insert(out.added, vl[1][1])
      table.insert(out.added_hl, vl[1][2])
    end
    for _, vt in ipairs(d.virt_text or {}) do
      table.insert(out.headers, vt[1])
    end
  end
  return out
end

local function collect()
  local ok, runs = pcall(require, 'agentls.runs')
  if ok then
    H.result.events = runs.events
    H.result.progress = runs.progress
    H.result.log = runs.log
    local list = {}
    for _, id in ipairs(runs.order) do
      local r = runs.runs[id]
      table.insert(list, { id = r.id, state = r.state, reason = r.reason, result = r.result, error = r.error, turns = r.turns })
    end
    H.result.runs = list
  end
  local okp, proposal = pcall(require, 'agentls.proposal')
  if okp then
    H.result.pending = #proposal.pending
  end
end

local function write()
  if not H.out then
    return
  end
  local ok, json = pcall(vim.json.encode, H.result)
  if not ok then
    json = vim.json.encode({ error = 'encoding the result: ' .. tostring(json) })
  end
  vim.fn.writefile({ json }, H.out)
end

--- Runs fn, writes the result and exits: 0 when fn passed, 1 otherwise.
function H.main(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.result.error = tostring(err)
  end
  H.result.ok = ok
  pcall(collect)
  write()
  if ok then
    vim.cmd('qall!')
  else
    vim.cmd('cquit 1')
  end
end

return H
