export * from './index'
/** Whether the native engine is in use (false: the pure-TypeScript reference fallback). */
export declare const native: boolean
