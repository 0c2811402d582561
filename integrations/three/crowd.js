// crowd.js - crowd's three.js player: `await CrowdBake.load(url, {renderer})`,
// `bake.createCrowd(count)`, then `crowd.setInstance`, `crowd.play` and
// `crowd.update` (README.md).
export { CrowdBake } from './src/bake.js';
export { Crowd } from './src/crowd.js';
