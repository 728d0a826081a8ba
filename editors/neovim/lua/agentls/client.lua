-- The LSP client: starting agentls per workspace root, attaching buffers,
-- the per-client handlers, and requests to the server.
local compat = require('agentls.compat')
local config = require('agentls.config')
local diagnostics = require('agentls.diagnostics')
local messages = require('agentls.messages')
local proposal = require('agentls.proposal')
local runs = require('agentls.runs')

local api = vim.api
local nn = compat.nn

local M = {}

M.NAME = 'agentls'

local waiting = {} -- client id -> functions to run once it is initialized

--- Answers window/showMessageRequest with vim.ui.select, never blocking
--- the editor when vim.ui.select does not (the stock handler calls
--- inputlist()).
M.show_message_request = compat.async_handler(function(_, params, _, respond)
  local actions = nn(params.actions) or {}
  local message = nn(params.message) or ''
  if #actions == 0 then
    messages.info('agentls: ' .. message)
    return respond(vim.NIL)
  end
  vim.ui.select(actions, {
    prompt = 'agentls: ' .. message,
    format_item = function(a)
      return a.title
    end,
    kind = 'agentls.approval',
  }, function(choice)
    respond(choice or vim.NIL)
  end)
end)

local shown = {} -- path -> client id, for documents a client asked to show
M.shown = shown

local function under(path, dir)
  return path == dir or path:sub(1, #dir + 1) == dir .. '/'
end

--- Answers window/showDocument (a run's answer, a diff): opens the file as
--- the `open` option says, on every Neovim version (0.7 has no handler).
--- The buffer is attached to the client only when it lies in its root.
function M.show_document(_, params, ctx)
  if nn(params.external) then
    return { success = false }
  end
  local path = vim.uri_to_fname(params.uri)
  shown[path] = ctx.client_id
  local ok = pcall(function()
    local bufnr = vim.fn.bufadd(path)
    vim.fn.bufload(bufnr)
    vim.bo[bufnr].buflisted = true
    local win
    for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
      if api.nvim_win_get_buf(w) == bufnr then
        win = w
      end
    end
    if not win then
      local prev = api.nvim_get_current_win()
      local how = config.options.open or 'split'
      if how ~= 'edit' then
        vim.cmd(how)
      end
      api.nvim_win_set_buf(0, bufnr)
      win = api.nvim_get_current_win()
      if nn(params.takeFocus) == false then
        api.nvim_set_current_win(prev)
      end
    elseif nn(params.takeFocus) ~= false then
      api.nvim_set_current_win(win)
    end
    local sel = nn(params.selection)
    if type(sel) == 'table' and sel.start then
      pcall(api.nvim_win_set_cursor, win, { sel.start.line + 1, 0 })
    end
  end)
  return { success = ok }
end

--- Shows window/showMessage on one line (Neovim's own handler writes each
--- message on lines of its own, which stop at "Press ENTER").
function M.show_message(_, params)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  messages.show(nn(params.message) or '', levels[nn(params.type) or 3] or vim.log.levels.INFO)
end

--- The handlers every agentls client gets (in its own handlers table, not
--- vim.lsp.handlers).
function M.handlers()
  return {
    ['workspace/applyEdit'] = proposal.handler,
    ['window/showMessageRequest'] = M.show_message_request,
    ['window/showDocument'] = M.show_document,
    ['window/showMessage'] = M.show_message,
    ['$/progress'] = function(err, result, ctx, cfg)
      local default = vim.lsp.handlers['$/progress']
      local ret
      if default then
        -- Neovim's own: client.progress, LspProgress (0.10+) or
        -- LspProgressUpdate, which fidget.nvim and statuslines listen to.
        local ok, r = pcall(default, err, result, ctx, cfg)
        ret = ok and r or nil
      end
      if result then
        runs.on_progress(result, ctx.client_id)
      end
      return ret
    end,
    ['agentls/event'] = function(_, params, ctx)
      runs.on_event(params, ctx.client_id)
    end,
    ['$/cancelRequest'] = function(_, params, ctx)
      proposal.on_cancel_request(params, ctx.client_id)
    end,
  }
end

--- The client capabilities: Neovim's, plus what the plugin handles itself.
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = vim.tbl_extend('force', caps.workspace.workspaceEdit or {}, {
    documentChanges = true,
    resourceOperations = { 'create' },
    failureHandling = 'abort',
    changeAnnotationSupport = { groupsOnLabel = false },
  })
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  caps.window.showDocument = { support = true }
  caps.experimental = caps.experimental or {}
  if type(caps.experimental) == 'table' then
    -- The plugin reviews proposals hunk by hunk and answers applyEdit with
    -- the "agentls" result field (see editors/neovim/README.md).
    caps.experimental.agentls = { hunkReview = true }
  end
  return caps
end

local function on_init(client)
  local fns = waiting[client.id] or {}
  waiting[client.id] = nil
  -- Later: the buffers attached before initialization get their didOpen
  -- right after on_init, and a run must see them.
  vim.schedule(function()
    diagnostics.initial(client)
    for _, fn in ipairs(fns) do
      local ok, err = pcall(fn, client)
      if not ok then
        messages.error('agentls: ' .. tostring(err))
      end
    end
  end)
end

local function on_exit(code, signal, client_id)
  vim.schedule(function()
    waiting[client_id] = nil
    proposal.on_client_exit(client_id)
    runs.on_client_exit(client_id)
  end)
end

--- The parts of the client configuration that do not depend on the root.
function M.base_config()
  local o = config.options
  local settings = vim.deepcopy(o.settings or {})
  if type(settings.agentls) == 'table' and vim.tbl_count(settings) == 1 then
    settings = settings.agentls -- the server takes both forms; events is added at the top
  end
  local init = vim.tbl_extend('force', settings, { events = true, diagnostics = o.diagnostics ~= false })
  return {
    name = M.NAME,
    cmd = o.cmd,
    cmd_env = o.cmd_env,
    init_options = init,
    -- workspace/configuration (section "agentls") answers the same.
    settings = { agentls = vim.deepcopy(init) },
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    flags = vim.deepcopy(o.flags or {}),
  }
end

--- The client configuration for a workspace root.
function M.client_config(root)
  local cfg = M.base_config()
  -- Neovim 0.11+: the user may configure agentls with vim.lsp.config too;
  -- setup()'s options, the handlers and events win.
  if type(vim.lsp.config) == 'table' then
    local ok, user = pcall(function()
      return vim.lsp.config[M.NAME]
    end)
    if ok and type(user) == 'table' then
      local base = vim.deepcopy(user)
      base.root_dir, base.workspace_folders, base.root_markers, base.filetypes = nil, nil, nil, nil
      local user_cmd = base.cmd
      cfg = vim.tbl_deep_extend('force', base, cfg)
      if user_cmd and not config.user_cmd then
        cfg.cmd = user_cmd
      end
    end
  end
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  local user_init, user_exit = cfg.on_init, cfg.on_exit
  cfg.on_init = function(c, result)
    if type(user_init) == 'function' then
      pcall(user_init, c, result)
    end
    on_init(c)
  end
  cfg.on_exit = function(code, signal, client_id)
    if type(user_exit) == 'function' then
      pcall(user_exit, code, signal, client_id)
    end
    on_exit(code, signal, client_id)
  end
  return cfg
end

-- Roots and buffers -------------------------------------------------------------

local function is_file_buffer(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return false
  end
  return true
end

M.is_file_buffer = is_file_buffer

--- The workspace root for a file (or the current directory for nil).
function M.root_for(path)
  local cwd = vim.fn.getcwd()
  if not path then
    return compat.find_root(cwd, config.options.root_markers or {}) or cwd
  end
  local root = compat.find_root(path, config.options.root_markers or {})
  if root then
    return root
  end
  if under(path, cwd) then
    return cwd
  end
  return vim.fn.fnamemodify(path, ':h')
end

local started = {} -- root -> client id, for clients this plugin started

--- Every agentls client, initialized or not.
local function all_clients()
  local seen, out = {}, {}
  for _, id in pairs(started) do
    local c = compat.get_client(id)
    if c and not compat.is_stopped(c) and not seen[c.id] then
      seen[c.id] = true
      table.insert(out, c)
    end
  end
  for _, c in ipairs(compat.clients(M.NAME)) do
    if not compat.is_stopped(c) and not seen[c.id] then
      seen[c.id] = true
      table.insert(out, c)
    end
  end
  return out
end

M.all_clients = all_clients

local function client_for_root(root)
  for _, c in ipairs(all_clients()) do
    if c.config and c.config.root_dir == root then
      return c
    end
  end
end

local function attached(bufnr)
  for _, c in ipairs(all_clients()) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then
      return c
    end
  end
end

M.attached = attached

--- Starts the client for root (or reuses it), attaching bufnr when given.
--- Returns the client id, or nil.
function M.start(root, bufnr)
  local c = client_for_root(root)
  if c then
    if bufnr then
      vim.lsp.buf_attach_client(bufnr, c.id)
    end
    return c.id
  end
  local cfg = M.client_config(root)
  local id
  if compat.nvim_011 then
    id = vim.lsp.start(cfg, { bufnr = bufnr, attach = bufnr ~= nil })
  elseif vim.lsp.start and bufnr and bufnr == api.nvim_get_current_buf() then
    id = vim.lsp.start(cfg)
  else
    id = vim.lsp.start_client(cfg)
  end
  if not id then
    messages.error('agentls: could not start ' .. table.concat(cfg.cmd or {}, ' '))
    return nil
  end
  started[root] = id
  if bufnr then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- Attaches bufnr when it is a file buffer the plugin serves.
function M.maybe_attach(bufnr)
  if not is_file_buffer(bufnr) or vim.b[bufnr].agentls_pending_create then
    return
  end
  local fts = config.options.filetypes
  if fts and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return
  end
  if attached(bufnr) then
    return
  end
  local path = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ':p')
  local by = shown[path]
  if by then
    -- A document a client showed (an answer, a diff in the server's cache
    -- directory): no client of its own; its client's when in its root.
    local c = compat.get_client(by)
    local root = c and c.config and c.config.root_dir
    if c and not compat.is_stopped(c) and root and under(path, root) then
      vim.lsp.buf_attach_client(bufnr, c.id)
      return c.id
    end
    return
  end
  return M.start(M.root_for(path), bufnr)
end

--- The client for bufnr: the one attached to it, else (starting it) the one
--- for its root or the current directory's.
function M.for_buffer(bufnr)
  local c = attached(bufnr)
  if c then
    return c
  end
  local id
  if is_file_buffer(bufnr) and not vim.b[bufnr].agentls_pending_create then
    id = M.maybe_attach(bufnr)
    if not id then
      id = M.start(M.root_for(vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ':p')), bufnr)
    end
  else
    id = M.start(M.root_for(nil), nil)
  end
  return id and compat.get_client(id) or nil
end

--- Calls fn(client) once the client is initialized.
function M.when_ready(client, fn)
  if compat.is_initialized(client) then
    return fn(client)
  end
  waiting[client.id] = waiting[client.id] or {}
  table.insert(waiting[client.id], fn)
end

--- Any running agentls client (the first).
function M.any()
  return all_clients()[1]
end

--- workspace/executeCommand on client; handler(err, result).
function M.execute(client, command, args, handler, bufnr)
  M.when_ready(client, function(c)
    compat.request(c, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
      handler(err, nn(result))
    end, bufnr)
  end)
end

return M
