/**
 * What n8n's "Test" button does with a declarative credential test (packages/cli credentials-tester): run the
 * credential's `test.request` through n8n-core's RoutingNode, authenticated by the credential, then judge the
 * outcome: a thrown HTTP error is matched against the `responseCode` rules, else any non-2xx fails; a request that
 * returns fails when its body holds a `responseSuccessBody` rule's value at the rule's key, and is OK otherwise.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
  Workflow,
  createEmptyRunExecutionData,
  type ICredentialDataDecryptedObject,
  type ICredentialTestRequest,
  type INode,
  type INodeType,
  type INodeTypes,
} from 'n8n-workflow';

import { CREDENTIAL, additionalData, createHost } from './n8n';

export interface CredentialTestResult {
  status: 'OK' | 'Error';
  message: string;
}

export async function testCredential(data: ICredentialDataDecryptedObject): Promise<CredentialTestResult> {
  const host = await createHost({ [CREDENTIAL]: data });
  const test = host.loader.credentialTypes[CREDENTIAL]!.type.test as ICredentialTestRequest;

  const nodeType: INodeType = {
    description: {
      displayName: 'Temp',
      name: 'temp',
      group: [],
      version: 1,
      description: '',
      defaults: {},
      inputs: [],
      outputs: [],
      credentials: [{ name: CREDENTIAL, required: true }],
      properties: [
        { displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' },
      ],
    },
  };
  const nodeTypes: INodeTypes = {
    getByName: () => nodeType,
    getByNameAndVersion: () => nodeType,
    getKnownTypes: () => ({}),
  };
  const node: INode = {
    id: 'temp',
    name: 'Temp-Node',
    type: 'temp',
    typeVersion: 1,
    position: [0, 0],
    parameters: {},
    credentials: { [CREDENTIAL]: { id: '1', name: 'test' } },
  };
  const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
  const runExecutionData = createEmptyRunExecutionData();
  const context = new ExecuteContext(
    workflow,
    node,
    additionalData(host),
    'internal',
    runExecutionData,
    0,
    [],
    { main: [[{ json: {} }]] },
    { node, data: {}, source: null },
    [],
  );
  const routingNode = new RoutingNode(context, nodeType, { id: '1', name: 'test', type: CREDENTIAL, data });
  let output: Awaited<ReturnType<RoutingNode['runNode']>>;
  try {
    output = await routingNode.runNode();
  } catch (caught) {
    const error = caught as {
      message: string;
      cause?: { response?: { status: number; statusText?: string }; code?: string };
    };
    const response = error.cause?.response;
    if (response) {
      for (const rule of test.rules ?? []) {
        if (rule.type === 'responseCode' && rule.properties.value === response.status) {
          return { status: 'Error', message: rule.properties.message };
        }
      }
      if (response.status < 199 || response.status > 299) {
        return { status: 'Error', message: response.statusText || `Received HTTP status code: ${response.status}` };
      }
    } else if (error.cause?.code) {
      return { status: 'Error', message: error.cause.code };
    }
    return { status: 'Error', message: error.message };
  }
  const body: unknown = output?.[0]?.[0]?.json;
  for (const rule of test.rules ?? []) {
    if (rule.type === 'responseSuccessBody' && valueAt(body, rule.properties.key) === rule.properties.value) {
      return { status: 'Error', message: rule.properties.message };
    }
  }
  return { status: 'OK', message: 'Connection successful!' };
}

/** lodash's `get(body, 'a.b')`, as n8n reads a rule's key: undefined wherever the path leaves the objects. */
function valueAt(body: unknown, key: string): unknown {
  let value = body;
  for (const part of key.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}
