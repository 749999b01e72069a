/**
 * 32-bit string hash: FNV-1a over UTF-16 code units, then MurmurHash3's fmix32
 * finaliser. FNV alone clusters similar strings ("exec-1#0", "exec-1#1"), which
 * would bunch virtual nodes on the ring; the finaliser spreads them.
 */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
