// This browser's executor settings, kept as preferences: its stable executor id, the limit of tabs generating at
// once it tells the host, and whether new tabs come to the front. Loaded once at start-up (recovery.ts).
import type { PrefStore } from "./db.ts";

const isPositiveInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;
const isBool = (v: unknown): v is boolean => typeof v === "boolean";
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;

export class ExecutorSettings {
  executorId = "";
  /** Until loaded: the default option (the health may be read before recovery ends). */
  maxGenerating: number;
  /** New tabs come to the front (the `focusNewTabs` preference); they open in the background otherwise. */
  focusNewTabs = false;

  constructor(
    private readonly prefs: PrefStore,
    initialMaxGenerating: number,
  ) {
    this.maxGenerating = initialMaxGenerating;
  }

  /** Reads the settings; an executor without an id gets a new random one, kept from then on. */
  async load(browser: string, random: () => number, defaultMaxGenerating: number): Promise<void> {
    const { prefs } = this;
    this.executorId = await prefs.get("executorId", "", isText);
    if (!this.executorId) {
      this.executorId = `${browser}-${randomHex(random, 8)}`;
      await prefs.set("executorId", this.executorId);
    }
    this.maxGenerating = await prefs.get("maxGenerating", defaultMaxGenerating, isPositiveInt);
    this.focusNewTabs = await prefs.get("focusNewTabs", false, isBool);
  }

  async setMaxGenerating(limit: number): Promise<void> {
    await this.prefs.set("maxGenerating", limit);
    this.maxGenerating = limit;
  }
}

function randomHex(random: () => number, bytes: number): string {
  let out = "";
  for (let i = 0; i < bytes; i++)
    out += Math.floor(random() * 256)
      .toString(16)
      .padStart(2, "0");
  return out;
}
