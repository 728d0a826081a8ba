// The agentls extension in a real VS Code (code-server), driven as a user
// drives it. The model is the in-repo fake Gemini server: each scenario
// adds its turns to one script, played in order, so the scenarios run in
// order and stop at the first failure. E2E_ONLY=name,name runs some of
// them (with only their turns). The scenarios are in ../scenarios, by
// feature.

import { after, before, test } from 'node:test';
import { start } from '../lib/harness.mjs';
import { done } from '../lib/scenario.mjs';
import * as actions from '../scenarios/actions.mjs';
import * as diagnostics from '../scenarios/diagnostics.mjs';
import * as review from '../scenarios/review.mjs';
import * as sessions from '../scenarios/sessions.mjs';
import * as startup from '../scenarios/startup.mjs';

/** The scenarios, in the order they run. */
const scenarios = [
  startup.activate,
  ...review.diffEditor,
  ...actions.scenarios,
  review.refactorPreview,
  ...diagnostics.scenarios,
  ...sessions.scenarios,
  startup.badPath,
];

const only = (process.env.E2E_ONLY ?? '').split(',').filter(Boolean);
const chosen = scenarios.filter((s) => only.length === 0 || only.some((o) => s.name.includes(o)));
let h;
let failed = false;

before(async () => {
  const files = Object.assign({}, ...chosen.map((s) => s.files));
  const script = chosen.flatMap((s) => s.turns).join('\n---\n') || done('unused');
  h = await start({ script, files });
});

after(async () => {
  await h?.stop({ keep: failed || process.env.E2E_KEEP === '1' });
});

for (const s of chosen) {
  test(s.name, async (t) => {
    if (failed) {
      t.skip('an earlier scenario failed (the model turns are one script)');
      return;
    }
    const began = Date.now();
    try {
      await h.clearNotifications();
      await s.run(h);
    } catch (err) {
      failed = true;
      const shot = await h.screenshot(s.name);
      err.message += `\nscreenshot: ${shot}`;
      throw err;
    } finally {
      t.diagnostic(`${s.name}: ${((Date.now() - began) / 1000).toFixed(1)}s`);
    }
  });
}
