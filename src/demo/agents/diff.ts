// Recognising and summarising unified diffs for the code-reviewer agent.
import type { Message, Part } from '@a2a-js/sdk';

export const DIFF_MEDIA_TYPE = 'text/x-diff';

/** Text that looks like a unified diff (git's header, or a plain `--- a/file` header). */
export function looksLikeDiff(text: string): boolean {
  const head = text.trimStart();
  return head.startsWith('diff --git') || head.startsWith('--- ');
}

/**
 * The diff carried by a message: a part declared as text/x-diff (text or raw bytes), or a
 * text part that looks like a unified diff. Undefined when there is none.
 */
export function findDiff(message: Message | undefined): string | undefined {
  for (const part of message?.parts ?? []) {
    const text = partContent(part);
    if (text === undefined) continue;
    if (part.mediaType === DIFF_MEDIA_TYPE || looksLikeDiff(text)) return text;
  }
  return undefined;
}

/** Whether any part declares the diff media type (a diff is never treated as a question). */
export function hasDiffPart(message: Message | undefined): boolean {
  return (message?.parts ?? []).some((p) => p.mediaType === DIFF_MEDIA_TYPE);
}

function partContent(part: Part): string | undefined {
  switch (part.content?.$case) {
    case 'text':
      return part.content.value;
    case 'raw':
      return Buffer.from(part.content.value).toString('utf8');
    default:
      return undefined;
  }
}

export interface DiffStats {
  files: string[];
  added: number;
  removed: number;
}

export function diffStats(diff: string): DiffStats {
  const files: string[] = [];
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      const name = line.slice(4).trim().replace(/^b\//, '');
      if (name !== '/dev/null') files.push(name);
    } else if (line.startsWith('+')) added++;
    else if (line.startsWith('-') && !line.startsWith('--- ')) removed++;
  }
  return { files, added, removed };
}
