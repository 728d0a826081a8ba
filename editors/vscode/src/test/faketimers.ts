// Timers that fire only when a test says: for the debounce and the throttle.

import type { Timers } from '../timers';

export class FakeTimers implements Timers {
  pending = new Map<number, { fn: () => void; ms: number }>();
  private next = 0;
  set(fn: () => void, ms: number): unknown {
    this.pending.set(++this.next, { fn, ms });
    return this.next;
  }
  clear(h: unknown): void {
    this.pending.delete(h as number);
  }
  fire(): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const t of all) {
      t.fn();
    }
  }
}
