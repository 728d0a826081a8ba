// Timers, injectable for tests: the debounce of diagnostics.ts and the
// throttle of refresh.ts. No vscode import.

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** realTimers are setTimeout and clearTimeout. */
export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => {
    clearTimeout(h as ReturnType<typeof setTimeout>);
  },
};
