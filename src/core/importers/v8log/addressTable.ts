/**
 * A map from addresses (integers in (0, 2^53)) to values, by open addressing in a Float64Array. A Map keyed by
 * addresses past 2^31 boxes each key it is asked about and hashes the box: tsc's log asks ~150 000 times.
 */
export class AddressTable<T> {
  private keys = new Float64Array(1024);
  private values: (T | undefined)[] = new Array<T | undefined>(1024).fill(undefined);
  size = 0;

  private slotOf(addr: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    // The low 32 bits (ToUint32 is the value modulo 2^32) and the rest, mixed.
    let h = Math.imul(addr >>> 0, 0x9e3779b1) ^ ((addr / 4294967296) | 0);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    let i = (h ^ (h >>> 16)) & mask;
    for (;;) {
      const k = keys[i];
      if (k === addr || k === 0) return i;
      i = (i + 1) & mask;
    }
  }

  get(addr: number): T | undefined {
    return this.values[this.slotOf(addr)];
  }

  set(addr: number, value: T): void {
    let i = this.slotOf(addr);
    if (this.keys[i] === 0) {
      if (2 * (this.size + 1) > this.keys.length) {
        this.grow();
        i = this.slotOf(addr);
      }
      this.keys[i] = addr;
      this.size++;
    }
    this.values[i] = value;
  }

  clear(): void {
    this.keys.fill(0);
    this.values.fill(undefined);
    this.size = 0;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Array<T | undefined>(keys.length * 2).fill(undefined);
    for (let i = 0; i < keys.length; i++)
      if (keys[i] !== 0) {
        const j = this.slotOf(keys[i]);
        this.keys[j] = keys[i];
        this.values[j] = values[i];
      }
  }
}
