// browser.mjs - Debian's chromium, headless with WebGL2 on SwiftShader,
// driven by puppeteer-core, with every console error, page error and failed
// request of its pages collected (any of them fails the test).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const FLAGS = ['--headless=new', '--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader',
               '--enable-unsafe-swiftshader', '--disable-background-networking',
               '--disable-component-update', '--disable-sync', '--no-first-run'];

export const CHROMIUM = process.env.CROWD_CHROMIUM ?? '/usr/bin/chromium';

// A hang guard for every wait of the tests (puppeteer's waits, navigations
// and protocol calls, Godot's runs), not a speed limit: ctest's TIMEOUT
// bounds each test as a whole. puppeteer's own defaults (30 s per wait or
// navigation, 180 s per protocol call) are near what a loaded machine ten
// times slower than the development one takes, and a slow run would fail.
export const HANG_GUARD_MS = 60 * 60 * 1000;

// The test scripts' `--name value` arguments as {name: value}. As in the C
// tests (tests/common/check.h), CROWD_MODELS_DIR in the environment names
// the test characters' folder in place of --models.
export function parseArgs() {
    const args = {};
    for (let i = 2; i < process.argv.length; i += 2) {
        args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
    }
    if (process.env.CROWD_MODELS_DIR) {
        args.models = process.env.CROWD_MODELS_DIR;
    }
    return args;
}

// puppeteer-core from the npm packages in `nodeModules` (relative paths
// from the current folder), with a message saying where it was looked for.
export async function importPuppeteer(nodeModules) {
    const require = createRequire(path.resolve(nodeModules, '..', 'package.json'));
    try {
        return (await import(pathToFileURL(require.resolve('puppeteer-core')))).default;
    } catch (e) {
        throw new Error(`puppeteer-core not found in ${nodeModules} (scripts/install-deps.sh ` +
                        `installs tests/browser/package-lock.json there): ${e.message}`);
    }
}

// Resolves to {newPage(width, height), errors, version(), close()}; rejects
// with the reason when chromium is missing or does not start. Its profile and
// home (NSS database, font caches) are folders in `tmp`.
export async function launch(puppeteer, tmp) {
    if (!fs.existsSync(CHROMIUM)) {
        throw new Error(`${CHROMIUM} not found (scripts/install-deps.sh installs Debian's chromium)`);
    }
    const profile = fs.mkdtempSync(path.join(tmp, 'chromium-'));
    let browser;
    try {
        browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS,
                                           userDataDir: profile, protocolTimeout: HANG_GUARD_MS,
                                           env: { ...process.env, HOME: profile } });
    } catch (e) {
        fs.rmSync(profile, { recursive: true, force: true });
        throw e;
    }
    const errors = [];
    return {
        errors,
        async newPage(width, height) {
            const page = await browser.newPage();
            page.setDefaultTimeout(HANG_GUARD_MS);
            page.setDefaultNavigationTimeout(HANG_GUARD_MS);
            await page.setViewport({ width, height, deviceScaleFactor: 1 });
            page.on('console', (m) => {
                if (m.type() === 'error' || m.type() === 'assert') {
                    errors.push(`console ${m.type()}: ${m.text()}`);
                }
            });
            page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
            page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
            page.on('response', (r) => {
                if (r.status() >= 400) {
                    errors.push(`HTTP ${r.status()}: ${r.url()}`);
                }
            });
            return page;
        },
        version: () => browser.version(),
        async close() {
            await browser.close();
            fs.rmSync(profile, { recursive: true, force: true });
        },
    };
}

// Launches chromium, resolves `run(browser)` (to a failure count), closes
// the browser, and prints and counts every console, page and request error
// its pages collected. A chromium that does not start is one failure.
export async function withBrowser(puppeteer, tmp, run) {
    let browser;
    try {
        browser = await launch(puppeteer, tmp);
    } catch (e) {
        console.log(`FAIL: chromium does not start: ${e.message}`);
        return 1;
    }
    let failures;
    try {
        failures = await run(browser);
    } finally {
        await browser.close();
    }
    for (const e of browser.errors) {
        console.log(`FAIL: ${e}`);
    }
    return failures + browser.errors.length;
}
