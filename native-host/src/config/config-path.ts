// Where config.json lives in a data directory: one name for the config loader and the notification settings reader.
import { join } from "node:path";

export function configPath(dir: string): string {
  return join(dir, "config.json");
}
