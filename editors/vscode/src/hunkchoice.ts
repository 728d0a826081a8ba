// Choosing hunks in review mode diffEditor: whether a proposal offers it,
// the quick pick of its hunks, what a pick keeps, and the count its
// notification shows. No vscode import: unit-tested with node --test.

import { shorten } from './events';
import { type FileProposal, canChooseHunks, hunksOf } from './proposal';

/** Kept maps a file's URI to one flag per hunk: kept (true, or no flag) or not (false). */
export type Kept = ReadonlyMap<string, readonly boolean[]>;

/** choosable tells whether a proposal offers Hunks…: several files, or a file of several hunks that can be kept one by one. */
export function choosable(files: readonly FileProposal[]): boolean {
  return files.some((f) => hunksOf(f).length > 1 && canChooseHunks(f)) || files.length > 1;
}

/** keptLabel counts what a proposal keeps: "1 hunk", "3 hunks", "2 of 3 hunks kept". */
export function keptLabel(files: readonly FileProposal[], kept: Kept): string {
  let total = 0;
  let n = 0;
  for (const f of files) {
    const flags = kept.get(f.uri) ?? [];
    for (const h of hunksOf(f)) {
      total++;
      if (flags[h.index] !== false) {
        n++;
      }
    }
  }
  return n === total ? `${total} hunk${total === 1 ? '' : 's'}` : `${n} of ${total} hunks kept`;
}

/** A hunk in the quick pick. */
export interface HunkChoice {
  label: string;
  description: string;
  detail: string;
  picked: boolean;
  uri: string;
  index: number;
}

/**
 * hunkChoices lists the hunks of the files whose hunks can be kept one by
 * one, each with its line and its first line of new text, ticked when
 * kept. name is a file's name as the user reads it.
 */
export function hunkChoices(files: readonly FileProposal[], kept: Kept, name: (uri: string) => string): HunkChoice[] {
  const items: HunkChoice[] = [];
  for (const f of files) {
    if (!canChooseHunks(f)) {
      continue;
    }
    const hunks = hunksOf(f);
    const flags = kept.get(f.uri) ?? [];
    for (const h of hunks) {
      const first = h.edits.map((e) => e.newText).join('').split(/\r?\n/).find((l) => l.trim() !== '') ?? '(removes lines)';
      items.push({
        label: `${name(f.uri)}: hunk ${h.index + 1} of ${hunks.length}`,
        description: `line ${h.line}`,
        detail: shorten(first, 100),
        picked: flags[h.index] !== false,
        uri: f.uri,
        index: h.index,
      });
    }
  }
  return items;
}

/** keptOf is what a pick keeps of each file whose hunks can be chosen: a flag per hunk, true when it was picked. */
export function keptOf(files: readonly FileProposal[], picked: readonly { uri: string; index: number }[]): { file: FileProposal; flags: boolean[] }[] {
  const keep = new Set(picked.map((i) => `${i.uri}#${i.index}`));
  return files.filter((f) => canChooseHunks(f)).map((f) => ({ file: f, flags: hunksOf(f).map((h) => keep.has(`${f.uri}#${h.index}`)) }));
}
