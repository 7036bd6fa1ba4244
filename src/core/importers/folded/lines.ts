import { open } from 'node:fs/promises';

const CHUNK = 1 << 20;

/**
 * Calls `onLine(buf, start, end)` for each line of a file, split where readline splits (`\n`, `\r\n`, a
 * lone `\r`), and makes no string. Each read fills a new buffer, so a line's bytes stay valid after
 * the call (a reader may compare a line with the one before). `onRead` gets the bytes consumed so far.
 */
export async function forEachLine(
  path: string,
  onLine: (buf: Buffer, start: number, end: number) => void,
  onRead: (consumed: number) => void,
): Promise<void> {
  const fh = await open(path, 'r');
  try {
    let rest: Buffer | undefined;
    let consumed = 0;
    for (;;) {
      const kept = rest?.length ?? 0;
      const buf = Buffer.allocUnsafe(Math.max(CHUNK, 2 * kept));
      rest?.copy(buf, 0);
      const { bytesRead } = await fh.read(buf, kept, buf.length - kept, null);
      const eof = bytesRead === 0;
      const data = buf.subarray(0, kept + bytesRead);
      const end = data.length;
      let pos = 0;
      let nl = data.indexOf(10);
      let cr = data.indexOf(13);
      while (pos < end) {
        if (nl !== -1 && nl < pos) nl = data.indexOf(10, pos);
        if (cr !== -1 && cr < pos) cr = data.indexOf(13, pos);
        let stop: number;
        let next: number;
        if (cr !== -1 && (nl === -1 || cr < nl)) {
          // A `\r` as the last byte read may be the first half of `\r\n`.
          if (cr + 1 === end && !eof) break;
          stop = cr;
          next = data[cr + 1] === 10 ? cr + 2 : cr + 1;
        } else if (nl !== -1) {
          stop = nl;
          next = nl + 1;
        } else if (eof) {
          stop = next = end;
        } else break;
        onLine(data, pos, stop);
        pos = next;
      }
      consumed += pos;
      rest = pos < end ? data.subarray(pos, end) : undefined;
      onRead(consumed);
      if (eof) return;
    }
  } finally {
    await fh.close();
  }
}
