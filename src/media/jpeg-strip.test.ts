import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp, { type Sharp } from 'sharp';
import { stripJpegMetadata } from './jpeg-strip.ts';

const EXIF = { IFD0: { Make: 'TestCam', Model: 'Phone 1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' } };
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="SecretPlace"/></rdf:RDF></x:xmpmeta>';

/** A 240x160 picture with detail (so the compressed data has many 0xFF bytes to step over). */
function picture(): Sharp {
  const w = 240;
  const h = 160;
  const px = Buffer.alloc(w * h * 3);
  for (let i = 0; i < px.length; i++) px[i] = (i * 7919 + (i >> 5) * 31) % 256;
  return sharp(px, { raw: { width: w, height: h, channels: 3 } });
}

const pixels = async (jpeg: Buffer) => (await sharp(jpeg).raw().toBuffer()).toString('base64');

test('an upright JPEG loses EXIF (GPS), XMP and what follows its end; its picture and colour profile stay byte for byte', async () => {
  for (const progressive of [false, true]) {
    const main = await picture().jpeg({ quality: 90, progressive }).withIccProfile('p3').withExif(EXIF).withXmp(XMP).toBuffer();
    // Phones append a second picture, with EXIF of its own, after the first one's end.
    const appended = await picture().resize(60).jpeg().withExif(EXIF).toBuffer();
    const input = Buffer.concat([main, appended]);
    const before = await sharp(input).metadata();
    assert.ok(before.exif && before.xmp && before.icc, 'the fixture carries EXIF, XMP and a profile');

    const out = stripJpegMetadata(input);
    assert.ok(out, `progressive ${progressive}: stripped`);
    const after = await sharp(out).metadata();
    assert.equal(after.exif, undefined);
    assert.equal(after.xmp, undefined);
    assert.deepEqual(after.icc, before.icc, 'the colour profile is kept');
    assert.equal(out.includes(Buffer.from('TestCam')), false, 'not even in the appended picture');
    assert.equal(out.includes(Buffer.from('SecretPlace')), false);
    assert.deepEqual(out.subarray(-2), Buffer.from([0xff, 0xd9]), 'ends where the picture ends');
    assert.equal(await pixels(out), await pixels(main), 'the same pixels: nothing was re-encoded');
  }
});

test('a file that is not laid out as a JPEG gives null (the caller re-encodes it)', async () => {
  const jpeg = await picture().jpeg().withExif(EXIF).toBuffer();
  assert.equal(stripJpegMetadata(jpeg.subarray(0, Math.floor(jpeg.length / 2))), null, 'truncated: no end');
  assert.equal(stripJpegMetadata(await picture().png().toBuffer()), null, 'a PNG');
  const badLength = Buffer.from(jpeg);
  badLength.writeUInt16BE(0xfff0, 4); // the first segment's length runs past the file
  assert.equal(stripJpegMetadata(badLength), null);
});
