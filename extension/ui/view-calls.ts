// Every call a view (popup, dashboard, settings, overlay) may make through the background, typed from the contracts:
// host operations (shared/operations/), the host's own settings (shared/host-settings.ts) and notification channels
// (shared/notify-settings.ts), and the calls the background answers itself (adopt and release a tab's conversation,
// this browser's tab settings).
import { z } from "zod";
import {
  HOST_SETTINGS_OP,
  HOST_TOKEN_ROTATE_OP,
  hostSettingsParamsSchema,
  hostSettingsSchema,
} from "../../shared/host-settings.ts";
import {
  NOTIFY_SETTINGS_OP,
  NOTIFY_SETTINGS_SET_OP,
  NOTIFY_TEST_OP,
  notifySettingsSetParamsSchema,
  notifySettingsViewSchema,
  notifyTestParamsSchema,
  notifyTestResultSchema,
} from "../../shared/notify-settings.ts";
import {
  CONTRACTS_BY_NAME,
  type OperationOutput,
  type OperationParams,
  PAGE_OPERATION_NAMES,
  type PageOperationName,
} from "../../shared/operations/index.ts";
import { CONVERSATION_ADOPT } from "../../shared/operations/adopt.ts";
import { WORKER_STOP } from "../../shared/operations/worker.ts";
import {
  adoptRequestSchema,
  releaseRequestSchema,
  TAB_SETTINGS_GET_OP,
  TAB_SETTINGS_SET_OP,
  tabSettingsSchema,
} from "./ui-protocol.ts";

/** A call answered by the background or the host outside the operations contract: its params and result schemas. */
interface ExtraCall<P extends z.ZodType, R extends z.ZodType> {
  readonly params: P;
  readonly result: R;
}

/** Release answers worker_stop's result, or that the worker had ended already (its tab is forgotten all the same). */
const releaseResultSchema = z.union([
  WORKER_STOP.output,
  z.object({ workerId: z.string(), alreadyEnded: z.literal(true) }),
]);

const EXTRA_CALLS = {
  [HOST_SETTINGS_OP]: { params: hostSettingsParamsSchema, result: hostSettingsSchema },
  [HOST_TOKEN_ROTATE_OP]: { params: z.object({}).strict(), result: hostSettingsSchema },
  // The notification channels (secrets masked); a change answers the settings as they now are.
  [NOTIFY_SETTINGS_OP]: { params: z.object({}).strict(), result: notifySettingsViewSchema },
  [NOTIFY_SETTINGS_SET_OP]: { params: notifySettingsSetParamsSchema, result: notifySettingsViewSchema },
  [NOTIFY_TEST_OP]: { params: notifyTestParamsSchema, result: notifyTestResultSchema },
  [TAB_SETTINGS_GET_OP]: { params: z.object({}).strict(), result: tabSettingsSchema },
  [TAB_SETTINGS_SET_OP]: { params: tabSettingsSchema, result: tabSettingsSchema },
  // The background names the tab's conversation; the view gives at most an objective and a run to join.
  [CONVERSATION_ADOPT.name]: { params: adoptRequestSchema, result: CONVERSATION_ADOPT.output },
  conversation_release: { params: releaseRequestSchema, result: releaseResultSchema },
} as const satisfies Readonly<Record<string, ExtraCall<z.ZodType, z.ZodType>>>;

type ExtraName = keyof typeof EXTRA_CALLS;

/** The name of anything a view may call; a misspelt name does not compile. */
export type ViewCallName = PageOperationName | ExtraName;

export type ViewCallParams<N extends ViewCallName> = N extends ExtraName
  ? z.input<(typeof EXTRA_CALLS)[N]["params"]>
  : N extends PageOperationName
    ? OperationParams<N>
    : never;

export type ViewCallResult<N extends ViewCallName> = N extends ExtraName
  ? z.output<(typeof EXTRA_CALLS)[N]["result"]>
  : N extends PageOperationName
    ? OperationOutput<N>
    : never;

/** One call, name and params together (a remedy button's call, say). */
export type ViewCall = {
  [N in ViewCallName]: { readonly op: N; readonly params: ViewCallParams<N> };
}[ViewCallName];

const PAGE_OPS: ReadonlySet<string> = new Set(PAGE_OPERATION_NAMES);

/** The schema a call's result is parsed with before a view sees it. */
export function resultSchemaOf(name: ViewCallName): z.ZodType {
  if (name in EXTRA_CALLS) return EXTRA_CALLS[name as ExtraName].result;
  if (!PAGE_OPS.has(name)) throw new Error(`${name} is not a view call`);
  return CONTRACTS_BY_NAME.get(name)!.output;
}
