-- agentls without the plugin, configured as docs/editors.md says, on this
-- Neovim's own LSP client: a code action starts a run, the server asks
-- with window/showMessageRequest (answered as $AGENTLS_TEST_PLAN says),
-- and Neovim's own handlers apply the edit. Neovim's own question UIs are
-- driven, not replaced: vim.ui.select (0.12) and inputlist() (0.7) pick
-- the planned answer.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

H.main(function()
  local plan = vim.json.decode(vim.env.AGENTLS_TEST_PLAN)
  local bin = assert(vim.env.AGENTLS_BIN, 'AGENTLS_BIN')
  H.result.questions, H.result.apply_edits, H.result.shown, H.result.messages = {}, 0, {}, {}
  local answers = plan.answers

  -- What the user sees, and the answers the user gives.
  local function answer_for(actions)
    local want = table.remove(answers, 1)
    for i, a in ipairs(actions) do
      if a == want then
        return i
      end
    end
    error('the question offers no ' .. tostring(want) .. ': ' .. table.concat(actions, ' | '))
  end
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    for _, it in ipairs(items) do
      table.insert(titles, opts.format_item and opts.format_item(it) or tostring(it))
    end
    if opts.kind == 'codeaction' then
      for i, t in ipairs(titles) do
        if t:find(plan.action, 1, true) then
          return on_choice(items[i], i)
        end
      end
      error('no code action ' .. plan.action .. ' in ' .. table.concat(titles, ' | '))
    end
    table.insert(H.result.questions, { message = opts.prompt, actions = titles })
    local i = answer_for(titles)
    on_choice(items[i], i)
  end
  vim.fn.inputlist = function(lines) -- 0.7's handler: the message, a header, "1. Apply"…
    local titles = {}
    for i = 3, #lines do
      table.insert(titles, (lines[i]:gsub('^%d+%. ', '')))
    end
    table.insert(H.result.questions, { message = lines[1], actions = titles })
    return answer_for(titles)
  end

  -- What reaches Neovim's own handlers.
  local done = false
  local function wrap(method, fn)
    local orig = vim.lsp.handlers[method]
    vim.lsp.handlers[method] = function(err, result, ctx, cfg)
      fn(result)
      if orig then
        return orig(err, result, ctx, cfg)
      end
    end
  end
  wrap('workspace/applyEdit', function()
    H.result.apply_edits = H.result.apply_edits + 1
  end)
  wrap('window/showDocument', function(r)
    table.insert(H.result.shown, r.uri)
  end)
  wrap('window/showMessage', function(r)
    table.insert(H.result.messages, r.message)
  end)
  wrap('$/progress', function(r)
    if type(r.value) == 'table' and r.value.kind == 'end' then
      done = true
    end
  end)

  -- The configuration of docs/editors.md.
  vim.cmd('filetype on')
  if vim.fn.has('nvim-0.11') == 1 then
    vim.lsp.config('agentls', {
      cmd = { bin, 'serve' },
      filetypes = { 'go', 'python', 'lua', 'rust', 'javascript', 'typescript', 'c', 'cpp' },
      root_markers = { '.git' },
      init_options = { confirm = 'each' },
      settings = { agentls = { maxTurns = 50 } },
    })
    vim.lsp.enable('agentls')
  else
    local agentls_client
    local function agentls_attach(args)
      if vim.bo[args.buf].buftype ~= '' then
        return
      end
      if not agentls_client then
        agentls_client = vim.lsp.start_client({
          name = 'agentls',
          cmd = { bin, 'serve' },
          root_dir = vim.fn.getcwd(),
          init_options = { confirm = 'each' },
          settings = { agentls = { maxTurns = 50 } },
        })
      end
      vim.lsp.buf_attach_client(args.buf, agentls_client)
    end
    vim.api.nvim_create_autocmd('FileType', {
      pattern = { 'go', 'python', 'lua', 'rust', 'javascript', 'typescript', 'c', 'cpp' },
      callback = agentls_attach,
    })
  end

  vim.cmd('edit main.go')
  local b = vim.api.nvim_get_current_buf()
  H.wait(10000, function()
    for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
      if c.name == 'agentls' and c.initialized and vim.lsp.buf_is_attached(b, c.id) then
        return true
      end
    end
    return false
  end, 'agentls to attach main.go')

  -- The code action, on a selection of lines l1..l2.
  local l1, l2 = plan.lines[1], plan.lines[2]
  local last = vim.api.nvim_buf_get_lines(b, l2 - 1, l2, false)[1]
  if vim.fn.has('nvim-0.8') == 1 then
    vim.lsp.buf.code_action({ range = { start = { l1, 0 }, ['end'] = { l2, #last } } })
  else
    vim.lsp.buf.range_code_action(nil, { l1, 0 }, { l2, #last })
  end
  H.wait(20000, function()
    return done
  end, 'the run to end')
  H.result.buffer = H.text(b)
  H.result.modified = vim.bo[b].modified
  H.result.left = answers
end)
