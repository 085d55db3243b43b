// Node entry point: the wasm module loads synchronously on import, so every function works
// right away; init() resolves at once (portable code awaits it anyway).
import { createRequire } from 'node:module';
import { bind } from './api.mjs';

const raw = createRequire(import.meta.url)('./node/layer_wasm.js');
const api = bind(raw, () => {});

export async function init() {}
export const { diagnose, scan, targets, rules, object, markdown, text, version } = api;
