//! Paging through a list as a client does: by `next_rest_url`, to its end.

use super::{Auth, Resp, TestApp};

/// The IDs of `collection`'s list (`events`, `venues`, `organizers`), in order.
pub fn ids_of(r: &Resp, collection: &str) -> Vec<i64> {
    r.body[collection]
        .as_array()
        .unwrap_or_else(|| panic!("no {collection} in {}", r.text))
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect()
}

/// Every page of `collection?query`, following `next_rest_url`: the IDs in order, and
/// each page's (total, whether it is a floor: `X-Calendar-Total: at-least`). Each
/// page's `total` is its `X-WP-Total`.
pub async fn every_page(
    app: &TestApp,
    collection: &str,
    query: &str,
    auth: &Auth,
) -> (Vec<i64>, Vec<(u64, bool)>) {
    let mut url = format!("{collection}?{query}");
    let (mut all, mut totals) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let r = app.get_as(&url, auth).await;
        r.assert(200);
        let total = r.body["total"].as_u64().unwrap();
        assert_eq!(r.header("x-wp-total"), Some(total.to_string().as_str()));
        let floor = r.header("x-calendar-total") == Some("at-least");
        totals.push((total, floor));
        all.extend(ids_of(&r, collection));
        match r.body["next_rest_url"].as_str() {
            Some(next) => url = next.split_once("/calendar/events/v1/").unwrap().1.into(),
            None => return (all, totals),
        }
    }
    panic!("more than 100 pages of {collection}?{query}");
}
