// Finds every string handed to l10n.t in src/ with the TypeScript parser. The official exporter
// (@vscode/l10n-dev) skips strings built with `+` and calls through an alias (`const t = vscode.l10n.t`);
// a string it skips stays English in every language.
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const isL10nT = (e) =>
  ts.isPropertyAccessExpression(e) &&
  e.name.text === 't' &&
  ((ts.isIdentifier(e.expression) && e.expression.text === 'l10n') ||
    (ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'l10n'));

/** The constant text of a literal, a `+` chain of literals, or undefined when it is computed at run time. */
function constant(e) {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isParenthesizedExpression(e)) return constant(e.expression);
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const a = constant(e.left);
    const b = constant(e.right);
    return a === undefined || b === undefined ? undefined : a + b;
  }
  return undefined;
}

/** The bundle entry of a call's first argument: its text, or for `{ message, comment }` the exporter's `message/comment` key. */
function entry(arg) {
  if (!ts.isObjectLiteralExpression(arg)) {
    const text = constant(arg);
    return text === undefined ? undefined : { key: text, message: text };
  }
  const prop = (n) => arg.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === n);
  const message = prop('message');
  if (!message) return undefined;
  const text = constant(message.initializer);
  const comment = prop('comment');
  if (text === undefined) return undefined;
  if (!comment) return { key: text, message: text };
  const c = comment.initializer;
  const parts = ts.isArrayLiteralExpression(c) ? c.elements.map(constant) : [constant(c)];
  return parts.includes(undefined) ? undefined : { key: `${text}/${parts.join('')}`, message: text, comment: parts };
}

/** Every l10n string in src/ (key → { message, comment?, where }), and calls whose text is only known at run time. */
export function scanSources(dir = join(root, 'src')) {
  const strings = new Map();
  const problems = [];
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const aliases = new Set();
    const where = (n) => `${relative(root, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    const visit = (n) => {
      if (ts.isVariableDeclaration(n) && n.initializer && isL10nT(n.initializer) && ts.isIdentifier(n.name)) aliases.add(n.name.text);
      if (ts.isCallExpression(n) && (isL10nT(n.expression) || (ts.isIdentifier(n.expression) && aliases.has(n.expression.text)))) {
        const arg = n.arguments[0];
        const e = arg && entry(arg);
        if (e === undefined)
          problems.push(`${where(n)}: the text of ${n.getText().slice(0, 80)} is computed at run time, so it cannot be translated`);
        else if (!strings.has(e.key)) strings.set(e.key, { ...e, where: where(n) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { strings, problems };
}
