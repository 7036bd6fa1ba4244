import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileNames,
  offsetToVaddr,
  PackedNames,
  parseNm,
  readElfLayout,
  SymbolTable,
  SymbolTableBuilder,
  symbolsFor,
} from '../../src/core/symbols';
import { NativeResolver } from '../../src/core/importers/v8log/native';

test('nm -C -n -S output: sized and unsized code symbols, versions dropped, data and undefined skipped', () => {
  const text = [
    '0000000000401000 0000000000000020 T main',
    '0000000000401020 t helper_without_size',
    '0000000000401100 0000000000000040 T node::crypto::CryptoJob<node::crypto::PBKDF2Traits>::Run()',
    '0000000000402000 0000000000000010 W std::vector<int, std::allocator<int> >::push_back(int const&)',
    '0000000000403000 0000000000000008 D some_data',
    '                 U memcpy@GLIBC_2.14',
    '0000000000404000 0000000000000030 T memcpy@@GLIBC_2.14',
    '0000000000405000 i resolver_ifunc',
    '',
  ].join('\n');
  assert.deepEqual(parseNm(text), [
    { addr: 0x401000, size: 0x20, name: 'main' },
    { addr: 0x401020, size: 0, name: 'helper_without_size' },
    { addr: 0x401100, size: 0x40, name: 'node::crypto::CryptoJob<node::crypto::PBKDF2Traits>::Run()' },
    { addr: 0x402000, size: 0x10, name: 'std::vector<int, std::allocator<int> >::push_back(int const&)' },
    { addr: 0x404000, size: 0x30, name: 'memcpy' },
    { addr: 0x405000, size: 0, name: 'resolver_ifunc' },
  ]);
});

test('SymbolTable: sized symbols end at their size, unsized ones at the next symbol', () => {
  const t = SymbolTable.fromSorted([
    { addr: 0x2000, size: 0, name: 'b' },
    { addr: 0x1000, size: 0x10, name: 'a' },
    { addr: 0x3000, size: 0x100, name: 'c' },
  ]);
  const at = (v: number) => {
    const i = t.find(v);
    return i < 0 ? null : t.name(i);
  };
  assert.equal(at(0x1000), 'a');
  assert.equal(at(0x100f), 'a');
  assert.equal(at(0x1010), null, 'past a sized symbol');
  assert.equal(at(0x2fff), 'b');
  assert.equal(at(0x30ff), 'c');
  assert.equal(at(0x3100), null);
  assert.equal(at(0xfff), null);
});

test('SymbolTableBuilder grows past its first arrays and name buffer, in nm order and out of it', () => {
  const N = 5000;
  const name = (i: number) => `ns::Class${i}::method(std::basic_string<char>) const — ${'x'.repeat(i % 50)}`;
  for (const order of ['sorted', 'reversed']) {
    const b = new SymbolTableBuilder();
    for (let k = 0; k < N; k++) {
      const i = order === 'sorted' ? k : N - 1 - k;
      b.add(0x1000 + i * 0x40, i % 2 ? 0x20 : 0, name(i));
    }
    const t = b.build();
    assert.equal(t.size, N);
    for (const i of [0, 1, 1023, 1024, 2047, 4999]) {
      assert.equal(t.name(t.find(0x1000 + i * 0x40 + 0x10)), name(i), `${order} #${i}`);
    }
    // Odd symbols have a size of 0x20: the gap after one belongs to nobody.
    assert.equal(t.find(0x1000 + 0x40 + 0x30), -1);
  }
});

test('packed names round-trip UTF-8', () => {
  const p = PackedNames.pack(['ä', '', 'operator<=>(x, y)', '\u2603']);
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => p.read(i)),
    ['ä', '', 'operator<=>(x, y)', '\u2603'],
  );
});

test('file offset → link address: non-PIE (fixed base) and PIE/shared object layouts', () => {
  // node as Debian ships it: ET_EXEC linked at 0x400000, text from file offset 0.
  const exec = { type: 'exec' as const, segments: [{ offset: 0, vaddr: 0x400000, filesz: 0x2000000 }] };
  assert.equal(offsetToVaddr(exec, 0x1000), 0x401000);
  // A shared object whose second segment is linked one page above its file offset.
  const dyn = {
    type: 'dyn' as const,
    segments: [
      { offset: 0, vaddr: 0, filesz: 0x1000 },
      { offset: 0x1000, vaddr: 0x2000, filesz: 0x5000 },
    ],
  };
  assert.equal(offsetToVaddr(dyn, 0x800), 0x800);
  assert.equal(offsetToVaddr(dyn, 0x1800), 0x2800);
  assert.equal(offsetToVaddr(null, 0x1800), 0x1800, 'no headers: offsets taken as addresses');
});

test('NativeResolver names a PC in a non-PIE executable and in a PIE library through their layouts', () => {
  const r = new NativeResolver();
  // Relative paths: nothing is loaded from disk, the test supplies layout and symbols itself.
  r.addLibrary('node', 0x400000, 0x2600000);
  r.addLibrary('node', 0x400000, 0x2601000); // V8 repeats a library once per segment
  r.addLibrary('libcrypto.so.3', 0x7f0000000000, 0x7f0000400000);
  assert.equal(r.libs.length, 2);
  const [exe, lib] = r.libs;
  exe.layout = { type: 'exec', segments: [{ offset: 0, vaddr: 0x400000, filesz: 0x2200000 }] };
  exe.symbols = SymbolTable.fromSorted([{ addr: 0x1266b00, size: 0x200, name: 'node::crypto::CryptoJob<PBKDF2Traits>::Run()' }]);
  lib.layout = { type: 'dyn', segments: [{ offset: 0x1000, vaddr: 0x2000, filesz: 0x300000 }] };
  lib.symbols = SymbolTable.fromSorted([{ addr: 0x2100, size: 0x80, name: 'sha512_block_data_order_avx2' }]);
  assert.equal(r.resolve(0x1266b72)?.name, 'node::crypto::CryptoJob<PBKDF2Traits>::Run()');
  // file offset 0x1140 → link address 0x2140, inside the SHA-512 routine.
  assert.equal(r.resolve(0x7f0000001140)?.name, 'sha512_block_data_order_avx2');
  assert.equal(r.resolve(0x7f0000003000)?.name, 'libcrypto.so.3+0x3000', 'no symbol: library and offset');
  assert.equal(r.resolve(0x100), null, 'outside every library');
});

test('readElfLayout: this node binary has loadable segments; a text file is not ELF', async () => {
  const l = await readElfLayout(process.execPath);
  assert.ok(l && l.segments.length > 0);
  assert.ok(l.type === 'exec' || l.type === 'dyn');
  assert.equal(await readElfLayout(__filename), null);
});

test('symbol cache: names stay in the file and are read on demand; a cleaned cache degrades to ""', async (t) => {
  const lib = ['/usr/lib/x86_64-linux-gnu/libdl.so.2', '/lib/x86_64-linux-gnu/libdl.so.2', '/usr/lib64/libdl.so.2'].find(existsSync);
  if (!lib) return t.skip('no libdl.so.2 here to run nm on');
  const dir = mkdtempSync(join(tmpdir(), 'nf-symcache-'));
  const saved = process.env.NODE_FLAME_CACHE;
  process.env.NODE_FLAME_CACHE = dir;
  try {
    const first = await symbolsFor(lib);
    assert.ok(first.size > 0, 'nm found no symbols');
    assert.ok(first.store instanceof FileNames, 'names were not left in the cache file');
    const files = readdirSync(join(dir, 'symbols'));
    assert.equal(files.length, 1);
    const names = Array.from({ length: first.size }, (_, i) => first.name(i));
    assert.ok(names.every((n) => n.length > 0));
    rmSync(join(dir, 'symbols', files[0]));
    // The names' blocks already read stay readable; a store that read nothing before its file went gives ''.
    assert.equal(new SymbolTable(first.addrs, first.ends, first.store).name(0), names[0]);
    const other = join(dir, 'names.bin');
    writeFileSync(other, 'abcdef');
    const unread = new FileNames(other, 0, Uint32Array.from([0, 3, 6]));
    assert.equal(unread.read(1), 'def');
    rmSync(other);
    assert.equal(unread.read(0), 'abc', 'the block read for name 1 holds name 0');
    const gone = new FileNames(other, 0, Uint32Array.from([0, 3, 6]));
    assert.equal(gone.read(0), '', 'a deleted cache file gives an empty name, not an exception');
  } finally {
    if (saved === undefined) delete process.env.NODE_FLAME_CACHE;
    else process.env.NODE_FLAME_CACHE = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
