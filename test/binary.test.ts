import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { binaryReason, CONTROL_SHARE, controlShare, isControl, signatureOf } from '../reading/binary.ts';

describe('controlShare', () => {
  it('counts exactly the characters isControl counts, in bytes and in text', () => {
    for (let c = 0; c < 256; c++) {
      const want = isControl(c) ? 1 / 4 : 0;
      assert.equal(controlShare(Buffer.from([c, 0x41, 0x42, 0x43])), want, `byte ${c}`);
      assert.equal(controlShare(`${String.fromCharCode(c)}ABC`), want, `character ${c}`);
    }
    assert.equal(controlShare('\u0100\u2028\uffff'), 0);
    assert.equal(controlShare(''), 0);
  });

  it('counts within a view of a larger buffer, not the buffer around it', () => {
    const whole = Buffer.from('\x01\x02\x03abcd\x04');
    assert.equal(controlShare(whole.subarray(3, 7)), 0);
    assert.equal(controlShare(whole.subarray(2, 7)), 1 / 5);
  });
});

describe('binaryReason', () => {
  it('names a format by its signature where it lies, and only when the file is long enough to hold it', () => {
    const webp = Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00', 'latin1'), Buffer.from('WEBPVP8 ')]);
    assert.equal(signatureOf(webp), 'a WebP image');
    assert.equal(signatureOf(webp.subarray(0, 11)), undefined);
    const tar = Buffer.alloc(600, 0x20);
    tar.write('ustar', 257);
    assert.equal(binaryReason(tar), 'a tar archive');
    assert.equal(binaryReason(Buffer.from('%PDF-1.7\n')), 'a PDF document');
    assert.equal(binaryReason(Buffer.from('%PDF')), undefined);
  });

  it('tells text from bytes by NULs and by the share of control characters', () => {
    assert.equal(binaryReason(Buffer.from('plain text\n')), undefined);
    assert.equal(binaryReason(Buffer.from('a\x00b')), 'it holds NUL bytes');
    const some = Buffer.from(`${'a'.repeat(100)}\x01\x02`);
    assert.equal(controlShare(some) <= CONTROL_SHARE, true);
    assert.equal(binaryReason(some), undefined);
    const many = Buffer.from(`${'a'.repeat(30)}\x01\x02`);
    assert.equal(binaryReason(many), 'it is mostly control characters');
    assert.equal(binaryReason(Buffer.from('\xff\xfeh\x00i\x00', 'latin1')), undefined);
  });
});
