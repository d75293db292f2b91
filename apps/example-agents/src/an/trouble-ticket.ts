import { AgentFailure } from '@parley/agent-sdk';
import { openTicket, parseTicketRequest, type TroubleTicket } from '@parley/examples';
import { toParleyError, type JsonObject } from '@parley/protocol';
import type { RoleFactory } from './host';
import { isObject, jsonDataParams, pick } from './params';

/**
 * The trouble-ticket agent (`TMF-Acme-TroubleTicket-v1`): executes ticket
 * tasks at once (sync, use case 2.1 step 6) and answers with the ticket.
 */
export const troubleTicketRole: RoleFactory = (ctx) => {
  const tickets: Array<TroubleTicket & { task_id: string; requested_by: string }> = [];
  return {
    async handler(task, tctx) {
      const params = await jsonDataParams(task, tctx);
      let request;
      try {
        request = parseTicketRequest(pick(params, (v) => isObject(v) && 'diagnosis' in v, 'ticket request (correlation and diagnosis)'));
      } catch (e) {
        throw new AgentFailure(toParleyError(e).message, 'bad_ticket_request');
      }
      const ticket = openTicket(request, tickets.length + 1, ctx.now());
      tickets.push({ ...ticket, task_id: task.task_id, requested_by: task.send_from });
      return ticket as unknown as JsonObject;
    },
    state: () => ({ tickets }),
  };
};
