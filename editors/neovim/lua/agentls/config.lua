-- The plugin's options: defaults merged with what setup() got.
local M = {}

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
  -- Show $/progress in the command line when fidget.nvim is not installed.
  progress = true,
  -- vim.notify the result when a run ends.
  notify_result = true,
  -- Called as on_decided(params, answer) after a proposal is answered.
  on_decided = nil,
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

M.options = vim.deepcopy(M.defaults)

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
