// The few WebAssembly APIs the kernels use (the project's TypeScript libs leave WebAssembly's JS API out), and each
// kernel's module compiled once.

/** WebAssembly's constructors as the kernels use them. */
export interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => Memory;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
/** A WebAssembly memory: its bytes, and growing it by some pages. */
export type Memory = { buffer: ArrayBuffer; grow(pages: number): number };
/** WebAssembly's JS API, where there is one. */
export const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;

/** A memory page, in bytes. */
export const PAGE = 65536;

const compiled = new Map<string, object | null>();

/** A kernel's module from its base64, compiled once; null where WebAssembly SIMD is not available (JavaScript serves). */
export function kernelModule(base64: string): object | null {
  let module = compiled.get(base64);
  if (module !== undefined) return module;
  try {
    if (!wasm) throw new Error('no WebAssembly');
    module = new wasm.Module(Buffer.from(base64, 'base64'));
  } catch {
    module = null;
  }
  compiled.set(base64, module);
  return module;
}
