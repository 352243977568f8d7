// node-wpapi against the server: discover the API from the site's home page, then
// list, create, update and delete events with an application password, in the
// namespace given. Prints what it saw as one JSON line; exits non-zero on any failure.
//
//   node check.js <site URL> <login> <application password> <namespace>
const WPAPI = require('wpapi');

const [site, username, password, namespace] = process.argv.slice(2);

async function main() {
  const wp = await WPAPI.discover(site);
  wp.auth({ username, password });
  const api = wp.namespace(namespace);
  const created = await api.events().create({
    title: 'Made by wpapi',
    start_date: '2027-05-01 10:00:00',
    end_date: '2027-05-01 11:00:00',
  });
  const listed = await api.events().param('start_date', '2027-01-01').perPage(50).get();
  const one = await api.events().id(created.id).get();
  const updated = await api.events().id(created.id).update({ title: 'Renamed by wpapi' });
  const deleted = await api.events().id(created.id).param('force', true).delete();
  const after = await api.events().param('start_date', '2027-01-01').perPage(50).get();
  console.log(JSON.stringify({
    endpoint: wp._options.endpoint,
    created: { id: created.id, title: created.title },
    listed: listed.events.map((e) => e.id),
    total: listed._paging ? listed._paging.total : null,
    one: one.title,
    updated: updated.title,
    deleted: deleted.id,
    after: after.events.map((e) => e.id),
  }));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
