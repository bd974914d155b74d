/**
 * Stand-in for the suite's src/mock-server types (not exported by the
 * published package). Not part of the contribution.
 */

import type { SpecVersion } from '../types';

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

export type RequestHandlers = Record<
  string,
  (
    params: Record<string, unknown>,
    request: JSONRPCRequest
  ) => unknown | Promise<unknown>
>;

export interface MockServer {
  url: string;
  baseUrl: string;
  readonly recorded: JSONRPCRequest[];
  close(): Promise<void>;
}

export interface ScenarioContext {
  specVersion: SpecVersion;
  createServer(handlers: RequestHandlers): Promise<MockServer>;
}
