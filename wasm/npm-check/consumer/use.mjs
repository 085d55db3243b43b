// Run inside the fresh consumer project: the package from ES module code, as
// `node use.mjs <bundle file> <target>`; prints the verdict as JSON.
import { readFileSync } from 'node:fs';
import { diagnose, version } from 'kubectl-layer';

const [file, target] = process.argv.slice(2);
const d = diagnose(readFileSync(file, 'utf8'), target);
console.log(JSON.stringify({ via: 'import', version: version(), ...d.verdict }));
