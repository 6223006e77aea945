// The run pages of an HTML folder (`--html DIR/`), rendered and written on a
// thread of their own: parsing a report, rendering its page and writing it
// cost more than the native audit hands the main thread per session, so on
// the main thread they would hold up the audit's ordered output
// (docs/audit-at-scale.md, "Where the work runs"). This module is both
// sides: `PageWriter` on the main thread, and the worker's loop, started
// when the module runs as that worker.
//
// The main thread is inside the native batch's synchronous callback, with
// no event loop turning, so the two sides share a counter
// (SharedArrayBuffer + Atomics) instead of events: pages in flight (bounded:
// a full queue blocks the audit instead of growing), whether the worker
// started, and whether it failed; the failure's text comes back on a
// MessagePort read with receiveMessageOnPort.

import { writeFileSync } from 'node:fs';
import { MessageChannel, type MessagePort, isMainThread, receiveMessageOnPort, Worker, workerData } from 'node:worker_threads';

import type { FailOn, SessionFigures, SessionJson } from './audit/types.mjs';
import { renderHtml } from './html.mjs';
import { oneSession } from './totals.mjs';

/** Slots of the shared counter. */
const IN_FLIGHT = 0;
const STARTED = 1;
const FAILED = 2;

/** A run page that could not be written (the audit exits 2 naming it). */
export class PageError extends Error {}

interface Page {
  json: string;
  figures: SessionFigures;
  file: string;
}

interface Setup {
  toolguardPages: true;
  state: Int32Array;
  port: MessagePort;
  failOn: FailOn;
}

/** One run's page: the report as a document of its own, with a link back to the index. */
export function renderRunPage(json: string, figures: SessionFigures, failOn: FailOn): string {
  return renderHtml(oneSession(JSON.parse(json) as SessionJson, figures, failOn), new Date(), { back: '../index.html' });
}

/** Writes run pages on a worker thread, at most `limit` waiting at a time. */
export class PageWriter {
  private state = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  private channel = new MessageChannel();
  private worker: Worker;
  private startedAt = Date.now();
  private closed = false;
  /** Set once a page could not be written (also after it was thrown through the native batch). */
  error: PageError | undefined;

  constructor(
    failOn: FailOn,
    private limit = 32,
  ) {
    const setup: Setup = { toolguardPages: true, state: this.state, port: this.channel.port2, failOn };
    this.worker = new Worker(new URL(import.meta.url), { workerData: setup, transferList: [this.channel.port2] });
    // The audit's exit never waits on it: finish() or close() ends it.
    this.worker.unref();
  }

  write(json: string, figures: SessionFigures, file: string) {
    this.waitBelow(this.limit);
    Atomics.add(this.state, IN_FLIGHT, 1);
    this.channel.port1.postMessage({ json, figures, file } satisfies Page);
  }

  /** Wait for every page to be written; throws what the worker could not write. */
  finish() {
    this.waitBelow(1);
    this.check();
    this.close();
  }

  /** Stop the worker (at once when the audit failed; a second call does nothing). */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.channel.port1.close();
    void this.worker.terminate();
  }

  /** Block until fewer than `n` pages are in flight. */
  private waitBelow(n: number) {
    for (;;) {
      this.check();
      const inFlight = Atomics.load(this.state, IN_FLIGHT);
      if (inFlight < n) return;
      // A worker that never started (a broken install) must not hang the audit.
      if (Atomics.load(this.state, STARTED) === 0 && Date.now() - this.startedAt > 60_000) {
        this.close();
        this.error = new PageError('the thread writing the HTML run pages did not start');
        throw this.error;
      }
      Atomics.wait(this.state, IN_FLIGHT, inFlight, 200);
    }
  }

  private check() {
    if (Atomics.load(this.state, FAILED) === 0) return;
    if (this.error === undefined) {
      const message = receiveMessageOnPort(this.channel.port1)?.message as string | undefined;
      this.error = new PageError(`cannot write an HTML run page: ${message ?? 'unknown error'}`);
    }
    this.close();
    throw this.error;
  }
}

function runWorker({ state, port, failOn }: Setup) {
  port.on('message', ({ json, figures, file }: Page) => {
    try {
      if (Atomics.load(state, FAILED) === 0) writeFileSync(file, renderRunPage(json, figures, failOn));
    } catch (error) {
      // The first failure is reported; later pages are dropped (the audit stops).
      if (Atomics.compareExchange(state, FAILED, 0, 1) === 0) port.postMessage((error as Error).message ?? String(error));
    } finally {
      Atomics.sub(state, IN_FLIGHT, 1);
      Atomics.notify(state, IN_FLIGHT);
    }
  });
  Atomics.store(state, STARTED, 1);
}

if (!isMainThread && (workerData as Partial<Setup> | null)?.toolguardPages === true) runWorker(workerData as Setup);
