import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createScanner, MAX_TEXTS } from '../reading/search/scan.ts';
import { needleOf } from '../reading/search/needle.ts';
import { scanModule } from '../reading/search/scan-module.ts';
import { SCAN_WASM } from '../reading/search/scan-bytes.ts';

// What the scan must never miss: text t in the bytes, ASCII letters in either case.
function holds(bytes: Buffer, text: string): boolean {
  return bytes.toString('latin1').toLowerCase().includes(Buffer.from(text).toString('latin1').toLowerCase());
}

describe('the scan module', () => {
  it('is kept as the bytes its listing assembles', () => {
    const assembled = Buffer.from(scanModule()).toString('base64');
    assert.equal(
      SCAN_WASM,
      assembled,
      `reading/search/scan-bytes.ts no longer holds what scan-module.ts assembles: set SCAN_WASM to '${assembled}'`,
    );
  });
});

describe('createScanner', () => {
  const scanner = createScanner(1 << 20);
  const put = (bytes: Buffer) => scanner.read.subarray(0, bytes.copy(scanner.read));
  const lookFor = (texts: readonly string[], counts?: Uint32Array) =>
    scanner.setTexts(texts.map((t) => needleOf(t, counts, true)));

  it('says which texts a file holds, in either case, wherever they lie', () => {
    const texts = ['zzqqxxyy_rare', 'Hello', 'x', 'return', 'no_such'];
    assert.equal(lookFor(texts), true);
    for (const text of [
      '',
      'hello world',
      'HELLO',
      `abc ZZQQXXYY_RARE ${'y'.repeat(40)}`,
      'x',
      'RETURN 1',
      `${'a'.repeat(100)}no_such`,
      'no_suc',
      'hellx',
    ]) {
      const bytes = put(Buffer.from(text));
      const found = scanner.present(bytes);
      texts.forEach((t, i) => {
        assert.equal(((found >>> i) & 1) === 1, holds(bytes, t), `${t} in ${text}`);
      });
    }
  });

  it('never misses a text, however many (up to 31) and wherever in the bytes', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = 'abAB_x\n{[0zZ';
    const word = (most: number) =>
      Array.from({ length: 1 + random(most) }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 3_000; round++) {
      const texts = Array.from({ length: 1 + random(round % 3 === 0 ? MAX_TEXTS : 9) }, () => word(4));
      const counts = round % 2 === 0 ? undefined : new Uint32Array(256).map(() => random(1000));
      assert.equal(lookFor(texts, counts), true);
      const bytes = put(Buffer.from(word(90)));
      const found = scanner.present(bytes);
      texts.forEach((t, i) => {
        if (holds(bytes, t)) assert.equal((found >>> i) & 1, 1, `${t} in ${bytes.toString()}`);
      });
    }
  });

  it('says every text may be there before texts are set, and after none are (one text alone is not scanned)', () => {
    const fresh = createScanner(0);
    const bytes = fresh.read.subarray(0, Buffer.from('abc').copy(fresh.read));
    assert.equal(fresh.present(bytes), -1);
    fresh.setTexts([needleOf('zz', undefined, true)]);
    assert.equal(fresh.present(bytes), 0);
    assert.equal(fresh.setTexts(undefined), false);
    assert.equal(fresh.present(bytes), -1);
  });

  it('says every text may be there for bytes outside its memory, or too many texts', () => {
    lookFor(['abc']);
    assert.equal(scanner.present(Buffer.from('xyz')), -1);
    assert.equal(lookFor(Array.from({ length: MAX_TEXTS + 1 }, (_, i) => `t${i}`)), false);
    assert.equal(scanner.present(put(Buffer.from('nothing'))), -1);
    assert.equal(lookFor([]), true);
    assert.equal(scanner.present(put(Buffer.from('nothing'))), 0);
  });
});
