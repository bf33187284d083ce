// Small cover images for the demo data: PNGs drawn here (a colour gradient with a few stripes),
// encoded with node:zlib, and stored the way uploads are (src/storage/image-files.ts): a 32-hex-digit
// name with the .png extension in the upload folder, written under a dot-name and then renamed.
// Names come from a hash of what the image is for, so every run picks the same file names.
import { createHash } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";
import { isUploadName } from "../storage/upload-names.ts";
import type { UploadStore } from "../storage/upload-store.ts";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes 8-bit RGB pixels (3 bytes each, row by row) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  if (rgb.length !== width * height * 3)
    throw new Error(`expected ${width * height * 3} bytes of RGB, got ${rgb.length}`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type: RGB
  // bytes 10..12: compression 0, filter method 0, no interlace
  const rowBytes = width * 3;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (rowBytes + 1)] = 0; // filter type "none" for each row
    rgb.copy(raw, y * (rowBytes + 1) + 1, y * rowBytes, (y + 1) * rowBytes);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

export type Rgb = readonly [number, number, number];

/** A diagonal gradient between two colours with lighter stripes: recognisably different per item. */
export function drawCover(width: number, height: number, from: Rgb, to: Rgb, stripes: number): Buffer {
  const rgb = Buffer.alloc(width * height * 3);
  const span = width + height - 2 || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x + y) / span;
      const stripe = stripes > 0 && Math.floor(((x - y + height) * stripes) / (width + height)) % 2 === 0;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const value = from[c]! + (to[c]! - from[c]!) * t;
        rgb[at + c] = Math.round(stripe ? value + (255 - value) * 0.25 : value);
      }
    }
  }
  return rgb;
}

/** The stored file name for an image of `key` (e.g. "grocery:seed-g-00012"): looks random, is stable. */
export function seedUploadName(key: string): string {
  const name = `${createHash("sha256").update(`seed-upload:${key}`).digest("hex").slice(0, 32)}.png`;
  if (!isUploadName(name)) throw new Error(`seed upload name ${name} does not match the upload naming rule`);
  return name;
}

/**
 * Stores an image under `name` unless a file of that name is already there (a second run writes
 * nothing). Returns whether it wrote the file.
 */
export const storeImageOnce = (store: UploadStore, name: string, png: Buffer): Promise<boolean> =>
  store.putIfAbsent(name, png, "image/png");
