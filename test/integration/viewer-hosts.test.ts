// The editor's panel and the exported HTML page answer the page with one `answer` (core/viewer/answer), each with
// its own small host. One message script drives both over the same real run (a parent hot in parentHot that forks
// a child hot in childHot, cpu-prof mode) and must get the same replies. The two drifts this replaced are checked
// by name: the page's Timeline follows a dropped function, and picking the child shows the child's event-loop and
// heap rows, not the first process's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runDirOf } from '../helpers/cli';
import { fixtures } from '../helpers/paths';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { runTimeFactsOf } from '../../src/launch/run/runTimeline';
import { exportProfile } from '../../src/core/exporters';
import { answer, type AnsweredMessage, type ViewerHost } from '../../src/core/viewer/answer';
import { offlineViewer } from '../../src/core/viewer/offlineHost';
import { rewriteStrings, shareRoot, sharePaths, userCommand } from '../../src/core/viewer/shareable';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { findFindings } from '../../src/core/findings';
import { processRows } from '../../src/core/model/processes';
import type { EmbeddedProfile } from '../../src/core/viewer/embed';
import type { HostMessage, TimelineData } from '../../src/core/viewer/protocol';

const work = mkdtempSync(join(tmpdir(), 'nf-hosts-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * The same reply, but for the time it took to build and for times within a microsecond: the page's timeline is
 * packed as whole-microsecond steps, so its times differ from the editor's in the last bits.
 */
function assertSameReply(a: unknown, b: unknown, at: string): void {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(a === b || Math.abs(a - b) <= 0.0011, `${at}: ${a} vs ${b}`);
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    assert.deepEqual(a, b, at);
    return;
  }
  const keys = (o: object) => Object.keys(o).filter((k) => k !== 'hostMs' && (o as Record<string, unknown>)[k] !== undefined);
  assert.deepEqual(keys(a).sort(), keys(b).sort(), `${at}: keys`);
  for (const k of keys(a)) assertSameReply((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
}

/** How many of a Timeline's boxes are a function's. */
function boxesOf(t: TimelineData, name: string): number {
  return t.boxes.frame.filter((f) => t.frames[f]?.name === name).length;
}

test('the editor and the HTML page answer one message script alike, over a real two-process run', { timeout: 120_000 }, async () => {
  const r = await runCli(['profile', '--mode', 'cpu-prof', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'parent.js', '500'], {
    cwd: join(fixtures, 'process-tree-timeline'),
    env: { PT_TIMES: join(work, 'times.jsonl') },
    killAfterMs: 90_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const dir = runDirOf(r);

  // The editor: the run read as the panel reads it, the run folder's facts from disk.
  const profile = await loadRunProfile(dir, { sourceMaps: false });
  const editor = new ViewerSession(profile, 'run', dir);
  editor.findings = findFindings(profile); // as the panel's findingsOf
  const opened: string[] = [];
  const editorHost: ViewerHost = {
    openSource: (f) => void opened.push(f.name),
    timeFacts: () => runTimeFactsOf(profile, dir),
  };
  // The page: the same run exported to HTML, its embedded data read back as the page reads it.
  const html = exportProfile(profile, 'html', { source: 'run', timeFacts: await runTimeFactsOf(profile, dir) });
  const json = /<script type="application\/json" id="node-flame-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(json, 'the page embeds its profile');
  const page = offlineViewer(JSON.parse(json) as EmbeddedProfile);
  await page.inflate();

  const child = processRows(profile).find((p) => !p.thread && p.label.includes('child'));
  assert.ok(child, JSON.stringify(processRows(profile)));
  // By name, as the CLI names them: a key with the editor's file would not name the page's (relative) one.
  const fn = (name: string) => ({ name });
  const timeline: AnsweredMessage = { type: 'timeline', width: 800, overview: true };
  const script: AnsweredMessage[] = [
    { type: 'needTree', tree: 'top' },
    timeline,
    { type: 'search', tree: 'top', term: 'Hot', regex: false },
    { type: 'transforms', transforms: [{ kind: 'drop-function', fn: fn('childHot') }] },
    timeline,
    { type: 'transforms', transforms: [] },
    { type: 'threads', threads: child.threads },
    timeline,
    { type: 'sandwich', fn: fn('parentHot') },
    { type: 'options', options: { mergeBy: 'line' } },
    { type: 'needTree', tree: 'bottom' },
  ];
  const paths = sharePaths(shareRoot(profile.meta.source ?? 'run'), homedir());
  // The command as typed (no launcher flags), then every path as the page writes it.
  const asShared = (x: unknown) =>
    rewriteStrings(
      JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'command' && typeof v === 'string' ? userCommand(v) : v))) as unknown,
      paths,
      new Set(),
    );
  const replies: { editor: HostMessage[]; page: HostMessage[] }[] = [];
  for (const m of script) {
    const e = await answer(editor, m, editorHost);
    const p = await answer(page.session, m, page.host);
    // The page is made to be shared: its paths are written as the export writes them (issue 37), the rest alike.
    assertSameReply(p, asShared(e), `the replies to ${JSON.stringify(m).slice(0, 120)}`);
    replies.push({ editor: e, page: p });
  }
  // Nothing to open in the page: it says where the code is.
  const open: AnsweredMessage = { type: 'open', frame: profile.frames.findIndex((f) => f.name === 'parentHot'), focus: false, raw: true };
  assert.deepEqual(await answer(editor, open, editorHost), []);
  assert.deepEqual(opened, ['parentHot']);
  const noSource = (await answer(page.session, open, page.host))[0];
  assert.ok(noSource?.type === 'noSource' && noSource.reason.includes('parent.js:'), JSON.stringify(noSource));

  // The drifts, by name. The whole run: both processes' delays, no heap row.
  const [whole, dropped, picked] = [1, 4, 7].map((i) => replies[i].page[0] as TimelineData);
  assert.ok(boxesOf(whole, 'childHot') > 0, 'the whole run draws childHot');
  assert.equal(boxesOf(dropped, 'childHot'), 0, 'Drop childHot leaves the Timeline too');
  const rows = (t: TimelineData) => (t.tracks ?? []).map((x) => `${x.kind} ${x.pid}`).sort();
  assert.equal(rows(whole).filter((x) => x.startsWith('loopDelay')).length, 2, rows(whole).join(', '));
  assert.ok(!rows(whole).some((x) => x.startsWith('heapUsed')), rows(whole).join(', '));
  assert.deepEqual(rows(picked), [`heapUsed ${child.pid}`, `loopDelay ${child.pid}`], 'the child picked: its own rows');
  assert.equal(boxesOf(picked, 'parentHot'), 0, 'the child picked: none of the parent');
});

test('an HTML export made with transforms opens with them, as chips to undo', { timeout: 60_000 }, async () => {
  const r = await runCli(['profile', '--mode', 'cpu-prof', '--no-report', '--out', join(work, 'runs2'), '--', 'node', 'parent.js', '300'], {
    cwd: join(fixtures, 'process-tree-timeline'),
    env: { PT_TIMES: join(work, 'times2.jsonl') },
    killAfterMs: 50_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const out = join(work, 'focused.html');
  const cli = await runCli(['report', runDirOf(r), '--focus', 'childHot', '--format', 'html', '-o', out], {
    cwd: work,
    killAfterMs: 50_000,
  });
  assert.equal(cli.code, 0, cli.stderr);
  const html = readFileSync(out, 'utf8');
  const data = JSON.parse(/<script type="application\/json" id="node-flame-data">([\s\S]*?)<\/script>/.exec(html)![1]) as EmbeddedProfile;
  assert.deepEqual(
    data.transforms?.map((t) => t.kind),
    ['focus-function'],
    'the page carries the transform',
  );
  assert.ok(
    data.frames.some((f) => f.name === 'parentHot'),
    'and the profile before it (Undo brings parentHot back)',
  );
  const page = offlineViewer(data);
  const opening = page.session.opening(data.strings, { offline: true });
  const stack = opening.find((m) => m.type === 'transforms');
  assert.ok(stack && stack.type === 'transforms' && stack.transforms.length === 1, JSON.stringify(opening.map((m) => m.type)));
  const undone = await answer(page.session, { type: 'transforms', transforms: [] }, page.host);
  const tree = undone.find((m) => m.type === 'tree');
  assert.ok(tree && tree.type === 'tree' && Object.values(tree.frames).some((f) => f.name === 'parentHot'), 'undone: parentHot is back');
});
