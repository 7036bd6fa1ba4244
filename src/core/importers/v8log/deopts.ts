import type { ProfileBuilder } from '../../model';
import type { CodeMap } from './codeMap';
import { fileUrlToPathAnyOs } from '../../paths';
import { fixUtf8, own, parseAddress, unescapeField } from './fields';
import { codeFrame, isJs } from './frames';

/**
 * The last `<file:line:column>` of a deopt location: a bailout in inlined code reads
 * `<callee position> inlined at <caller position>`, and the last one is in the function whose code was dropped.
 */
const LOCATION = /<([^<>]*):(\d+):(\d+)>$/;

/**
 * `code-deopt,<µs>,<code size>,<code start>,<inlining id>,<script offset>,<kind>,<location>,<reason>`
 * (logged with `--log-deopt`) → one entry of `builder.deopts` for the function whose optimized code it
 * was. Returns false for a line that does not have that shape.
 */
export function readDeopt(line: string, code: CodeMap, builder: ProfileBuilder, isScript?: (named: string) => boolean): boolean {
  const f = line.split(',');
  if (f.length < 9) return false;
  const ts = +f[1];
  const start = parseAddress(f[3]);
  if (!(ts >= 0) || isNaN(start)) return false;
  const entry = code.get(start) ?? code.find(start);
  // Code the log never announced cannot be named; that is not damage.
  if (!entry || !isJs(entry.info)) return true;
  if (entry.info.frameId < 0) entry.info.frameId = builder.frame(codeFrame(entry.info, undefined, isScript));
  const loc = LOCATION.exec(unescapeField(fixUtf8(f[7])));
  builder.deopts.push({
    frame: entry.info.frameId,
    timeMs: ts / 1000,
    kind: own(f[6]),
    reason: own(unescapeField(fixUtf8(f.slice(8).join(',')))),
    file: loc ? own(fileUrlToPathAnyOs(loc[1])) : '',
    line: loc ? +loc[2] : 0,
    column: loc ? +loc[3] : 0,
  });
  return true;
}
