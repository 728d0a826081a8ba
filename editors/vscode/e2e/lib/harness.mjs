// The harness of the real-VS-Code tests: a fake Gemini server, code-server
// with the built VSIX, and Debian's Chromium driven by Playwright. Every
// process it starts runs in its own process group and is stopped by group.
//
// It reads, from the environment (.ci/vscode.sh sets them):
//   CODE_SERVER      the code-server launcher
//   NODE24_BIN       the folder of the Node 24 that runs code-server
//   AGENTLS_BIN      the agentls binary (agentls.path, in the Machine settings)
//   FAKEGEMINI_BIN   agent/gemini/geminitest/fakegemini, built
//   AGENTLS_VSIX     the extension, from npm run package
//   CHROMIUM         the browser (default /usr/bin/chromium)
//   E2E_ARTIFACTS    where screenshots of failures go (default: the temp folder)

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { chromium } from 'playwright-core';

/** settingDefault is the default the extension's package.json gives key. */
function settingDefault(key) {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return manifest.contributes.configuration.properties[key]?.default;
}

/** need returns an environment variable the harness cannot do without. */
function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`e2e: ${name} is not set (see .ci/vscode.sh)`);
  }
  return v;
}

/** A Group is a child process in a process group of its own. */
class Group {
  constructor(name, cmd, args, opts) {
    this.name = name;
    this.log = [];
    this.child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = once(this.child, 'exit');
    for (const s of [this.child.stdout, this.child.stderr]) {
      readline.createInterface({ input: s }).on('line', (l) => {
        this.log.push(l);
        if (this.log.length > 2000) {
          this.log.shift();
        }
      });
    }
  }

  /** line waits for an output line that matches re. */
  async line(re, ms = 60_000) {
    return waitFor(`${this.name} to print ${re}`, () => this.log.find((l) => re.test(l)), ms);
  }

  /** stop ends the whole group: TERM, then KILL if it lingers. */
  async stop() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      killGroup(this.child.pid, 'SIGKILL'); // what it left behind
      return;
    }
    killGroup(this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
    killGroup(this.child.pid, 'SIGKILL');
  }
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function killGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
  } catch {
    // already gone
  }
}

/**
 * waitFor polls check until it returns a truthy value and returns it, or
 * fails after ms naming what it waited for.
 */
export async function waitFor(what, check, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) {
        return v;
      }
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      throw new Error(`e2e: timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  await once(srv, 'close');
  return port;
}

const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * start brings up the fake Gemini server (playing script), code-server with
 * the extension installed and agentls.path in the Machine settings, and a
 * browser on the workbench. files are the workspace's files.
 */
export async function start({ script, files }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-e2e-'));
  const h = new Harness(dir);
  try {
    await h.boot(script, files);
  } catch (err) {
    await h.screenshot('boot');
    await h.stop({ keep: true });
    throw err;
  }
  return h;
}

export class Harness {
  constructor(dir) {
    this.dir = dir;
    this.ws = path.join(dir, 'ws');
    this.traces = path.join(dir, 'traces');
    this.userData = path.join(dir, 'user-data');
    this.artifacts = process.env.E2E_ARTIFACTS || dir;
    this.groups = [];
  }

  async boot(script, files) {
    for (const d of [this.ws, this.traces, path.join(this.userData, 'User'), path.join(this.userData, 'Machine'), path.join(this.dir, 'home')]) {
      fs.mkdirSync(d, { recursive: true });
    }
    for (const [name, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(this.ws, name), text);
    }
    // The fake model: every scenario's turns, in order.
    const scriptFile = path.join(this.dir, 'turns.txt');
    fs.writeFileSync(scriptFile, script);
    // It writes every request it gets to requests.jsonl: what the model was sent.
    this.requestsFile = path.join(this.dir, 'requests.jsonl');
    const gemini = this.spawn('fakegemini', need('FAKEGEMINI_BIN'), ['-script', scriptFile, '-requests', this.requestsFile]);
    const url = (await gemini.line(/^http:\/\//)).trim();

    fs.writeFileSync(
      path.join(this.userData, 'User', 'settings.json'),
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'workbench.enableExperiments': false,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          'chat.disableAIFeatures': true,
          'telemetry.telemetryLevel': 'off',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'update.mode': 'none',
          'git.enabled': false,
          'files.autoSave': 'off',
          'editor.minimap.enabled': false,
          'notifications.showExtensionsNotifications': true,
        },
        null,
        2,
      ),
    );
    // code-server is a remote window: agentls.path, a machine setting, is
    // read from the Machine (Remote) settings only.
    this.setMachineSettings({ 'agentls.path': need('AGENTLS_BIN') });

    const env = {
      ...process.env,
      PATH: `${need('NODE24_BIN')}:${process.env.PATH}`,
      HOME: path.join(this.dir, 'home'),
      XDG_CONFIG_HOME: path.join(this.dir, 'config'),
      XDG_CACHE_HOME: path.join(this.dir, 'cache'),
      XDG_DATA_HOME: path.join(this.dir, 'data'),
      GEMINI_API_KEY: 'e2e-key',
      GOOGLE_GEMINI_BASE_URL: url,
      AGENTLS_TRACE_DIR: this.traces,
    };
    const common = ['--user-data-dir', this.userData, '--extensions-dir', path.join(this.dir, 'extensions'), '--config', path.join(this.dir, 'code-server.yaml')];
    fs.writeFileSync(path.join(this.dir, 'code-server.yaml'), '');
    const install = this.spawn('code-server --install-extension', need('CODE_SERVER'), [...common, '--install-extension', need('AGENTLS_VSIX')], { env });
    const [code] = await install.exited;
    if (code !== 0) {
      throw new Error(`e2e: installing the VSIX failed (${code}):\n${install.log.join('\n')}`);
    }
    const port = await freePort();
    this.codeServer = this.spawn('code-server', need('CODE_SERVER'), [
      ...common,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      this.ws,
    ], { env });
    const base = `http://127.0.0.1:${port}`;
    await waitFor('code-server /healthz', async () => (await fetch(`${base}/healthz`)).ok, 60_000);

    this.browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: chromiumFlags });
    this.page = await this.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await this.page.goto(`${base}/?folder=${encodeURIComponent(this.ws)}`);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.statusItem().waitFor({ timeout: 60_000 });
  }

  spawn(name, cmd, args, opts = {}) {
    const g = new Group(name, cmd, args, opts);
    this.groups.push(g);
    return g;
  }

  /**
   * chooseSetting sets an enum setting in the Settings editor (User tab), as
   * a user does, and waits for VS Code to write it.
   */
  async chooseSetting(key, title, value) {
    await this.command('Preferences: Open User Settings');
    const editor = this.page.locator('.settings-editor');
    await editor.waitFor();
    // The search box keeps the last search: replace it.
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(key);
    const item = editor.locator('.setting-item-contents', { hasText: title }).first();
    await item.locator('select').selectOption(value);
    const file = path.join(this.userData, 'User', 'settings.json');
    // VS Code writes a setting set back to its default by removing it.
    const written = () => JSON.parse(fs.readFileSync(file, 'utf8'))[key] ?? settingDefault(key);
    await waitFor(`${key} in the User settings`, () => written() === value, 10_000);
    await this.page.keyboard.press('Escape');
    await editor.waitFor({ state: 'hidden' });
  }

  /** setMachineSettings writes the Machine (Remote) settings of code-server. */
  setMachineSettings(settings) {
    fs.writeFileSync(path.join(this.userData, 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  /** stop stops everything; keep leaves the temporary folder (traces, logs) for a look. */
  async stop({ keep = false } = {}) {
    await this.browser?.close().catch(() => {});
    for (const g of this.groups.reverse()) {
      await g.stop();
    }
    if (keep) {
      for (const g of this.groups) {
        fs.writeFileSync(path.join(this.dir, `${g.name.replace(/\W+/g, '-')}.log`), g.log.join('\n'));
      }
      console.log(`e2e: kept ${this.dir}`);
    } else {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** screenshot saves the page as <name>.png in the artifacts folder. */
  async screenshot(name) {
    if (!this.page) {
      return undefined;
    }
    const file = path.join(this.artifacts, `${name.replace(/[^\w.-]+/g, '_')}.png`);
    await this.page.screenshot({ path: file }).catch(() => {});
    return file;
  }

  // ---- the workbench ----

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

  // ---- what happened ----

  /** serverRunning tells whether the agentls of AGENTLS_BIN runs as a server. */
  serverRunning() {
    const want = `${need('AGENTLS_BIN')}\0serve\0`;
    return fs.readdirSync('/proc').some((pid) => {
      try {
        return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(want);
      } catch {
        return false; // gone meanwhile
      }
    });
  }

  /** file reads a workspace file from disk. */
  file(name) {
    return fs.readFileSync(path.join(this.ws, name), 'utf8');
  }

  /** runs reads every run's trace: its header and its events. */
  runs() {
    const out = [];
    if (!fs.existsSync(this.traces)) {
      return out;
    }
    for (const sub of fs.readdirSync(this.traces)) {
      for (const f of fs.readdirSync(path.join(this.traces, sub))) {
        const recs = fs
          .readFileSync(path.join(this.traces, sub, f), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l));
        const header = recs.find((r) => r.type === 'header')?.header;
        const events = recs.filter((r) => r.type === 'event').map((r) => r.event);
        out.push({ header, events, end: events.find((e) => e.type === 'run_end')?.end });
      }
    }
    return out;
  }

  /** endedRun waits for the run whose task prompt contains text to end, and returns it. */
  async endedRun(text, ms = 30_000) {
    return waitFor(`the run "${text}" to end`, () => this.runs().find((r) => r.header?.task?.prompt?.includes(text) && r.end), ms);
  }

  /** answerShown waits for a run's text answer to open as the active document. */
  async answerShown(run) {
    await this.page.locator(`.tabs-container .tab.active[aria-label^=${JSON.stringify(`${run.header.runId}.md`)}]`).waitFor();
  }

  /**
   * requests are the requests the fake Gemini server received, in order:
   * { rpc, model, contents } with contents in the API's JSON shape.
   */
  requests() {
    if (!fs.existsSync(this.requestsFile)) {
      return [];
    }
    return fs
      .readFileSync(this.requestsFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  }

  /** toolResults are a run's tool results, as the model read them. */
  static toolResults(run, name) {
    return run.events.filter((e) => e.type === 'tool_result' && e.call?.name === name).map((e) => e.result?.output ?? '');
  }
}
