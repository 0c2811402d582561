// server.mjs - a static file server on 127.0.0.1 (an ephemeral port) for the
// browser test: each mount maps a URL prefix onto a folder. Only GET, only
// files inside a mount, nothing cached.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
                '.json': 'application/json', '.png': 'image/png', '.glb': 'model/gltf-binary',
                '.exr': 'image/x-exr', '.wasm': 'application/wasm' };

// mounts: [[prefix, folder], ...], longest prefix first. Resolves to
// {url, close(), bytesSent()}: bytesSent() is the bytes of every file served
// so far, bodies as sent (the server compresses nothing); the bench's bytes
// downloaded by a page are its difference over the page's load.
export function serve(mounts) {
    let sent = 0;
    const server = http.createServer((request, response) => {
        const url = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
        const mount = mounts.find(([prefix]) => url.startsWith(prefix));
        const file = mount && path.resolve(mount[1], url.slice(mount[0].length));
        if (request.method !== 'GET' || !mount || !file.startsWith(path.resolve(mount[1]))) {
            response.writeHead(404).end();
            return;
        }
        fs.readFile(file, (error, data) => {
            if (error) {
                response.writeHead(404).end();
                return;
            }
            // Cross-origin isolation gives pages performance.now() in 5 us
            // steps instead of 100 us (the bench's per-frame times).
            response.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
                                      'Content-Length': data.length, 'Cache-Control': 'no-store',
                                      'Cross-Origin-Opener-Policy': 'same-origin',
                                      'Cross-Origin-Embedder-Policy': 'require-corp' });
            sent += data.length;
            response.end(data);
        });
    });
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve({
            url: `http://127.0.0.1:${server.address().port}`,
            close: () => new Promise((done) => server.close(done)),
            bytesSent: () => sent,
        }));
    });
}
