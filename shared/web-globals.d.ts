// The few web-standard globals shared/ uses, which both of its runtimes provide (the browser and Node >= 20).
// shared/ compiles with the bare ES2023 library (tsconfig.shared.json: no DOM, no Node types) so that nothing only
// one side has can slip in; these declarations are the agreed exceptions, each kept to the members used here.
/* eslint-disable no-var -- `declare var`, as in TypeScript's own lib files, makes each also a property of globalThis. */

interface URL {
  readonly origin: string;
  readonly username: string;
  readonly password: string;
  readonly pathname: string;
}
declare var URL: { prototype: URL; new (url: string, base?: string): URL };

interface TextEncoder {
  encode(input?: string): Uint8Array;
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };

interface SubtleCrypto {
  digest(algorithm: "SHA-256", data: Uint8Array): Promise<ArrayBuffer>;
}
interface Crypto {
  readonly subtle: SubtleCrypto;
}
declare var crypto: Crypto;
