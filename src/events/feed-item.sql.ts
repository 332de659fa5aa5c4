/**
 * An outbox row as GET /events shows it, `{id, event, timestamp, livemode, data}`, as compact JSON
 * text: `data` is exactly the webhook payload's data and `timestamp` is rendered as the API renders
 * times. Written once, when the event gets its feed position; a page is then these texts joined.
 * `row` is the alias of `outbox_events` in the statement.
 */
export const feedItemSql = (row: string) =>
  `'{"id":' || to_json(${row}.id)::text || ',"event":' || to_json(${row}.event)::text
  || ',"timestamp":"' || api_timestamp(${row}.created_at) || '","livemode":' || ${row}.livemode::text
  || ',"data":' || ${row}.data::text || '}'`;
