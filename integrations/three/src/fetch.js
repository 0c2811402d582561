// fetch.js - a bake file's bytes, or an error naming the file.
export async function fetchBytes(url) {
    const response = await fetch(url);
    if (!response.ok) {
        throw new Error(`crowd: ${url}: HTTP ${response.status} ${response.statusText}`);
    }
    return new Uint8Array(await response.arrayBuffer());
}
