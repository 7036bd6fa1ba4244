// A native library stripped as distributions ship them: an N-API addon whose hot function is static, so after
// `strip` perf has no name for it (only napi_register_module_v1 keeps one). Built by gcc in the test's folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { perfCannotRecord } from './perfProbe';

/** Why the addon cannot be built here (gcc or the Node headers missing), or false. */
export const addonBuildSkip: string | false =
  spawnSync('gcc', ['--version']).status !== 0 || !existsSync('/usr/include/node/node_api.h')
    ? 'gcc or the Node headers (/usr/include/node) are missing'
    : false;

/** Why a stripped-library test under perf cannot run here (perf, gcc or the Node headers missing), or false. */
export const strippedAddonSkip: string | false = perfCannotRecord || addonBuildSkip;

const SOURCE = `#include <node_api.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
__attribute__((noinline)) static double hot_loop(int n) { double s = 0; for (int i = 0; i < n; i++) s += (double)(i % 7) * 0.5; return s; }
static napi_value run(napi_env env, napi_callback_info info) {
  size_t argc = 1; napi_value argv[1]; double ms = 1000, acc = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc > 0) napi_get_value_double(env, argv[0], &ms);
  double end = now_ms() + ms;
  while (now_ms() < end) acc += hot_loop(100000);
  napi_value out; napi_create_double(env, acc, &out); return out;
}
NAPI_MODULE_INIT() { napi_value fn; napi_create_function(env, "run", NAPI_AUTO_LENGTH, run, NULL, &fn); napi_set_named_property(env, exports, "run", fn); return exports; }
`;

/**
 * Writes `app.js` (hot in the addon for `ms`) and `libhot.so` (stripped) into `dir`; `libhot-full.so` keeps the
 * symbols (and, with `debug`, DWARF and a build-id, for a debug file). Returns the unstripped library's path.
 */
export function buildStrippedAddon(dir: string, ms: number, debug = false): string {
  writeFileSync(join(dir, 'hot.c'), SOURCE);
  writeFileSync(
    join(dir, 'app.js'),
    `const m = { exports: {} };\nprocess.dlopen(m, require('node:path').join(__dirname, 'libhot.so'));\nconsole.log(m.exports.run(${ms}));\n`,
  );
  const full = join(dir, 'libhot-full.so');
  const flags = debug ? ['-g', '-Wl,--build-id'] : [];
  execFileSync('gcc', ['-O1', ...flags, '-fPIC', '-shared', '-fno-omit-frame-pointer', '-I/usr/include/node', 'hot.c', '-o', full], {
    cwd: dir,
  });
  execFileSync('strip', ['--strip-all', full, '-o', join(dir, 'libhot.so')]);
  return full;
}

/**
 * `buildStrippedAddon` with a debug file: `libhot.so` stripped, its DWARF and symbols in `libhot.debug` (not yet where
 * the system looks for debug files). Returns the library's build-id.
 */
export function buildAddonWithDebugFile(dir: string, ms: number): string {
  const full = buildStrippedAddon(dir, ms, true);
  execFileSync('objcopy', ['--only-keep-debug', full, join(dir, 'libhot.debug')]);
  const buildId = /Build ID: ([0-9a-f]+)/.exec(execFileSync('readelf', ['-n', join(dir, 'libhot.so')], { encoding: 'utf8' }))?.[1];
  if (!buildId) throw new Error('the library has no build-id');
  return buildId;
}
