// CommonJS TypeScript: this import compiles to require(), which TypeScript allows for an ES
// module under `module: nodenext` (5.8 and later, matching Node's require(esm)).
import { diagnose, type Diagnosis, type Layer } from 'kubectl-layer';

export function layerOf(bundle: string): Layer | null | undefined {
  const d: Diagnosis = diagnose(bundle);
  return d.verdict.layer;
}
