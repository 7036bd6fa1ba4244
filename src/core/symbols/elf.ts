import { NamedFileError, openNamedFile } from '../namedFiles';

export interface LoadSegment {
  offset: number;
  vaddr: number;
  filesz: number;
}

/** What we need of an ELF file to turn file offsets into link-time addresses. */
export interface ElfLayout {
  /** `exec` links at fixed addresses (non-PIE); `dyn` is relocatable (PIE executables, shared objects). */
  type: 'exec' | 'dyn';
  segments: LoadSegment[];
  /** Whether a static symbol table (.symtab) is present; undefined when the section headers could not be read. */
  symtab?: boolean;
  /** The GNU build-id note in hex, as `perf buildid-list` prints it; undefined when the file has none. */
  buildId?: string;
}

const PT_LOAD = 1;
const PT_NOTE = 4;
const NT_GNU_BUILD_ID = 3;
const SHT_SYMTAB = 2;
const MAX_SECTIONS = 8192;

/**
 * Reads the ELF64 little-endian program headers; null for anything else (not ELF, 32-bit, unreadable,
 * missing). A path that is not a regular file (a log may name a folder or a device) throws NamedFileError.
 */
export async function readElfLayout(path: string): Promise<ElfLayout | null> {
  let fh;
  try {
    ({ fh } = await openNamedFile(path, { maxBytes: Number.MAX_SAFE_INTEGER }));
  } catch (e) {
    if (e instanceof NamedFileError && e.reason !== 'missing' && e.reason !== 'unreadable') throw e;
    return null;
  }
  try {
    const head = Buffer.alloc(64);
    await fh.read(head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return null;
    const eType = head.readUInt16LE(16);
    const phoff = Number(head.readBigUInt64LE(32));
    const phentsize = head.readUInt16LE(54);
    const phnum = head.readUInt16LE(56);
    if (phentsize < 56 || phnum === 0 || phnum > 4096) return null;
    const ph = Buffer.alloc(phentsize * phnum);
    await fh.read(ph, 0, ph.length, phoff);
    const segments: LoadSegment[] = [];
    let buildId: string | undefined;
    for (let i = 0; i < phnum; i++) {
      const o = i * phentsize;
      if (ph.readUInt32LE(o) === PT_NOTE && buildId === undefined)
        buildId = await buildIdNote(fh, Number(ph.readBigUInt64LE(o + 8)), Number(ph.readBigUInt64LE(o + 32)));
      if (ph.readUInt32LE(o) !== PT_LOAD) continue;
      segments.push({
        offset: Number(ph.readBigUInt64LE(o + 8)),
        vaddr: Number(ph.readBigUInt64LE(o + 16)),
        filesz: Number(ph.readBigUInt64LE(o + 32)),
      });
    }
    // A stripped library (as distributions ship them) has no .symtab: `nm` would find nothing, so only its
    // dynamic symbols are asked for, one `nm` instead of two.
    let symtab: boolean | undefined;
    const shoff = Number(head.readBigUInt64LE(40));
    const shentsize = head.readUInt16LE(58);
    const shnum = head.readUInt16LE(60);
    if (shentsize >= 64 && shnum > 0 && shnum <= MAX_SECTIONS) {
      const sh = Buffer.alloc(shentsize * shnum);
      const { bytesRead } = await fh.read(sh, 0, sh.length, shoff);
      if (bytesRead === sh.length) {
        symtab = false;
        for (let i = 0; i < shnum && !symtab; i++) symtab = sh.readUInt32LE(i * shentsize + 4) === SHT_SYMTAB;
      }
    }
    return { type: eType === 2 ? 'exec' : 'dyn', segments, symtab, buildId };
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/** The GNU build-id among the notes of one PT_NOTE segment (name `GNU`, type 3), in hex. */
async function buildIdNote(
  fh: { read: (b: Buffer, o: number, l: number, p: number) => Promise<{ bytesRead: number }> },
  offset: number,
  size: number,
): Promise<string | undefined> {
  if (size <= 0 || size > 65536) return undefined;
  const b = Buffer.alloc(size);
  if ((await fh.read(b, 0, size, offset)).bytesRead !== size) return undefined;
  const pad = (n: number): number => (n + 3) & ~3;
  for (let o = 0; o + 12 <= size; ) {
    const namesz = b.readUInt32LE(o);
    const descsz = b.readUInt32LE(o + 4);
    const type = b.readUInt32LE(o + 8);
    const desc = o + 12 + pad(namesz);
    if (desc + descsz > size) return undefined;
    if (type === NT_GNU_BUILD_ID && namesz === 4 && b.toString('latin1', o + 12, o + 15) === 'GNU')
      return b.toString('hex', desc, desc + descsz);
    o = desc + pad(descsz);
  }
  return undefined;
}

/** Link-time address of a file offset (what `nm` prints), through the segment holding it. */
export function offsetToVaddr(layout: ElfLayout | null, fileOffset: number): number {
  if (layout) {
    for (const s of layout.segments) {
      if (fileOffset >= s.offset && fileOffset < s.offset + s.filesz) return fileOffset - s.offset + s.vaddr;
    }
  }
  // Without headers, assume the usual layout of a shared object: addresses equal file offsets.
  return fileOffset;
}
