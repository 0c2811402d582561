// validate_gltf.js FILE.glb... - runs the Khronos glTF validator (npm package
// gltf-validator, found through NODE_PATH) on each file and prints its
// errors and warnings. Exit 0: no error-severity issue; 1: some file has
// one; 2: the validator could not be loaded or run.
'use strict';
const fs = require('fs');

let validator;
try {
    validator = require('gltf-validator');
} catch (e) {
    console.error('gltf-validator not found: ' + e.message);
    process.exit(2);
}

const severities = ['error', 'warning', 'info', 'hint'];

(async () => {
    let failed = false;
    for (const file of process.argv.slice(2)) {
        const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 200});
        const issues = report.issues;
        console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
                    `${issues.numInfos} infos, ${issues.numHints} hints`);
        for (const message of issues.messages) {
            if (message.severity <= 1) {
                console.log(`  ${severities[message.severity]} ${message.code} ${message.pointer || ''}: ${message.message}`);
            }
        }
        failed = failed || issues.numErrors > 0;
    }
    process.exit(failed ? 1 : 0);
})().catch((e) => {
    console.error(e);
    process.exit(2);
});
