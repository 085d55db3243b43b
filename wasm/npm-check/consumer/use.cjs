// Run inside the fresh consumer project: the package from CommonJS, as
// `node use.cjs <bundle file> <target>`; prints the verdict as JSON. The package is ES modules
// only: this works through Node's require(esm) (Node ^20.19.0 or >=22.12.0, see the README).
const { readFileSync } = require('node:fs');
const { diagnose, version } = require('kubectl-layer');

const [file, target] = process.argv.slice(2);
const d = diagnose(readFileSync(file, 'utf8'), target);
console.log(JSON.stringify({ via: 'require', version: version(), ...d.verdict }));
