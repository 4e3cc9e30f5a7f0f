/**
 * A small n8n host for tests: loads the built package the way n8n loads a community package, and runs real
 * workflows through n8n-core's WorkflowExecute, with credentials given by the test.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// n8n-core keeps its instance settings under the user folder: never the developer's own ~/.n8n.
process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(os.tmpdir(), 'n8n-user-'));
// n8n logs every node error to the console; the tests assert them instead.
process.env.N8N_LOG_LEVEL ??= 'silent';

import { ExecutionLifecycleHooks, LoadOptionsContext, PackageDirectoryLoader, WorkflowExecute } from 'n8n-core';
import {
  ICredentialsHelper,
  NodeHelpers,
  Workflow,
  createRunExecutionData,
  type ICredentialDataDecryptedObject,
  type ICredentialType,
  type IConnections,
  type IDataObject,
  type IHttpRequestHelper,
  type IHttpRequestOptions,
  type INode,
  type INodeCredentialsDetails,
  type INodeExecutionData,
  type INodeListSearchResult,
  type INodePropertyOptions,
  type INodeType,
  type INodeTypes,
  type IRun,
  type IVersionedNodeType,
  type IWorkflowBase,
  type IWorkflowExecuteAdditionalData,
  type WorkflowExecuteMode,
} from 'n8n-workflow';

export const PACKAGE_ROOT = path.resolve(__dirname, '../../..');
export const PACKAGE = 'n8n-nodes-leadchat';
export const LEADCHAT = `${PACKAGE}.leadChat`;
export const LEADCHAT_TRIGGER = `${PACKAGE}.leadChatTrigger`;
export const CREDENTIAL = 'leadChatApi';

/** A resource locator's value given by ID, as a picker holds it in a workflow. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

let loading: Promise<PackageDirectoryLoader> | undefined;

/** The package as n8n sees it: dist/ and the `n8n` section of package.json (run `npm run build:nodes` first). */
export function loadPackage(): Promise<PackageDirectoryLoader> {
  loading ??= (async () => {
    const loader = new PackageDirectoryLoader(PACKAGE_ROOT);
    await loader.loadAll();
    return loader;
  })();
  return loading;
}

export class TestNodeTypes implements INodeTypes {
  constructor(private readonly loader: PackageDirectoryLoader) {}

  private load(type: string): INodeType | IVersionedNodeType {
    const name = type.startsWith(`${PACKAGE}.`) ? type.slice(PACKAGE.length + 1) : type;
    const loaded = this.loader.nodeTypes[name];
    if (!loaded) throw new Error(`unknown node type ${type}`);
    return loaded.type;
  }

  getByName(type: string) {
    return this.load(type);
  }

  getByNameAndVersion(type: string, version?: number): INodeType {
    return NodeHelpers.getVersionedNodeType(this.load(type), version);
  }

  getKnownTypes() {
    return this.loader.known.nodes;
  }
}

/** Hands out the test's credentials and applies the credential type's own `authenticate`. */
export class TestCredentialsHelper extends ICredentialsHelper {
  constructor(
    private readonly loader: PackageDirectoryLoader,
    private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
  ) {
    super();
  }

  private type(name: string): ICredentialType {
    return this.loader.credentialTypes[name]!.type;
  }

  getParentTypes(): string[] {
    return [];
  }

  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    typeName: string,
    requestOptions: IHttpRequestOptions,
  ) {
    const { authenticate } = this.type(typeName);
    if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
    return requestOptions;
  }

  async preAuthentication(_helpers: IHttpRequestHelper, _credentials: ICredentialDataDecryptedObject) {
    return undefined;
  }

  async runPreAuthentication() {
    return undefined;
  }

  async getCredentials(): Promise<never> {
    throw new Error('not used');
  }

  async getDecrypted(_data: IWorkflowExecuteAdditionalData, _details: INodeCredentialsDetails, type: string) {
    const found = this.credentials[type];
    if (!found) throw new Error(`no test credentials of type ${type}`);
    return { ...found };
  }

  async updateCredentials() {}

  async updateCredentialsOauthTokenData() {}

  isCredentialUsableByNode() {
    return true;
  }

  getCredentialsProperties(type: string) {
    return this.type(type).properties;
  }
}

export interface Host {
  loader: PackageDirectoryLoader;
  nodeTypes: TestNodeTypes;
  credentials: Record<string, ICredentialDataDecryptedObject>;
  /** Base of production webhook URLs, e.g. http://127.0.0.1:5678/webhook */
  webhookBaseUrl: string;
}

export async function createHost(
  credentials: Record<string, ICredentialDataDecryptedObject>,
  webhookBaseUrl = 'http://127.0.0.1:5678/webhook',
): Promise<Host> {
  const loader = await loadPackage();
  return { loader, nodeTypes: new TestNodeTypes(loader), credentials, webhookBaseUrl };
}

export function additionalData(host: Host, hooks?: ExecutionLifecycleHooks): IWorkflowExecuteAdditionalData {
  return {
    credentialsHelper: new TestCredentialsHelper(host.loader, host.credentials),
    hooks,
    executeWorkflow: async () => {
      throw new Error('sub-workflows are not used');
    },
    getRunExecutionData: async () => undefined,
    restApiUrl: 'http://127.0.0.1:5678/rest',
    instanceBaseUrl: 'http://127.0.0.1:5678/',
    formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
    webhookBaseUrl: host.webhookBaseUrl,
    webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
    webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
    currentNodeParameters: undefined,
    executionTimeoutTimestamp: undefined,
    userId: 'test-user',
    variables: {},
    logAiEvent: () => {},
    startRunnerTask: async () => {
      throw new Error('task runners are not used');
    },
  } as unknown as IWorkflowExecuteAdditionalData;
}

export interface WorkflowSpec {
  nodes: INode[];
  connections?: IConnections;
  staticData?: IDataObject;
}

export function buildWorkflow(host: Host, spec: WorkflowSpec, active = false): Workflow {
  return new Workflow({
    id: 'test-workflow',
    name: 'test',
    nodes: spec.nodes,
    connections: spec.connections ?? {},
    active,
    nodeTypes: host.nodeTypes,
    staticData: spec.staticData,
    settings: { executionOrder: 'v1' },
  });
}

let nodeCounter = 0;

/** A LeadChat node using the test credential. */
export function leadChatNode(parameters: INode['parameters'], extra: Partial<INode> = {}): INode {
  nodeCounter += 1;
  return {
    id: `node-${nodeCounter}`,
    name: 'LeadChat',
    type: LEADCHAT,
    typeVersion: 1,
    position: [0, 0],
    parameters,
    credentials: { [CREDENTIAL]: { id: '1', name: 'LeadChat account' } },
    ...extra,
  };
}

/** A LeadChat Trigger node; a fresh webhookId unless one is given. */
export function triggerNode(
  parameters: INode['parameters'],
  webhookId = `wh-${Math.random().toString(36).slice(2)}`,
): INode {
  return {
    id: 'trigger',
    name: 'LeadChat Trigger',
    type: LEADCHAT_TRIGGER,
    typeVersion: 1,
    position: [0, 0],
    webhookId,
    parameters,
    credentials: { [CREDENTIAL]: { id: '1', name: 'LeadChat account' } },
  };
}

/** The headers of a delivery signed as a Standard Webhooks sender signs it. */
export function signed(
  secret: string,
  body: string,
  at = Math.floor(Date.now() / 1000),
  id = `msg_${at}_${Math.random().toString(36).slice(2)}`,
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${at}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': `v1,${signature}` };
}

export interface RunResult {
  run: IRun;
  /** Output items of each node's first run, main output 0. */
  output(nodeName: string): INodeExecutionData[];
  /** The workflow's error, if it failed. */
  error?: Error & { description?: string; httpCode?: string; context?: IDataObject };
}

/**
 * Runs a workflow the way n8n runs a triggered execution: `startNode` receives `input` as its input items and the
 * rest follows the connections.
 */
export async function runWorkflow(
  host: Host,
  spec: WorkflowSpec,
  startNode: string,
  input: INodeExecutionData[] = [{ json: {} }],
  mode: WorkflowExecuteMode = 'trigger',
): Promise<RunResult> {
  const workflow = buildWorkflow(host, spec);
  const workflowData = {
    id: workflow.id,
    name: 'test',
    nodes: spec.nodes,
    connections: spec.connections ?? {},
  } as unknown as IWorkflowBase;
  const hooks = new ExecutionLifecycleHooks(mode, `exec-${Date.now()}`, workflowData);
  let resolveRun!: (run: IRun) => void;
  const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
  hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));

  const node = workflow.getNode(startNode);
  if (!node) throw new Error(`no node ${startNode}`);
  const runExecutionData = createRunExecutionData({
    executionData: { nodeExecutionStack: [{ node, data: { main: [input] }, source: null }] },
  });

  const execute = new WorkflowExecute(additionalData(host, hooks), mode, runExecutionData);
  await execute.processRunExecutionData(workflow);
  const run = await finished;
  return {
    run,
    error: run.data.resultData.error as RunResult['error'],
    output(nodeName: string) {
      const task = run.data.resultData.runData[nodeName]?.[0];
      if (!task) throw new Error(`node ${nodeName} did not run; error: ${run.data.resultData.error?.message}`);
      return task.data?.main?.[0] ?? [];
    },
  };
}

/** Runs one LeadChat node on the given items: the usual shape of a test. */
export async function runLeadChat(
  host: Host,
  parameters: INode['parameters'],
  input: INodeExecutionData[] = [{ json: {} }],
  extra: Partial<INode> = {},
): Promise<RunResult> {
  const node = leadChatNode(parameters, extra);
  return await runWorkflow(host, { nodes: [node] }, node.name, input);
}

/** What the editor does to fill a resource-locator dropdown: call the node's listSearch method. */
export async function listSearch(
  host: Host,
  method: string,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const node = leadChatNode({ resource: 'list', operation: 'addContact' });
  const workflow = buildWorkflow(host, { nodes: [node] });
  const context = new LoadOptionsContext(workflow, node, additionalData(host), 'list');
  const nodeType = host.nodeTypes.getByNameAndVersion(LEADCHAT, 1);
  const search = nodeType.methods?.listSearch?.[method];
  if (!search) throw new Error(`no listSearch method ${method}`);
  return await search.call(context, filter, paginationToken);
}

/** What the editor does as the user scrolls a dropdown to its end: ask for the next page until there is none. */
export async function listSearchAll(
  host: Host,
  method: string,
  filter?: string,
): Promise<{ pages: number; results: INodeListSearchResult['results'] }> {
  const results: INodeListSearchResult['results'] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await listSearch(host, method, filter, token);
    results.push(...page.results);
    pages += 1;
    token = typeof page.paginationToken === 'string' ? page.paginationToken : undefined;
  } while (token);
  return { pages, results };
}

/** What the editor does to fill an options dropdown: call the node's loadOptions method. */
export async function loadOptions(host: Host, method: string): Promise<INodePropertyOptions[]> {
  const node = leadChatNode({ resource: 'conversation', operation: 'getAll' });
  const workflow = buildWorkflow(host, { nodes: [node] });
  const context = new LoadOptionsContext(workflow, node, additionalData(host), 'filters.assigneeId');
  const nodeType = host.nodeTypes.getByNameAndVersion(LEADCHAT, 1);
  const load = nodeType.methods?.loadOptions?.[method];
  if (!load) throw new Error(`no loadOptions method ${method}`);
  return await load.call(context);
}
