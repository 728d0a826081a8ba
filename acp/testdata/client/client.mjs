// The ACP test client of agentls's tests (acp/client_test.go): a real ACP
// client, the official TypeScript SDK's ClientSideConnection, drives the
// agentls binary (`$AGENTLS_BIN acp`) through a plan of steps given as
// JSON in argv[2], and prints what it saw as JSON on stdout. The Go test
// writes the plan and checks the outcome; this file only follows it.
//
// Steps ({"do": …}):
//   initialize  {fs: {readTextFile, writeTextFile}}
//   new         {cwd}                      a session; the later steps use it
//   prompt      {text, answers, cancelOn}  answers: a permission option kind
//               or id per request ("never": no answer); cancelOn: an update
//               kind, or "permission", that makes the client cancel
//   set_config  {configId, value}
//   buffer      {path, text}               an unsaved buffer of the client
//   restart     the agent process ends; a new one is started and initialized
//   list        {cwd}                      session/list
//   load        {cwd}                      session/load of the session
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const plan = JSON.parse(process.argv[2]);
const out = { steps: [], updates: [], permissions: [], writes: [], reads: [], exits: [] };

let step = -1; // the step under way
let sessionId;
let conn;
let agent;
let init;
const buffers = new Map();
let answers = [];
let cancelOn;
let cancelled = false;

class TestClient {
  async requestPermission(params) {
    out.permissions.push({ step, ...params });
    if (cancelOn === "permission") {
      cancel();
    }
    const want = answers.shift() ?? "allow_once";
    if (want === "never") {
      return new Promise(() => {});
    }
    const option = params.options.find((o) => o.optionId === want || o.kind === want);
    if (!option) {
      throw new Error(`no option ${want} in ${JSON.stringify(params.options)}`);
    }
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  }

  async sessionUpdate(params) {
    out.updates.push({ step, ...params.update });
    if (cancelOn && params.update.sessionUpdate === cancelOn) {
      cancel();
    }
  }

  async readTextFile(params) {
    out.reads.push(params.path);
    if (buffers.has(params.path)) {
      return { content: buffers.get(params.path) };
    }
    return { content: await readFile(params.path, "utf8") };
  }

  async writeTextFile(params) {
    out.writes.push({ step, path: params.path, content: params.content });
    buffers.delete(params.path);
    await writeFile(params.path, params.content);
    return {};
  }
}

function cancel() {
  if (!cancelled) {
    cancelled = true;
    conn.cancel({ sessionId });
  }
}

function startAgent() {
  agent = spawn(process.env.AGENTLS_BIN, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve({ code, signal })));
  agent.exited = exited;
  conn = new acp.ClientSideConnection(() => new TestClient(), acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout)));
}

async function stopAgent() {
  agent.stdin.end();
  out.exits.push(await agent.exited);
}

async function run(s) {
  switch (s.do) {
    case "initialize":
      init = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: s.fs ?? {} }, clientInfo: { name: "agentls-test", version: "1" } };
      return conn.initialize(init);
    case "new": {
      const r = await conn.newSession({ cwd: s.cwd, mcpServers: [] });
      sessionId = r.sessionId;
      return r;
    }
    case "prompt":
      answers = [...(s.answers ?? [])];
      cancelOn = s.cancelOn;
      cancelled = false;
      return conn.prompt({ sessionId, prompt: [{ type: "text", text: s.text }] });
    case "set_config":
      return conn.setSessionConfigOption({ sessionId, configId: s.configId, value: s.value });
    case "buffer":
      buffers.set(s.path, s.text);
      return {};
    case "restart":
      await stopAgent();
      startAgent();
      return conn.initialize(init);
    case "list":
      return conn.listSessions(s.cwd ? { cwd: s.cwd } : {});
    case "load":
      return conn.loadSession({ sessionId, cwd: s.cwd, mcpServers: [] });
  }
  throw new Error(`unknown step ${s.do}`);
}

startAgent();
for (const [i, s] of plan.entries()) {
  step = i;
  try {
    out.steps.push({ do: s.do, result: (await run(s)) ?? null });
  } catch (err) {
    out.steps.push({ do: s.do, error: { code: err?.code, message: err?.message ?? String(err) } });
  }
}
step = plan.length;
await stopAgent();
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
