// Reads a store file that may legitimately be absent (a new directory, or one written before the file existed).
import { readFileSync } from "node:fs";

/** The file's bytes, or undefined when it does not exist; any other error (permissions, I/O) is thrown. */
export function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
