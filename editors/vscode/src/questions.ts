// What the server asks the user, asked in VS Code: its questions
// (window/showMessageRequest) and a code action's instruction. Which
// question fits a notification is ask.ts's to say.

import * as vscode from 'vscode';
import { type CancellationToken, type MessageActionItem, MessageType, type ShowMessageRequestParams } from 'vscode-languageclient/node';
import { type ActionArgs, fitsNotification, splitQuestion } from './ask';

/**
 * askUser answers the server's window/showMessageRequest: in a notification
 * when the answers fit its buttons, else (an approval's long "Always allow
 * `go test` in this workspace (save)") with a quick pick that shows them
 * whole. A question the server withdraws closes.
 */
export async function askUser(params: ShowMessageRequestParams, token: CancellationToken): Promise<MessageActionItem | null> {
  const actions = params.actions ?? [];
  if (fitsNotification(actions.map((a) => a.title))) {
    const show =
      params.type === MessageType.Error
        ? vscode.window.showErrorMessage
        : params.type === MessageType.Warning
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    return (await show(params.message, ...actions)) ?? null;
  }
  const { title, detail } = splitQuestion(params.message);
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { action: MessageActionItem }>();
  pick.title = `agentls: ${title}`;
  pick.placeholder = detail || 'Choose an answer (Escape: none)';
  pick.ignoreFocusOut = true;
  pick.items = actions.map((a) => ({ label: a.title, action: a }));
  return new Promise((resolve) => {
    let answer: MessageActionItem | null = null;
    const subs = [
      pick.onDidAccept(() => {
        answer = pick.selectedItems[0]?.action ?? null;
        pick.hide();
      }),
      pick.onDidHide(() => {
        for (const d of subs) {
          d.dispose();
        }
        pick.dispose();
        resolve(answer);
      }),
      token.onCancellationRequested(() => {
        pick.hide();
      }),
    ];
    pick.show();
  });
}

/** askInstruction asks how a code action (Refactor selection…) should change the selection; undefined: Escape. */
export function askInstruction(arg: ActionArgs): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: `agentls: ${arg.title ?? 'Refactor'}`,
    prompt: 'How should the agent change the selection?',
    placeHolder: 'make it simpler and clearer',
    ignoreFocusOut: true,
  });
}
