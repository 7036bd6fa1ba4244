import type { Frame } from './frame';

const PREFIX = 'thread ';

/**
 * A thread's level: the frame its samples hang from when a profile holds several threads (ProfileBuilder makes it),
 * named `thread <the thread's name>`, category program. Views and exports take it for grouping, not for a function.
 */
export function threadLevelFrame(thread: string): Frame {
  return { name: PREFIX + thread, file: '', line: 0, column: 0, category: 'program' };
}

export function isThreadLevel(f: Frame | undefined): boolean {
  return f?.category === 'program' && f.name.startsWith(PREFIX);
}

/** The thread a level stands for; undefined for any other frame. */
export function threadOfLevel(f: Frame | undefined): string | undefined {
  return f && isThreadLevel(f) ? f.name.slice(PREFIX.length) : undefined;
}
