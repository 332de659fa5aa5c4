/**
 * An outbox row as GET /events shows it, compact JSON text rendered once when the event is
 * positioned; `data` equals the webhook payload's. `row` is the outbox_events alias.
 */
export const feedItemSql = (row: string) =>
  `'{"id":' || to_json(${row}.id)::text || ',"event":' || to_json(${row}.event)::text
  || ',"timestamp":"' || api_timestamp(${row}.created_at) || '","livemode":' || ${row}.livemode::text
  || ',"data":' || ${row}.data::text || '}'`;
