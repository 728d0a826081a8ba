// The agentls server: `<agentls.path> serve` behind a language client. Its
// log goes to the channel "agentls server", its questions to the user, its
// events and the end of its process to the extension's hooks.

import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  type ConfigurationParams,
  type ConfigurationRequest,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  type ServerOptions,
  ShowMessageRequest,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { asksForInstruction, withInstruction } from './ask';
import { serverSettings, userServers } from './configuration';
import { eventMethod } from './events';
import { startFailure } from './notices';
import { askInstruction, askUser } from './questions';
import type { Review } from './review';
import { parseLogLine } from './serverlog';
import { type Settings, configurationAnswer } from './settings';

/** What the server needs of the extension. */
export interface ServerHooks {
  /** The settings in force: agentls.path names the program. */
  settings(): Settings;
  /** The transcript channel, where a failed start is logged. */
  output: vscode.OutputChannel;
  /** The server's own log. */
  serverLog: vscode.LogOutputChannel;
  /** The review of the changes the server proposes (workspace/applyEdit). */
  handleApplyEdit: Review['handleApplyEdit'];
  /** An agentls/event notification's payload, unchecked. */
  event(payload: unknown): void;
  /** The server started. */
  started(): void;
  /** The server stopped, or was stopped: what waited on it ends with reason. */
  gone(reason: string): void;
}

const stopped = 'the agentls server stopped';

/** Server starts, stops and restarts the language client of `agentls serve`. */
export class Server {
  private current: LanguageClient | undefined;

  constructor(private readonly hooks: ServerHooks) {}

  /** client is the language client, running or not; undefined when stopped. */
  get client(): LanguageClient | undefined {
    return this.current;
  }

  async start(): Promise<void> {
    const client = this.createClient();
    this.current = client;
    try {
      await client.start();
      this.hooks.started();
    } catch (err) {
      const path = this.hooks.settings().path;
      this.hooks.output.appendLine(`agentls: cannot start "${path} serve": ${String(err)}`);
      const f = startFailure(path, vscode.env.remoteName);
      void vscode.window
        .showErrorMessage(f.text, f.button)
        .then((c) => (c === f.button ? vscode.commands.executeCommand(f.command, { query: f.query }) : undefined));
    }
  }

  async stop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    if (client?.needsStop()) {
      await client.dispose();
    }
    this.hooks.gone(stopped);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** runningClient is the client if the server runs; else it says so to the user. */
  runningClient(): LanguageClient | undefined {
    if (this.current?.isRunning()) {
      return this.current;
    }
    void vscode.window.showErrorMessage('agentls: the server is not running (agentls: Restart server).');
    return undefined;
  }

  private createClient(): LanguageClient {
    const serverOptions: ServerOptions = { command: this.hooks.settings().path, args: ['serve'], transport: TransportKind.stdio };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.hooks.serverLog,
      // The server logs with log/slog: each line at its own level.
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity }).on('line', (l) => {
            channel.info(l);
          });
        },
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity }).on('line', (l) => {
            const { level, text } = parseLogLine(l);
            channel[level](text);
          });
        },
      },
      initializationOptions: serverSettings,
      // The server may pull the section "agentls" (workspace/configuration)
      // and hears of changes (workspace/didChangeConfiguration). Both carry
      // only the server's own settings: it reports unknown keys.
      synchronize: { configurationSection: 'agentls' },
      middleware: {
        // A code action that asks for an instruction (Refactor selection…)
        // gets it from the user before it runs; Escape runs nothing.
        executeCommand: async (command, args: unknown[], next) => {
          const arg = args[0];
          if (command === 'agentls.run' && asksForInstruction(arg)) {
            const instruction = await askInstruction(arg);
            if (instruction === undefined) {
              return undefined;
            }
            return (await next(command, [withInstruction(arg, instruction), ...args.slice(1)])) as unknown;
          }
          return (await next(command, args)) as unknown;
        },
        workspace: {
          handleApplyEdit: this.hooks.handleApplyEdit,
          configuration: async (params: ConfigurationParams, token, next: ConfigurationRequest.HandlerSignature) => {
            const res = await next(params, token);
            if (res instanceof ResponseError || !Array.isArray(res)) {
              return res;
            }
            return configurationAnswer(params.items, res, userServers);
          },
          didChangeConfiguration: () =>
            client.sendNotification(DidChangeConfigurationNotification.type, { settings: { agentls: serverSettings() } }),
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls server', serverOptions, clientOptions);
    // Replaces the client's own handler (registered before start, it is
    // installed after the defaults).
    client.onRequest(ShowMessageRequest.type, (params, token) => askUser(params, token));
    client.onNotification(eventMethod, (payload: unknown) => {
      this.hooks.event(payload);
    });
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.hooks.gone(stopped);
      }
    });
    return client;
  }
}

/** execute runs one of the server's commands (workspace/executeCommand) with one argument. */
export function execute(client: LanguageClient, command: string, arg: unknown): Promise<unknown> {
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
}

/** showFailure tells the user that a request to the server failed. */
export function showFailure(err: unknown): void {
  void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
}
