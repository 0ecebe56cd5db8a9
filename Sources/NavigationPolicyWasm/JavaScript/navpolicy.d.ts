// Types of navpolicy.mjs and navpolicy-engine.mjs: navpolicyd's policy engine as WebAssembly
// (docs/integrations/web.md).

/** A navigation to decide: the members of a `POST /v1/decide` body. */
export interface NavigationRequest {
  /** The URL exactly as the browser or web view reports it. */
  url: string;
  /** Default `"GET"`. */
  method?: string;
  /** Default `"other"`. */
  navigationType?: 'linkActivated' | 'formSubmitted' | 'backForward' | 'reload' | 'formResubmitted' | 'other';
  /** Default `"main"`. */
  targetFrame?: 'main' | 'sub';
  /** The page the navigation starts from. */
  sourceURL?: string;
}

/** What a `"mode": "shadow"` handler would have decided; recorded, never applied. */
export interface ShadowResult {
  handler: string;
  decision: 'allow' | 'cancel';
  action: string | null;
  location: string | null;
}

/** The decision object of /v1/decide, `navpolicyd check` and every client. */
export interface Decision {
  decision: 'allow' | 'cancel';
  /** The handler that decided; null when the default decision applied. */
  handler: string | null;
  /** What the app runs on a cancel (`logout`, `open-external`, a custom action); null for none. */
  action: string | null;
  /** Where to send the user instead; null for none. */
  location: string | null;
  /** The request's URL as the engine serialized it (WHATWG href). */
  url: string;
  shadow?: ShadowResult[];
}

/**
 * Why a policy could not be loaded or a request decided. Treat every one as "cancel the navigation".
 * Codes: `invalid-config`, `invalid-request`, `malformed-json`, `payload-too-large`; the bundle
 * rejections `malformed`, `unversioned`, `unsigned`, `unknown-key`, `bad-signature`, `expired`,
 * `invalid-policy`, `too-large`; and `invalid-argument`, `unsupported`, `out-of-memory`,
 * `not-initialized`, `load-failed`, `released`, `engine-trapped`.
 */
export class NavigationPolicyError extends Error {
  readonly name: 'NavigationPolicyError';
  readonly code: string;
  /** `invalid-request`: the request member at fault. */
  readonly field?: string;
  /** `invalid-config`: every issue, each `"/json/pointer: message"`. */
  readonly errors?: string[];
}

export interface BundleOptions {
  /**
   * Key id (the bundle's signed `keyId`) → base64 of the 32-byte raw Ed25519 public key: a plain
   * object of at least one key (`{}`, a `Map` or getters are `invalid-argument`). Left out,
   * nothing is verified (tests only).
   */
  trustedKeys?: Record<string, string>;
  /** The detached signature: base64 (the `Navpolicy-Bundle-Signature` header, a `.sig` file) or bytes. */
  signature?: string | Uint8Array | ArrayBuffer | null;
  /** Read layout-1 bundles, which carry no version or expiry (one upgrade only). */
  acceptsUnversionedBundles?: boolean;
  /** The time expiry is checked against (tests): a valid Date or a finite number of milliseconds since 1970 (anything else is `invalid-argument`); default now. */
  now?: Date | number;
}

export class NavigationPolicy {
  private constructor();
  /** Compiles a JSON config (development, tests). */
  static fromConfig(jsonText: string): NavigationPolicy;
  /** Loads a bundle, JSON or compiled, checked as the app client checks it. */
  static fromBundle(bytes: Uint8Array | ArrayBuffer, options?: BundleOptions): Promise<NavigationPolicy>;
  /** Decides a navigation; throws NavigationPolicyError for a request it cannot parse. */
  decide(request: NavigationRequest): Decision;
  /** Frees the policy now rather than when it is garbage-collected. */
  release(): void;
  readonly layout: 'config' | 'json' | 'compiled';
  /** The signed policyVersion; refuse a bundle whose version is not above the one you hold. */
  readonly policyVersion: number | null;
  readonly revision: string | null;
  readonly issuedAt: number | null;
  readonly expiresAt: number | null;
  readonly keyId: string | null;
}

/** Loads the module (navpolicy.wasm beside the script, or `source`); navpolicy.mjs has awaited it already. */
export function initialize(source?: URL | string | Response | BufferSource | WebAssembly.Module): Promise<void>;
