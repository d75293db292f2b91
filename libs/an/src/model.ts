/**
 * The information model of the autonomous-network (AN) multi-agent draft
 * (`../shared/specs/004_3c631192c531ca80.txt`, section 5), as TypeScript
 * types: the contract every Parley part that speaks AN shares (libs/an's
 * rules, the registry's profiles, the execution service's tasks, the YANG
 * instance data). Member names are the draft's, in snake_case where the draft
 * mixes styles (`task-sendFrom` → `send_from`); yang.ts maps them back.
 */

// ---------------------------------------------------------------------------
// 5.1 Agent profile
// ---------------------------------------------------------------------------

export interface AgentSkill {
  /** Unique within the profile (the YANG list key). */
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** Data types the skill accepts / returns (5.1 "input-models", "output-models"). */
  readonly input_modes: readonly DataType[];
  readonly output_modes: readonly DataType[];
}

export interface AgentCapability {
  readonly streaming: boolean;
  readonly push_notifications: boolean;
  /** Negotiation types the agent supports (5.3): empty when it does not negotiate. */
  readonly negotiate: readonly NegotiationType[];
}

export const AUTH_SCHEMES = ['jwt', 'oauth2', 'api_key', 'none'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];

export interface AuthenticationMethod {
  /** The YANG list key (`accessinfo-id`). */
  readonly id: string;
  readonly scheme: AuthScheme;
  /** JWT parameters (issuer, JWKS URL, audience), when scheme is jwt. */
  readonly jwt_info?: string;
  /** OAuth 2.0 parameters (token URL, scopes), when scheme is oauth2. */
  readonly oauth?: string;
}

/** 5.1: read-only to other agents; discoverable by domain, tag and skill. */
export interface AgentProfile {
  /** Unique in its namespace; recommended form `{Standard Organization}-{Provider}-{Transmit}-{Version}`. */
  readonly name: string;
  readonly alias?: string;
  readonly description: string;
  readonly type?: string;
  /** Semantic version (semver 2.0.0). */
  readonly version: string;
  readonly provider: string;
  /** AN domain it serves, e.g. wireless, transport, core, ip. */
  readonly domain?: string;
  readonly management_object?: string;
  readonly skills: readonly AgentSkill[];
  readonly capability: AgentCapability;
  readonly authentication: readonly AuthenticationMethod[];
}

// ---------------------------------------------------------------------------
// 5.2 Task
// ---------------------------------------------------------------------------

/** 5.2 commuType: the operation a task message performs. */
export const COMMU_TYPES = [
  'CapabilityRequest',
  'taskAssign',
  'taskCancel',
  'FeasibilityNegotiate',
  'FulfillmentNegotiate',
  'taskResultQuery',
  'taskResultSubscribe',
  'taskResultNotify',
] as const;
export type CommuType = (typeof COMMU_TYPES)[number];

/**
 * 5.4 task states (the draft names created, processing, input-required,
 * blocked, finished, failed; canceled follows from taskCancel). The legal
 * transitions are in task-state.ts.
 */
export const TASK_STATES = ['created', 'processing', 'input-required', 'blocked', 'finished', 'failed', 'canceled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const DATA_TYPES = ['text', 'image', 'audio', 'video'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** 5.2 data-params: inline data, or a URL for large data; `chunked` data arrives in pieces until `finished`. */
export interface DataParam {
  readonly id: string;
  readonly data_type: DataType;
  readonly description?: string;
  /** Size in bytes of the whole data (inline or at the URL). */
  readonly data_size?: number;
  /** Media type or format name, e.g. `application/json`, `image/png`. */
  readonly format?: string;
  readonly url?: string;
  /** Inline data (text, or base64 for binary types). */
  readonly data?: string;
  readonly chunked?: boolean;
  readonly finished?: boolean;
}

/** One piece of a chunked data param (5.2 `chucked` / `finished`). */
export interface DataChunk {
  readonly param_id: string;
  /** 0, 1, 2, … in order. */
  readonly seq: number;
  readonly data: string;
  /** True on the last chunk. */
  readonly finished: boolean;
}

export interface TermExplain {
  readonly term: string;
  readonly explanation: string;
}

/** 5.2 Figure 7: the prompt sections of a task's content. */
export interface TaskPrompt {
  readonly target_object: string;
  readonly task_description: string;
  readonly environmental_information: string;
}

/** 5.2 task-subscription: how status changes are pushed. */
export interface TaskSubscription {
  /** `grpc` (server streaming), `nats` or `webhook`. */
  readonly protocol: 'grpc' | 'nats' | 'webhook';
  /** HTTP method for webhooks (POST). */
  readonly method?: string;
  /** Webhook URL. */
  readonly url?: string;
}

/** 5.2 msg-header + msg-tail + content, as one task. */
export interface Task {
  readonly task_id: string;
  readonly send_from: string;
  readonly send_to: string;
  /** The natural-language side: prompt content (4.4: where the task is not deterministic). */
  readonly content?: string;
  /** Parsed from content when it carries the prompt sections. */
  readonly prompt?: TaskPrompt;
  /** The structured side (4.4): a scenario payload validated by the negotiated schema. */
  readonly scenario?: string;
  readonly schema_id?: string;
  readonly payload?: Readonly<Record<string, unknown>>;
  readonly task_async: boolean;
  readonly status: TaskState;
  readonly expected_response?: string;
  readonly term_explains: readonly TermExplain[];
  /** Ids of data params the task refers to (msg-data). */
  readonly msg_data: readonly string[];
  readonly subscription?: TaskSubscription;
  readonly created_at: string;
  readonly updated_at: string;
  /** The result once finished (or the failure). */
  readonly result?: Readonly<Record<string, unknown>>;
}

// ---------------------------------------------------------------------------
// 5.2 context
// ---------------------------------------------------------------------------

/** One message of a task's conversation, kept in order (5.2 context). */
export interface ContextMessage {
  readonly task_id: string;
  /** 1, 2, … per task. */
  readonly seq: number;
  readonly send_from: string;
  readonly send_to: string;
  readonly commu_type: CommuType;
  /** What was asked (request-info): content and data params. */
  readonly request?: { readonly content?: string; readonly data_params?: readonly string[] };
  /** What was answered (response-info). */
  readonly response?: { readonly content?: string; readonly data_params?: readonly string[] };
  readonly time: string;
}

// ---------------------------------------------------------------------------
// 5.3 Task negotiation
// ---------------------------------------------------------------------------

export const NEGOTIATION_TYPES = ['FEASIBILITY', 'FULFILLMENT'] as const;
export type NegotiationType = (typeof NEGOTIATION_TYPES)[number];

export const VERDICTS = ['accept', 'reject', 'counter'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface NegotiationRound {
  readonly task_id: string;
  readonly type: NegotiationType;
  /** 1, 2, … per task and type. */
  readonly round: number;
  /** Who proposed in this round. */
  readonly proposer: string;
  readonly proposal: readonly string[];
  readonly verdict?: Verdict;
  /** The counter-proposal or the reason, with the verdict. */
  readonly reply?: readonly string[];
  readonly at: string;
}

export type NegotiationOutcome = 'open' | 'agreed' | 'rejected' | 'round_limit';

// ---------------------------------------------------------------------------
// 5.4 Task notification
// ---------------------------------------------------------------------------

/** One state change, as every subscriber receives it, in order per task (seq). */
export interface TaskNotification {
  readonly task_id: string;
  /** 1, 2, … per task: a subscriber resumes after the last seq it saw. */
  readonly seq: number;
  readonly send_from: string;
  readonly send_to: string;
  readonly commu_type: 'taskResultNotify';
  readonly task_async: boolean;
  readonly status: TaskState;
  readonly previous_status: TaskState | null;
  readonly start_time: string;
  /** For input-required: what the agent needs. */
  readonly required?: string;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly at: string;
}
