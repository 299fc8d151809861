// This browser's tab settings as the options page reads and sets them through the views' bridge, which answers them
// itself (they never reach the host): whether a worker's conversation is reopened when its tab is closed. Defined
// with the rest of the view ↔ background protocol (extension/ui/ui-protocol.ts), where the settings page reads them.
export {
  TAB_SETTINGS_GET_OP,
  TAB_SETTINGS_SET_OP,
  tabSettingsSchema,
  type TabSettings,
} from "../ui/ui-protocol.ts";
