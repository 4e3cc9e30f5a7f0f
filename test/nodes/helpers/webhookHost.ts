/**
 * The part of n8n that serves production webhooks, small: an HTTP server that hands each request to the
 * trigger's webhook() (with the raw body, as n8n keeps it) and, when it returns workflow data, runs the workflow.
 * It also drives the trigger's lifecycle (checkExists / create / delete) the way n8n does on (de)activation.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { HookContext, WebhookContext } from 'n8n-core';
import type {
  ICredentialDataDecryptedObject,
  IDataObject,
  INode,
  IWebhookData,
  IWebhookDescription,
  IWebhookFunctions,
  IHookFunctions,
  INodeType,
  Workflow,
} from 'n8n-workflow';

import {
  additionalData,
  buildWorkflow,
  createHost,
  runWorkflow,
  type Host,
  type RunResult,
  type WorkflowSpec,
} from './n8n';

export interface Delivery {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export class WebhookHost {
  readonly executions: RunResult[] = [];
  readonly deliveries: Delivery[] = [];
  /** While set, what a proxy in front of n8n answers every request with, the trigger not reached (410 Gone…). */
  answerInstead: number | undefined;
  private waiters: Array<() => void> = [];
  private running: Promise<unknown>[] = [];

  private constructor(
    readonly host: Host,
    readonly spec: WorkflowSpec,
    readonly workflow: Workflow,
    readonly trigger: INode,
    private readonly server: http.Server,
  ) {}

  /** Starts the server, then builds the workflow whose trigger node is `triggerName`. */
  static async start(
    credentials: Record<string, ICredentialDataDecryptedObject>,
    spec: WorkflowSpec,
    triggerName: string,
  ): Promise<WebhookHost> {
    let handler: http.RequestListener = () => {};
    const server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const host = await createHost(credentials, `http://127.0.0.1:${port}/webhook`);
    const workflow = buildWorkflow(host, spec, true);
    const trigger = workflow.getNode(triggerName);
    if (!trigger) throw new Error(`no node ${triggerName}`);
    const webhookHost = new WebhookHost(host, spec, workflow, trigger, server);
    handler = (req, res) => void webhookHost.handle(req, res);
    return webhookHost;
  }

  get nodeType(): INodeType {
    return this.host.nodeTypes.getByNameAndVersion(this.trigger.type, this.trigger.typeVersion);
  }

  private webhookData(): IWebhookData {
    const description = this.nodeType.description.webhooks![0] as IWebhookDescription;
    return {
      httpMethod: 'POST',
      node: this.trigger.name,
      path: `${this.trigger.webhookId}/webhook`,
      webhookDescription: description,
      workflowId: this.workflow.id,
      workflowExecuteAdditionalData: additionalData(this.host),
    } as IWebhookData;
  }

  /** The production URL n8n shows for the trigger. */
  get url(): string {
    return this.hookContext().getNodeWebhookUrl('default')!;
  }

  /** The trigger's static data, where n8n keeps what create() stored. */
  get staticData(): IDataObject {
    return this.workflow.getStaticData('node', this.trigger);
  }

  private hookContext(): IHookFunctions {
    return new HookContext(
      this.workflow,
      this.trigger,
      additionalData(this.host),
      'trigger',
      'activate',
      this.webhookData(),
    );
  }

  /** What n8n does when the workflow is activated: create the webhook unless checkExists says it is there. */
  async activate(): Promise<void> {
    const methods = this.nodeType.webhookMethods!.default!;
    if (!(await methods.checkExists.call(this.hookContext()))) await methods.create.call(this.hookContext());
  }

  async checkExists(): Promise<boolean> {
    return await this.nodeType.webhookMethods!.default!.checkExists.call(this.hookContext());
  }

  async deactivate(): Promise<void> {
    await this.nodeType.webhookMethods!.default!.delete.call(this.hookContext());
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const expectedPath = new URL(this.url).pathname;
    type ExpressLike = http.ServerResponse & {
      status(code: number): ExpressLike;
      json(body: unknown): ExpressLike;
      send(body: unknown): ExpressLike;
    };
    const response = res as ExpressLike;
    response.status = (code: number) => {
      res.statusCode = code;
      return response;
    };
    response.json = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
      return response;
    };
    response.send = (body: unknown) => {
      res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
      return response;
    };
    const finish = () => {
      this.deliveries.push({ status: res.statusCode, body: rawBody.toString('utf8'), headers: req.headers });
      this.notify();
    };
    res.on('finish', finish);

    if (this.answerInstead !== undefined) {
      response.status(this.answerInstead).json({ message: 'Answered before n8n' });
      return;
    }
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== expectedPath) {
      response.status(404).json({ message: 'The requested webhook is not registered' });
      return;
    }
    let body: IDataObject = {};
    try {
      body = rawBody.length ? (JSON.parse(rawBody.toString('utf8')) as IDataObject) : {};
    } catch {
      body = {};
    }
    const request = Object.assign(req, {
      rawBody,
      body,
      query: {},
      params: {},
      header: (name: string) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      },
    });
    const data = { ...additionalData(this.host), httpRequest: request, httpResponse: response } as never;
    const context: IWebhookFunctions = new WebhookContext(
      this.workflow,
      this.trigger,
      data,
      'webhook',
      this.webhookData(),
      [],
      null,
    );
    try {
      const result = await this.nodeType.webhook!.call(context);
      if (result.noWebhookResponse) return;
      if (!result.workflowData) {
        response.status(200).json(result.webhookResponse ?? { message: 'Webhook call received' });
        return;
      }
      response.status(200).json({ message: 'Workflow was started' });
      const execution = runWorkflow(this.host, this.spec, this.trigger.name, result.workflowData[0], 'webhook').then(
        (run) => {
          this.executions.push(run);
          this.notify();
        },
      );
      this.running.push(execution);
    } catch (error) {
      response.status(500).json({ message: (error as Error).message });
    }
  }

  private notify() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves once `predicate` holds, re-checked after every delivery and execution. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.running);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
