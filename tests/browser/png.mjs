// png.mjs - 8-bit RGBA PNG in and out for the browser test (Node's zlib):
// reads crowd render's output, writes the page's pixels and the difference
// image next to them when a case fails.
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

function paeth(a, b, c) {
    const p = a + b - c;
    const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// {width, height, data: Uint8Array RGBA, rows top first} of an 8-bit RGB or
// RGBA, non-interlaced PNG.
export function readPng(bytes) {
    if (!bytes.subarray(0, 8).equals(SIGNATURE)) {
        throw new Error('not a PNG file');
    }
    let width = 0, height = 0, channels = 0;
    const idat = [];
    for (let at = 8; at < bytes.length;) {
        const length = bytes.readUInt32BE(at);
        const type = bytes.toString('latin1', at + 4, at + 8);
        const body = bytes.subarray(at + 8, at + 8 + length);
        if (type === 'IHDR') {
            width = body.readUInt32BE(0);
            height = body.readUInt32BE(4);
            channels = { 2: 3, 6: 4 }[body[9]];
            if (body[8] !== 8 || !channels || body[12] !== 0) {
                throw new Error('expected an 8-bit RGB(A) PNG');
            }
        } else if (type === 'IDAT') {
            idat.push(body);
        }
        at += 12 + length;
    }
    const raw = zlib.inflateSync(Buffer.concat(idat));
    const stride = width * channels;
    const rows = new Uint8Array(stride * height);
    for (let y = 0; y < height; y++) {
        const filter = raw[y * (stride + 1)];
        for (let x = 0; x < stride; x++) {
            const a = x >= channels ? rows[y * stride + x - channels] : 0;
            const b = y > 0 ? rows[(y - 1) * stride + x] : 0;
            const c = x >= channels && y > 0 ? rows[(y - 1) * stride + x - channels] : 0;
            const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
            rows[y * stride + x] = raw[y * (stride + 1) + 1 + x] + predictor;
        }
    }
    const data = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) {
        for (let k = 0; k < 4; k++) {
            data[4 * i + k] = k < channels ? rows[i * channels + k] : 255;
        }
    }
    return { width, height, data };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) {
        c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return c >>> 0;
});

function crc32(bytes) {
    let c = 0xffffffff;
    for (const b of bytes) {
        c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
    }
    return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, body) {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
}

// An 8-bit RGBA PNG of `data` (rows top first).
export function writePng(width, height, data) {
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header[8] = 8;
    header[9] = 6;
    const raw = Buffer.alloc((width * 4 + 1) * height);
    for (let y = 0; y < height; y++) {
        Buffer.from(data.buffer, data.byteOffset + y * width * 4, width * 4)
            .copy(raw, y * (width * 4 + 1) + 1);
    }
    return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw)),
                          chunk('IEND', Buffer.alloc(0))]);
}
