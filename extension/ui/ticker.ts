// One shared one-second tick for countdowns ("Resuming in 3 s"): it runs only while at least one shown component
// holds it, so a view with nothing due sets no timer, and a countdown moves without asking the host again.
import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";

/** Bumped once a second while held; components that read it re-render on each tick. */
export const secondTick = signal(0);

let holders = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/** Starts the tick for one more holder; the returned function lets go (the last one stops the timer). */
export function holdTick(): () => void {
  holders += 1;
  timer ??= setInterval(() => {
    secondTick.value += 1;
  }, 1000);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holders -= 1;
    if (holders === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** Whether the tick is running (for tests: nothing shown, no timer). */
export function tickRunning(): boolean {
  return timer !== undefined;
}

/** Re-renders the calling component every second while `active` (it shows a countdown). */
export function useSecondTick(active: boolean): void {
  // Reading the signal during render subscribes this component only while it shows a countdown.
  if (active) void secondTick.value;
  useEffect(() => (active ? holdTick() : undefined), [active]);
}
