// Compile-time only (it emits nothing): the native binding (index.d.ts,
// generated from Rust), the package entry's types (main.d.ts) and the
// pure-TypeScript reference engine (the fallback behind the same entry) must
// satisfy one contract. A change to one side that the others do not follow
// fails `npm run build:ts`.
import type * as Native from '../index.js';
import type * as Entry from '../main.js';
import type * as Reference from '../reference/index.mjs';
import type { GuardEngineLike } from '../reference/types.mjs';

type Assert<T extends true> = T;
/** Mutually assignable: the same shape. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Both engine classes satisfy the contract, and their constructors take the same config.
export type NativeEngineIsGuardEngineLike = Assert<Native.GuardEngine extends GuardEngineLike ? true : false>;
export type EntryEngineIsGuardEngineLike = Assert<Entry.GuardEngine extends GuardEngineLike ? true : false>;
export type ReferenceEngineIsGuardEngineLike = Assert<Reference.GuardEngine extends GuardEngineLike ? true : false>;
// What the entry's types let a caller pass, the fallback accepts.
export type FallbackTakesTheConfig = Assert<
  ConstructorParameters<typeof Entry.GuardEngine> extends ConstructorParameters<typeof Reference.GuardEngine> ? true : false
>;
export type SameCallHandle = Assert<Same<Native.GuardEngine['callHandle'], Reference.GuardEngine['callHandle']>>;

// The shapes that cross the API are one shape on every side.
export type SameGuardConfig = Assert<Same<Native.GuardConfig, Reference.GuardConfig>>;
export type SameRule = Assert<Same<Native.Rule, Reference.Rule>>;
export type SameVerdict = Assert<Same<Native.GuardVerdict, Reference.GuardVerdict>>;
export type SameToolResult = Assert<Same<Native.ToolResult, Reference.ToolResult>>;
export type SameChainState = Assert<Same<Native.ChainState, Reference.ChainState>>;
// The entry's call type is the strict union (exactly one of arguments/argumentsJson); each
// branch is a call the engines accept.
export type EntryCallIsAccepted = Assert<Entry.ToolExecution extends Native.ToolExecution & Reference.ToolExecution ? true : false>;

// The free functions the entry exports from either engine.
export type SameCanonicalize = Assert<Same<typeof Native.canonicalize, typeof Reference.canonicalize>>;
export type SameObserveCall = Assert<Same<typeof Native.observeCall, typeof Reference.observeCall>>;
export type SameObserveCallValue = Assert<Same<typeof Native.observeCallValue, typeof Reference.observeCallValue>>;
export type EntryFunctions = Assert<
  Same<
    Pick<typeof Entry, 'canonicalize' | 'observeCall' | 'observeCallValue'>,
    Pick<typeof Native, 'canonicalize' | 'observeCall' | 'observeCallValue'>
  >
>;
