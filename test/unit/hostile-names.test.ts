import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseHtml } from 'parse5';
import { loadProfile } from '../../src/core/importers';
import { exportProfile } from '../../src/core/exporters';
import { diffToHtml } from '../../src/core/exporters/diff';
import { weightUnitOf, type Profile } from '../../src/core/model';
import { cpuFrame } from '../../src/core/importers/cpuprofile';
import { parseFoldedFrame } from '../../src/core/importers/folded';
import { HOSTILE, LONG, MUST_SURVIVE, writers } from '../helpers/hostile';

// sax ships no types; it comes with the dev tooling (@vscode/l10n-dev → xml2js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sax = require('sax') as {
  parser(
    strict: boolean,
    opts: object,
  ): {
    onerror: (e: Error) => void;
    onopentag: (t: { name: string; attributes: Record<string, string> }) => void;
    write(s: string): { close(): void };
  };
};

const dir = mkdtempSync(join(tmpdir(), 'nf-hostile-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const profiles = new Map<string, Profile>();
async function profileOf(format: string): Promise<Profile> {
  let p = profiles.get(format);
  if (!p) {
    const path = join(dir, `hostile-${format}.txt`);
    writeFileSync(path, writers[format](), 'utf8');
    p = await loadProfile(path, { sourceMaps: false });
    assert.equal(p.format, format);
    profiles.set(format, p);
  }
  return p;
}

function checkSvg(svg: string, where: string): void {
  const problems: string[] = [];
  const parser = sax.parser(true, {});
  parser.onerror = (e) => {
    problems.push(`not XML: ${e.message.split('\n')[0]}`);
    throw e;
  };
  parser.onopentag = (t) => {
    if (/^(script|foreignObject|iframe|object|embed|a|use|image)$/i.test(t.name)) problems.push(`element <${t.name}>`);
    for (const [k, v] of Object.entries(t.attributes)) {
      if (/^on/i.test(k)) problems.push(`attribute ${k}`);
      if (/^\s*javascript:/i.test(v)) problems.push(`javascript: in ${k}`);
    }
  };
  try {
    parser.write(svg).close();
  } catch {
    // recorded by onerror
  }
  assert.deepEqual(problems, [], where);
}

type Node5 = { nodeName: string; attrs?: { name: string; value: string }[]; childNodes?: Node5[]; content?: Node5 };
function htmlProblems(html: string): string[] {
  const problems: string[] = [];
  const walk = (n: Node5) => {
    if (/^(script|iframe|object|embed|img|image|foreignobject|base|link)$/i.test(n.nodeName)) problems.push(`element <${n.nodeName}>`);
    for (const a of n.attrs ?? []) {
      if (/^on/i.test(a.name)) problems.push(`attribute ${a.name} on <${n.nodeName}>`);
      if (/^\s*javascript:/i.test(a.value)) problems.push(`javascript: in ${a.name}`);
    }
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parseHtml(html) as unknown as Node5);
  return problems;
}

for (const format of Object.keys(writers)) {
  test(`${format}: hostile function and file names survive import as plain data`, async () => {
    const p = await profileOf(format);
    const names = p.frames.map((f) => f.name);
    for (const h of MUST_SURVIVE)
      assert.ok(
        names.includes(h),
        `${format}: no frame named ${JSON.stringify(h)} (have ${JSON.stringify(names.map((n) => n.slice(0, 40)))})`,
      );
    assert.ok(
      p.frames.some((f) => f.name === LONG || f.name.includes(LONG)),
      `${format}: the 100 KB name was cut or lost`,
    );
    // perf script names a frame's binary (dso), never a source file.
    if (format !== 'perf')
      assert.ok(
        p.frames.some((f) => f.file.includes('한글_日本語_🔥')),
        `${format}: non-ASCII file name lost`,
      );
  });

  test(`${format}: json export round-trips every hostile name exactly`, async () => {
    const p = await profileOf(format);
    const out = JSON.parse(exportProfile(p, 'json', { top: 100 })) as { functions: { name: string; file: string | null }[] };
    const exported = new Set(out.functions.map((f) => f.name));
    for (const f of p.frames)
      if (HOSTILE.includes(f.name)) assert.ok(exported.has(f.name), `${format}: ${JSON.stringify(f.name.slice(0, 40))} missing from json`);
    if (format !== 'perf')
      assert.ok(
        out.functions.some((f) => f.file?.includes('<img_src=x_onerror=alert(1)>')),
        `${format}: hostile file name not in json`,
      );
  });

  test(`${format}: svg export is well-formed XML with no script, handler or javascript: URL`, async () => {
    const p = await profileOf(format);
    const svg = exportProfile(p, 'svg', { source: '</title><script>alert(1)</script>' });
    checkSvg(svg, format);
    assert.ok(!svg.includes('<img') && !svg.includes('<script') && !svg.includes('</script'), `${format}: raw markup in svg`);
    assert.ok(svg.includes('&#60;img src=x onerror=alert(1)&#62;'), `${format}: the hostile name should be shown, escaped`);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(svg), `${format}: XML-forbidden control characters in svg`);
  });

  test(`${format}: folded export keeps one stack per line and re-imports to the same weights`, async () => {
    const p = await profileOf(format);
    const folded = exportProfile(p, 'folded');
    const lines = folded.trimEnd().split('\n');
    for (const l of lines) assert.match(l, /^.+ \d+(?:\.\d+)?$/, `${format}: bad folded line ${JSON.stringify(l.slice(0, 80))}`);
    assert.ok(!folded.includes('\r'));
    const path = join(dir, `again-${format}.folded`);
    writeFileSync(path, folded);
    const again = await loadProfile(path, { sourceMaps: false });
    // Folded weights count samples (perf's period-weighted samples counted back).
    assert.equal(again.tree.weight, p.meta.sampleCount ?? p.tree.weight);
    for (const h of MUST_SURVIVE)
      assert.ok(
        again.frames.some((f) => f.name === h),
        `${format}: ${h} lost through folded`,
      );
  });

  test(`${format}: text export has the names and no terminal control characters`, async () => {
    const p = await profileOf(format);
    const text = exportProfile(p, 'text');
    assert.ok(text.includes('</script><script>alert(1)</script>'));
    // eslint-disable-next-line no-control-regex
    const ctl = /[\u0000-\u0008\u000b-\u001f\u007f]/.exec(text);
    assert.equal(ctl, null, `${format}: control character U+${ctl?.[0].charCodeAt(0).toString(16).padStart(4, '0')} in the text report`);
  });
}

test('diff html: hostile names and file names are escaped; no script, handler or javascript: URL', async () => {
  const before = await profileOf('cpuprofile');
  const after = await profileOf('folded');
  const html = diffToHtml(before, after, '<img src=x onerror=alert(1)>.cpuprofile', '</script><script>alert(2)</script>');
  assert.deepEqual(htmlProblems(html), []);
  assert.ok(!html.includes('<img') && !html.includes('<script'), 'raw markup in the diff page');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  assert.ok(
    html.includes('&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;'),
    'the hostile function name should be shown, escaped',
  );
  // The embedded svg is still XML on its own.
  const svg = /<svg[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
  assert.ok(svg.length > 0);
  checkSvg(svg, 'diff svg');
});

test("names that are Object.prototype's keys are plain names; Node Flame's own frames read back as what they stand for", () => {
  for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf']) {
    // `name in SPECIAL` found Object's methods: the category was a function.
    assert.equal(cpuFrame({ functionName: name, url: '' })?.category, 'native', name);
    assert.equal(weightUnitOf({ type: 'cpu', unit: name }).known, false, name);
  }
  for (const name of ['(stack too deep)', '(callers unknown)', '(caller not recorded)', '[ambiguous JIT code]']) {
    assert.equal(cpuFrame({ functionName: name, url: '' })?.category, 'unaccounted', name);
    assert.equal(parseFoldedFrame(name)?.frame.category, 'unaccounted', name);
  }
});
