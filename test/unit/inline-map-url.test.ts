import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inlineMapUrl } from '../../src/launch/preload/inlineMaps';

const MAP = 'data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==';

test('the inline map of a comment that ends the code, with or without what follows on its line', () => {
  assert.equal(inlineMapUrl(`let a = 1;\n//# sourceMappingURL=${MAP}`), MAP);
  assert.equal(inlineMapUrl(`let a = 1;\n//# sourceMappingURL=${MAP}\n`), MAP);
  assert.equal(inlineMapUrl(`let a = 1;\n//@ sourceMappingURL=${MAP}  \r\n})`), MAP);
  assert.equal(inlineMapUrl(`let a = 1;\n/*# sourceMappingURL=${MAP} */\n`), MAP);
});

test("a loader's own code that builds such a comment in a string has no map (tsx's register bundle)", () => {
  // As in tsx 4's dist/register-*.cjs: the comment's text is a string the loader appends to the code it compiles.
  const tsxLike =
    'const Oo="\\n//# sourceMappingURL=data:application/json;base64,",Nt=({code:t,map:e})=>t+Oo+Buffer.from(JSON.stringify(e)).toString("base64");';
  assert.equal(inlineMapUrl(tsxLike), undefined);
  const template = 'const c = `//# sourceMappingURL=data:application/json;base64,${b64}`;\nmodule.exports = c;';
  assert.equal(inlineMapUrl(template), undefined);
  assert.equal(inlineMapUrl('no map here'), undefined);
});
