// compare.mjs - how close the page's picture is to crowd's: silhouette
// overlap and colour difference, both relative to the known sky colour.

// crowd render's sky (tools/stage.c, linear 0.32, 0.38, 0.46) as the 8-bit
// sRGB values both renderers clear to.
function srgbByte(linear) {
    const c = linear <= 0.0031308 ? linear * 12.92 : 1.055 * linear ** (1 / 2.4) - 0.055;
    return Math.round(c * 255);
}
export const SKY = [0.32, 0.38, 0.46].map(srgbByte);

// A pixel is the character's when a channel is more than this off the sky
// (the clear colour itself may round one step differently).
const SKY_TOLERANCE = 3;

function isCharacter(data, i) {
    return Math.abs(data[i] - SKY[0]) > SKY_TOLERANCE || Math.abs(data[i + 1] - SKY[1]) > SKY_TOLERANCE ||
           Math.abs(data[i + 2] - SKY[2]) > SKY_TOLERANCE;
}

// {iou, colour, pixels, diff}: intersection over union of the two
// silhouettes; mean absolute difference of R, G, B (0..255) over the pixels
// both cover; the union's pixel count; and a difference image (white where
// only one covers, the colour error amplified 8x where both do).
export function compare(a, b, width, height) {
    let both = 0, either = 0, colour = 0;
    const diff = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height * 4; i += 4) {
        const inA = isCharacter(a, i), inB = isCharacter(b, i);
        diff[i + 3] = 255;
        if (inA && inB) {
            both++;
            let d = 0;
            for (let k = 0; k < 3; k++) {
                const e = Math.abs(a[i + k] - b[i + k]);
                d += e;
                diff[i + k] = Math.min(255, 8 * e);
            }
            colour += d / 3;
        } else if (inA || inB) {
            diff[i] = diff[i + 1] = diff[i + 2] = 255;
        }
        either += inA || inB ? 1 : 0;
    }
    return { iou: either > 0 ? both / either : 0, colour: both > 0 ? colour / both : Infinity,
             pixels: either, diff };
}
