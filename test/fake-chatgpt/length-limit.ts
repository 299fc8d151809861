// The conversation length limit of the fake chatgpt.com: which conversations are at their maximum length (after a
// number of user turns, or because a test said so) and the words the page shows there instead of an answer.

/** What chatgpt.com shows in the newest turn when a conversation is at its maximum length. */
export const LENGTH_LIMIT_TEXT =
  "You've reached the maximum length for this conversation, but you can keep talking by starting a new chat.";

/** The older wording of the same notice. */
export const LENGTH_LIMIT_TEXT_OLD = "The conversation is too long, please start a new one.";

/** What a test may change per test (`fake.setLengthLimit`); `reset()` restores the fake's start options. */
export interface LengthLimitSettings {
  /** A conversation holding this many user turns takes no more (null: no limit). */
  maxTurnsPerConversation?: number | null;
  /** The words of the notice. */
  text?: string;
}

export class LengthLimit {
  private maxTurns: number | null;
  /** The words of the notice the page shows. */
  text: string;
  /** Conversations at their maximum length: they stay so (a full conversation never takes another message). */
  private readonly full = new Set<string>();

  constructor(private readonly start: Required<LengthLimitSettings>) {
    this.maxTurns = start.maxTurnsPerConversation;
    this.text = start.text;
  }

  set(settings: LengthLimitSettings): void {
    const max = settings.maxTurnsPerConversation;
    if (max !== undefined && max !== null && (!Number.isInteger(max) || max < 1))
      throw new Error(`maxTurnsPerConversation must be a whole number ≥ 1, not ${max}`);
    if (max !== undefined) this.maxTurns = max;
    if (settings.text !== undefined) this.text = settings.text;
  }

  /** The conversation is at its maximum length now, whatever it holds. */
  markFull(conversationId: string): void {
    this.full.add(conversationId);
  }

  /** Whether a message sent now into a conversation that holds `userTurns` user turns hits the limit. */
  reached(conversationId: string, userTurns: number): boolean {
    if (this.maxTurns !== null && userTurns >= this.maxTurns) this.full.add(conversationId);
    return this.full.has(conversationId);
  }

  /** A test's own settings go; conversations already full stay full (the fake keeps its conversations). */
  reset(): void {
    this.maxTurns = this.start.maxTurnsPerConversation;
    this.text = this.start.text;
  }
}
