// The processes of the real-VS-Code tests: each in a process group of its
// own, stopped by group; and the polling every wait of the tests goes
// through.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as net from 'node:net';
import * as readline from 'node:readline';

/** need returns an environment variable the harness cannot do without. */
export function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`e2e: ${name} is not set (see .ci/vscode.sh)`);
  }
  return v;
}

/** A Group is a child process in a process group of its own. */
export class Group {
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

/** freePort is a loopback port no one listens on. */
export async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  await once(srv, 'close');
  return port;
}
