// The harness of the real-VS-Code tests: a fake Gemini server, code-server
// with the built VSIX, and Debian's Chromium driven by Playwright. Every
// process it starts runs in its own process group and is stopped by group
// (process.mjs). The Harness drives the workbench as a user does
// (workbench.mjs) and reads what happened from traces and logs (record.mjs).
//
// It reads, from the environment (.ci/vscode.sh sets them):
//   CODE_SERVER      the code-server launcher
//   NODE24_BIN       the folder of the Node 24 that runs code-server
//   AGENTLS_BIN      the agentls binary (agentls.path, in the Machine settings)
//   FAKEGEMINI_BIN   agent/gemini/geminitest/fakegemini, built
//   AGENTLS_VSIX     the extension, from npm run package
//   CHROMIUM         the browser (default /usr/bin/chromium)
//   E2E_ARTIFACTS    where screenshots of failures go (default: the temp folder)

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { Group, freePort, need, waitFor } from './process.mjs';
import { readRequests, readRuns, serverRunning, toolResults } from './record.mjs';
import { Workbench } from './workbench.mjs';

export { waitFor };

/** settingDefault is the default the extension's package.json gives key. */
function settingDefault(key) {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return manifest.contributes.configuration.properties[key]?.default;
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

/** Harness is one code-server: its workspace, settings and processes, and the workbench it shows. */
export class Harness extends Workbench {
  constructor(dir) {
    super();
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

  // ---- what happened ----

  /** serverRunning tells whether the agentls of AGENTLS_BIN runs as a server. */
  serverRunning() {
    return serverRunning(need('AGENTLS_BIN'));
  }

  /** file reads a workspace file from disk. */
  file(name) {
    return fs.readFileSync(path.join(this.ws, name), 'utf8');
  }

  /** runs reads every run's trace: its header and its events. */
  runs() {
    return readRuns(this.traces);
  }

  /** endedRun waits for the run whose task prompt contains text to end, and returns it. */
  async endedRun(text, ms = 30_000) {
    return waitFor(`the run "${text}" to end`, () => this.runs().find((r) => r.header?.task?.prompt?.includes(text) && r.end), ms);
  }

  /**
   * requests are the requests the fake Gemini server received, in order:
   * { rpc, model, contents } with contents in the API's JSON shape.
   */
  requests() {
    return readRequests(this.requestsFile);
  }

  /** toolResults are a run's tool results, as the model read them. */
  static toolResults(run, name) {
    return toolResults(run, name);
  }
}
