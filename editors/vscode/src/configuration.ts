// The settings as VS Code has them: the section "agentls" read and checked
// (settings.ts), with a warning for what is ignored, and the server's own
// part of it, for its initializationOptions and workspace/configuration.

import * as vscode from 'vscode';
import { type InitializationOptions, type Settings, initializationOptions, readSettings, userScopeOnly } from './settings';

/** rawSettings is the section "agentls" as VS Code has it (defaults included). */
export function rawSettings(scope?: vscode.ConfigurationScope): unknown {
  return userScopeOnly(vscode.workspace.getConfiguration(undefined, scope).get<unknown>('agentls'), userServers());
}

/** userServers is the user-scope value of agentls.mcpServers: only the user's own settings start servers. */
export function userServers(): unknown {
  return vscode.workspace.getConfiguration('agentls').inspect<unknown>('mcpServers')?.globalValue;
}

/** serverSettings are the server's own settings, as VS Code has them now. */
export function serverSettings(): InitializationOptions {
  return initializationOptions(readSettings(rawSettings()).settings.server);
}

/** Configuration holds the settings read last; a new set of problems with them is shown once. */
export class Configuration {
  private lastProblems = '';
  private current: Settings;

  constructor() {
    this.current = this.load();
  }

  get settings(): Settings {
    return this.current;
  }

  /** reload reads the settings again, and returns the ones it replaced. */
  reload(): Settings {
    const old = this.current;
    this.current = this.load();
    return old;
  }

  private load(): Settings {
    const { settings, problems } = readSettings(rawSettings());
    const text = problems.join('; ');
    if (text !== '' && text !== this.lastProblems) {
      void vscode.window.showWarningMessage(`agentls: settings ignored: ${text}`);
    }
    this.lastProblems = text;
    return settings;
  }
}
