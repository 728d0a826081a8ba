// Driving the workbench of code-server as a user does: the command
// palette, Quick Open, quick inputs, notifications, tabs and the editor.
// Every method works on the page the harness opened.

import { waitFor } from './process.mjs';

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Workbench {
  /** page is the Playwright page of the workbench, once it is open. */
  page;

  statusItem() {
    return this.page.locator('.statusbar-item', { hasText: 'agentls' }).first();
  }

  /** sessionItem is the status bar entry of the current conversation. */
  sessionItem() {
    return this.page.locator('.statusbar-item', { has: this.page.locator('.codicon-comment-discussion') }).first();
  }

  /** command runs a command from the command palette by its title. */
  async command(title) {
    // A document the server opens (an answer) takes the focus and closes
    // the palette: then it is opened again.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.closeQuickInput();
        await this.page.keyboard.press('F1');
        const input = this.page.locator('.quick-input-widget input');
        await input.fill(`>${title}`, { timeout: 5000 });
        // The row whose label is the title, not the best fuzzy match
        // ("agentls: Revert run…" for "agentls: Run…").
        const row = this.page
          .locator('.quick-input-widget .monaco-list-row')
          .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) })
          .first();
        await row.click({ timeout: 5000 });
        return;
      } catch (err) {
        if (attempt === 3) {
          throw err;
        }
      }
    }
  }

  /** openFile opens a workspace file with Quick Open and waits for its editor. */
  async openFile(name) {
    await this.closeQuickInput();
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(name);
    await this.quickRow(name).waitFor();
    await this.page.keyboard.press('Enter');
    await this.activeTab(name).waitFor();
    await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
  }

  async closeQuickInput() {
    if (await this.page.locator('.quick-input-widget').isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    }
  }

  activeTab(name) {
    return this.page.locator('.tabs-container .tab.active', { hasText: name });
  }

  tab(name) {
    return this.page.locator('.tabs-container .tab', { hasText: name });
  }

  /** focusTab clicks the tab whose label is exactly name and waits for its editor. */
  async focusTab(name) {
    await this.page.locator(`.tabs-container .tab[aria-label=${JSON.stringify(name)}]`).first().click();
    await this.page.locator(`.tabs-container .tab.active[aria-label=${JSON.stringify(name)}]`).waitFor();
  }

  /** quickRow is a row of the open quick input whose label contains text. */
  quickRow(text) {
    return this.page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
  }

  /**
   * quickInput waits for the quick input to show what ok accepts, and
   * returns its title, message, placeholder and rows.
   */
  async quickInput(ok = () => true) {
    return waitFor('the quick input', async () => {
      const q = await this.readQuickInput();
      return ok(q) ? q : undefined;
    });
  }

  async readQuickInput() {
    const w = this.page.locator('.quick-input-widget');
    await w.waitFor();
    const title = (await w.locator('.quick-input-title').textContent().catch(() => '')) ?? '';
    const message = (await w.locator('.quick-input-message').textContent().catch(() => '')) ?? '';
    const placeholder = (await w.locator('input').getAttribute('placeholder')) ?? '';
    const rows = await w.locator('.monaco-list-row').evaluateAll((els) =>
      els.map((e) => ({ label: e.querySelector('.label-name')?.textContent ?? '', description: e.querySelector('.label-description')?.textContent ?? '' })),
    );
    return {
      title: title.trim(),
      message: message.trim(),
      placeholder,
      rows: rows.map((r) => r.label.trim()),
      descriptions: rows.map((r) => r.description.trim()),
    };
  }

  /** toggleQuickRow ticks or unticks a row of a multi-select quick pick. */
  async toggleQuickRow(text) {
    const row = this.quickRow(text);
    const before = await row.getAttribute('aria-checked');
    await row.click();
    await waitFor(`the row "${text}" to toggle`, async () => (await row.getAttribute('aria-checked')) !== before, 5000);
  }

  /** quickOK accepts a multi-select quick pick. */
  async quickOK() {
    await this.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  /** type enters text in the open input box and presses Enter. */
  async answerInput(text) {
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /** notification waits for a toast whose message matches re. */
  notification(re) {
    return this.page.locator('.notifications-toasts .notification-toast', { has: this.page.locator('.notification-list-item-message', { hasText: re }) }).first();
  }

  /** notificationCount counts the toasts and notification center entries whose message matches re. */
  async notificationCount(re) {
    const msgs = await this.page.locator('.notifications-toasts .notification-list-item-message').allTextContents();
    return msgs.filter((m) => re.test(m)).length;
  }

  /**
   * clickNotification clicks a button of the notification whose message
   * matches re: in its toast, or in the notification center when the toast
   * is gone (VS Code shows a few toasts at a time).
   */
  async clickNotification(re, button) {
    const toast = this.notification(re);
    const visible = await toast.waitFor({ timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    if (visible) {
      await toast.locator('.monaco-button', { hasText: button }).first().click();
      return;
    }
    await this.command('Notifications: Show Notifications');
    const item = this.page.locator('.notifications-center .notification-list-item', { has: this.page.locator('.notification-list-item-message', { hasText: re }) }).first();
    await item.waitFor();
    await item.locator('.monaco-button', { hasText: button }).first().click();
    await this.page.keyboard.press('Escape');
  }

  /** clearNotifications dismisses every notification. */
  async clearNotifications() {
    await this.command('Notifications: Clear All Notifications');
    await waitFor('no notification', async () => (await this.page.locator('.notifications-toasts .notification-toast').count()) === 0, 10_000);
  }

  /** titleAction clicks an action of the active editor's title bar, by its label. */
  async titleAction(label) {
    await this.page.locator(`.editor-group-container.active .editor-actions .action-label[aria-label*="${label}"]`).first().click();
  }

  /** editorText is the text of the active editor, as Monaco renders it. */
  async editorText() {
    const lines = await this.page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line').evaluateAll((els) =>
      els
        .map((e) => ({ top: Number.parseFloat(e.style.top), text: e.textContent.replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text),
    );
    return lines.join('\n');
  }

  /** gotoLine puts the cursor at the start of a 1-based line of the active editor. */
  async gotoLine(line) {
    await this.page.keyboard.press('Control+G');
    await this.answerInput(`:${line}`);
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  /** typeAtEnd types text at the end of a 1-based line of the active editor, and waits for the buffer to have it. */
  async typeAtEnd(line, text) {
    await this.gotoLine(line);
    await this.page.keyboard.press('End');
    await this.page.keyboard.type(text);
    await waitFor(`"${text}" in the buffer`, async () => (await this.editorText()).includes(text), 10_000);
  }

  /** selectLines selects whole lines from..to (1-based) of the active editor. */
  async selectLines(from, to) {
    await this.gotoLine(from);
    for (let i = from; i < to; i++) {
      await this.page.keyboard.press('Shift+ArrowDown');
    }
    await this.page.keyboard.press('Shift+End');
  }

  /** codeAction opens the code actions at the selection and picks one by title. */
  async codeAction(title) {
    await this.page.keyboard.press('Control+.');
    const item = this.page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    await item.waitFor();
    await item.click();
  }

  /** answerShown waits for a run's text answer to open as the active document. */
  async answerShown(run) {
    await this.page.locator(`.tabs-container .tab.active[aria-label^=${JSON.stringify(`${run.header.runId}.md`)}]`).waitFor();
  }
}
