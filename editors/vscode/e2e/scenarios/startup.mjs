// The extension starts: its server runs from agentls.path, read in a remote
// window from the Remote settings only; a bad path says where to set it.

import assert from 'node:assert/strict';
import { waitFor } from '../lib/harness.mjs';
import { scenario } from '../lib/scenario.mjs';

export const activate = scenario('activate', {}, async (h) => {
  // The extension is active and its server runs: agentls.path came from the
  // Machine settings, the only place a remote window reads it.
  await h.statusItem().waitFor();
  await waitFor('agentls serve, started from agentls.path', () => h.serverRunning());
  assert.equal(await h.notificationCount(/cannot start/), 0, 'the server did not start');
  await h.command('agentls: Show runs');
  await h.notification(/no runs yet/).waitFor();
});

/** badPath leaves no server running: it runs last. */
export const badPath = scenario('a bad agentls.path in a remote window', {}, async (h) => {
  h.setMachineSettings({ 'agentls.path': '/nonexistent/agentls' });
  await h.clickNotification(/agentls\.path changed/, 'Restart');
  const err = h.notification(/cannot start "\/nonexistent\/agentls serve"/);
  await err.waitFor();
  assert.match(await err.textContent(), /Remote settings/);
  await err.locator('.monaco-button', { hasText: 'Open Remote Settings' }).click();
  // The Remote settings, at agentls.path, showing the value in force: not
  // a User settings tab that says "No Settings Found".
  const editor = h.page.locator('.settings-editor');
  await editor.waitFor();
  await editor.locator('.settings-tabs-widget .action-label.checked', { hasText: 'Remote' }).waitFor();
  const item = editor.locator('.setting-item-contents', { hasText: 'Agentls: Path' }).first();
  await item.waitFor();
  assert.equal(await item.locator('input').inputValue(), '/nonexistent/agentls');
});
