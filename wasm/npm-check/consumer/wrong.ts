// Must NOT type-check: proves the declarations are read (an unresolved module would be `any`
// under a lax setup, and this would pass).
import { diagnose, scan } from 'kubectl-layer';

export const layer: number = diagnose('{}').verdict.layer;
// A summary has no per-item diagnoses, and its type says so.
export const listed = scan('{}', { summary: true }).diagnoses;
