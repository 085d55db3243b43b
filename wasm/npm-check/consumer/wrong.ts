// Must NOT type-check: proves the declarations are read (an unresolved module would be `any`
// under a lax setup, and this would pass).
import { diagnose } from 'kubectl-layer';

export const layer: number = diagnose('{}').verdict.layer;
