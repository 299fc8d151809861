// This browser's tab settings as the options page reads and sets them through the views' bridge, which answers them
// itself (they never reach the host): whether a worker's conversation is reopened when its tab is closed.
import { z } from "zod";

/** `{}` → the settings. */
export const TAB_SETTINGS_GET_OP = "tab_settings_get";
/** The settings → the settings now. */
export const TAB_SETTINGS_SET_OP = "tab_settings_set";

export const tabSettingsSchema = z
  .object({
    /**
     * A worker whose tab was closed (or that left its conversation) gets the conversation opened again in a
     * background tab when it next needs it; off: it waits as "Tab closed" until a person opens it.
     */
    reopenClosedTabs: z.boolean(),
  })
  .strict();
export type TabSettings = z.infer<typeof tabSettingsSchema>;
