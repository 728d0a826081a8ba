// The refresh of open transcript and conversation documents: a document
// changes with every event of its run, and VS Code reads it again on each
// change, so changes are coalesced (at most one refresh per document per
// delay). No vscode import: unit-tested with node --test.

import { type Timers, realTimers } from './timers';

/** The default delay: at most four refreshes a second. */
export const refreshMs = 250;

/** Refresher fires a key's refresh once after a delay, however often the key is touched meanwhile. */
export class Refresher {
  private readonly pending = new Map<string, unknown>();

  constructor(
    private readonly fire: (key: string) => void,
    private readonly delay = refreshMs,
    private readonly timers: Timers = realTimers,
  ) {}

  /** touch schedules key's refresh, unless one is already scheduled. */
  touch(key: string): void {
    if (this.pending.has(key)) {
      return;
    }
    this.pending.set(
      key,
      this.timers.set(() => {
        this.pending.delete(key);
        this.fire(key);
      }, this.delay),
    );
  }

  /** dispose cancels the scheduled refreshes. */
  dispose(): void {
    for (const t of this.pending.values()) {
      this.timers.clear(t);
    }
  }
}
