import type { INodeProperties } from 'n8n-workflow';

/** Shows the given parameters only for one operation of one resource. */
export function forOperation(resource: string, operation: string, properties: INodeProperties[]): INodeProperties[] {
  return properties.map((property) => ({
    ...property,
    displayOptions: {
      ...property.displayOptions,
      show: { ...property.displayOptions?.show, resource: [resource], operation: [operation] },
    },
  }));
}
