/** An outbox row as GET /events shows it, as JSON text rendered once, when it is positioned. */
export const feedItemSql = (row: string) =>
  `'{"id":' || to_json(${row}.id)::text || ',"event":' || to_json(${row}.event)::text
  || ',"timestamp":"' || api_timestamp(${row}.created_at) || '","livemode":' || ${row}.livemode::text
  || ',"data":' || ${row}.data::text || '}'`;
