import {
  NodeApiError,
  NodeConnectionTypes,
  NodeOperationError,
  sleep,
  type IDataObject,
  type IExecuteFunctions,
  type INode,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';

import { searchCampaigns } from './methods/campaignSearch';
import { searchContacts } from './methods/contactSearch';
import { searchConversations } from './methods/conversationSearch';
import { getLabels } from './methods/labelOptions';
import { searchLists } from './methods/listSearch';
import { getAssignees, searchMembers } from './methods/memberSearch';
import * as campaign from './resources/campaign';
import * as contact from './resources/contact';
import * as conversation from './resources/conversation';
import * as credit from './resources/credit';
import * as lead from './resources/lead';
import * as list from './resources/list';
import * as message from './resources/message';
import * as subAccount from './resources/subAccount';
import { readRunOptions, runOptions } from './shared/descriptions';
import { failedMessageFields } from './shared/failedMessage';
import { ItemWithFile, type Operation } from './shared/types';

const resources: Record<string, Record<string, Operation>> = {
  lead: lead.operations,
  contact: contact.operations,
  conversation: conversation.operations,
  list: list.operations,
  message: message.operations,
  credit: credit.operations,
  campaign: campaign.operations,
  subAccount: subAccount.operations,
};

/** Any failure of one item as the error n8n shows, tied to that item. */
function itemError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) {
    if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
    return error;
  }
  return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
}

export class LeadChat implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'LeadChat',
    name: 'leadChat',
    icon: { light: 'file:leadchat.svg', dark: 'file:leadchat.dark.svg' },
    group: ['output'],
    // Saved workflows keep the version they were made with: a change that would alter what one does (a parameter
    // renamed or removed, a default or an output changed) adds the next version here and branches on
    // this.getNode().typeVersion (README, "Changing the nodes"). Version 2: contacts and conversations are picked
    // (resource locators) where version 1 took their IDs as text, and Simplify is on by default for the AI tool.
    version: [1, 2],
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description:
      'Capture leads into AI sales-chat campaigns, create campaigns and test their bot, manage contacts, lists and conversations, exchange custom-channel messages, read credit balances and grant credits to sub-accounts',
    defaults: {
      name: 'LeadChat',
    },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      {
        name: 'leadChatApi',
        required: true,
      },
    ],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Campaign', value: 'campaign' },
          { name: 'Contact', value: 'contact' },
          { name: 'Conversation', value: 'conversation' },
          { name: 'Credit', value: 'credit' },
          { name: 'Lead', value: 'lead' },
          { name: 'List', value: 'list' },
          { name: 'Message', value: 'message' },
          { name: 'Sub-Account', value: 'subAccount' },
        ],
        default: 'lead',
      },
      ...lead.description,
      ...contact.description,
      ...conversation.description,
      ...list.description,
      ...message.description,
      ...credit.description,
      ...campaign.description,
      ...subAccount.description,
      runOptions,
    ],
  };

  methods = {
    listSearch: {
      searchCampaigns,
      searchContacts,
      searchConversations,
      searchLists,
      searchMembers,
    },
    loadOptions: {
      getAssignees,
      getLabels,
    },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const resource = this.getNodeParameter('resource', 0) as string;
    const operationName = this.getNodeParameter('operation', 0) as string;
    const operation = resources[resource]?.[operationName];
    if (!operation) {
      throw new NodeOperationError(
        this.getNode(),
        `The operation "${operationName}" of resource "${resource}" is not supported`,
      );
    }
    const { settings, batching } = readRunOptions.call(this);

    const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
      try {
        const result = await operation.execute.call(this, itemIndex, settings);
        if (result instanceof ItemWithFile) {
          return [{ json: result.json, binary: result.binary, pairedItem: { item: itemIndex } }];
        }
        const outputs: IDataObject[] = Array.isArray(result) ? result : [result];
        return outputs.map((json) => ({ json, pairedItem: { item: itemIndex } }));
      } catch (caught) {
        const error = itemError(this.getNode(), caught, itemIndex);
        if (this.continueOnFail()) {
          const json: IDataObject = { error: error.message };
          if (error.description) json.details = error.description;
          // n8n sends an item to the error output (On Error › Continue (using error output)) only when its json
          // holds error, message and details alone: there, the description says the status, the code and the
          // failed message's ID in words.
          if (this.getNode().onError !== 'continueErrorOutput') {
            if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
            Object.assign(json, failedMessageFields(error));
          }
          return [{ json, pairedItem: { item: itemIndex } }];
        }
        throw error;
      }
    };

    const returnData: INodeExecutionData[] = [];
    if (!batching) {
      for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
        returnData.push(...(await runItem(itemIndex)));
      }
      return [returnData];
    }

    for (let start = 0; start < items.length; start += batching.batchSize) {
      if (start > 0 && batching.batchInterval > 0) await sleep(batching.batchInterval);
      const indexes = Array.from(
        { length: Math.min(batching.batchSize, items.length - start) },
        (_, offset) => start + offset,
      );
      const settled = await Promise.allSettled(indexes.map(runItem));
      for (const outcome of settled) {
        if (outcome.status === 'rejected') {
          throw itemError(this.getNode(), outcome.reason, indexes[settled.indexOf(outcome)]);
        }
        returnData.push(...outcome.value);
      }
    }
    return [returnData];
  }
}
