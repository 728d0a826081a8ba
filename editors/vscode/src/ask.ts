// How the extension asks what the server wants asked: questions whose
// answers do not fit a notification's buttons, and the instruction a code
// action asks for. No vscode import: unit-tested with node --test.

/**
 * fitsNotification tells whether a question's answers fit a notification's
 * buttons, which VS Code cuts to a few characters each ("Allo…", "D…") when
 * they are many or long. Otherwise the extension asks with a quick pick.
 */
export function fitsNotification(titles: readonly string[]): boolean {
  return titles.length <= 3 && titles.every((t) => t.length <= 14) && titles.join('').length <= 30;
}

/** The run arguments of a code action's agentls.run command, as far as the extension reads them. */
export interface ActionArgs {
  ask?: string;
  title?: string;
  instruction?: string;
  [key: string]: unknown;
}

/** asksForInstruction tells whether a command's argument asks for an instruction (docs/protocol.md). */
export function asksForInstruction(arg: unknown): arg is ActionArgs {
  return typeof arg === 'object' && arg !== null && (arg as ActionArgs).ask === 'instruction';
}

/**
 * withInstruction is the command's argument with the user's instruction;
 * an empty one leaves the server's default.
 */
export function withInstruction(arg: ActionArgs, instruction: string): ActionArgs {
  const out: ActionArgs = { ...arg };
  delete out.ask;
  const text = instruction.trim();
  if (text !== '') {
    out.instruction = text;
  }
  return out;
}

/** splitQuestion is a question's first line (a title) and the rest. */
export function splitQuestion(message: string): { title: string; detail: string } {
  const text = message.trim();
  const nl = text.indexOf('\n');
  return nl < 0 ? { title: text, detail: '' } : { title: text.slice(0, nl).trim(), detail: text.slice(nl + 1).trim().replace(/\s*\n\s*/g, ' ') };
}
