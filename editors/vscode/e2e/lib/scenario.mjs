// How a scenario is written: its workspace files, the model turns it adds
// to the fake Gemini server's one script, and what it does in the workbench.

/** scenario is a test of the extension: name, the files and model turns it needs, and run(h) with the Harness. */
export function scenario(name, { files = {}, turns = [] }, run) {
  return { name, files, turns, run };
}

/** go is a Go file's text: package main, then body. */
export const go = (body) => `package main\n\n${body}`;

/** call is a model turn that calls a tool. */
export const call = (name, args) => `call ${name} ${JSON.stringify(args)}`;

/** done is a model turn that ends the run with result. */
export const done = (result) => call('complete_task', { result });
