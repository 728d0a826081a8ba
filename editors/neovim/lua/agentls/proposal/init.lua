-- Proposals: the plugin's workspace/applyEdit handler. A proposal is shown
-- inline in its buffer, decided hunk by hunk, applied to the buffer (and
-- saved, with save_on_accept) and answered with the agentls extension of
-- ApplyWorkspaceEditResult. Each concern has its module:
--
--   state    the proposals shown and answered, lookups, buffer text
--   receive  the handler: checks, loading and showing buffers
--   render   the inline drawing (extmarks)
--   keys     the buffer-local keys and the decisions they make
--   answer   applying, saving, answering, refusing, withdrawing
local answer = require('agentls.proposal.answer')
local keys = require('agentls.proposal.keys')
local receive = require('agentls.proposal.receive')
local state = require('agentls.proposal.state')

local M = {}

M.ns = state.ns
M.pending = state.pending
M.history = state.history
M.buf_text = state.buf_text
M.proposal_for_buf = state.proposal_for_buf
M.pending_ids = state.pending_ids
M.by_id = state.by_id

M.handler = receive.handler
M.on_edit_proposed = receive.on_edit_proposed

M.accept_all = keys.accept_all
M.reject_all = keys.reject_all
M.accept_hunk = keys.accept_hunk
M.reject_hunk = keys.reject_hunk
M.edit_hunk = keys.edit_hunk

M.withdraw = answer.withdraw

--- A run ended: its proposals still shown are withdrawn.
---@param run_id string
function M.on_run_end(run_id)
  receive.forget_run(run_id)
  for _, id in ipairs(state.pending_ids()) do
    local p = state.by_id(id)
    if p and p.run_id == run_id then
      answer.withdraw(p, 'the run ended')
    end
  end
end

--- $/cancelRequest from the server: the proposal of that request is
--- withdrawn (when its id is known: Neovim 0.7-0.9).
function M.on_cancel_request(params, client_id)
  local id = params and require('agentls.compat').nn(params.id)
  for _, pid in ipairs(state.pending_ids()) do
    local p = state.by_id(pid)
    if p and p.client_id == client_id and p.req and p.req.id ~= nil and p.req.id == id then
      answer.withdraw(p, 'cancelled by the server')
    end
  end
end

--- The client stopped: every proposal it made is withdrawn.
function M.on_client_exit(client_id)
  for _, pid in ipairs(state.pending_ids()) do
    local p = state.by_id(pid)
    if p and p.client_id == client_id then
      answer.withdraw(p, 'the server exited')
    end
  end
end

return M
