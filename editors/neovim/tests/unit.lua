-- Unit checks that need no server: hunk grouping, position encodings, both
-- ways of answering a request later (the coroutine of Neovim 0.10+ and the
-- encoder rewrite of 0.7-0.9), the version check, approvals and ranges.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helper.lua')

local function eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format('%s:\n got  %s\n want %s', what, vim.inspect(got), vim.inspect(want)), 2)
  end
end

local function te(l1, c1, l2, c2, text)
  return { range = { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }, newText = text }
end

H.main(function()
  local agentls = H.setup({ cmd = { 'agentls-not-installed', 'serve' }, autostart = false })
  local hunks = require('agentls.hunks')
  local compat = require('agentls.compat')
  local proposal = require('agentls.proposal')

  -- Grouping: edits touching or on the next line share a hunk.
  local g = hunks.group({ te(5, 0, 5, 1, 'x'), te(0, 0, 0, 1, 'a'), te(1, 0, 1, 1, 'b'), te(3, 0, 3, 1, 'c') })
  eq(#g, 3, 'hunk count')
  eq(#g[1], 2, 'edits on lines 0 and 1 share a hunk')
  eq(g[2][1].newText, 'c', 'line 3 alone')
  eq(g[3][1].newText, 'x', 'line 5 alone')
  eq(#hunks.group({ te(0, 0, 2, 0, 'a'), te(3, 0, 3, 1, 'b') }), 1, 'an edit ending at 2:0 and one starting on line 3')

  -- The contract's vectors, shared with the server and the VS Code extension.
  local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
  local vectors = vim.json.decode(table.concat(vim.fn.readfile(here .. '/../../../docs/schema/hunk-vectors.json'), '\n')).vectors
  assert(#vectors >= 5, 'hunk vectors missing')
  for _, v in ipairs(vectors) do
    local edits = {}
    for i, s in ipairs(v.spans) do
      table.insert(edits, te(s.start, 0, s['end'], 0, tostring(i - 1)))
    end
    local got = {}
    for _, h in ipairs(hunks.group(edits)) do
      local first, last = h[1], h[#h]
      local hs, he = math.huge, -1
      for _, e in ipairs(h) do
        hs, he = math.min(hs, e.range.start.line), math.max(he, e.range['end'].line)
      end
      table.insert(got, { first = tonumber(first.newText), last = tonumber(last.newText), start = hs, ['end'] = he })
    end
    eq(got, v.hunks, 'hunk vector ' .. v.name)
  end

  -- UTF-16 positions after multibyte text.
  local line = '\tfmt.Println("héllo 日本 😀", Hello())'
  local col = vim.str_utfindex(line, #line - 8) -- utf-32
  local s16 = select(2, vim.str_utfindex(line, #line - 8))
  H.check(s16 == col + 1, 'the emoji is two UTF-16 units')
  local h = hunks.describe({ te(0, s16, 0, s16 + 5, 'Greet') }, { line }, 'utf-16')
  eq(h.added, { '\tfmt.Println("héllo 日本 😀", Greet())' }, 'utf-16 edit applied')
  eq({ h.del_first, h.del_last }, { 0, 0 }, 'the changed row')
  local h8 = hunks.describe({ te(0, #line - 8, 0, #line - 3, 'Greet') }, { line }, 'utf-8')
  eq(h8.added, h.added, 'utf-8 edit applied')
  eq(compat.char_index('日本x', 6, 'utf-16'), 2, 'char_index utf-16')
  eq(compat.byte_index('日本x', 2, 'utf-16'), 6, 'byte_index utf-16')

  -- A pure insertion shows only the inserted lines.
  local ins = hunks.describe({ te(1, 0, 1, 0, 'new\n') }, { 'a', 'b' }, 'utf-16')
  eq(ins.added, { 'new' }, 'inserted lines')
  H.check(ins.del_last < ins.del_first, 'an insertion deletes nothing')
  eq(ins.del_first, 1, 'inserted before row 1')
  -- A deletion adds nothing.
  local del = hunks.describe({ te(0, 0, 1, 0, '') }, { 'a', 'b' }, 'utf-16')
  eq({ del.del_first, del.del_last, #del.added }, { 0, 0, 0 }, 'deleted row 0')

  -- The handler in a coroutine (Neovim 0.10+): it yields until decided.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local path = dir .. '/x.txt'
  vim.fn.writefile({ 'one', 'two', 'three', 'four' }, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(b)
  local params = { label = 'test', edit = { documentChanges = { {
    textDocument = { uri = uri, version = vim.NIL },
    edits = { te(0, 0, 0, 3, 'ONE'), te(3, 0, 3, 4, 'FOUR') },
  } } } }
  vim.api.nvim_buf_set_keymap(b, 'n', 'ga', ':echo "mine"<CR>', { noremap = true })
  local got = nil
  coroutine.wrap(function()
    local res, err = proposal.handler(nil, params, { client_id = 99, method = 'workspace/applyEdit' })
    got = { res = res, err = err }
  end)()
  H.check(got == nil, 'the handler answered before the user decided')
  local p = proposal.proposal_for_buf(b)
  H.check(p ~= nil and p.req.async == 'coroutine', 'no coroutine proposal')
  eq(#p.files[1].hunks, 2, 'two hunks')
  proposal.reject_hunk(b, 2)
  H.check(got == nil, 'answered after one hunk of two')
  proposal.accept_hunk(b, 1)
  H.wait(2000, function()
    return got ~= nil
  end, 'the coroutine answer')
  eq(got.res.applied, true, 'applied')
  eq(got.res.agentls.files[1].rejectedHunks, { 1 }, 'rejected hunk 2 (index 1)')
  eq(got.res.agentls.files[1].text, 'ONE\ntwo\nthree\nfour\n', 'final text')
  eq(vim.api.nvim_buf_get_lines(b, 0, -1, false), { 'ONE', 'two', 'three', 'four' }, 'buffer')
  eq(vim.fn.maparg('ga', 'n'), ':echo "mine"<CR>', 'the user\'s own ga is back')
  vim.api.nvim_buf_del_keymap(b, 'n', 'ga')

  -- The run a proposal comes from is the one its annotation id names.
  got = nil
  coroutine.wrap(function()
    got = { res = proposal.handler(nil, { edit = {
      documentChanges = { { textDocument = { uri = uri, version = vim.NIL },
        edits = { { range = te(1, 0, 1, 3, '').range, newText = 'TWO', annotationId = 'agentls/main-77/1' } } } },
      changeAnnotations = { ['agentls/main-77/1'] = { label = 'agentls: x.txt', needsConfirmation = true } },
    } }, { client_id = 99 }) }
  end)()
  eq(proposal.proposal_for_buf(b).run_id, 'main-77', 'the run of an annotated proposal')
  proposal.reject_all(b)
  H.wait(2000, function()
    return got ~= nil
  end, 'the answer to the annotated proposal')

  -- A stale version is refused at once, without a preview.
  got = nil
  params.edit.documentChanges[1].textDocument.version = 12345
  coroutine.wrap(function()
    got = { res = proposal.handler(nil, params, { client_id = 99 }) }
  end)()
  H.check(got ~= nil and got.res.applied == false, 'a stale edit was not refused at once')
  H.check(got.res.failureReason:find('^version mismatch') ~= nil, 'reason: ' .. tostring(got.res.failureReason))
  H.check(proposal.proposal_for_buf(b) == nil, 'a stale edit was shown')

  -- The encoder rewrite (Neovim 0.7-0.9): the placeholder answer becomes a
  -- $/agentls/deferred notification, the decision a response with the id.
  local sent = {}
  local fake = { id = 77, rpc = { notify = function(method, prm)
    table.insert(sent, vim.json.encode({ jsonrpc = '2.0', method = method, params = prm }))
    return true
  end } }
  local real_get = vim.lsp.get_client_by_id
  vim.lsp.get_client_by_id = function(id)
    if id == 77 then
      return fake
    end
    return real_get(id)
  end
  local ok, err = pcall(function()
    params.edit.documentChanges[1].textDocument.version = vim.NIL
    local placeholder = proposal.handler(nil, params, { client_id = 77 })
    local wire = vim.json.decode(vim.json.encode({ id = 5, jsonrpc = '2.0', result = placeholder }))
    eq(wire, { jsonrpc = '2.0', method = '$/agentls/deferred', params = { id = 5 } }, 'placeholder on the wire')
    eq(vim.json.encode({ 1, 2 }), '[1,2]', 'other messages are untouched')
    proposal.reject_all(b)
    eq(#sent, 1, 'one message sent')
    local resp = vim.json.decode(sent[1])
    eq(resp.id, 5, 'response id')
    eq(resp.result.applied, false, 'applied')
    eq(resp.result.failureReason, 'rejected by the user', 'failure reason')
    eq(resp.result.agentls.files[1].rejectedHunks, { 0, 1 }, 'all hunks rejected')
    eq(resp.method, nil, 'a response, not a notification')
  end)
  vim.lsp.get_client_by_id = real_get
  if not ok then
    error(err)
  end
  H.check(vim.json.encode == vim.json.encode and #sent == 1, 'sent')

  -- $/cancelRequest withdraws a proposal whose request id is known.
  vim.lsp.get_client_by_id = function(id)
    if id == 77 then
      return fake
    end
    return real_get(id)
  end
  ok, err = pcall(function()
    sent = {}
    local placeholder = proposal.handler(nil, params, { client_id = 77 })
    vim.json.encode({ id = 6, jsonrpc = '2.0', result = placeholder })
    H.check(proposal.proposal_for_buf(b) ~= nil, 'no proposal')
    proposal.on_cancel_request({ id = 6 }, 77)
    H.check(proposal.proposal_for_buf(b) == nil, 'not withdrawn')
    local resp = vim.json.decode(sent[1])
    eq({ resp.id, resp.error.code }, { 6, -32800 }, 'cancelled response')
    eq(#vim.api.nvim_buf_get_extmarks(b, proposal.ns, 0, -1, {}), 0, 'preview cleared')
  end)
  vim.lsp.get_client_by_id = real_get
  if not ok then
    error(err)
  end

  -- Editing the only hunk: :w in the scratch split decides the proposal
  -- (from inside the scratch buffer's BufWriteCmd); the last line's
  -- deletion is highlighted up to the end of the buffer.
  vim.cmd('only')
  vim.api.nvim_set_current_buf(b)
  local function ask(p2)
    local ans = nil
    coroutine.wrap(function()
      ans = { res = proposal.handler(nil, p2, { client_id = 99 }) }
    end)()
    return function()
      return ans
    end
  end
  local answer = ask({ edit = { documentChanges = { {
    textDocument = { uri = uri, version = vim.NIL },
    edits = { te(3, 0, 4, 0, 'last\n') },
  } } } })
  local marks = vim.api.nvim_buf_get_extmarks(b, proposal.ns, 0, -1, { details = true })
  local deleted = {}
  for _, m in ipairs(marks) do
    if m[4].hl_group == 'AgentlsDelete' then
      table.insert(deleted, { m[2], m[4].end_row })
    end
  end
  eq(deleted, { { 3, 4 } }, 'the last line highlighted')
  local sb = proposal.edit_hunk(b, 1)
  eq(vim.api.nvim_buf_get_lines(sb, 0, -1, false), { 'last' }, 'scratch text')
  vim.api.nvim_buf_set_lines(sb, 0, -1, false, { 'mine', 'and more' })
  vim.cmd('write')
  H.wait(2000, function()
    return answer() ~= nil
  end, 'the answer after :w')
  local res = answer().res
  eq({ res.applied, res.agentls.files[1].editedHunks, res.agentls.files[1].text },
    { true, { 0 }, 'ONE\ntwo\nthree\nmine\nand more\n' }, 'edited answer')
  H.wait(2000, function()
    return not vim.api.nvim_buf_is_valid(sb)
  end, 'the scratch buffer to go')

  -- The buffer changes while the proposal is shown: nothing is applied.
  vim.lsp.util.buf_versions[b] = 41
  answer = ask({ edit = { documentChanges = { {
    textDocument = { uri = uri, version = 41 },
    edits = { te(0, 0, 0, 3, 'uno') },
  } } } })
  H.check(proposal.proposal_for_buf(b) ~= nil, 'the versioned proposal is not shown')
  vim.lsp.util.buf_versions[b] = 42 -- as a didChange would
  proposal.accept_all(b)
  H.wait(2000, function()
    return answer() ~= nil
  end, 'the answer after a change')
  eq(answer().res.applied, false, 'applied after the buffer changed')
  H.check(answer().res.failureReason:find('^version mismatch') ~= nil, 'reason: ' .. answer().res.failureReason)
  eq(vim.api.nvim_buf_get_lines(b, 0, 1, false)[1], 'ONE', 'the buffer after a refused proposal')
  vim.lsp.util.buf_versions[b] = nil

  -- A new file, rejected: the buffer made for it goes away.
  local newpath = dir .. '/new.txt'
  local newuri = vim.uri_from_fname(newpath)
  answer = ask({ edit = { documentChanges = {
    { kind = 'create', uri = newuri, options = { overwrite = false, ignoreIfExists = false } },
    { textDocument = { uri = newuri, version = vim.NIL }, edits = { te(0, 0, 0, 0, 'hello\nworld\n') } },
  } } })
  local nb = vim.fn.bufnr(newpath)
  H.check(nb > 0 and vim.api.nvim_get_current_buf() == nb, 'the new buffer is not shown')
  eq(require('agentls.client').attached(nb), nil, 'attached before accepting')
  proposal.reject_all(nb)
  H.wait(2000, function()
    return answer() ~= nil
  end, 'the answer for the new file')
  eq({ answer().res.applied, answer().res.failureReason }, { false, 'rejected by the user' }, 'new file rejected')
  H.check(vim.fn.bufnr(newpath) == -1, 'the new buffer is still there')
  H.check(vim.fn.filereadable(newpath) == 0, 'the new file was written')
  vim.api.nvim_set_current_buf(b)

  -- Approvals through vim.ui.select, answered later.
  local client = require('agentls.client')
  vim.ui.select = function(items, opts, on_choice)
    H.result.select_prompt = opts.prompt
    vim.schedule(function()
      on_choice(items[2])
    end)
  end
  got = nil
  coroutine.wrap(function()
    got = { res = client.show_message_request(nil, {
      type = 3, message = 'Run `go test ./...`?',
      actions = { { title = 'Allow once' }, { title = 'Always allow go test' }, { title = 'Deny' } },
    }, { client_id = 1 }) }
  end)()
  H.wait(2000, function()
    return got ~= nil
  end, 'the approval')
  eq(got.res, { title = 'Always allow go test' }, 'chosen action')
  eq(H.result.select_prompt, 'agentls: Run `go test ./...`?', 'prompt')

  -- Selection ranges in UTF-16: a characterwise visual selection of "日本 😀".
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { 'héllo 日本 😀 x', 'second' })
  local s = vim.fn.stridx('héllo 日本 😀 x', '日') -- byte index
  vim.api.nvim_win_set_cursor(0, { 1, s })
  vim.cmd('normal! v')
  vim.api.nvim_win_set_cursor(0, { 1, vim.fn.stridx('héllo 日本 😀 x', '😀') })
  vim.cmd('normal! \27')
  eq(agentls.selection_range(b, 1, 1, 'utf-16'), { start = { line = 0, character = 6 }, ['end'] = { line = 0, character = 11 } }, 'visual range')
  eq(agentls.selection_range(b, 1, 2, 'utf-16'), { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 6 } }, 'line range')

  -- The statusline.
  local runs = require('agentls.runs')
  eq(agentls.status(), '', 'idle status')
  runs.on_event({ type = 'run_start', runId = 'main-1', text = 'do it', seq = 1 }, 1)
  runs.on_event({ type = 'thought', runId = 'main-1', subject = 'Reading main.go', text = 'x', seq = 2 }, 1)
  eq(agentls.status(), 'agentls: 1 run · Reading main.go', 'status')
  runs.on_event({ type = 'run_end', runId = 'main-1', ['end'] = { reason = 'goal', result = 'ok', turns = 1 }, seq = 3 }, 1)
  eq(agentls.status(), '', 'status after run_end')
  H.result.runs_lines = agentls.runs_lines()

  -- A subagent's progress (token agentls/<run>/<subagent>) is the run's
  -- subagent, never a run of its own.
  runs.on_event({ type = 'run_start', runId = 'main-2', text = 'look around', seq = 4 }, 1)
  runs.on_progress({ token = 'agentls/main-2/sub-1', value = { kind = 'begin', title = 'agentls: codebase_investigator: find' } }, 1)
  runs.on_event({ type = 'subagent_start', runId = 'main-2', subagent = { runId = 'sub-1', agent = 'codebase_investigator', task = 'find' }, seq = 5 }, 1)
  eq(#runs.running(), 1, 'running runs with a subagent')
  eq(#agentls.runs_lines(), 3, 'a line for the subagent under its run')
  runs.on_progress({ token = 'agentls/main-2/sub-1', value = { kind = 'end', message = 'found' } }, 1)
  eq(runs.runs['main-2'].subagents['sub-1'].state, 'done', 'the subagent after its progress end')
  eq(#agentls.runs_lines(), 2, 'no line for an ended subagent')
  runs.on_event({ type = 'run_end', runId = 'main-2', ['end'] = { reason = 'goal', result = 'ok', turns = 2 }, seq = 6 }, 1)
  eq(agentls.status(), '', 'status after the run with a subagent')
  table.remove(runs.order)
  runs.runs['main-2'] = nil

  -- :help agentls, from the doc/ folder of the plugin.
  local rtp = vim.fn.tempname()
  vim.fn.mkdir(rtp .. '/doc', 'p')
  local plugin = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
  vim.fn.writefile(vim.fn.readfile(plugin .. '/doc/agentls.txt'), rtp .. '/doc/agentls.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(rtp .. '/doc'))
  vim.opt.runtimepath:append(rtp)
  vim.cmd('help agentls-setup')
  H.result.help = { name = vim.api.nvim_buf_get_name(0), lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
end)
