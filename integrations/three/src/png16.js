// png16.js - decodes the 16-bit RGBA PNG of a unorm16_oct bake without loss.
// Browsers (and three.js's loaders on top of them) hand PNGs to the page as
// 8 bits per channel, which would quantize positions to 1/255 of the bounds;
// this reads the file itself: chunks, zlib through the browser's own
// DecompressionStream, then PNG's per-row filters.

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const BYTES_PER_PIXEL = 8; // RGBA, 2 bytes each

function fail(url, what) {
    return new Error(`crowd: ${url}: ${what}`);
}

// The zlib stream of the IDAT chunks, refused as soon as it holds more than
// `size` bytes (a small corrupt file must not fill memory).
async function inflate(url, chunks, size) {
    const reader = new Blob(chunks).stream().pipeThrough(new DecompressionStream('deflate')).getReader();
    const out = new Uint8Array(size);
    let length = 0;
    try {
        for (let part = await reader.read(); !part.done; part = await reader.read()) {
            if (length + part.value.length > size) {
                throw fail(url, `image data holds more than the ${size} bytes its size needs`);
            }
            out.set(part.value, length);
            length += part.value.length;
        }
    } catch (e) {
        reader.cancel().catch(() => {});
        throw e.message.startsWith('crowd:') ? e : fail(url, `corrupt image data (${e.message})`);
    }
    if (length !== size) {
        throw fail(url, `image data is ${length} bytes, its size needs ${size}`);
    }
    return out;
}

function paeth(a, b, c) {
    const p = a + b - c;
    const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Undoes each row's filter (PNG specification, section 9) into rows without
// their filter bytes. One loop per filter type: the switch per row, not per
// byte, keeps a 30 MB texture well under a second.
function unfilter(url, raw, width, height) {
    const n = BYTES_PER_PIXEL;
    const stride = width * n;
    const out = new Uint8Array(stride * height);
    const zero = new Uint8Array(stride);
    for (let y = 0; y < height; y++) {
        const filter = raw[y * (stride + 1)];
        const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        const row = out.subarray(y * stride, (y + 1) * stride);
        const up = y > 0 ? out.subarray((y - 1) * stride, y * stride) : zero;
        switch (filter) {
            case 0:
                row.set(src);
                break;
            case 1:
                for (let x = 0; x < stride; x++) {
                    row[x] = src[x] + (x >= n ? row[x - n] : 0);
                }
                break;
            case 2:
                for (let x = 0; x < stride; x++) {
                    row[x] = src[x] + up[x];
                }
                break;
            case 3:
                for (let x = 0; x < stride; x++) {
                    row[x] = src[x] + (((x >= n ? row[x - n] : 0) + up[x]) >> 1);
                }
                break;
            case 4:
                for (let x = 0; x < stride; x++) {
                    const a = x >= n ? row[x - n] : 0, c = x >= n ? up[x - n] : 0;
                    row[x] = src[x] + paeth(a, up[x], c);
                }
                break;
            default:
                throw fail(url, `row ${y} has unknown PNG filter ${filter}`);
        }
    }
    return out;
}

// Returns {width, height, data: Uint16Array of RGBA codes, rows top first}
// of a PNG that must be want.width x want.height.
export async function decodePng16(url, bytes, want) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) {
        throw fail(url, 'not a PNG file');
    }
    let header = null;
    const idat = [];
    let at = 8;
    let ended = false;
    while (!ended) {
        if (at + 12 > bytes.length) {
            throw fail(url, 'truncated PNG (no IEND chunk)');
        }
        const length = view.getUint32(at);
        const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
        const body = at + 8;
        if (body + length + 4 > bytes.length) {
            throw fail(url, `truncated PNG ${type} chunk`);
        }
        if (type === 'IHDR') {
            header = {
                width: view.getUint32(body), height: view.getUint32(body + 4),
                depth: bytes[body + 8], colour: bytes[body + 9], interlace: bytes[body + 12],
            };
        } else if (type === 'IDAT') {
            idat.push(bytes.subarray(body, body + length));
        } else if (type === 'IEND') {
            ended = true;
        }
        at = body + length + 4;
    }
    if (header === null || header.depth !== 16 || header.colour !== 6 || header.interlace !== 0) {
        throw fail(url, 'expected a non-interlaced 16-bit RGBA PNG (a unorm16_oct VAT)');
    }
    const { width, height } = header;
    if (width !== want.width || height !== want.height) {
        throw fail(url, `image is ${width}x${height}, the manifest says ${want.width}x${want.height}`);
    }
    const raw = await inflate(url, idat, height * (width * BYTES_PER_PIXEL + 1));
    const rows = unfilter(url, raw, width, height);
    // PNG samples are big-endian.
    const data = new Uint16Array(width * height * 4);
    for (let i = 0; i < data.length; i++) {
        data[i] = (rows[2 * i] << 8) | rows[2 * i + 1];
    }
    return { width, height, data };
}
