-- The plugin's options: defaults merged with what setup() got. :help
-- agentls-setup documents each one.
local M = {}

--- setup()'s options (every field optional there).
---@class agentls.Options
---@field cmd string[] how to start the server
---@field cmd_env table<string, string>? extra environment for it
---@field settings table server settings (initializationOptions)
---@field root_markers string[] what marks a workspace root
---@field filetypes string[]? attach only these filetypes (nil: every file)
---@field autostart boolean start the server and attach on BufEnter/FileType
---@field keymaps table<string, string|false>|false the proposal keys
---@field open 'split'|'vsplit'|'tabnew'|'edit' how a proposal's (or a shown document's) buffer is opened
---@field save_on_accept boolean write the buffers of accepted changes with :write
---@field progress boolean echo progress when fidget.nvim is absent
---@field notify_result boolean show the result when a run ends
---@field on_decided fun(params: table, answer: table?, entry: agentls.HistoryEntry)?
---@field diagnostics boolean send the editor's diagnostics to the server
---@field diagnostics_debounce integer milliseconds a changed list waits before it is sent
---@field log_max_lines integer lines kept for :AgentLog
---@field flags table vim.lsp client flags
---@field highlights table<string, string> the preview's highlight groups

---@type agentls.Options
M.defaults = {
  -- How to start the server.
  cmd = { 'agentls', 'serve' },
  cmd_env = nil,
  -- Server settings, sent as initializationOptions (events = true is added).
  settings = {},
  -- The workspace root is the nearest directory holding one of these, else
  -- the current directory (or the file's own directory outside it).
  root_markers = { '.git' },
  -- Attach to buffers of these filetypes only; nil attaches every file.
  filetypes = nil,
  -- Start the server and attach file buffers on BufEnter/FileType.
  autostart = true,
  -- Buffer-local keys while a proposal is pending; false disables one key
  -- (or all of them, keymaps = false).
  keymaps = {
    accept_all = 'ga',
    reject_all = 'gr',
    accept_hunk = 'gh',
    reject_hunk = 'gx',
    edit_hunk = 'ge',
  },
  -- How a proposal's buffer is shown when no window has it: a command run
  -- before switching to it ('split', 'vsplit', 'tabnew'), or 'edit' (the
  -- current window).
  open = 'split',
  -- Write the buffers of accepted changes with :write, so that what the
  -- agent runs next (tests, builds) sees them.
  save_on_accept = true,
  -- Show $/progress in the command line when fidget.nvim is not installed.
  progress = true,
  -- vim.notify the result when a run ends.
  notify_result = true,
  -- Called as on_decided(params, answer) after a proposal is answered.
  on_decided = nil,
  -- Send the diagnostics the editor shows (every source but agentls) to the
  -- server, for the files in its workspace, so that the agent hears the
  -- problems its changes cause.
  diagnostics = true,
  -- How long a changed list waits before it is sent (later changes restart
  -- the wait).
  diagnostics_debounce = 200,
  -- Lines kept for :AgentLog.
  log_max_lines = 5000,
  -- vim.lsp client flags. didChange is sent at once so the server always
  -- reads the buffer the user sees.
  flags = { debounce_text_changes = 0 },
  -- Highlight groups of the preview.
  highlights = {
    delete = 'AgentlsDelete',
    add = 'AgentlsAdd',
    header = 'AgentlsHeader',
    accepted = 'AgentlsAccepted',
    rejected = 'AgentlsRejected',
  },
}

---@type agentls.Options
M.options = vim.deepcopy(M.defaults)

--- Sets the options: the defaults, with opts over them.
---@param opts table?
---@return agentls.Options
function M.set(opts)
  opts = opts or {}
  local o = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  if opts.keymaps == false then
    o.keymaps = {}
  end
  if opts.cmd then
    o.cmd = opts.cmd -- a list: not merged element-wise
  end
  if opts.root_markers then
    o.root_markers = opts.root_markers
  end
  if opts.settings then
    o.settings = vim.deepcopy(opts.settings)
  end
  M.options = o
  return o
end

return M
